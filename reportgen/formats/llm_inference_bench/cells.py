"""One llm-inference-bench decode cell (`results[]`): its status from sentinels, its request
samples checked one by one, and its own summary fields cross-checked against them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import pairwise
from typing import Any

from reportgen import tolerances as tol
from reportgen.formats.json_input.document import (
    FLOAT_MAX,
    TOO_LARGE,
    escape_pointer_token,
    unfit_numbers,
)
from reportgen.model import TOKEN_COUNT_SOURCES, CellStatus, CellSummary, DecodeCell
from reportgen.samples import PackedSamples
from reportgen.stats import close, sorted_percentiles

SENTINELS: dict[float, tuple[CellStatus, str]] = {
    -1: ("skipped_capacity", "skipped: the context x concurrency does not fit the KV cache"),
    -2: ("skipped_user", "skipped on request"),
    -3: ("loop_detected", "the model looped (exact repetition); not a throughput"),
    0: ("error", "the cell raised an error and measured nothing"),
}
PERCENTILE_FAMILIES = (
    "ttft",
    "inter_token_latency",
    "output_tps_per_user",
    "e2e_output_tps_per_user",
    "request_latency",
    "time_to_second_token",
)

Report = Callable[[str, str, str], None]  # (pointer, message, severity)


def fit(raw: dict[str, Any], where: str, report: Report) -> dict[str, Any]:
    """`raw` with every number no float can hold reported, and replaced by None."""
    unfit = unfit_numbers(raw)
    for key in unfit:
        report(f"{where}/{escape_pointer_token(key)}", TOO_LARGE, "error")
    return {**raw, **dict.fromkeys(unfit)} if unfit else raw


def opt_float(raw: Mapping[str, Any], key: str) -> float | None:
    value = raw.get(key)
    return None if value is None else float(value)


def _opt_int(raw: Mapping[str, Any], key: str) -> int | None:
    value = raw.get(key)
    return None if value is None else int(value)


def _status(raw: Mapping[str, Any], where: str, report: Report) -> tuple[CellStatus, str | None]:
    agg = raw.get("aggregate_tps")
    failure = raw.get("failure_reason")
    if failure:
        return "failed", str(failure)  # the file's own words
    if raw.get("loop_detected"):
        return "loop_detected", SENTINELS[-3][1]
    if agg is None:
        return "failed", "no aggregate throughput recorded"
    if agg in SENTINELS:
        return SENTINELS[agg]
    if agg < 0:
        report(
            f"{where}/aggregate_tps",
            f"{agg} is neither a throughput nor a status sentinel "
            "(-1 skipped for KV capacity, -2 skipped by user, -3 loop detected, 0 error)",
            "error",
        )
        return "failed", f"aggregate_tps {agg} is not a known sentinel"
    return "ok", None


def _check_percentiles(raw: Mapping[str, Any], where: str, report: Report) -> None:
    for family in PERCENTILE_FAMILIES:
        present = [
            (q, raw[f"{family}_{q}"])
            for q in ("p50", "p90", "p99")
            if isinstance(raw.get(f"{family}_{q}"), int | float)
        ]
        for (q_low, low), (q_high, high) in pairwise(present):
            if high < low:
                report(
                    f"{where}/{family}_{q_high}",
                    f"{family}_{q_high} {high} is below {family}_{q_low} {low}; "
                    "percentiles must not decrease",
                    "error",
                )


def _token_problems(at: str, n: int, itl: float, max_tokens: int | None, report: Report) -> None:
    if max_tokens is not None and n > max_tokens:
        report(
            f"{at}/output_tokens",
            f"{n} output tokens exceed metadata.max_tokens {max_tokens}",
            "error",
        )
    if n < 2 and itl > 0:
        report(
            f"{at}/inter_token_latency_avg",
            f"inter-token latency {itl} with {n} output token(s); ITL needs at least 2 tokens",
            "error",
        )
    if n >= 2 and itl <= 0:
        report(
            f"{at}/inter_token_latency_avg",
            f"inter-token latency {itl} with {n} output tokens; it must be positive",
            "error",
        )


def _samples(
    raw: list[dict[str, Any]], where: str, max_tokens: int | None, report: Report
) -> PackedSamples:
    # The hot loop of a large file: each sample is checked with a few comparisons, and a
    # message (and its pointer) is only formatted when a check fails.
    ttfts: list[float] = []
    latencies: list[float] = []
    itls: list[float] = []
    inputs: list[int] = []
    outputs: list[int] = []
    done: list[bool] = []
    prefix = f"{where}/request_samples/"
    most = FLOAT_MAX if max_tokens is None else max_tokens
    slack, rate_rel, rate_abs = tol.LATENCY_SLACK_S, tol.SAMPLE_RATE.rel, tol.SAMPLE_RATE.abs_
    for i, s in enumerate(raw):
        at = f"{prefix}{i}"
        n, itl, ttft, latency, rate, completed = (
            s["output_tokens"],
            s["inter_token_latency_avg"],
            s["ttft"],
            s["latency"],
            s.get("output_tps_per_user"),
            s["completed"],
        )
        if not (
            n <= FLOAT_MAX
            and itl <= FLOAT_MAX
            and ttft <= FLOAT_MAX
            and latency <= FLOAT_MAX
            and (rate or 0) <= FLOAT_MAX
        ):
            fit(s, at, report)
            continue
        if not (2 <= n <= most and itl > 0):
            _token_problems(at, n, itl, max_tokens, report)
        if itl > 0:
            if completed and n >= 2 and latency + slack < ttft + itl * (n - 1):
                report(
                    f"{at}/latency",
                    f"latency {latency:g} s is shorter than ttft + ITL x (output_tokens - 1) = "
                    f"{ttft + itl * (n - 1):.6g} s; the last token cannot arrive after the "
                    "request completed",
                    "error",
                )
            # `close` holds whenever the values are within `rate_abs`: test that first.
            if (
                rate
                and abs(rate - 1 / itl) > rate_abs
                and not close(rate, 1 / itl, rel=rate_rel, abs_=rate_abs)
            ):
                report(
                    f"{at}/output_tps_per_user",
                    f"output_tps_per_user {rate:g} disagrees with 1 / inter_token_latency_avg = "
                    f"{1 / itl:.6g}",
                    "warning",
                )
        ttfts.append(float(ttft))
        latencies.append(float(latency))
        itls.append(float(itl))
        inputs.append(int(s.get("input_tokens") or 0))
        outputs.append(int(n))
        done.append(bool(completed))
    return PackedSamples(f"{where}/request_samples", ttfts, latencies, itls, inputs, outputs, done)


def _cross_check_summary(
    raw: Mapping[str, Any], where: str, samples: PackedSamples, report: Report
) -> None:
    # The sorted series are the ones the metrics take their percentiles of (sorted once).
    ttft_p50, ttft_p90 = sorted_percentiles(samples.series("ttft_s"), 0.5, 0.9)
    checks = (
        ("ttft_p50", ttft_p50, tol.SUMMARY_SECONDS, "the median TTFT of its samples"),
        ("ttft_p90", ttft_p90, tol.SUMMARY_SECONDS, "the p90 TTFT of its samples"),
        (
            "inter_token_latency_p50",
            sorted_percentiles(samples.series("itl_s"), 0.5)[0],
            tol.SUMMARY_SECONDS,
            "the median ITL of its samples",
        ),
        (
            "output_tps_per_user_p50",
            sorted_percentiles(samples.series("per_request_tok_s"), 0.5)[0],
            tol.SUMMARY_RATE,
            "the median 1/ITL of its samples",
        ),
    )
    for key, computed, t, what in checks:
        shown = raw.get(key)
        if shown is None or computed is None:
            continue
        if not close(shown, computed, rel=t.rel, abs_=t.abs_):
            report(
                f"{where}/{key}",
                f"{key} {shown:g} disagrees with {what} ({computed:.6g})",
                "warning",
            )
    agg, tokens, seconds = (
        raw.get("aggregate_tps"),
        raw.get("client_output_tokens"),
        raw.get("measurement_seconds"),
    )
    counted = _server_counter(raw)
    if counted is not None:
        name, tokens_counted = counted
        if agg and agg > 0 and seconds:
            computed = tokens_counted / seconds
            if not close(agg, computed, rel=tol.AGGREGATE.rel, abs_=tol.AGGREGATE.abs_):
                report(
                    f"{where}/aggregate_tps",
                    f"aggregate_tps {agg:g} disagrees with the {name} counter's "
                    f"(server_counter_end_value - server_counter_start_value) / "
                    f"measurement_seconds = {tokens_counted:g} / {seconds:g} = {computed:.6g}",
                    "warning",
                )
        return
    if agg and agg > 0 and tokens and seconds:
        computed = tokens / seconds
        if not close(agg, computed, rel=tol.AGGREGATE.rel, abs_=tol.AGGREGATE.abs_):
            report(
                f"{where}/aggregate_tps",
                f"aggregate_tps {agg:g} disagrees with client_output_tokens / measurement_seconds "
                f"= {tokens} / {seconds:g} = {computed:.6g}",
                "warning",
            )


def _server_counter(raw: Mapping[str, Any]) -> tuple[str, float] | None:
    """(counter name, tokens it counted in the window) when the cell's aggregate comes from a
    server counter (llm-inference-bench 0.4.x `server_counter_*`); None otherwise."""
    if raw.get("aggregate_source") in TOKEN_COUNT_SOURCES:
        return None
    start, end = raw.get("server_counter_start_value"), raw.get("server_counter_end_value")
    if not isinstance(start, int | float) or not isinstance(end, int | float) or end < start:
        return None
    return str(raw.get("server_counter_name") or raw["aggregate_source"]), float(end - start)


def decode_cell(
    raw: dict[str, Any],
    where: str,
    max_tokens: int | None,
    report: Report,
    samples: PackedSamples | None = None,
) -> DecodeCell:
    """One cell of `results`; `samples`: its request samples, already decoded and checked."""
    status, reason = _status(raw, where, report)
    _check_percentiles(raw, where, report)
    if samples is None:
        samples = _samples(raw["request_samples"], where, max_tokens, report)
    if status == "ok":
        _cross_check_summary(raw, where, samples, report)
    agg = raw.get("aggregate_tps")
    return DecodeCell(
        pointer=where,
        # None only when the number was too large (reported by `_fit`; the run is then dropped).
        context_tokens=int(raw["context_tokens"] or 0),
        concurrency=int(raw["concurrency"] or 0),
        status=status,
        reason=reason,
        aggregate_tok_s=float(agg) if status == "ok" and agg is not None else None,
        aggregate_source=str(raw["aggregate_source"]),
        measurement_s=opt_float(raw, "measurement_seconds"),
        window_output_tokens=_opt_int(raw, "client_output_tokens"),
        effective_concurrency=opt_float(raw, "effective_concurrency"),
        num_errors=int(raw.get("num_errors") or 0),
        summary=CellSummary(
            ttft_p50_s=opt_float(raw, "ttft_p50"),
            output_tps_per_user_p50=opt_float(raw, "output_tps_per_user_p50"),
            itl_p50_s=opt_float(raw, "inter_token_latency_p50"),
        ),
        samples=samples,
        server_counter=_server_counter(raw) if status == "ok" else None,
    )
