"""Cross-cell lints: a cell judged against other cells and against physics (TTFT below the cold
prefill, trends along context and concurrency, aggregates above what the requests allow). Each
lint is one function, registered with its definition by `finds`.
"""

from __future__ import annotations

from collections.abc import Iterator

from reportgen import tolerances as tol
from reportgen.metrics.lints.findings import (
    Finding,
    cell_ids,
    cell_label,
    finding,
    finds,
    fmt,
    matrix_runs,
)
from reportgen.metrics.registry import MetricSet, MetricValue
from reportgen.model import CanonicalRun, context_label
from reportgen.samples import packed


@finds(
    "decode-ttft-below-prefill",
    severity="warning",
    rule="lowest-concurrency decode TTFT below min_ttft_vs_prefill x cold-prefill TTFT",
    title="Decode TTFT well below the cold prefill of the same context",
    why="The first token came much sooner than a cold prefill of the same context takes: the "
    "prefix cache was probably hit, or the prompts were shorter than their label.",
)
def decode_ttft_below_prefill(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """The lowest-concurrency decode TTFT of each context against its cold-prefill TTFT."""
    lowest: dict[tuple[str, int], MetricValue] = {}
    for v in metrics.of("decode.ttft_s"):
        if v.context is not None and v.concurrency is not None:
            best = lowest.get((v.run or "", v.context))
            if best is None or (best.concurrency or 0) > v.concurrency:
                lowest[(v.run or "", v.context)] = v
    for (_, ctx), decode in sorted(lowest.items()):
        cold = metrics.find("prefill.ttft_s", run=decode.run, context=ctx)
        if cold is None or decode.value >= t.min_ttft_vs_prefill * cold.value:
            continue
        name, conc = context_label(ctx), decode.concurrency
        yield finding(
            "decode-ttft-below-prefill",
            decode.file,
            decode.pointer,
            cell_label(ctx, conc or 0),
            f"median TTFT {fmt(decode.value)} s at concurrency {conc} vs cold prefill "
            f"{fmt(cold.value)} s ({decode.value / cold.value:.2f} x, "
            f"below {t.min_ttft_vs_prefill:g} x)",
            f"At concurrency {conc} the {name} requests got their first token after "
            f"{fmt(decode.value)} s, well under the {fmt(cold.value)} s a cold {name} prefill "
            f"took: the prefix cache was probably not busted, or the prompts were shorter than "
            f"{name}.",
            (decode.id, cold.id),
            ctx,
            conc,
        )


def _axis_label(v: MetricValue, axis: str) -> str:
    return context_label(v.context or 0) if axis == "context" else str(v.concurrency)


def _trend(
    metrics: MetricSet,
    t: tol.Thresholds,
    lint_id: str,
    *,
    key: str,
    axis: str,
    forbidden: int,
    message: str,
) -> Iterator[Finding]:
    """Each cell's `key` against the cells before it along `axis` (context or concurrency, the
    other fixed): a change in the `forbidden` direction (+1 a rise, -1 a fall) beyond the noise
    margin is a finding. `message` is a template: it gets hi/lo (the two cells' axis labels), at
    (the fixed coordinate) and change (signed percent)."""
    # a line per run, fixed coordinate and point (one of several tests of a cell: tg128)
    lines: dict[tuple[str, str, int], list[MetricValue]] = {}
    for v in metrics.of(key):
        if v.context is not None and v.concurrency is not None:
            fixed = v.concurrency if axis == "context" else v.context
            lines.setdefault((v.run or "", v.point or "", fixed), []).append(v)
    for (_, _, fixed), line in sorted(lines.items()):
        line.sort(key=lambda v: (v.context or 0) if axis == "context" else (v.concurrency or 0))
        for i, v in enumerate(line[1:], 1):
            # the earlier cell that makes the strongest case: lowest for a forbidden rise,
            # highest for a forbidden fall; the nearest one on ties
            ref = max(reversed(line[:i]), key=lambda r: -forbidden * r.value)
            if ref.value <= 0:
                continue
            change = v.value / ref.value - 1
            if forbidden * change <= t.trend_margin:
                continue
            at = str(fixed) if axis == "context" else context_label(fixed)
            unit, here = v.unit, cell_label(v.context or 0, v.concurrency or 0)
            there = cell_label(ref.context or 0, ref.concurrency or 0)
            yield finding(
                lint_id,
                v.file,
                v.pointer,
                here,
                f"{fmt(v.value)} {unit} at {here} vs {fmt(ref.value)} {unit} at {there}"
                f" ({change:+.1%}, noise margin {t.trend_margin:.0%})",
                message.format(
                    at=at,
                    hi=_axis_label(v, axis),
                    lo=_axis_label(ref, axis),
                    change=f"{change:+.0%}",
                ),
                (ref.id, v.id),
                v.context,
                v.concurrency,
            )


@finds(
    "throughput-rises-with-context",
    severity="warning",
    rule="aggregate rises with context",
    title="Aggregate throughput that rises with context",
    why="A longer context should not decode faster; differences this size are above the noise of "
    "one window.",
)
def throughput_rises_with_context(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """The aggregate of a cell against the shorter contexts at its concurrency."""
    return _trend(
        metrics,
        t,
        "throughput-rises-with-context",
        key="decode.aggregate_tok_s",
        axis="context",
        forbidden=+1,
        message="With {at} concurrent requests, all requests together decode faster at {hi} than "
        "at {lo} ({change}); a longer context should not decode faster.",
    )


@finds(
    "speed-rises-with-context",
    severity="warning",
    rule="per-request speed rises with context",
    title="Per-request speed that rises with context",
    why="A longer context should not decode faster; differences this size are above the noise of "
    "one window.",
)
def speed_rises_with_context(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """The per-request speed of a cell against the shorter contexts at its concurrency."""
    return _trend(
        metrics,
        t,
        "speed-rises-with-context",
        key="decode.per_request_tok_s",
        axis="context",
        forbidden=+1,
        message="With {at} concurrent requests, each request decodes faster at {hi} than at {lo} "
        "({change}); a longer context should not decode faster.",
    )


@finds(
    "ttft-falls-with-context",
    severity="warning",
    rule="TTFT falls with context",
    title="TTFT that falls with context",
    why="A longer prompt should not prefill sooner.",
)
def ttft_falls_with_context(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """The TTFT of a cell against the shorter contexts at its concurrency."""
    return _trend(
        metrics,
        t,
        "ttft-falls-with-context",
        key="decode.ttft_s",
        axis="context",
        forbidden=-1,
        message="With {at} concurrent requests, the first token comes sooner at {hi} than at {lo} "
        "({change}); a longer prompt should not prefill sooner.",
    )


@finds(
    "throughput-falls-with-concurrency",
    severity="warning",
    rule="aggregate falls with concurrency",
    title="Aggregate throughput that falls with concurrency",
    why="More load should raise total throughput until the server saturates.",
)
def throughput_falls_with_concurrency(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """The aggregate of a cell against the lower concurrencies at its context."""
    return _trend(
        metrics,
        t,
        "throughput-falls-with-concurrency",
        key="decode.aggregate_tok_s",
        axis="concurrency",
        forbidden=-1,
        message="At {at}, {hi} concurrent requests together decode slower than {lo} ({change}); "
        "more load should raise total throughput until the server saturates.",
    )


@finds(
    "speed-rises-with-concurrency",
    severity="warning",
    rule="per-request speed rises with concurrency",
    title="Per-request speed that rises with concurrency",
    why="Sharing the server should not make a request faster.",
)
def speed_rises_with_concurrency(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """The per-request speed of a cell against the lower concurrencies at its context."""
    return _trend(
        metrics,
        t,
        "speed-rises-with-concurrency",
        key="decode.per_request_tok_s",
        axis="concurrency",
        forbidden=+1,
        message="At {at}, each of {hi} concurrent requests decodes faster than each of {lo} "
        "({change}); sharing the server should not make a request faster.",
    )


@finds(
    "ttft-falls-with-concurrency",
    severity="warning",
    rule="TTFT falls with concurrency",
    title="TTFT that falls with concurrency",
    why="More requests waiting for prefill should not shorten the wait.",
)
def ttft_falls_with_concurrency(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """The TTFT of a cell against the lower concurrencies at its context."""
    return _trend(
        metrics,
        t,
        "ttft-falls-with-concurrency",
        key="decode.ttft_s",
        axis="concurrency",
        forbidden=-1,
        message="At {at}, the first token comes sooner with {hi} concurrent requests than with "
        "{lo} ({change}); more requests waiting for prefill should not shorten the wait.",
    )


@finds(
    "aggregate-above-requests",
    severity="warning",
    rule="aggregate above C x fastest request x (1 + aggregate_margin)",
    title="Aggregates above what the requests' own speeds allow",
    why="All requests together produced more than their own speeds allow: the aggregate and the "
    "request samples may not describe the same run.",
)
def aggregate_above_requests(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """Decode cells, then lmx groups, that produced more than their requests' speeds allow."""
    yield from _aggregate_bound(metrics, t)
    yield from _group_bound(metrics, t)


def _aggregate_bound(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """All requests together against concurrency x the fastest single request."""
    factor = 1 + t.aggregate_margin
    for run in matrix_runs(metrics):
        run_id = metrics.run_of(run.source.label)
        for cell in run.cells:
            where = {"context": cell.context_tokens, "concurrency": cell.concurrency}
            agg = metrics.find("decode.aggregate_tok_s", run=run_id, **where)
            # 1 / ITL of each request with two tokens or more, sorted (as the metrics have it)
            speeds = packed(cell.samples).series("per_request_tok_s")
            if cell.status != "ok" or agg is None or not speeds:
                continue
            conc, fastest = cell.concurrency, speeds[-1]
            if agg.value <= conc * fastest * factor:
                continue
            label = cell_label(cell.context_tokens, conc)
            yield finding(
                "aggregate-above-requests",
                agg.file,
                agg.pointer,
                label,
                f"aggregate {fmt(agg.value)} tok/s > {conc} x fastest request "
                f"{fmt(fastest)} tok/s x {factor:g} = {fmt(conc * fastest * factor)} tok/s",
                f"All requests of the {label} cell together produced {fmt(agg.value)} tok/s, "
                f"more than {conc} streams at its fastest request's {fmt(fastest)} tok/s can; "
                "the aggregate and the request samples do not describe the same run.",
                cell_ids(metrics, cell, run.source.label),
                context=cell.context_tokens,
                concurrency=cell.concurrency,
            )


def _group_bound(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """An lmx group throughput against the sum of its requests' own speeds."""
    factor = 1 + t.aggregate_margin
    for run in metrics.runs:
        if not isinstance(run, CanonicalRun) or run.concurrency < 2 or not run.samples:
            continue
        sums: dict[int, float] = {}
        for s in run.samples:
            sums[s.iteration] = sums.get(s.iteration, 0.0) + s.tok_s_out
        bound, group = max(sums.values()), run.summary.tok_s_out
        if group <= bound * factor:
            continue
        conc = run.concurrency
        yield finding(
            "aggregate-above-requests",
            run.source.label,
            run.samples[0].pointer.rsplit("/samples", 1)[0] + "/tokSOut",
            f"canonical x {conc}",
            f"tokSOut {fmt(group)} tok/s > best iteration's sum of request speeds "
            f"{fmt(bound)} tok/s x {factor:g}",
            f"The {conc} requests together are reported at {fmt(group)} tok/s, more than the "
            f"sum of their own speeds ({fmt(bound)} tok/s) allows.",
            tuple(
                i
                for i in [
                    metrics.id_of(
                        "canonical.output_tok_s",
                        run=metrics.run_of(run.source.label),
                        concurrency=conc,
                    )
                ]
                if i is not None
            ),
            concurrency=conc,
        )


@finds(
    "aggregate-above-median-speed",
    severity="warning",
    rule="aggregate above C x median request speed x (1 + median_speed_margin)",
    title="Aggregates well above concurrency x the median request speed",
    why="The per-request speeds here are lower than what all requests together produced: each "
    "request's 1 / ITL includes the stalls while the other requests prefilled, which the "
    "aggregate's window does not. Read the per-request speeds as a lower bound.",
)
def aggregate_above_median_speed(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """All requests together against concurrency x the median request speed, per cell."""
    factor = 1 + t.median_speed_margin
    pairs = (
        ("decode.aggregate_tok_s", "decode.per_request_tok_s"),
        ("load.output_tok_s", "load.per_request_tok_s"),
    )
    for aggregate_key, speed_key in pairs:
        for agg in metrics.of(aggregate_key):
            if not agg.concurrency:
                continue
            where = {"run": agg.run, "context": agg.context, "concurrency": agg.concurrency}
            speed = metrics.find(speed_key, point=agg.point, **where)
            if speed is None or speed.value <= 0:
                continue
            conc, bound = agg.concurrency, agg.concurrency * speed.value
            if agg.value <= bound * factor:
                continue
            over = agg.value / bound - 1
            label = cell_label(agg.context, conc) if agg.context is not None else f"{agg.point}"
            yield finding(
                "aggregate-above-median-speed",
                agg.file,
                agg.pointer,
                label,
                f"aggregate {fmt(agg.value)} tok/s vs {conc} x median {fmt(speed.value)} tok/s "
                f"= {fmt(bound)} tok/s ({over:+.0%}, margin {t.median_speed_margin:.0%})",
                f"All {conc} requests of the {label} cell together produced {fmt(agg.value)} "
                f"tok/s, {over:.0%} more than {conc} times the median request's "
                f"{fmt(speed.value)} tok/s: each request's 1 / ITL includes the stalls while "
                "the other requests prefilled, which the aggregate's window does not, so the "
                "per-request speed understates how fast a request decodes once it is running.",
                (agg.id, speed.id),
                agg.context,
                conc,
            )
