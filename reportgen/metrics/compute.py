"""Metric computation: normalized runs in, metric values out (pure).

Each value comes from the most primitive data its file holds (request samples before summary
fields) and keeps the file's own summary value beside it, so disagreements can be reported. In an
article of several runs every id starts with its run's id; efficiency values need the run's setup.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace

from reportgen.errors import InputError, whole_file
from reportgen.frozendict import FrozenDict
from reportgen.metrics.efficiency import efficiency
from reportgen.metrics.gates import gate_decode, gate_point
from reportgen.metrics.registry import CellState, MetricSet, MetricValue, Source
from reportgen.metrics.repeats import combine, varying_settings
from reportgen.metrics.values import Cell, Emitter, distribution, run_settings
from reportgen.model import (
    TOKEN_COUNT_SOURCES,
    CanonicalRun,
    DecodeCell,
    LoadPoint,
    MatrixRun,
    Run,
    Setup,
    SweepRun,
)
from reportgen.samples import packed
from reportgen.stats import median

# Metrics that are a run's settings, not measurements: files that agree on them may share them.
RUN_SETTINGS = frozenset({"matrix.duration_s", "matrix.max_tokens"})


def _canonical(run: CanonicalRun, emit: Emitter) -> Iterator[MetricValue]:
    c, s, at = run.concurrency, run.samples, f"{run.pointer}/samples"
    cell = Cell(concurrency=c)
    if c == 1 and s:
        out_tok_s = median(x.tok_s_out for x in s) or 0.0
        yield emit.value(
            "canonical.output_tok_s",
            out_tok_s,
            "samples",
            at,
            cell,
            n=len(s),
            summary=run.summary.tok_s_out,
        )
        ttft = median(x.ttft_ms for x in s) or 0.0
        yield emit.value(
            "canonical.ttft_ms", ttft, "samples", at, cell, n=len(s), summary=run.summary.ttft_ms
        )
        rates = [x.tok_s_prefill for x in s if x.tok_s_prefill]
        if rates:
            yield emit.value(
                "canonical.prefill_tok_s",
                median(rates) or 0.0,
                "samples",
                at,
                cell,
                n=len(rates),
                summary=run.summary.tok_s_prefill,
            )
    flags = f"{run.pointer}/engineFlags/concurrency"
    yield emit.value("canonical.concurrency", float(c), "fields", flags, cell)
    tokens = [float(x.output_tokens) for x in s]
    if tokens:
        own = None if run.output_tokens is None else float(run.output_tokens)
        yield emit.value(
            "canonical.output_tokens",
            median(tokens) or 0.0,
            "samples",
            at,
            cell,
            n=len(tokens),
            summary=own,
        )
    elif run.output_tokens is not None:
        where = f"{run.pointer}/outputTokens"
        yield emit.value(
            "canonical.output_tokens", float(run.output_tokens), "summary", where, cell
        )
    if c == 1 and s:
        return
    # Concurrency N: lmx's samples carry per-request speeds but not the group's window, so the
    # group throughput can only come from the summary field.
    where = f"{run.pointer}/tokSOut"
    yield emit.value("canonical.output_tok_s", run.summary.tok_s_out, "summary", where, cell)
    if run.summary.ttft_ms is not None:
        where = f"{run.pointer}/ttftMs"
        yield emit.value("canonical.ttft_ms", run.summary.ttft_ms, "summary", where, cell)


def _median_with_own(values: list[MetricValue], own: float | None) -> Iterator[MetricValue]:
    """A distribution's values, the median carrying the file's own median for cross-checks."""
    if values:
        yield values[0].but(summary=own)
        yield from values[1:]


def _decode(cell: DecodeCell, emit: Emitter) -> Iterator[MetricValue]:
    at = Cell(
        context=cell.context_tokens,
        concurrency=cell.concurrency,
        point=cell.point,
        extra=cell.settings,
    )
    tokens, seconds = cell.window_output_tokens, cell.measurement_s
    if cell.aggregate_source in TOKEN_COUNT_SOURCES and tokens and seconds:
        yield emit.value(
            "decode.aggregate_tok_s",
            tokens / seconds,
            "fields",
            f"{cell.pointer}/client_output_tokens",
            at,
            summary=cell.aggregate_tok_s,
        )
    elif cell.server_counter is not None and seconds:
        name, counted = cell.server_counter
        yield emit.value(
            "decode.aggregate_tok_s",
            counted / seconds,
            "fields",
            f"{cell.pointer}/server_counter_end_value",
            at,
            summary=cell.aggregate_tok_s,
            summary_pointer=f"{cell.pointer}/{cell.aggregate_key}",
            basis=f"the server's {name} counter",
        )
    elif cell.aggregate_tok_s is not None:
        where = f"{cell.pointer}/{cell.aggregate_key}"
        yield emit.value("decode.aggregate_tok_s", cell.aggregate_tok_s, "summary", where, at)
    samples = f"{cell.pointer}/request_samples"
    series = packed(cell.samples, samples).series  # each series sorted once, positive values
    own, key = cell.summary, "decode.per_request_tok_s"
    rates = list(distribution(emit, key, series("per_request_tok_s"), samples, at))
    yield from _median_with_own(rates, own.output_tps_per_user_p50)
    if not rates and own.output_tps_per_user_p50:
        where = f"{cell.pointer}/output_tps_per_user_p50"
        yield emit.value(key, own.output_tps_per_user_p50, "summary", where, at)
    ttfts = list(distribution(emit, "decode.ttft_s", series("ttft_s"), samples, at))
    yield from _median_with_own(ttfts, own.ttft_p50_s)
    if not ttfts and own.ttft_p50_s:
        yield emit.value("decode.ttft_s", own.ttft_p50_s, "summary", f"{cell.pointer}/ttft_p50", at)
    itls = list(distribution(emit, "decode.itl_s", series("itl_s"), samples, at))
    yield from _median_with_own(itls, own.itl_p50_s)
    yield from distribution(emit, "decode.latency_s", series("latency_s"), samples, at)


def _matrix(run: MatrixRun, emit: Emitter) -> Iterator[MetricValue | CellState]:
    src = run.source
    if run.duration_s is not None:
        yield emit.value(
            "matrix.duration_s",
            run.duration_s,
            "fields",
            f"{run.settings_pointer}/duration_per_test",
        )
    if run.max_tokens is not None:
        yield emit.value(
            "matrix.max_tokens",
            float(run.max_tokens),
            "fields",
            f"{run.settings_pointer}/max_tokens",
        )
    for p in run.prefill:
        at = Cell(context=p.context_tokens, point=p.point, extra=p.settings)
        where = f"{p.pointer}/{p.prompt_tokens_key}"
        yield emit.value("prefill.prompt_tokens", float(p.prompt_tokens), "fields", where, at)
        ttft_at = f"{p.pointer}/{p.ttft_key}"
        yield emit.value("prefill.ttft_s", p.ttft_s, "fields", ttft_at, at, basis=p.basis)
        source: Source = "fields"
        rate, own, where = p.prompt_tokens / p.ttft_s, p.tok_s, p.pointer
        if p.rate_key is not None and p.tok_s is not None:  # the tool's rate, as it defines it
            rate, source, own, where = p.tok_s, "summary", None, f"{p.pointer}/{p.rate_key}"
        yield emit.value("prefill.tok_s", rate, source, where, at, summary=own, basis=p.basis)
        state = CellState(
            kind="prefill",
            context=p.context_tokens,
            concurrency=None,
            status="ok",
            reason=None,
            file=src.label,
            pointer=p.pointer,
        )
        yield replace(state, run=emit.run, point=p.point, extra=p.settings)
    for cell in run.cells:
        state = CellState(
            kind="decode",
            context=cell.context_tokens,
            concurrency=cell.concurrency,
            status=cell.status,
            reason="",
            file="",
            pointer="",
        )
        state = replace(state, reason=cell.reason, file=src.label, pointer=cell.pointer)
        yield replace(state, run=emit.run, point=cell.point, extra=cell.settings)
        if cell.status == "ok":
            yield from gate_decode(cell, _decode(cell, emit))


def _cell(point: LoadPoint) -> Cell:
    extra = FrozenDict(
        (axis, value)
        for axis, value in (
            ("prompt_tokens", point.prompt_tokens),
            ("max_tokens", point.max_tokens),
        )
        if value is not None
    )
    return Cell(concurrency=point.concurrency, point=point.label, rate=point.rate, extra=extra)


def _point(point: LoadPoint, emit: Emitter) -> Iterator[MetricValue]:
    at = _cell(point)
    where = point.pointer
    if point.output_tokens is not None and point.duration_s:
        rate = point.output_tokens / point.duration_s
        yield emit.value(
            "load.output_tok_s",
            rate,
            "fields",
            where,
            at,
            summary=point.aggregate_tok_s,
            summary_pointer=point.summary_pointer("aggregate_tok_s"),
        )
    elif point.aggregate_tok_s is not None:
        yield emit.value("load.output_tok_s", point.aggregate_tok_s, "summary", where, at)
    if point.requests_ok is not None and point.duration_s:
        yield emit.value(
            "load.request_s", point.requests_ok / point.duration_s, "fields", where, at
        )
    if point.concurrency is not None:
        yield emit.value("load.concurrency", float(point.concurrency), "fields", where, at)
    if point.rate is not None:
        yield emit.value("load.rate", point.rate, "fields", where, at)
    if point.requests_ok is not None:
        yield emit.value("load.requests", float(point.requests_ok), "fields", where, at)
    yield emit.value("load.failed", float(point.requests_failed), "fields", where, at)
    s = point.samples  # read one at a time: a packed million is never a list of tuples
    for key, quantity, values in (
        ("load.ttft_s", "ttft_s", (r.ttft_s for r in s if r.completed)),
        ("load.itl_s", "itl_s", (r.itl_s for r in s if r.decoded)),
        ("load.latency_s", "latency_s", (r.latency_s for r in s if r.completed)),
        ("load.per_request_tok_s", "per_request_tok_s", (1 / r.itl_s for r in s if r.decoded)),
    ):
        yield from distribution(
            emit,
            key,
            values,
            where,
            at,
            own=point.summary(quantity),
            own_pointer=point.summary_pointer(quantity),
            own_pointers={
                name.split(".", 1)[1]: place
                for name, place in point.summary_at.items()
                if name.startswith(f"{quantity}.")
            },
        )


def _sweep(run: SweepRun, emit: Emitter) -> Iterator[MetricValue | CellState]:
    for point in run.points:
        yield CellState(
            kind="load",
            context=None,
            concurrency=point.concurrency,
            status=point.status,
            reason=point.reason,
            file=run.source.label,
            pointer=point.pointer,
            run=emit.run,
            point=point.label,
            rate=point.rate,
        )
        if point.status == "ok":
            yield from gate_point(point, _point(point, emit))
        else:  # no latency or throughput, but how many requests completed and failed
            yield from _counts(point, emit)


def _counts(point: LoadPoint, emit: Emitter) -> Iterator[MetricValue]:
    """A failed load point's request counts, so that its failures are shown, not left out."""
    at = _cell(point)
    where = point.pointer
    if point.concurrency is not None:
        yield emit.value("load.concurrency", float(point.concurrency), "fields", where, at)
    if point.rate is not None:
        yield emit.value("load.rate", point.rate, "fields", where, at)
    yield emit.value("load.requests", float(point.requests_ok or 0), "fields", where, at)
    yield emit.value("load.failed", float(point.requests_failed), "fields", where, at)


def compute(
    runs: Iterable[Run],
    *,
    run_of: Mapping[str, str] | None = None,
    setups: Mapping[str | None, Setup] | None = None,
) -> MetricSet:
    """Every metric of `runs`; raises `InputError` when two files define the same metric.

    `run_of`: the article's run id of each file (by label); with more than one run id, every id
    starts with its run's. `setups`: each run's setup (None: the only run), for efficiency values.
    """
    runs = tuple(runs)
    values: list[MetricValue] = []
    cells: list[CellState] = []
    for run in runs:
        meta = run_settings(run)
        emit = Emitter(run.source, (run_of or {}).get(run.source.label), meta)
        items: Iterator[MetricValue | CellState]
        if isinstance(run, CanonicalRun):
            items = iter(_canonical(run, emit))
        elif isinstance(run, MatrixRun):
            items = _matrix(run, emit)
        else:
            items = _sweep(run, emit)
        for item in items:
            if isinstance(item, MetricValue):
                values.append(item)
            else:
                cells.append(replace(item, extra=item.extra | meta))
    values += list(efficiency(values, setups or {}))
    values = combine(values, RUN_SETTINGS)
    if len({v.run for v in values} | {c.run for c in cells}) > 1:
        values = [v.but(id=f"{v.run}.{v.id}") for v in values]
    varying = varying_settings(values, RUN_SETTINGS)
    values = [v for v in values if v.id not in varying]
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
        else:  # two contexts with one label, e.g. 4000 and 4096 are both "4K"
            message = f"metric {v.id} is defined twice in this file ({other.pointer}, {v.pointer})"
        clashes.append(whole_file(v.file, message))
    if clashes:
        raise InputError(clashes)
    values_out = tuple(sorted(seen.values(), key=lambda v: v.id))
    return MetricSet(
        values=values_out,
        cells=tuple(cells),
        runs=runs,
        varying=FrozenDict(sorted(varying.items())),
    )
