"""Metric computation: normalized runs in, metric values out (pure).

Each value comes from the most primitive data its file holds (request samples before summary
fields) and keeps the file's own summary value beside it, so disagreements can be reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from reportgen.errors import InputError, Problem
from reportgen.metrics.registry import (
    DEFINITIONS,
    CellState,
    MetricSet,
    MetricValue,
    Source,
    metric_id,
)
from reportgen.model import CanonicalRun, DecodeCell, MatrixRun, Run, SourceFile
from reportgen.stats import median

# Aggregate sources whose numerator is client_output_tokens over measurement_seconds.
TOKEN_COUNT_SOURCES = frozenset(
    {"openai_continuous_usage", "openai_stream_chunks_fallback", "openai_completed_usage"}
)


# Metrics that are a run's settings, not measurements: files that agree on them may share them.
RUN_SETTINGS = frozenset({"matrix.duration_s", "matrix.max_tokens"})


def _value(
    key: str,
    value: float,
    src: SourceFile,
    source: Source,
    pointer: str,
    **extra: object,
) -> MetricValue:
    ids = {k: extra[k] for k in ("context", "concurrency") if extra.get(k) is not None}
    return MetricValue(
        id=metric_id(key, **ids),  # type: ignore[arg-type]
        key=key,
        value=value,
        unit=DEFINITIONS[key].unit,
        source=source,
        file=src.label,
        sha256=src.sha256,
        provenance=src.provenance.status,
        pointer=pointer,
        **extra,  # type: ignore[arg-type]
    )


def _canonical(run: CanonicalRun) -> Iterator[MetricValue]:
    src, c, s = run.source, run.concurrency, run.samples
    if c == 1 and s:
        yield _value(
            "canonical.output_tok_s",
            median(x.tok_s_out for x in s) or 0.0,
            src,
            "samples",
            f"{run.pointer}/samples",
            n=len(s),
            summary=run.summary.tok_s_out,
            concurrency=c,
        )
        yield _value(
            "canonical.ttft_ms",
            median(x.ttft_ms for x in s) or 0.0,
            src,
            "samples",
            f"{run.pointer}/samples",
            n=len(s),
            summary=run.summary.ttft_ms,
            concurrency=c,
        )
        rates = [x.tok_s_prefill for x in s if x.tok_s_prefill]
        if rates:
            yield _value(
                "canonical.prefill_tok_s",
                median(rates) or 0.0,
                src,
                "samples",
                f"{run.pointer}/samples",
                n=len(rates),
                summary=run.summary.tok_s_prefill,
                concurrency=c,
            )
    yield _value(
        "canonical.concurrency",
        float(c),
        src,
        "fields",
        f"{run.pointer}/engineFlags/concurrency",
        concurrency=c,
    )
    tokens = [float(x.output_tokens) for x in s]
    if tokens:
        yield _value(
            "canonical.output_tokens",
            median(tokens) or 0.0,
            src,
            "samples",
            f"{run.pointer}/samples",
            n=len(tokens),
            summary=_opt(run.output_tokens),
            concurrency=c,
        )
    elif run.output_tokens is not None:
        yield _value(
            "canonical.output_tokens",
            float(run.output_tokens),
            src,
            "summary",
            f"{run.pointer}/outputTokens",
            concurrency=c,
        )
    if c == 1 and s:
        return
    # Concurrency N: lmx's samples carry per-request speeds but not the group's window, so the
    # group throughput can only come from the summary field.
    base = run.pointer
    yield _value(
        "canonical.output_tok_s",
        run.summary.tok_s_out,
        src,
        "summary",
        f"{base}/tokSOut",
        concurrency=c,
    )
    if run.summary.ttft_ms is not None:
        yield _value(
            "canonical.ttft_ms",
            run.summary.ttft_ms,
            src,
            "summary",
            f"{base}/ttftMs",
            concurrency=c,
        )


def _decode(cell: DecodeCell, src: SourceFile) -> Iterator[MetricValue]:
    where = {"context": cell.context_tokens, "concurrency": cell.concurrency}
    tokens, seconds = cell.window_output_tokens, cell.measurement_s
    if cell.aggregate_source in TOKEN_COUNT_SOURCES and tokens and seconds:
        yield _value(
            "decode.aggregate_tok_s",
            tokens / seconds,
            src,
            "fields",
            f"{cell.pointer}/client_output_tokens",
            summary=cell.aggregate_tok_s,
            **where,
        )
    elif cell.aggregate_tok_s is not None:
        yield _value(
            "decode.aggregate_tok_s",
            cell.aggregate_tok_s,
            src,
            "summary",
            f"{cell.pointer}/aggregate_tps",
            **where,
        )
    rates = [1 / r.itl_s for r in cell.samples if r.output_tokens >= 2 and r.itl_s > 0]
    speed = median(rates)
    if speed is not None:
        yield _value(
            "decode.per_request_tok_s",
            speed,
            src,
            "samples",
            f"{cell.pointer}/request_samples",
            n=len(rates),
            summary=cell.summary.output_tps_per_user_p50,
            **where,
        )
    elif cell.summary.output_tps_per_user_p50:
        yield _value(
            "decode.per_request_tok_s",
            cell.summary.output_tps_per_user_p50,
            src,
            "summary",
            f"{cell.pointer}/output_tps_per_user_p50",
            **where,
        )
    ttfts = [r.ttft_s for r in cell.samples if r.ttft_s > 0]
    ttft = median(ttfts)
    if ttft is not None:
        yield _value(
            "decode.ttft_s",
            ttft,
            src,
            "samples",
            f"{cell.pointer}/request_samples",
            n=len(ttfts),
            summary=cell.summary.ttft_p50_s,
            **where,
        )
    elif cell.summary.ttft_p50_s:
        yield _value(
            "decode.ttft_s",
            cell.summary.ttft_p50_s,
            src,
            "summary",
            f"{cell.pointer}/ttft_p50",
            **where,
        )


def _opt(value: float | None) -> float | None:
    return None if value is None else float(value)


def _matrix(run: MatrixRun) -> Iterator[MetricValue | CellState]:
    src = run.source
    if run.duration_s is not None:
        yield _value(
            "matrix.duration_s", run.duration_s, src, "fields", "/metadata/duration_per_test"
        )
    if run.max_tokens is not None:
        yield _value(
            "matrix.max_tokens", float(run.max_tokens), src, "fields", "/metadata/max_tokens"
        )
    for p in run.prefill:
        ctx = {"context": p.context_tokens}
        yield _value(
            "prefill.prompt_tokens",
            float(p.prompt_tokens),
            src,
            "fields",
            f"{p.pointer}/prompt_tokens",
            **ctx,
        )
        yield _value("prefill.ttft_s", p.ttft_s, src, "fields", f"{p.pointer}/ttft_seconds", **ctx)
        yield _value(
            "prefill.tok_s",
            p.prompt_tokens / p.ttft_s,
            src,
            "fields",
            p.pointer,
            summary=p.tok_s,
            **ctx,
        )
        yield CellState("prefill", p.context_tokens, None, "ok", None, src.label, p.pointer)
    for cell in run.cells:
        yield CellState(
            "decode",
            cell.context_tokens,
            cell.concurrency,
            cell.status,
            cell.reason,
            src.label,
            cell.pointer,
        )
        if cell.status == "ok":
            yield from _decode(cell, src)


def compute(runs: Iterable[Run]) -> MetricSet:
    """Every metric of `runs`; raises `InputError` when two files define the same metric."""
    runs = tuple(runs)
    values: list[MetricValue] = []
    cells: list[CellState] = []
    for run in runs:
        items = _canonical(run) if isinstance(run, CanonicalRun) else _matrix(run)
        for item in items:
            (values if isinstance(item, MetricValue) else cells).append(item)  # type: ignore[arg-type]
    seen: dict[str, MetricValue] = {}
    clashes = []
    for v in values:
        other = seen.setdefault(v.id, v)
        if other is v:
            continue
        if v.key in RUN_SETTINGS and other.file != v.file and other.value == v.value:
            continue  # two matrix files run with the same setting: one value, the first file's
        if other.file != v.file:
            message = f"metric {v.id} is also defined by {other.file}"
        else:  # two contexts with one label, e.g. 8000 and 8192 are both "8K"
            message = f"metric {v.id} is defined twice in this file ({other.pointer}, {v.pointer})"
        clashes.append(Problem(v.file, 1, 1, "", message))
    if clashes:
        raise InputError(clashes)
    return MetricSet(tuple(sorted(seen.values(), key=lambda v: v.id)), tuple(cells), runs)
