"""Lint stage: each lint fires on a run made to trigger it and stays quiet on one that is not."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest
from lint_builders import (
    CONTEXTS,
    MATRIX_FILE,
    canonical,
    cell_of,
    findings,
    ids,
    matrix,
    prefill_point,
    prefill_ttft,
    speed,
    ttft,
    with_cell,
)

from reportgen.article.rundata import article_metrics
from reportgen.errors import Problem
from reportgen.metrics.compute import compute
from reportgen.metrics.lints import lint
from reportgen.metrics.lints.findings import LINTS, Finding, fails
from reportgen.model import DecodeCell, MatrixRun
from reportgen.samples import PackedSamples
from reportgen.tolerances import THRESHOLDS

K8, K32 = 8192, 32768


def only(found: tuple[Finding, ...], lint_id: str) -> Finding:
    """The single finding, which must have id `lint_id`."""
    assert [f.id for f in found] == [lint_id], [f.format() for f in found]
    return found[0]


def fastest(cell: DecodeCell) -> float:
    return max(1 / s.itl_s for s in cell.samples)


def test_clean_runs_have_no_findings() -> None:
    assert findings(matrix(), canonical(1), canonical(4)) == ()


# --- cell status -------------------------------------------------------------------------------


def test_cell_invalid_fires_on_a_looped_cell() -> None:
    run = with_cell(
        matrix(),
        K8,
        2,
        status="loop_detected",
        reason="the model looped",
        aggregate_tok_s=None,
    )
    f = only(findings(run), "cell-invalid")
    assert (f.severity, f.cell, f.pointer) == ("error", "8K x 2", cell_of(run, K8, 2).pointer)
    assert "the model looped" in f.message


def test_cell_skipped_fires_on_a_capacity_skip_and_is_a_warning() -> None:
    run = with_cell(
        matrix(), K32, 4, status="skipped_capacity", reason="does not fit", aggregate_tok_s=None
    )
    f = only(findings(run), "cell-skipped")
    assert (f.severity, f.cell, f.context, f.concurrency) == ("warning", "32K x 4", K32, 4)


def test_cell_missing_fires_on_a_hole_in_the_grid() -> None:
    run = matrix()
    gone = cell_of(run, K8, 4)
    run = dataclasses.replace(run, cells=tuple(c for c in run.cells if c is not gone))
    f = only(findings(run), "cell-missing")
    assert f.cell == "8K x 4"


# --- requests ----------------------------------------------------------------------------------


def test_requests_failed_fires_on_errors_in_a_measured_cell() -> None:
    f = only(findings(with_cell(matrix(), K8, 2, num_errors=3)), "requests-failed")
    assert f.severity == "error"
    assert "3 requests failed" in f.message
    assert f.metrics == (
        "decode.8K.c2.aggregate_tok_s",
        "decode.8K.c2.per_request_tok_s",
        "decode.8K.c2.ttft_s",
    )


def test_requests_failed_quiet_without_errors() -> None:
    assert findings(with_cell(matrix(), K8, 2, num_errors=0)) == ()


def _cut_off(run: MatrixRun, ctx: int, conc: int, count: int) -> MatrixRun:
    cell = cell_of(run, ctx, conc)
    samples = tuple(
        s._replace(completed=False, latency_s=0.0) if i < count else s
        for i, s in enumerate(cell.samples)
    )
    return with_cell(run, ctx, conc, samples=samples)


def test_requests_incomplete_fires_when_more_open_than_streams() -> None:
    f = only(findings(_cut_off(matrix(), K8, 2, 3)), "requests-incomplete")
    assert "3 of 6" in f.evidence


def test_requests_incomplete_quiet_for_one_cut_off_stream_per_slot() -> None:
    assert findings(_cut_off(matrix(), K8, 2, 2)) == ()


def test_effective_concurrency_low_fires_below_the_fraction() -> None:
    low = THRESHOLDS.min_effective_concurrency * 4 * 0.9
    f = only(
        findings(with_cell(matrix(), K8, 4, effective_concurrency=low)),
        "effective-concurrency-low",
    )
    assert f.pointer.endswith("/effective_concurrency")


def test_effective_concurrency_low_quiet_at_the_fraction() -> None:
    at = THRESHOLDS.min_effective_concurrency * 4
    assert findings(with_cell(matrix(), K8, 4, effective_concurrency=at)) == ()


def test_aggregate_source_fires_on_a_fallback() -> None:
    run = with_cell(matrix(), K8, 4, aggregate_source="prometheus_fallback")
    f = only(findings(run), "aggregate-source")
    assert "Prometheus" in f.message
    assert f.metrics == ("decode.8K.c4.aggregate_tok_s",)


def test_aggregate_source_quiet_on_streamed_usage() -> None:
    assert findings(with_cell(matrix(), K8, 4, aggregate_source="openai_continuous_usage")) == ()


# --- summaries and sample counts ---------------------------------------------------------------


def _summary(run: MatrixRun, ctx: int, conc: int, factor: float) -> MatrixRun:
    cell = cell_of(run, ctx, conc)
    shown = (cell.summary.ttft_p50_s or 0.0) * factor
    return with_cell(run, ctx, conc, summary=dataclasses.replace(cell.summary, ttft_p50_s=shown))


def test_summary_disagrees_fires_when_the_file_summary_is_off() -> None:
    f = only(findings(_summary(matrix(), K8, 2, 1.1)), "summary-disagrees")
    assert f.pointer == cell_of(matrix(), K8, 2).pointer + "/ttft_p50"
    assert f.metrics == ("decode.8K.c2.ttft_s",)
    assert "+10.00%" in f.evidence


def test_summary_disagrees_quiet_within_rounding() -> None:
    assert findings(_summary(matrix(), K8, 2, 1 + 1e-5)) == ()


def test_summary_disagrees_checks_prefill_and_lmx_summaries() -> None:
    run = matrix()
    point = dataclasses.replace(run.prefill[0], tok_s=(run.prefill[0].tok_s or 0) * 1.05)
    lmx = canonical(1)
    lmx = dataclasses.replace(
        lmx, summary=dataclasses.replace(lmx.summary, tok_s_out=lmx.summary.tok_s_out + 1)
    )
    found = findings(dataclasses.replace(run, prefill=(point, *run.prefill[1:])), lmx)
    assert [(f.id, f.cell, f.pointer) for f in found] == [
        ("summary-disagrees", "8K prefill", "/prefill/8192/tok_per_sec"),
        ("summary-disagrees", "canonical x 1", "/tokSOut"),
    ]


def test_few_samples_fires_on_a_cell_with_too_few_requests() -> None:
    n = THRESHOLDS.min_samples - 1
    f = only(findings(with_cell(matrix(), K8, 1, n=n)), "few-samples")
    assert f.cell == "8K x 1"
    assert f.metrics == ("decode.8K.c1.per_request_tok_s", "decode.8K.c1.ttft_s")
    assert f"only {n} request" in f.message


def test_few_samples_quiet_at_the_minimum() -> None:
    assert findings(with_cell(matrix(), K8, 1, n=THRESHOLDS.min_samples)) == ()


def test_few_samples_fires_on_an_lmx_run_with_too_few_iterations() -> None:
    f = only(findings(canonical(1, iterations=THRESHOLDS.min_samples - 1)), "few-samples")
    assert f.cell == "canonical x 1"
    assert findings(canonical(4, iterations=THRESHOLDS.min_samples)) == ()


# --- context and cold prefill ------------------------------------------------------------------


def test_context_mismatch_fires_when_prompts_are_shorter_than_the_label() -> None:
    f = only(findings(with_cell(matrix(), K32, 2, input_tokens=K32 // 2)), "context-mismatch")
    assert f.cell == "32K x 2"
    assert "50% fewer" in f.message


def test_context_mismatch_fires_on_the_cold_prefill_prompt() -> None:
    run = matrix()
    point = prefill_point(K32, prompt_tokens=K32 * 2)
    run = dataclasses.replace(run, prefill=(*run.prefill[:-1], point))
    f = only(findings(run), "context-mismatch")
    assert (f.cell, f.metrics) == ("32K prefill", ("prefill.32K.prompt_tokens",))


def test_context_mismatch_quiet_for_template_overhead() -> None:
    near = round(K32 * (1 - THRESHOLDS.context_mismatch / 2))
    assert findings(with_cell(matrix(), K32, 2, input_tokens=near)) == ()


def test_decode_ttft_below_prefill_fires_only_for_the_cached_context() -> None:
    below = prefill_ttft(K32) * THRESHOLDS.min_ttft_vs_prefill * 0.7
    f = only(findings(with_cell(matrix(), K32, 1, ttft_s=below)), "decode-ttft-below-prefill")
    assert (f.cell, f.context, f.concurrency) == ("32K x 1", K32, 1)
    assert f.metrics == ("decode.32K.c1.ttft_s", "prefill.32K.ttft_s")
    assert "prefix cache" in f.message


def test_decode_ttft_below_prefill_quiet_near_the_prefill() -> None:
    near = prefill_ttft(K32) * (THRESHOLDS.min_ttft_vs_prefill + 0.05)
    assert findings(with_cell(matrix(), K32, 1, ttft_s=near)) == ()


def test_decode_ttft_below_prefill_uses_the_lowest_concurrency_measured() -> None:
    run = matrix()
    run = dataclasses.replace(run, cells=tuple(c for c in run.cells if c.concurrency != 1))
    run = dataclasses.replace(run, concurrencies=(2, 4))
    below = prefill_ttft(K32) * THRESHOLDS.min_ttft_vs_prefill * 0.7
    f = only(findings(with_cell(run, K32, 2, ttft_s=below)), "decode-ttft-below-prefill")
    assert f.cell == "32K x 2"


# --- trends against context and concurrency ----------------------------------------------------

BEYOND = 1 + THRESHOLDS.trend_margin * 2
WITHIN = 1 + THRESHOLDS.trend_margin / 2


def test_throughput_rises_with_context_fires_beyond_noise() -> None:
    ref = cell_of(matrix(), K8, 2).aggregate_tok_s or 0.0
    f = only(
        findings(with_cell(matrix(), K32, 2, aggregate_tok_s=ref * BEYOND)),
        "throughput-rises-with-context",
    )
    assert f.metrics == ("decode.8K.c2.aggregate_tok_s", "decode.32K.c2.aggregate_tok_s")
    assert "32K" in f.message and "8K" in f.message


def test_throughput_rises_with_context_quiet_within_noise() -> None:
    ref = cell_of(matrix(), K8, 2).aggregate_tok_s or 0.0
    assert findings(with_cell(matrix(), K32, 2, aggregate_tok_s=ref * WITHIN)) == ()


def test_throughput_rises_with_context_compares_with_the_lowest_shorter_context() -> None:
    # 32K is within noise of 8K, but both are well above a dip at 0: the dip is the reference.
    top = cell_of(matrix(), K32, 2).aggregate_tok_s or 0.0
    run = with_cell(matrix(), 0, 2, aggregate_tok_s=top / BEYOND)
    run = with_cell(run, K8, 2, aggregate_tok_s=top / WITHIN)
    found = findings(run)
    assert [(f.id, f.cell) for f in found] == [
        ("throughput-rises-with-context", "8K x 2"),
        ("throughput-rises-with-context", "32K x 2"),
    ]
    assert found[1].metrics[0] == "decode.0.c2.aggregate_tok_s"


def test_speed_rises_with_context_fires_beyond_noise() -> None:
    f = only(
        findings(with_cell(matrix(), K32, 2, tok_s=speed(K8, 2) * BEYOND)),
        "speed-rises-with-context",
    )
    assert f.cell == "32K x 2"


def test_speed_rises_with_context_quiet_within_noise() -> None:
    assert findings(with_cell(matrix(), K32, 2, tok_s=speed(K8, 2) * WITHIN)) == ()


def test_ttft_falls_with_context_fires_beyond_noise() -> None:
    # Raise the shorter context's TTFT above the longer one's (lowering 32K would also break
    # the concurrency trend).
    f = only(
        findings(with_cell(matrix(), K8, 4, ttft_s=ttft(K32, 4) * BEYOND)),
        "ttft-falls-with-context",
    )
    assert f.cell == "32K x 4"


def test_ttft_falls_with_context_quiet_within_noise() -> None:
    assert findings(with_cell(matrix(), K8, 4, ttft_s=ttft(K32, 4) * WITHIN)) == ()


def test_throughput_falls_with_concurrency_fires_beyond_noise() -> None:
    ref = cell_of(matrix(), K32, 2).aggregate_tok_s or 0.0
    f = only(
        findings(with_cell(matrix(), K32, 4, aggregate_tok_s=ref / BEYOND)),
        "throughput-falls-with-concurrency",
    )
    assert f.metrics == ("decode.32K.c2.aggregate_tok_s", "decode.32K.c4.aggregate_tok_s")


def test_throughput_falls_with_concurrency_quiet_within_noise() -> None:
    ref = cell_of(matrix(), K32, 2).aggregate_tok_s or 0.0
    assert findings(with_cell(matrix(), K32, 4, aggregate_tok_s=ref / WITHIN)) == ()


def test_speed_rises_with_concurrency_fires_beyond_noise() -> None:
    f = only(
        findings(with_cell(matrix(), K32, 2, tok_s=speed(K32, 4) / BEYOND)),
        "speed-rises-with-concurrency",
    )
    assert f.cell == "32K x 4"


def test_speed_rises_with_concurrency_quiet_within_noise() -> None:
    assert findings(with_cell(matrix(), K32, 2, tok_s=speed(K32, 4) / WITHIN)) == ()


def test_ttft_falls_with_concurrency_fires_beyond_noise() -> None:
    f = only(
        findings(with_cell(matrix(), K32, 2, ttft_s=ttft(K32, 4) * BEYOND)),
        "ttft-falls-with-concurrency",
    )
    assert f.cell == "32K x 4"


def test_ttft_falls_with_concurrency_quiet_within_noise() -> None:
    assert findings(with_cell(matrix(), K32, 2, ttft_s=ttft(K32, 4) * WITHIN)) == ()


# --- aggregate against the requests ------------------------------------------------------------


def _aggregate_times(factor: float) -> MatrixRun:
    run = matrix()
    bound = 4 * fastest(cell_of(run, 0, 4)) * (1 + THRESHOLDS.aggregate_margin)
    return with_cell(run, 0, 4, aggregate_tok_s=bound * factor)


def test_aggregate_above_requests_fires_beyond_the_bound() -> None:
    # Far enough above the fastest request to be above the median-speed bound too.
    found = findings(_aggregate_times(1.05))
    assert ids(found) == {"aggregate-above-median-speed", "aggregate-above-requests"}
    assert {f.cell for f in found} == {"0 x 4"}


def test_aggregate_above_requests_quiet_under_the_bound() -> None:
    assert "aggregate-above-requests" not in ids(findings(_aggregate_times(0.95)))


def _aggregate_over_median(factor: float) -> MatrixRun:
    bound = 4 * speed(0, 4) * (1 + THRESHOLDS.median_speed_margin)
    return with_cell(matrix(), 0, 4, aggregate_tok_s=bound * factor)


def test_aggregate_above_median_speed_fires_beyond_the_margin_and_explains_the_cause() -> None:
    f = only(findings(_aggregate_over_median(1.02)), "aggregate-above-median-speed")
    assert (f.severity, f.cell) == ("warning", "0 x 4")
    assert f.metrics == ("decode.0.c4.aggregate_tok_s", "decode.0.c4.per_request_tok_s")
    assert "prefill" in f.message


def test_aggregate_above_median_speed_quiet_within_the_margin() -> None:
    assert findings(_aggregate_over_median(0.98)) == ()


def test_aggregate_above_requests_checks_lmx_group_throughput() -> None:
    factor = 1 + THRESHOLDS.aggregate_margin
    over = canonical(4, tok_s=100.0, group_tok_s=4 * 102.0 * factor * 1.05)
    f = only(findings(over), "aggregate-above-requests")
    assert (f.cell, f.pointer, f.metrics) == (
        "canonical x 4",
        "/tokSOut",
        ("canonical.c4.output_tok_s",),
    )
    assert findings(canonical(4, tok_s=100.0, group_tok_s=4 * 98.0 * factor)) == ()


def test_tool_warning_fires_on_a_warning_in_the_file() -> None:
    f = only(
        findings(canonical(1, warnings=("outputTokens below minOutputTokens",))), "tool-warning"
    )
    assert f.pointer == "/warnings/0"
    assert "outputTokens below minOutputTokens" in f.message
    assert findings(canonical(1, warnings=())) == ()


def test_read_warning_keeps_what_reading_a_file_warned_about() -> None:
    problem = Problem(
        path=MATRIX_FILE,
        line=12,
        col=3,
        pointer="/results/0/ttft_p50",
        message="median ttft disagrees with the samples.",
        severity="warning",
    )
    metrics = dataclasses.replace(compute([matrix()]), read_warnings=(problem,))
    f = only(lint(metrics), "read-warning")
    assert (f.file, f.pointer, f.cell) == (MATRIX_FILE, "/results/0/ttft_p50", None)
    assert f.message == "Median ttft disagrees with the samples."
    assert f.evidence == "line 12, /results/0/ttft_p50"
    assert lint(compute([matrix()])) == ()  # quiet when reading warned of nothing


# --- the whole stage ---------------------------------------------------------------------------


def _messy() -> MatrixRun:
    run = with_cell(matrix(), K8, 2, num_errors=1)
    run = with_cell(run, K32, 1, ttft_s=prefill_ttft(K32) / 2)
    run = with_cell(run, K32, 4, status="error", reason="raised", aggregate_tok_s=None)
    return with_cell(run, 0, 1, n=1)


def test_findings_are_deterministic_and_ordered_errors_first() -> None:
    run, lmx = _messy(), canonical(4, warnings=("b", "a"), iterations=2)
    found = findings(run, lmx)
    shuffled = list(run.cells)
    random.Random(7).shuffle(shuffled)
    assert findings(lmx, dataclasses.replace(run, cells=tuple(shuffled))) == found
    severities = [f.severity for f in found]
    assert severities == sorted(severities, key=lambda s: s != "error")
    assert {"cell-invalid", "requests-failed", "decode-ttft-below-prefill", "few-samples"} <= ids(
        found
    )


def test_every_finding_names_a_known_lint_with_its_severity() -> None:
    for f in findings(_messy(), canonical(1, warnings=("w",), iterations=1)):
        assert LINTS[f.id].severity == f.severity
        assert f.message.endswith(".") and f.evidence


def test_thresholds_are_a_parameter() -> None:
    ref = cell_of(matrix(), K8, 2).aggregate_tok_s or 0.0
    run = with_cell(matrix(), K32, 2, aggregate_tok_s=ref * BEYOND)
    wide = dataclasses.replace(THRESHOLDS, trend_margin=THRESHOLDS.trend_margin * 3)
    assert ids(findings(run)) == {"throughput-rises-with-context"}
    assert findings(run, thresholds=wide) == ()


@pytest.mark.parametrize(("strict", "expected"), [(False, False), (True, True)])
def test_fails_on_errors_and_with_strict_on_warnings(strict: bool, expected: bool) -> None:
    warnings_only = findings(with_cell(matrix(), K8, 1, n=1))
    assert warnings_only and fails(warnings_only, strict=strict) is expected
    assert fails(findings(with_cell(matrix(), K8, 2, num_errors=1)))


def test_finding_renders_as_text_and_json() -> None:
    f = only(findings(with_cell(matrix(), K8, 2, num_errors=2)), "requests-failed")
    assert f.format().startswith("runs/t/benchmark_results.json /results/")
    assert "error [requests-failed] 8K x 2:" in f.format()
    assert f.as_json()["metrics"] == list(f.metrics)


def test_context_zero_row_is_not_judged_against_a_label() -> None:
    assert CONTEXTS[0] == 0
    assert findings(with_cell(matrix(), 0, 2, input_tokens=5)) == ()


def test_the_lints_read_packed_samples_by_column(monkeypatch: pytest.MonkeyPatch) -> None:
    # A matrix file of 200,000 request samples took the lints a second when each sample was
    # made an object again; they read the packed columns (and sorted series) instead.
    root = Path(__file__).resolve().parents[2]
    metrics = article_metrics(root / "runs" / "paiton-kimi-k3.1-pro")[1]
    cells = [c for r in metrics.runs if isinstance(r, MatrixRun) for c in r.cells]
    assert cells and all(isinstance(c.samples, PackedSamples) for c in cells)
    findings = lint(metrics)
    assert findings  # the article has findings for the lints to find again

    def made(_self: PackedSamples, *_args: object) -> None:
        raise AssertionError("a lint made an object of each request sample")

    monkeypatch.setattr(PackedSamples, "__getitem__", made)
    monkeypatch.setattr(PackedSamples, "__iter__", made)
    assert lint(metrics) == findings
