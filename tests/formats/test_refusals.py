"""Files reportgen does not read get a refusal a user of the tool would accept, and a file that
reads but measures nothing is an error, never "ok" (reportgen.formats.refusals,
reportgen.metrics.measured, reportgen.init.scaffold)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers_runs import VALID, bench_cell, bench_run, lmx_run, to_bytes

from reportgen.cli.main import main
from reportgen.errors import InputError, Problem
from reportgen.formats.json_input.document import parse_json
from reportgen.formats.json_input.lines import parse_json_lines
from reportgen.formats.load import load, load_document
from reportgen.formats.registry import FORMATS


def _problems(tmp_path: Path, name: str, content: bytes) -> list[str]:
    path = tmp_path / name
    path.write_bytes(content)
    result = load([path])
    assert not result.runs
    return [p.message for p in result.problems]


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        (
            "report.html",
            b"<!DOCTYPE html>\n<html><head><title>GuideLLM Benchmark Report</title></head></html>",
            "this is a GuideLLM HTML report, not a run file: reportgen reads the benchmarks.json",
        ),
        (
            "benchmarks.csv",
            b"Run Info,Run Info,Run Info,Benchmark,Benchmark\nModel,Model Path,Task,Type,Rate\n",
            "this is a GuideLLM CSV report, not a run file: reportgen reads the benchmarks.json",
        ),
        (
            "profile_export_aiperf.csv",
            b"Metric,avg,min,max,p1,p50,p99,std\nTime to First Token (ms),12.5,10,20,10,12,19,2\n",
            "this is an AIPerf CSV summary (profile_export_aiperf.csv)",
        ),
        (
            "profile_export_genai_perf.csv",
            b"Metric,avg,min,max,p99,p90,p50,std\nTime to First Token (ms),12.5,10,20,19,15,12,2\n",
            "this is a GenAI-Perf CSV summary (profile_export_genai_perf.csv)",
        ),
        (
            "page.html",
            b"<html><body>results</body></html>",
            "this is an HTML page, not a run file",
        ),
        ("table.csv", b"context,tok_s\n1024,55.2\n", "this is a CSV table, not a run file"),
    ],
)
def test_a_tools_other_file_is_named_with_the_file_to_read(
    tmp_path: Path, name: str, content: bytes, said: str
) -> None:
    (message,) = _problems(tmp_path, name, content)
    assert message.startswith(said)


def test_perf_analyzers_raw_export_points_to_genai_perfs_summary(tmp_path: Path) -> None:
    raw = {"experiments": [{"experiment": {"mode": "concurrency", "value": 1}, "requests": []}]}
    (message,) = _problems(tmp_path, "profile_export.json", json.dumps(raw).encode())
    assert "profile_export_genai_perf.json" in message


def test_broken_json_keeps_its_own_located_error(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_bytes(b'{"a": 1, "b"\n')
    (problem,) = load([path]).problems
    assert (problem.line, problem.message) == (2, "file ends in the middle of a value (truncated?)")


def _with_marks(marks: tuple[str, ...]) -> dict[str, Any]:
    """A document holding every pointer of `marks` (each leaf a number)."""
    doc: dict[str, Any] = {}
    for mark in marks:
        node = doc
        *parents, leaf = mark.strip("/").split("/")
        for token in parents:
            node = node.setdefault(token, {})
        node.setdefault(leaf, 1)
    return doc


MARKED = [f for f in FORMATS if len(f.marks) >= 2]


def _present(node: Any, pointer: str) -> bool:
    for token in pointer.split("/"):
        if not isinstance(node, dict) or token not in node:
            return False
        node = node[token]
    return True


@pytest.mark.parametrize("fmt", MARKED, ids=[f.name for f in MARKED])
def test_a_file_near_a_format_names_only_keys_it_lacks(fmt: Any) -> None:
    """Each format's marks less one: the file is read, named as a tool's other file, or named
    near a format with keys it does not have (never one it has)."""
    named_near = 0
    for dropped in fmt.marks:
        item = _with_marks(tuple(m for m in fmt.marks if m != dropped))
        data = [item] if fmt.top_list else item
        doc = (
            parse_json_lines("near.jsonl", json.dumps(item).encode() + b"\n")
            if fmt.lines
            else parse_json("near.json", to_bytes(data), top_list=fmt.top_list)
        )
        _run, problems = load_document(doc)
        near = [p.message for p in problems if "nearest is" in p.message]
        for message in near:
            lacks = message.split(", but it lacks ", 1)[1].removesuffix(" (in its first item)")
            assert not any(_present(item, key) for key in lacks.split(", ")), message
            named_near += 1
    assert named_near or not fmt.marks, "no mark is needed to recognise the format"


def test_an_lmx_run_without_its_speed_is_named_near_lmx() -> None:
    data = lmx_run()
    del data["tokSOut"]
    run, problems = load_document(parse_json("run.json", to_bytes(data)))
    assert run is None
    assert [p.message for p in problems] == [
        "not a run file reportgen knows: nearest is an lmx speed-test run, but it lacks "
        "tokSOut, samples"
    ]


def test_json_of_no_layout_says_what_reportgen_reads() -> None:
    run, problems = load_document(parse_json("x.json", b'{"hello": "world"}'))
    (problem,) = problems
    assert run is None and problem.message.startswith(
        "not a run file reportgen knows: JSON of no layout it reads; it reads the run files of "
    )
    for fmt in FORMATS:
        assert fmt.tool in problem.message


# --- a file that reads but measures nothing ----------------------------------------------------


def _skipped_only(tmp_path: Path) -> Path:
    """A bench file whose only cell was skipped by the user: it validates, and measures nothing."""
    path = tmp_path / "skipped.json"
    cell = bench_cell(aggregate_tps=-2, tokens=None, seconds=None)
    path.write_bytes(to_bytes(bench_run(cell)))
    return path


def test_validate_and_metrics_fail_on_a_file_that_yields_no_metric(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _skipped_only(tmp_path)
    expected = (
        f"{path}:1:1 /: read as llm-inference-bench 0.7.7, but it yields no metric at all: none "
        "of its load points, cells or requests holds a value reportgen computes (not even a "
        "count)\n"
    )
    assert main(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == (expected, "invalid: 0 valid run file(s), 1 error(s), 0 warning(s)\n")
    assert main(["metrics", str(path)]) == 2
    assert capsys.readouterr().err == expected


def test_init_refuses_a_file_that_yields_no_metric_at_that_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _skipped_only(tmp_path)
    assert main(["init", str(tmp_path / "article"), "--from", str(path)]) == 2
    out, err = capsys.readouterr()
    assert f"{path}:1:1 /: read as llm-inference-bench" in out + err
    assert ".init-" not in out + err
    assert not (tmp_path / "article").exists()


def test_init_places_a_trial_build_problem_outside_its_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The trial build cannot fail on valid files today; its failure is injected here to hold
    init to naming the user's run file, or the file it would have written, never its own
    temporary folder (which is gone by the time the user reads the message)."""
    source = tmp_path / "in" / "run.json"
    source.parent.mkdir()
    source.write_bytes(to_bytes(bench_run()))
    import reportgen.article.build as build

    def fails(work: Path) -> None:
        raise InputError(
            [
                Problem(
                    path="run.json",
                    line=3,
                    col=5,
                    pointer="/results/0",
                    message="a problem in the run file",
                ),
                Problem(
                    path=str(work / "article.toml"),
                    line=7,
                    col=1,
                    pointer="",
                    message="a problem in the manifest",
                ),
            ]
        )

    monkeypatch.setattr(build, "render_article", fails)
    from reportgen.init.scaffold import scaffold

    folder = tmp_path / "article"
    with pytest.raises(InputError) as raised:
        scaffold(folder, [source])
    shown = [p.format() for p in raised.value.problems]
    assert shown == sorted(
        [
            f"{source}:3:5 /results/0: a problem in the run file",
            f"{folder / 'article.toml'}:7:1 /: a problem in the manifest (in the article.toml "
            f"init made for {folder} from these run files; nothing was written: report this "
            "with the run files)",
        ]
    )
    assert not folder.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["in"]  # no temporary folder left behind


def test_one_json_lines_record_saved_as_json_is_told_to_be_named_jsonl(tmp_path: Path) -> None:
    first = (VALID / "sglang-c1.jsonl").read_text(encoding="utf-8").splitlines()[0]
    record = json.loads(
        first, parse_constant=lambda _: 1.0
    )  # request_rate Infinity: only in .jsonl
    (message,) = _problems(tmp_path, "result.json", json.dumps(record).encode())
    assert message == (
        "not a run file reportgen knows as JSON: it is one record of an SGLang bench_serving "
        ".jsonl file (one record a line), which reportgen reads as JSON Lines: name the file .jsonl"
    )
