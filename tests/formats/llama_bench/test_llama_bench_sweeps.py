"""llama-bench as people run it: comma-list sweeps, `-o jsonl`, outputs appended to one file,
older builds, and stderr written into a JSON Lines file.

The files are hand-made examples with my own numbers, in the shapes real files have (see
tests/formats/llama_bench/test_llama_bench_wild.py for the real ones):

- tests/examples/valid/llama-bench-sweep.json: `-p 256,512 -n 64 -d 0,1024 -fa 0,1`, build 7200;
- tests/examples/valid/llama-bench-models.jsonl: `-o jsonl`, two models, `-d 0,4096`;
- tests/examples/llama-bench/llama-bench-appended.json: two `-o json` arrays back to back, two
  builds (kept apart from valid/, whose `.json` files other tests read as one JSON value each);
- tests/examples/valid/llama-bench-old-build.json: a 2024 build: backend booleans, f16_kv, no
  n_depth, no samples_ts, no backends;
- tests/examples/invalid/llama-bench-log-lines.jsonl: `-o jsonl` with the backend's stderr in it.

Every expected number is read from the file under test, never typed here.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from reportgen.article.build import build
from reportgen.article.rundata import article_metrics
from reportgen.article.tables.layout import table_views
from reportgen.check.compare import check_article
from reportgen.errors import Problem
from reportgen.formats.json_input.document import line_col, parse_json
from reportgen.formats.llama_bench import results
from reportgen.formats.llama_bench.concatenated import (
    ConcatenatedDocument,
    LoggedLinesDocument,
    concatenated,
    with_log_lines,
)
from reportgen.formats.load import load, load_document, parse_run_file
from reportgen.init.scaffold import scaffold
from reportgen.metrics.compute import compute
from reportgen.metrics.lints import lint
from reportgen.metrics.registry import MetricSet, coordinates
from reportgen.model import MatrixRun

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SWEEP = EXAMPLES / "valid" / "llama-bench-sweep.json"
MODELS = EXAMPLES / "valid" / "llama-bench-models.jsonl"
APPENDED = EXAMPLES / "llama-bench" / "llama-bench-appended.json"
OLD = EXAMPLES / "valid" / "llama-bench-old-build.json"
LOGGED = EXAMPLES / "invalid" / "llama-bench-log-lines.jsonl"
SPEEDS = ("prefill.tok_s", "decode.aggregate_tok_s")


def _tests(path: Path) -> list[dict[str, Any]]:
    """The file's tests in order, read by plain json (a line each, or one array after another)."""
    text, out, at = path.read_text(encoding="utf-8"), [], 0
    decoder = json.JSONDecoder()
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        if text[at] not in "[{":  # a log line
            at = text.index("\n", at) + 1
            continue
        value, at = decoder.raw_decode(text, at)
        out += value if isinstance(value, list) else [value]
    return out


def _run(path: Path) -> tuple[MatrixRun, tuple[Problem, ...]]:
    result = load([path])
    (run,) = result.runs
    assert isinstance(run, MatrixRun)
    return run, result.problems


def _speeds(metrics: MetricSet) -> dict[int, float]:
    """Each test's speed value, by the test's index in the file."""
    out = {}
    for v in metrics.values:
        if v.key in SPEEDS and v.stat is None:
            index = int(v.pointer.split("/")[1])
            assert index not in out, v.id
            out[index] = v.value
    return out


@pytest.mark.parametrize("path", [SWEEP, MODELS, APPENDED, OLD, LOGGED], ids=lambda p: p.name)
def test_every_test_is_one_value_equal_to_its_own_avg_ts(path: Path) -> None:
    run, problems = _run(path)
    assert all(p.severity == "warning" for p in problems)
    tests = _tests(path)
    metrics = compute([run])
    assert _speeds(metrics) == {i: t["avg_ts"] for i, t in enumerate(tests)}
    ids = [v.id for v in metrics.values]
    assert len(ids) == len(set(ids))
    for v in metrics.values:  # every id parses back to its own coordinates
        found = coordinates(v.id)
        assert found is not None and found[0] == v.key, v.id
        assert found[1].get("point") == v.point, v.id


def test_a_sweep_names_what_varies_and_only_that() -> None:
    run, problems = _run(SWEEP)
    assert problems == ()
    tests = _tests(SWEEP)
    fas = sorted({t["flash_attn"] for t in tests})
    prompts = sorted({t["n_prompt"] for t in tests if t["n_prompt"]})
    assert len(fas) == 2 and len(prompts) == 2  # what the example is
    for point in run.prefill:
        test = tests[int(point.pointer[1:])]
        fa = int(test["flash_attn"])
        assert point.point == f"pp{test['n_prompt']}-fa{fa}"
        axes = dict(point.settings)
        assert axes["meta.config"] == f"fa {fa}"
        assert axes["meta.flash_attn"] == test["flash_attn"]
        assert (axes["meta.n_prompt"], axes["meta.n_depth"]) == (test["n_prompt"], test["n_depth"])
        assert point.context_tokens == test["n_prompt"] + test["n_depth"]
        assert point.cached_tokens == test["n_depth"]
        assert "meta.n_threads" not in axes  # the same in every test: not an axis of the points
    for cell in run.cells:
        test = tests[int(cell.pointer[1:])]
        assert cell.point == f"fa{int(test['flash_attn'])}"  # one n_gen: no tg64 in the id
        assert cell.context_tokens == test["n_depth"]
    assert run.model == Path(tests[0]["model_filename"]).name


@pytest.mark.pdf
def test_init_declares_tables_by_depth_one_column_per_configuration(tmp_path: Path) -> None:
    folder, out = tmp_path / "article", tmp_path / "build"
    scaffold(folder, [SWEEP], title="A sweep")
    toml = (folder / "article.toml").read_text(encoding="utf-8")
    assert toml.count('rows = "meta.n_depth"') == 3  # pp256, pp512, tg64
    assert toml.count('columns = "meta.config"') == 3
    article, metrics = article_metrics(folder)
    tests = _tests(SWEEP)
    views = {v.id: v for v in table_views(article, metrics)}
    assert sorted(views) == ["pp256", "pp512", "tg"]
    by_id = metrics.by_id()
    for view in views.values():
        assert view.columns == ("fa 0", "fa 1")
        for row, cells in view.rows:
            for header, cell in zip(view.columns, cells, strict=True):
                assert cell.metric is not None, (view.id, row, header)
                value = by_id[cell.metric]
                test = tests[int(value.pointer.split("/")[1])]
                assert (f"fa {int(test['flash_attn'])}", row) == (header, _depth(test))
                assert value.value == test["avg_ts"]
    build(folder, out)
    result = check_article(folder, build_dir=out)
    assert not result.failed, [i.message for i in result.items]


def _depth(test: dict[str, Any]) -> str:
    return {0: "0", 1024: "1K", 4096: "4K"}[test.get("n_depth", 0)]


@pytest.mark.pdf
def test_json_lines_of_two_models(tmp_path: Path) -> None:
    run, problems = _run(MODELS)
    assert problems == ()
    assert run.source.format == "llama-bench" and run.model is None  # several models
    tests = _tests(MODELS)
    names = {Path(t["model_filename"]).name for t in tests}
    assert {dict(p.settings)["meta.model"] for p in run.prefill} == names
    for cell in run.cells:
        model = Path(tests[int(cell.pointer[1:])]["model_filename"])
        assert cell.point == model.stem.lower()  # "Small-1B-Q8_0" -> "small-1b-q8_0"
        assert dict(cell.settings)["meta.config"] == model.name
    folder, out = tmp_path / "article", tmp_path / "build"
    made = scaffold(folder, [MODELS])
    assert made.files == (MODELS.name,)
    build(folder, out)
    assert not check_article(folder, build_dir=out).failed


def test_outputs_appended_to_one_file_are_read_as_one() -> None:
    raw = APPENDED.read_bytes()
    doc = parse_run_file(str(APPENDED), raw, APPENDED)
    assert isinstance(doc, ConcatenatedDocument)
    arrays = [json.loads(part) for part in ("[" + p for p in raw.decode().split("\n[")[1:])]
    arrays.insert(0, json.loads(raw.decode().split("\n[")[0]))
    assert len(arrays) == 2
    assert list(doc.data.values()) == arrays[0] + arrays[1]
    # a pointer into the second array is that array's own text
    text = raw.decode()
    second = len(arrays[0])
    line, col = doc.locate(f"/{second}/avg_ts")
    assert text.splitlines()[line - 1][col - 1 :].startswith(str(arrays[1][0]["avg_ts"]))
    run, problems = _run(APPENDED)
    assert problems == ()
    builds = {dict(p.settings)["meta.build"] for p in run.prefill}
    assert builds == {f"b{a[0]['build_number']} ({a[0]['build_commit']})" for a in arrays}
    assert sorted(p.point or "" for p in run.prefill) == sorted(
        f"b{a[0]['build_number']}" for a in arrays
    )


@pytest.mark.parametrize(
    "text",
    [
        '[{"n_prompt": 1, "n_gen": 0}]\n{"x": 1}\n',  # the second value is no test
        '[{"n_prompt": 1, "n_gen": 0}]\n[1]\n',
        '[{"n_prompt": 1, "n_gen": 0}]\nxyz\n',
        '[{"n_prompt": 1, "n_gen": 0, "n_gen": 0}]\n[]\n',  # a duplicate key
        '[{"n_prompt": 1, "n_gen": 0}]',  # one value: not concatenated
    ],
)
def test_what_is_not_outputs_back_to_back_keeps_the_json_readers_problem(
    tmp_path: Path, text: str
) -> None:
    assert concatenated("f.json", text.encode()) is None
    path = tmp_path / "f.json"
    path.write_text(text, encoding="utf-8")
    result = load([path])
    if text.count("[") == 1 and "\n" not in text.strip():
        return  # the one-array file is a plain -o json file, read (or refused) as such
    assert result.runs == ()
    assert [p.severity for p in result.problems] == ["error"] * len(result.problems)


def test_an_old_build_reads_by_the_same_keys() -> None:
    run, problems = _run(OLD)
    assert problems == ()
    tests = _tests(OLD)
    assert all("n_depth" not in t and "samples_ts" not in t and "cuda" in t for t in tests)
    first = tests[0]
    assert run.source.tool == f"llama-bench b{first['build_number']} ({first['build_commit']})"
    assert {p.context_tokens for p in run.prefill} == {
        t["n_prompt"] for t in tests if t["n_prompt"]
    }
    assert {c.context_tokens for c in run.cells} == {0}
    for point in run.prefill:
        assert dict(point.settings)["meta.n_depth"] == 0
    # a test without samples_ns is read from avg_ns and avg_ts alone
    bare = copy.deepcopy(tests)
    for test in bare:
        del test["samples_ns"]
    doc = parse_json("old.json", json.dumps(bare).encode(), top_list=True)
    read, found = load_document(doc)
    assert read is not None and found == []
    assert isinstance(read, MatrixRun) and read.prefill[0].samples is None


def test_log_lines_in_json_lines_are_left_out_with_one_warning() -> None:
    raw = LOGGED.read_bytes()
    doc = parse_run_file(str(LOGGED), raw, LOGGED)
    assert isinstance(doc, LoggedLinesDocument)
    lines = raw.decode().splitlines()
    logs = [i + 1 for i, line in enumerate(lines) if not line.startswith("{")]
    assert [n for n, _ in doc.skipped] == logs
    _, problems = _run(LOGGED)
    (warning,) = problems
    assert (warning.severity, warning.line, warning.col) == ("warning", logs[0], 1)
    assert lines[logs[0] - 1] in warning.message
    first = len(logs)  # the first test's line, 0-based
    avg_ts = lines[first].index('"avg_ts": ') + len('"avg_ts": ')
    assert doc.locate("/0/avg_ts") == (first + 1, line_col(lines[first], avg_ts)[1])
    assert doc.sha256 == hashlib.sha256(raw).hexdigest()  # the file's, not the one read
    # a line that looks like a broken record is not a log line: the file is refused as before
    broken = raw.replace(b'{"build', b'{"build" "', 1)
    assert with_log_lines("f.jsonl", broken) is None
    assert with_log_lines("f.jsonl", raw.replace(b"ggml", b"{ggml")) is None


def test_a_repeated_test_is_the_next_repeat_not_an_error() -> None:
    tests = _tests(SWEEP)
    again = [*tests, copy.deepcopy(tests[0])]
    doc = parse_json("f.json", json.dumps(again).encode(), top_list=True)
    run, problems = load_document(doc)
    assert isinstance(run, MatrixRun) and problems == []
    repeats = [
        dict(p.settings)["meta.repeat"]
        for p in run.prefill
        if p.pointer in ("/0", f"/{len(tests)}")
    ]
    assert Counter(repeats) == Counter([1, 2])
    labels = {dict(p.settings)["meta.config"] for p in run.prefill}
    assert "fa 0, repeat 2" in labels and "fa 1, repeat 1" in labels
    ids = [v.id for v in compute([run]).values]
    assert len(ids) == len(set(ids))


def test_models_of_one_file_name_in_two_folders_still_get_apart() -> None:
    tests = _tests(SWEEP)[:3]
    other = copy.deepcopy(tests)
    for test in other:
        test["model_filename"] = "/elsewhere/" + Path(test["model_filename"]).name
        test["model_size"] += 1
    doc = parse_json("f.json", json.dumps(tests + other).encode(), top_list=True)
    run, problems = load_document(doc)
    assert isinstance(run, MatrixRun) and problems == []
    models = {dict(p.settings)["meta.model"] for p in run.prefill}
    assert models == {t["model_filename"] for t in tests + other}
    ids = [v.id for v in compute([run]).values]
    assert len(ids) == len(set(ids))


def test_lints_follow_each_configuration_along_depth() -> None:
    """Two configurations at one depth are two lines, not a rise along depth; a prompt at depth
    1024 holds its cached tokens too, so it is no context mismatch."""
    run, _ = _run(SWEEP)
    found = lint(compute([run]))
    assert {f.id for f in found} <= {"aggregate-source"}
    tests = _tests(SWEEP)
    rising = copy.deepcopy(tests)
    (deep,) = [
        t for t in rising if t["n_gen"] and t["n_depth"] and not t["flash_attn"]
    ]  # generation at depth 1024 with fa 0, now twice as fast as at depth 0
    deep["samples_ns"] = [s // 2 for s in deep["samples_ns"]]
    deep["avg_ns"] = sum(deep["samples_ns"]) // len(deep["samples_ns"])
    deep["avg_ts"] = sum(deep["n_gen"] * 1e9 / s for s in deep["samples_ns"]) / 3
    doc = parse_json("f.json", json.dumps(rising).encode(), top_list=True)
    read, problems = load_document(doc)
    assert isinstance(read, MatrixRun) and problems == []
    trends = [f for f in lint(compute([read])) if f.id == "throughput-rises-with-context"]
    assert len(trends) == 1 and trends[0].pointer.endswith("/avg_ts")
    assert trends[0].pointer == f"/{rising.index(deep)}/avg_ts"


def test_the_lines_format_is_the_array_format_read_another_way() -> None:
    lines, array = results.LINES_FORMAT, results.FORMAT
    assert (lines.lines, lines.top_list, array.lines, array.top_list) == (True, False, False, True)
    assert (lines.name, lines.parse, lines.detect) == (array.name, array.parse, array.detect)


def test_a_forks_extra_measurements_are_not_settings() -> None:
    """A fork that adds avg_ttft_ms and samples_itl_ns to each test: they differ from test to
    test, and are measurements, so the file still has one configuration."""
    tests = _tests(OLD)
    for k, test in enumerate(tests):
        test.update(avg_ttft_ms=40.5 + k, stddev_ttft_ms=0.1 * k, samples_itl_ns=[4.3e7 + k])
    doc = parse_json("f.json", json.dumps(tests).encode(), top_list=True)
    run, problems = load_document(doc)
    assert isinstance(run, MatrixRun) and problems == []
    assert [p.point for p in run.prefill] == [None] and [c.point for c in run.cells] == [None]
    assert all("meta.config" not in dict(p.settings) for p in run.prefill)


@pytest.mark.pdf
def test_two_llama_bench_files_are_two_runs_not_repetitions(tmp_path: Path) -> None:
    """Files of one model with other settings (here: another build and layout) measure other
    things: init makes each a run of its own, named by its file, and the article builds."""
    folder, out = tmp_path / "article", tmp_path / "build"
    made = scaffold(folder, [SWEEP, OLD])
    assert made.runs == 2
    article, metrics = article_metrics(folder)
    assert [r.label for r in article.runs] == [SWEEP.stem, OLD.stem]
    assert len({r.id for r in article.runs}) == 2  # by what tells them apart: here the model
    assert not [v for v in metrics.values if v.source == "repetitions"]
    for run, path in zip(article.runs, (SWEEP, OLD), strict=True):
        mine = {v.id for v in metrics.values if v.run == run.id and v.key in SPEEDS}
        assert len(mine) == len(_tests(path))
    build(folder, out)
    assert not check_article(folder, build_dir=out).failed


def test_an_array_llama_bench_stopped_writing_reads_its_complete_tests(tmp_path: Path) -> None:
    """llama-bench prints each test as it finishes and `]` at the end: a run that stopped leaves
    the tests it finished. Cut anywhere, the file reads them with one warning at its end, or,
    with no test complete, is refused as truncated."""
    text = SWEEP.read_text(encoding="utf-8").rstrip()
    decoder, ends, at = json.JSONDecoder(), [], text.index("{")
    while at < len(text) and text[at] == "{":
        _, end = decoder.raw_decode(text, at)
        ends.append(end)
        at = end + len(text[end:]) - len(text[end:].lstrip(", \n"))
    path = tmp_path / "cut.json"
    for cut in range(2, len(text) - 1, 89):
        path.write_text(text[:cut], encoding="utf-8")
        result = load([path])
        complete = sum(end <= cut for end in ends)
        if not complete:
            assert result.runs == () and [p.severity for p in result.problems] == ["error"]
            assert "truncated" in result.problems[0].message
            continue
        (run,) = result.runs
        assert isinstance(run, MatrixRun)
        assert len(run.prefill) + len(run.cells) == complete, cut
        (warning,) = result.problems
        assert warning.severity == "warning"
        assert f"after {complete} complete tests" in warning.message
        lines = text[:cut].rstrip().splitlines()
        assert (warning.line, warning.col) == (len(lines), len(lines[-1]) + 1)


def test_a_wrappers_records_around_tests_are_refused_naming_the_file_to_read(
    tmp_path: Path,
) -> None:
    """A benchmark wrapper that writes its own record a line, with llama-bench's test under a
    key (and its power readings beside it), is not llama-bench's output: refused, one error."""
    tests = _tests(SWEEP)[:2]
    lines = [
        json.dumps({"mode": "pp", "avg_power_w": 88.5 + k, "bench_raw": t})
        for k, t in enumerate(tests)
    ]
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = load([path])
    assert result.runs == ()
    (error,) = result.problems
    assert (error.severity, error.line, error.pointer) == ("error", 1, "")
    assert error.message.startswith("/0/bench_raw holds a llama-bench test")
    assert "-o jsonl" in error.message and "avg_power_w" in error.message


@pytest.mark.parametrize(
    ("head", "named"),
    [
        ("| model                  |       size | test   |      t/s |\n| --- | ---: |", "-o md"),
        ('build_commit,build_number,cpu_info\n"abc1234","7001","Example CPU"\n', "-o csv"),
        ("CREATE TABLE IF NOT EXISTS llama_bench (\n  build_commit TEXT,\n", "-o sql"),
        ("CREATE TABLE IF NOT EXISTS test (\n  build_commit TEXT,\n", "-o sql"),
    ],
)
def test_llama_benchs_other_outputs_are_named_with_the_option_to_use(
    tmp_path: Path, head: str, named: str
) -> None:
    path = tmp_path / "bench.json"
    path.write_text(head, encoding="utf-8")
    (error,) = load([path]).problems
    assert (error.severity, error.line, error.col) == ("error", 1, 1)
    assert error.message.startswith("a llama-bench ") and named in error.message
    assert "run llama-bench again with -o json" in error.message
