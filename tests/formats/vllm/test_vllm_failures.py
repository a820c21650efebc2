"""vLLM bench files whose requests failed, all or some: never a silent "ok".

A file where every request failed reads as a load point with 0 completed and N failed (status
failed, with vLLM's error text when the file kept it), a warning while it is read, its request
counts as metrics, a `cell-invalid` finding, and an article that shows them. A file where some
failed reads its completed requests, with a `load-requests-failed` finding.

The examples were written by hand, with invented numbers, in the layouts vLLM writes:
tests/examples/invalid/vllm-all-failed.json (`vllm bench serve` without --save-detailed: zeros
for the statistics of no request, `latencies` and `queue_times` kept),
tests/examples/invalid/vllm-all-failed-errors.json (the older benchmarks/benchmark_serving.py,
which always keeps its per-request arrays and `errors`, and writes no `failed`), and
tests/examples/valid/vllm-serve-partly-failed.json (--save-detailed, 2 of 8 requests failed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reportgen.article.build import build
from reportgen.cli.main import main
from reportgen.formats.load import load
from reportgen.init.scaffold import scaffold
from reportgen.metrics.compute import compute
from reportgen.metrics.lints import lint
from reportgen.model import SweepRun

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ALL_FAILED = EXAMPLES / "invalid" / "vllm-all-failed.json"
ALL_FAILED_ERRORS = EXAMPLES / "invalid" / "vllm-all-failed-errors.json"
PARTLY = EXAMPLES / "valid" / "vllm-serve-partly-failed.json"


def _raw(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _run(path: Path) -> SweepRun:
    result = load([path])
    (run,) = result.runs
    assert isinstance(run, SweepRun)
    return run


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("path", [ALL_FAILED, ALL_FAILED_ERRORS], ids=lambda p: p.stem)
def test_validate_warns_that_every_request_failed(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cli(capsys, "validate", str(path))
    assert code == 0 and err == "ok: 1 valid run file(s), 0 error(s), 1 warning(s)\n"
    (line,) = out.splitlines()
    assert "/completed: warning: completed 0: all 8 requests failed" in line


@pytest.mark.parametrize("path", [ALL_FAILED, ALL_FAILED_ERRORS], ids=lambda p: p.stem)
def test_metrics_prints_the_failed_requests(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = _raw(path)
    failed = raw.get("failed", raw["num_prompts"] - raw["completed"])
    code, out, _ = _cli(capsys, "metrics", "--json", str(path))
    assert code == 0
    shown = {m["id"]: m["value"] for m in json.loads(out)["metrics"]}
    label = "c4" if raw["max_concurrency"] == 4 else "burst"
    assert shown[f"load.{label}.failed"] == failed == 8
    assert shown[f"load.{label}.requests"] == raw["completed"] == 0
    # vLLM's zeros for the statistics of no request are not shown as latencies
    assert not [k for k in shown if "ttft" in k or "itl" in k or "output_tok_s" in k]


def test_the_load_point_and_the_finding_carry_vllms_error_text() -> None:
    run = _run(ALL_FAILED_ERRORS)
    (point,) = run.points
    error = _raw(ALL_FAILED_ERRORS)["errors"][0].strip().splitlines()[-1]
    assert (point.status, point.requests_ok, point.requests_failed) == ("failed", 0, 8)
    assert point.reason == f"all 8 requests failed, the first with: {error}"
    (finding,) = [f for f in lint(compute([run])) if f.id == "cell-invalid"]
    assert (finding.cell, finding.severity) == ("burst", "error")
    assert error in finding.message


def test_without_error_text_the_reason_says_so() -> None:
    (point,) = _run(ALL_FAILED).points
    assert point.reason == "all 8 requests failed (the file keeps no error text)"


@pytest.mark.pdf
def test_an_article_of_a_failed_run_says_so(tmp_path: Path) -> None:
    folder, out = tmp_path / "article", tmp_path / "build"
    run_file = tmp_path / "openai-infqps-concurrency4-Tiny-1B.json"
    run_file.write_bytes(ALL_FAILED.read_bytes())
    made = scaffold(folder, [run_file], title="A run that failed")
    assert [line for line in made.findings if "[cell-invalid] c4" in line]
    manifest = (folder / "article.toml").read_text(encoding="utf-8")
    assert 'metric = "load.failed"' in manifest
    target = build(folder, out)
    metrics = json.loads((target / "metrics.json").read_text(encoding="utf-8"))["metrics"]
    assert {m["id"]: m["value"] for m in metrics}["load.c4.failed"] == 8
    page = (target / "index.html").read_text(encoding="utf-8")
    assert "all 8 requests failed (the file keeps no error text)" in page
    assert "cell-invalid" in page


# --- some requests failed ----------------------------------------------------------------------


def test_a_partly_failed_run_reads_its_completed_requests_with_a_finding() -> None:
    raw = _raw(PARTLY)
    run = _run(PARTLY)
    (point,) = run.points
    assert (point.status, point.requests_ok, point.requests_failed) == ("ok", 6, 2)
    assert sum(s.completed for s in point.samples) == raw["completed"] == 6
    metrics = compute([run])
    values = {v.id: v.value for v in metrics.values}
    assert (values["load.c4.requests"], values["load.c4.failed"]) == (6, 2)
    findings = lint(metrics)
    (failed,) = [f for f in findings if f.id == "load-requests-failed"]
    assert failed.evidence == "2 of 8 requests failed"
    assert "load.c4.ttft_s" in failed.metrics
    assert not [f for f in findings if f.id in ("summary-disagrees", "cell-invalid")]


def test_a_partly_failed_run_gives_vllms_own_headline_numbers() -> None:
    """From the completed requests' records: TTFT and TPOT medians as vLLM's, and its output
    throughput over the whole duration."""
    raw = _raw(PARTLY)
    values = {v.id: v.value for v in compute([_run(PARTLY)]).values}
    assert values["load.c4.ttft_s"] * 1000 == pytest.approx(raw["median_ttft_ms"], rel=1e-9)
    assert values["load.c4.itl_s"] * 1000 == pytest.approx(raw["median_tpot_ms"], rel=1e-9)
    assert values["load.c4.latency_s"] * 1000 == pytest.approx(raw["median_e2el_ms"], rel=1e-9)
    assert values["load.c4.output_tok_s"] == pytest.approx(raw["output_throughput"], rel=1e-12)
