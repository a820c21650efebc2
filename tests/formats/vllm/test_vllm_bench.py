"""vLLM `vllm bench serve --save-result` files: one load point each, read from the requests'
arrays when the file has them (`--save-detailed`) and from vLLM's own statistics when not."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from reportgen.formats.json_input.document import parse_json
from reportgen.formats.load import load_document
from reportgen.metrics.compute import compute
from reportgen.metrics.lints import lint
from reportgen.model import SweepRun

VALID = Path(__file__).resolve().parents[2] / "examples" / "valid"


def _doc(name: str = "vllm-serve-detailed.json") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VALID / name).read_text())
    return data


def _load(data: dict[str, Any]) -> tuple[SweepRun | None, list[str]]:
    doc = parse_json("run.json", json.dumps(data).encode())
    run, problems = load_document(doc)
    assert run is None or isinstance(run, SweepRun)
    return run, [f"{p.pointer}: {p.severity}: {p.message}" for p in problems]


def test_detailed_file_is_one_load_point_from_its_requests() -> None:
    run, problems = _load(_doc())
    assert run is not None and problems == []
    (point,) = run.points
    assert (point.label, point.rate, point.concurrency, point.strategy) == (
        "r2",
        2.0,
        None,
        "poisson",
    )
    assert len(point.samples) == 4 and point.prompt_tokens == 128
    assert run.source.tool == "vllm bench serve" and run.model == "example/Tiny-1B"
    assert run.settings["engine_version"] == "0.11.0"  # a --metadata pair, kept
    values = {v.id: v for v in compute([run]).values}
    assert values["load.r2.ttft_s"].source == "samples"
    assert values["load.r2.ttft_s"].summary_pointer == "/median_ttft_ms"
    # vLLM's TPOT is reportgen's ITL, computed per request from latency and TTFT
    s = point.samples[0]
    assert s.itl_s == pytest.approx((s.latency_s - s.ttft_s) / (s.output_tokens - 1))


def test_summary_only_file_uses_vllms_statistics_with_their_pointers() -> None:
    run, problems = _load(_doc("vllm-serve-summary.json"))
    assert run is not None and problems == []
    (point,) = run.points
    assert (point.label, point.rate, point.strategy) == ("c4", None, "concurrency limit")
    values = {v.id: v for v in compute([run]).values}
    p99 = values["load.c4.ttft_s.p99"]
    assert (p99.source, p99.pointer) == ("summary", "/p99_ttft_ms")
    assert p99.value == pytest.approx(_doc()["p99_ttft_ms"] / 1000)
    assert values["load.c4.latency_s"].pointer == "/median_e2el_ms"


def test_the_older_benchmark_serving_file_is_read_and_counts_its_failures() -> None:
    data = _doc("vllm-benchmark-serving.json")
    data["num_prompts"] = 5
    run, problems = _load(data)
    assert run is not None and problems == []
    assert run.points[0].requests_failed == 1  # num_prompts - completed: no "failed" key


def test_a_load_point_where_every_request_failed_keeps_the_errors_own_words() -> None:
    data = _doc()
    data.update(completed=0, failed=4, total_output_tokens=0, output_throughput=0.0)
    data["output_lens"] = [0] * 4
    data["errors"] = ["Traceback (most recent call last):\n  ...\naiohttp.ClientError: refused"] * 4
    run, _ = _load(data)
    assert run is not None
    point = run.points[0]
    reason = "all 4 requests failed, the first with: aiohttp.ClientError: refused"
    assert (point.status, point.reason) == ("failed", reason)
    found = [f for f in lint(compute([run])) if f.id == "cell-invalid"]
    assert [f.cell for f in found] == ["r2"] and "aiohttp.ClientError: refused" in found[0].message


def test_a_median_that_disagrees_with_the_requests_is_a_warning_naming_both() -> None:
    data = copy.deepcopy(_doc())
    data["median_ttft_ms"] *= 1.2
    run, _ = _load(data)
    assert run is not None
    (f,) = [f for f in lint(compute([run])) if f.id == "summary-disagrees"]
    assert f.pointer == "/median_ttft_ms" and f.severity == "warning"
    assert "median_ttft_ms" in f.evidence and "request records" in f.evidence


def test_failed_requests_are_a_warning_that_marks_the_latencies() -> None:
    data = _doc()
    data.update(completed=3, failed=1, total_output_tokens=192, output_throughput=192 / 2.9)
    data["errors"] = ["", "", "", "TimeoutError"]
    data["output_lens"] = [64, 64, 64, 0]
    run, problems = _load(data)
    assert run is not None and problems == []
    (f,) = [f for f in lint(compute([run])) if f.id == "load-requests-failed"]
    assert f.evidence == "1 of 4 requests failed"
    assert "load.r2.ttft_s" in f.metrics and "load.r2.ttft_s.p99" in f.metrics


def test_a_result_whose_results_were_removed_names_the_keys_it_lacks() -> None:
    data = json.loads((VALID.parent / "invalid" / "vllm-results-removed.json").read_text())
    run, problems = _load(data)
    assert run is None
    (problem,) = problems
    assert problem.startswith(": error: a vLLM bench serve result without its results")
    assert "no duration, completed, total_output_tokens or output_throughput," in problem
    data["duration"] = 10.0
    (problem,) = _load(data)[1]
    assert "no completed, total_output_tokens or output_throughput," in problem
    assert "median_ttft_ms" in problem and "duration" not in problem.split("but no")[1]
