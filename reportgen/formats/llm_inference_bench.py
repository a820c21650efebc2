"""Parse stage for llm-inference-bench `benchmark_results.json` (bare or inside a wrapper).

Schema-valid raw JSON in, a `MatrixRun` plus semantic problems out. This is the only module that
reads the bench's raw keys; sentinels become cell statuses here and never reach the metrics.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from reportgen import tolerances as tol
from reportgen.errors import Problem
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.jsonfile import (
    FLOAT_MAX,
    TOO_LARGE,
    JsonDocument,
    escape_pointer_token,
    pointer_of,
    split_pointer,
    unfit_numbers,
)
from reportgen.model import (
    CellStatus,
    CellSummary,
    DecodeCell,
    MatrixRun,
    PrefillPoint,
    RequestSample,
    SourceFile,
    context_label,
)
from reportgen.stats import close, percentile, percentiles

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


def _fit(raw: dict[str, Any], where: str, report: Report) -> dict[str, Any]:
    """`raw` with every number no float can hold reported, and replaced by None."""
    unfit = unfit_numbers(raw)
    for key in unfit:
        report(f"{where}/{escape_pointer_token(key)}", TOO_LARGE, "error")
    return {**raw, **dict.fromkeys(unfit)} if unfit else raw


def _opt_float(raw: Mapping[str, Any], key: str) -> float | None:
    value = raw.get(key)
    return None if value is None else float(value)


def _opt_int(raw: Mapping[str, Any], key: str) -> int | None:
    value = raw.get(key)
    return None if value is None else int(value)


def _status(raw: Mapping[str, Any], where: str, report: Report) -> tuple[CellStatus, str | None]:
    agg = raw.get("aggregate_tps")
    failure = raw.get("failure_reason")
    if failure:
        return "failed", f"failed: {failure}"
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
        for (q_low, low), (q_high, high) in zip(present, present[1:], strict=False):
            if high < low:
                report(
                    f"{where}/{family}_{q_high}",
                    f"{family}_{q_high} {high} is below {family}_{q_low} {low}; "
                    "percentiles must not decrease",
                    "error",
                )


# `_samples` builds each RequestSample positionally: keyword arguments cost about 40% more on a
# 200,000-sample file. Reordering the model's fields fails here, at import, instead of silently.
_SAMPLE_FIELDS = (
    "pointer",
    "ttft_s",
    "latency_s",
    "itl_s",
    "input_tokens",
    "output_tokens",
    "completed",
)
assert RequestSample._fields == _SAMPLE_FIELDS


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
) -> tuple[RequestSample, ...]:
    # The hot loop of a large file: each sample is checked with a few comparisons, and a
    # message (and its pointer) is only formatted when a check fails.
    out = []
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
            _fit(s, at, report)
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
        out.append(
            RequestSample(  # positional, in `_SAMPLE_FIELDS` order
                at,
                float(ttft),
                float(latency),
                float(itl),
                int(s.get("input_tokens") or 0),
                int(n),
                bool(completed),
            )
        )
    return tuple(out)


def _cross_check_summary(
    raw: Mapping[str, Any], where: str, samples: tuple[RequestSample, ...], report: Report
) -> None:
    itls = [s.itl_s for s in samples if s.output_tokens >= 2]
    rates = [1 / itl for itl in itls if itl > 0]
    ttft_p50, ttft_p90 = percentiles([s.ttft_s for s in samples], 0.5, 0.9)
    checks = (
        ("ttft_p50", ttft_p50, tol.SUMMARY_SECONDS, "the median TTFT of its samples"),
        ("ttft_p90", ttft_p90, tol.SUMMARY_SECONDS, "the p90 TTFT of its samples"),
        (
            "inter_token_latency_p50",
            percentile(itls, 0.5),
            tol.SUMMARY_SECONDS,
            "the median ITL of its samples",
        ),
        (
            "output_tps_per_user_p50",
            percentile(rates, 0.5),
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
    if agg and agg > 0 and tokens and seconds:
        computed = tokens / seconds
        if not close(agg, computed, rel=tol.AGGREGATE.rel, abs_=tol.AGGREGATE.abs_):
            report(
                f"{where}/aggregate_tps",
                f"aggregate_tps {agg:g} disagrees with client_output_tokens / measurement_seconds "
                f"= {tokens} / {seconds:g} = {computed:.6g}",
                "warning",
            )


def _cell(raw: dict[str, Any], where: str, max_tokens: int | None, report: Report) -> DecodeCell:
    status, reason = _status(raw, where, report)
    _check_percentiles(raw, where, report)
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
        measurement_s=_opt_float(raw, "measurement_seconds"),
        window_output_tokens=_opt_int(raw, "client_output_tokens"),
        effective_concurrency=_opt_float(raw, "effective_concurrency"),
        num_errors=int(raw.get("num_errors") or 0),
        summary=CellSummary(
            ttft_p50_s=_opt_float(raw, "ttft_p50"),
            output_tps_per_user_p50=_opt_float(raw, "output_tps_per_user_p50"),
            itl_p50_s=_opt_float(raw, "inter_token_latency_p50"),
        ),
        samples=samples,
    )


def _check_duplicates(cells: list[DecodeCell], raw: list[dict[str, Any]], report: Report) -> None:
    first: dict[tuple[int, int], int] = {}
    for i, cell in enumerate(cells):
        key = (cell.context_tokens, cell.concurrency)
        if key not in first:
            first[key] = i
            continue
        j = first[key]
        label = f"context {context_label(key[0])} x concurrency {key[1]}"
        if raw[i] == raw[j]:
            report(cell.pointer, f"duplicate cell {label} (same as {cells[j].pointer})", "error")
        else:
            differ = sorted(
                k for k in raw[i].keys() | raw[j].keys() if raw[i].get(k) != raw[j].get(k)
            )
            report(
                cell.pointer,
                f"contradictory cells for {label}: {cells[j].pointer} and {cell.pointer} differ in "
                + ", ".join(differ),
                "error",
            )


def _check_summary_table(
    table: Mapping[str, Mapping[str, float | None]],
    cells: list[DecodeCell],
    where: str,
    report: Report,
) -> tuple[tuple[int, int, float | None], ...]:
    by_key = {(c.context_tokens, c.concurrency): c for c in cells}
    flat = []
    for ctx_key, row in table.items():
        for c_key, value in _fit(dict(row), f"{where}/{ctx_key}", report).items():
            at = f"{where}/{ctx_key}/{c_key}"
            key = (int(ctx_key), int(c_key))
            flat.append((key[0], key[1], value))
            cell = by_key.get(key)
            if cell is None:
                if value is not None:
                    report(at, f"summary_table has {value:g} for a cell not in results", "warning")
                continue
            if cell.aggregate_tok_s is None:
                if value is not None and value > 0:
                    report(
                        at,
                        f"summary_table shows {value:g} but {cell.pointer} measured no "
                        f"throughput ({cell.reason})",
                        "warning",
                    )
            elif value is None or not close(
                value, cell.aggregate_tok_s, rel=tol.SUMMARY_TABLE.rel, abs_=tol.SUMMARY_TABLE.abs_
            ):
                shown = "null" if value is None else f"{value:g}"
                report(
                    at,
                    f"summary_table shows {shown} but {cell.pointer}/aggregate_tps is "
                    f"{cell.aggregate_tok_s:g}",
                    "warning",
                )
    return tuple(sorted(flat))


def _prefill(
    raw: Mapping[str, dict[str, Any]], where: str, report: Report
) -> Iterator[PrefillPoint]:
    for key, entry in raw.items():
        at = f"{where}/{key}"
        if unfit_numbers(entry):
            _fit(entry, at, report)
            continue
        tokens, ttft, rate = entry["prompt_tokens"], entry["ttft_seconds"], entry.get("tok_per_sec")
        if rate is not None and not close(
            rate, tokens / ttft, rel=tol.PREFILL_RATE.rel, abs_=tol.PREFILL_RATE.abs_
        ):
            report(
                f"{at}/tok_per_sec",
                f"tok_per_sec {rate:g} disagrees with prompt_tokens / ttft_seconds = "
                f"{tokens} / {ttft:g} = {tokens / ttft:.6g}",
                "warning",
            )
        samples = entry.get("samples")
        yield PrefillPoint(
            pointer=at,
            context_key=key,
            context_tokens=int(key),
            prompt_tokens=int(tokens),
            ttft_s=float(ttft),
            tok_s=None if rate is None else float(rate),
            samples=samples if isinstance(samples, int) else None,
        )


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many acyclic objects.

    Whenever the surviving objects grow by a quarter, CPython's collector traverses every object
    alive, the whole parsed document included: building 200,000 request samples would pay for
    several traversals that cannot find anything (JSON values and the run model hold no cycles).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[MatrixRun, list[Problem]]:
    """Build the `MatrixRun` for the bench result at pointer `base` of a schema-valid document."""
    raw: dict[str, Any] = doc.data
    for token in split_pointer(base):
        raw = raw[token]
    problems: list[Problem] = []

    def report(pointer: str, message: str, severity: str) -> None:
        problems.append(doc.problem(pointer, message, severity))

    # Every pointer below, in problems and in the model, is absolute in the file (base included).
    meta = _fit(raw["metadata"], f"{base}/metadata", report)
    max_tokens = meta.get("max_tokens")
    with _gc_paused():
        cells = [
            _cell(_fit(c, f"{base}/results/{i}", report), f"{base}/results/{i}", max_tokens, report)
            for i, c in enumerate(raw["results"])
        ]
    _check_duplicates(cells, raw["results"], report)
    summary = _check_summary_table(
        raw.get("summary_table") or {}, cells, f"{base}/summary_table", report
    )
    prefill = tuple(
        sorted(
            _prefill(raw.get("prefill") or {}, f"{base}/prefill", report),
            key=lambda p: p.context_tokens,
        )
    )
    run = MatrixRun(
        source=source,
        engine=meta.get("engine"),
        model=meta.get("model"),
        duration_s=_opt_float(meta, "duration_per_test"),
        max_tokens=max_tokens,
        contexts=tuple(sorted({c.context_tokens for c in cells})),
        concurrencies=tuple(sorted({c.concurrency for c in cells})),
        prefill=prefill,
        cells=tuple(cells),
        summary_table=summary,
    )
    return run, problems


def _is_bench(value: Any) -> bool:
    return isinstance(value, dict) and "metadata" in value and "results" in value


def detect(data: dict[str, Any]) -> Detection | None:
    """A bench result has `metadata` and `results`, bare or under exactly one wrapping key (as
    `lmx speed-test matrix` writes it)."""
    if _is_bench(data):
        return Detection("", "llm-inference-bench")
    wrapped = [k for k, v in data.items() if _is_bench(v)]
    if len(wrapped) == 1:
        return Detection(pointer_of([wrapped[0]]), "llm-inference-bench", "lmx-matrix")
    if len(wrapped) > 1:
        keys = ", ".join(pointer_of([k]) for k in wrapped)
        return Detection(
            "",
            "llm-inference-bench",
            refusal=f"llm-inference-bench results under {len(wrapped)} keys ({keys}); "
            "a run file holds one run",
        )
    return None


def version(run: dict[str, Any]) -> tuple[str, str]:
    """The bench's version, `metadata.version`."""
    return str(run["metadata"]["version"]), "/metadata/version"


FORMAT = RunFormat(
    name="llm-inference-bench",
    tool="llm-inference-bench",
    known_versions=((0, 6), (0, 7)),
    looks_like="an llm-inference-bench benchmark_results.json (with metadata and results)",
    detect=detect,
    version=version,
    parse=parse,
)
