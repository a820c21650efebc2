"""Metric stage: normalized runs in, metric values out (pure).

The registry (`DEFINITIONS`) is the one place a metric is defined: id pattern, unit, formula,
definition version and the raw fields it reads. Everything that shows, checks, lints or submits a
number takes it from a `MetricValue` computed here. Each value comes from the most primitive data
its file holds (request samples before summary fields) and keeps the file's own summary value
beside it, so disagreements can be reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from reportgen.errors import InputError, Problem
from reportgen.model import (
    CanonicalRun,
    CellStatus,
    DecodeCell,
    MatrixRun,
    ProvenanceStatus,
    Run,
    SourceFile,
    context_label,
)
from reportgen.stats import median

Source = Literal["samples", "fields", "summary"]
# Aggregate sources whose numerator is client_output_tokens over measurement_seconds.
TOKEN_COUNT_SOURCES = frozenset(
    {"openai_continuous_usage", "openai_stream_chunks_fallback", "openai_completed_usage"}
)


# Metrics that are a run's settings, not measurements: files that agree on them may share them.
RUN_SETTINGS = frozenset({"matrix.duration_s", "matrix.max_tokens"})


@dataclass(frozen=True)
class MetricDef:
    """One metric's definition."""

    key: str
    id_pattern: str
    title: str
    unit: str
    formula: str
    version: int
    reads: tuple[str, ...]


def _defs(*defs: MetricDef) -> dict[str, MetricDef]:
    return {d.key: d for d in defs}


DEFINITIONS: dict[str, MetricDef] = _defs(
    MetricDef(
        "canonical.output_tok_s",
        "canonical.c{concurrency}.output_tok_s",
        "Canonical prompt, output tok/s",
        "tok/s",
        "concurrency 1: median over timed iterations of (outputTokens - 1) / (last token - first "
        "token); concurrency N: median over iterations of sum(outputTokens) / (last completion - "
        "earliest first token), as lmx reports it",
        1,
        ("samples[].tokSOut", "tokSOut"),
    ),
    MetricDef(
        "canonical.ttft_ms",
        "canonical.c{concurrency}.ttft_ms",
        "Canonical prompt, time to first token",
        "ms",
        "median over timed requests of (first streamed token - request sent)",
        1,
        ("samples[].ttftMs", "ttftMs"),
    ),
    MetricDef(
        "canonical.prefill_tok_s",
        "canonical.c{concurrency}.prefill_tok_s",
        "Canonical prompt, prefill tok/s",
        "tok/s",
        "median over timed requests of usage prompt_tokens / TTFT",
        1,
        ("samples[].tokSPrefill", "tokSPrefill"),
    ),
    MetricDef(
        "canonical.concurrency",
        "canonical.c{concurrency}.concurrency",
        "Canonical prompt, requests sent together",
        "requests",
        "engineFlags.concurrency: requests fired together per iteration",
        1,
        ("engineFlags.concurrency",),
    ),
    MetricDef(
        "canonical.output_tokens",
        "canonical.c{concurrency}.output_tokens",
        "Canonical prompt, output tokens per request",
        "tokens",
        "median over timed requests of the output tokens (usage completion_tokens)",
        1,
        ("samples[].outputTokens", "outputTokens"),
    ),
    MetricDef(
        "matrix.duration_s",
        "matrix.duration_s",
        "Matrix run, sustained decode window per cell",
        "s",
        "the bench's --duration: seconds of measurement per decode cell",
        1,
        ("metadata.duration_per_test",),
    ),
    MetricDef(
        "matrix.max_tokens",
        "matrix.max_tokens",
        "Matrix run, maximum output tokens per request",
        "tokens",
        "the bench's max_tokens for decode requests (ignore_eos)",
        1,
        ("metadata.max_tokens",),
    ),
    MetricDef(
        "prefill.prompt_tokens",
        "prefill.{context}.prompt_tokens",
        "Prefill, prompt tokens",
        "tokens",
        "prompt tokens of the cold request, from the endpoint's usage",
        1,
        ("prefill.<ctx>.prompt_tokens",),
    ),
    MetricDef(
        "prefill.ttft_s",
        "prefill.{context}.ttft_s",
        "Prefill, time to first token",
        "s",
        "first streamed token - request sent, one cold request (unique prefix)",
        1,
        ("prefill.<ctx>.ttft_seconds",),
    ),
    MetricDef(
        "prefill.tok_s",
        "prefill.{context}.tok_s",
        "Prefill, tok/s",
        "tok/s",
        "prompt_tokens / TTFT",
        1,
        ("prefill.<ctx>.prompt_tokens", "prefill.<ctx>.ttft_seconds", "prefill.<ctx>.tok_per_sec"),
    ),
    MetricDef(
        "decode.aggregate_tok_s",
        "decode.{context}.c{concurrency}.aggregate_tok_s",
        "Decode throughput, all requests together",
        "tok/s",
        "streamed usage completion tokens arriving inside the measurement window / (last usage "
        "arrival - window start)",
        1,
        (
            "results[].client_output_tokens",
            "results[].measurement_seconds",
            "results[].aggregate_tps",
        ),
    ),
    MetricDef(
        "decode.per_request_tok_s",
        "decode.{context}.c{concurrency}.per_request_tok_s",
        "Decode speed seen by each request (median)",
        "tok/s",
        "median over the cell's request samples (>= 2 output tokens) of 1 / ITL, where ITL = "
        "(last token - first token) / (output tokens - 1)",
        1,
        (
            "results[].request_samples[].inter_token_latency_avg",
            "results[].output_tps_per_user_p50",
        ),
    ),
    MetricDef(
        "decode.ttft_s",
        "decode.{context}.c{concurrency}.ttft_s",
        "Time to first token (median)",
        "s",
        "median over the cell's request samples of TTFT; includes waiting for other requests' "
        "prefill",
        1,
        ("results[].request_samples[].ttft", "results[].ttft_p50"),
    ),
)


@dataclass(frozen=True)
class MetricValue:
    """One computed number with everything needed to trust and trace it."""

    id: str
    key: str
    value: float
    unit: str
    source: Source
    file: str
    sha256: str
    provenance: ProvenanceStatus
    pointer: str
    n: int | None = None  # samples behind the value
    summary: float | None = None  # the file's own value for the same quantity, if any
    context: int | None = None
    concurrency: int | None = None

    @property
    def definition(self) -> MetricDef:
        """The registry entry this value was computed by."""
        return DEFINITIONS[self.key]

    def as_json(self) -> dict[str, object]:
        """The value as `metrics.json` and `reportgen metrics --json` print it."""
        return {
            "id": self.id,
            "value": self.value,
            "unit": self.unit,
            "source": self.source,
            "samples": self.n,
            "summary_value": self.summary,
            "definition": self.key,
            "definition_version": self.definition.version,
            "file": self.file,
            "pointer": self.pointer,
            "sha256": self.sha256,
            "provenance": self.provenance,
        }


@dataclass(frozen=True)
class CellState:
    """A matrix cell's status, for tables: measured or why not."""

    kind: Literal["decode", "prefill"]
    context: int
    concurrency: int | None
    status: CellStatus
    reason: str | None
    file: str
    pointer: str


@dataclass(frozen=True)
class MetricSet:
    """Every metric value of a set of runs, plus each matrix cell's status."""

    values: tuple[MetricValue, ...]
    cells: tuple[CellState, ...]
    runs: tuple[Run, ...]

    def get(self, metric_id: str) -> MetricValue | None:
        """The value with this id, or None."""
        for value in self.values:
            if value.id == metric_id:
                return value
        return None

    def by_id(self) -> dict[str, MetricValue]:
        """Values keyed by id."""
        return {v.id: v for v in self.values}


def metric_id(key: str, *, context: int | None = None, concurrency: int | None = None) -> str:
    """The id of metric `key` for a context and/or concurrency."""
    label = None if context is None else context_label(context)
    return DEFINITIONS[key].id_pattern.format(context=label, concurrency=concurrency)


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
