"""vLLM results appended one a line (`vllm bench serve --append-result`, or a script collecting
results the same way): one load point per line, each read as a single vLLM result is.

The format is not in `reportgen.formats.registry` yet (the loader's owner wires it, and reads a
`.json` file of several lines as JSON Lines); these tests run its stages as the loader does:
parse as JSON Lines, detect, check the schema, parse. The example
(tests/examples/lines/vllm-appended-results.jsonl) was written by hand with invented numbers, in
the shape of a real collected file of May 2025 (benchmarks/benchmark_serving.py with
`--metadata` pairs and its `"request_goodput:"` key): rates 10, 30 and inf, then 10 again with
another deployment.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reportgen.errors import Problem
from reportgen.formats.json_input.lines import parse_json_lines
from reportgen.formats.load import load, source_file
from reportgen.formats.schema.validate import check
from reportgen.formats.vllm import appended, bench_serve
from reportgen.metrics.compute import compute
from reportgen.model import Provenance, SweepRun

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "lines" / "vllm-appended-results.jsonl"
VALID_EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "valid"


def _read(text: str, label: str = "results.jsonl") -> tuple[SweepRun | None, list[Problem]]:
    """The loader's steps for a JSON Lines file, with this format."""
    doc = parse_json_lines(label, text.encode())
    found = appended.detect(doc.data)
    assert found is not None
    if found.refusal:
        return None, [doc.problem(found.base, found.refusal)]
    problems = [doc.problem(p.pointer, p.message) for p in check(found.schema, doc.data)]
    if problems:
        return None, problems
    fmt = appended.FORMAT
    source = source_file(fmt, "", label, doc.sha256, Provenance(status="measured"))
    return appended.parse(doc, found.base, source)


def _records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()]


def test_each_line_is_a_load_point_with_vllms_own_numbers() -> None:
    run, problems = _read(EXAMPLE.read_text(encoding="utf-8"))
    assert run is not None and problems == []
    records = _records()
    assert [p.label for p in run.points] == ["r10-b0", "r30", "burst", "r10-b3"]
    assert [p.pointer for p in run.points] == ["/0", "/1", "/2", "/3"]
    values = {v.id: v for v in compute([run]).values}
    for record, point in zip(records, run.points, strict=True):
        at = point.label
        ttft = values[f"load.{at}.ttft_s"]
        assert ttft.value * 1000 == pytest.approx(record["median_ttft_ms"], rel=1e-12)
        assert (ttft.source, ttft.pointer) == ("summary", f"{point.pointer}/median_ttft_ms")
        itl = values[f"load.{at}.itl_s"].value * 1000
        assert itl == pytest.approx(record["median_tpot_ms"], rel=1e-12)
        out = values[f"load.{at}.output_tok_s"]
        assert out.value == pytest.approx(record["output_throughput"], rel=1e-12)
        assert out.summary_pointer == f"{point.pointer}/output_throughput"
        assert values[f"load.{at}.requests"].value == record["completed"]


def test_the_settings_every_line_shares_are_the_runs() -> None:
    run, _ = _read(EXAMPLE.read_text(encoding="utf-8"))
    assert run is not None
    settings = dict(run.settings)
    assert settings["gpu"] == "2xExampleGPU" and settings["backend"] == "vllm"
    assert "deployment" not in settings and "request_rate" not in settings  # they vary
    assert run.model == "example/Tiny-1B"
    assert run.source.format == "vllm-bench-lines" and run.source.tool == "vllm bench serve"


def test_a_problem_is_located_at_its_line() -> None:
    records = _records()
    records[1]["output_throughput"] *= 2
    records[2]["median_ttft_ms"] = -1
    text = "".join(json.dumps(r) + "\n" for r in records)
    run, problems = _read(text)
    assert run is None
    (problem,) = problems
    assert (problem.line, problem.pointer) == (3, "/2/median_ttft_ms")
    records[2]["median_ttft_ms"] = 1.0
    run, problems = _read("".join(json.dumps(r) + "\n" for r in records))
    assert run is not None
    (warning,) = problems
    assert (warning.line, warning.pointer) == (2, "/1/output_throughput")
    assert warning.severity == "warning"


def test_a_line_where_every_request_failed_is_a_failed_point() -> None:
    records = _records()
    records[0].update(completed=0, total_output_tokens=0, output_throughput=0.0)
    run, problems = _read("".join(json.dumps(r) + "\n" for r in records))
    assert run is not None
    assert [p.pointer for p in problems] == ["/0/completed"]
    assert run.points[0].status == "failed" and run.points[0].requests_failed == 200
    # beside the points that completed, the failed one shows its counts and no latency
    values = {v.id: v.value for v in compute([run]).values}
    assert (values["load.r10-b0.requests"], values["load.r10-b0.failed"]) == (0, 200)
    assert values["load.r10-b0.rate"] == 10
    assert "load.r10-b0.ttft_s" not in values and "load.r10-b3.ttft_s" in values


def test_detection_is_vllms_and_not_sglangs() -> None:
    doc = parse_json_lines("x.jsonl", EXAMPLE.read_bytes())
    found = appended.detect(doc.data)
    assert found is not None and found.schema == "vllm-bench-lines"
    sglang = {"0": {"backend": "sglang", "dataset_name": "random", "random_input_len": 1}}
    assert appended.detect(sglang) is None
    assert appended.detect({}) is None


def test_a_line_without_its_results_is_refused_as_a_single_file_is() -> None:
    record = {k: v for k, v in _records()[0].items() if k not in ("duration", "completed")}
    run, problems = _read(json.dumps(record) + "\n")
    assert run is None
    (problem,) = problems
    assert problem.message.startswith("a vLLM bench serve result without its results")
    assert bench_serve.detect(record) is not None


def test_results_appended_to_a_json_file_read_as_json_lines(tmp_path: Path) -> None:
    """vLLM's `--append-result` adds one result a line to a file named .json: the JSON reader
    stops after the first value, and the loader then reads the file as JSON Lines."""
    lines = [
        json.dumps(json.loads((VALID_EXAMPLES / name).read_text(encoding="utf-8")))
        for name in ("vllm-serve-summary.json", "vllm-benchmark-serving.json")
    ]
    path = tmp_path / "results.json"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = load([path])
    assert [p.message for p in result.problems] == []
    (run,) = result.runs
    assert isinstance(run, SweepRun)
    assert run.source.format == "vllm-bench-lines" and len(run.points) == 2


def test_a_json_file_of_two_values_that_are_not_records_keeps_its_json_error(
    tmp_path: Path,
) -> None:
    path = tmp_path / "results.json"
    path.write_text("[1]\n[2]\n", encoding="utf-8")
    (problem,) = load([path]).problems
    assert (problem.line, problem.message) == (
        2,
        "invalid JSON: more data after the end of the top-level value",
    )


def test_an_infinite_burstiness_as_vllm_writes_it_reads(tmp_path: Path) -> None:
    text = (VALID_EXAMPLES / "vllm-serve-summary.json").read_text(encoding="utf-8")
    assert '"burstiness": 1.0' in text
    path = tmp_path / "inf.json"
    path.write_text(text.replace('"burstiness": 1.0', '"burstiness": Infinity'), "utf-8")
    result = load([path])
    assert result.problems == () and len(result.runs) == 1
