"""Cross-cell lints: a cell judged against other cells and against physics (TTFT below the cold
prefill, trends along context and concurrency, aggregates above what the requests allow).
"""

from __future__ import annotations

from collections.abc import Iterator

from reportgen import tolerances as tol
from reportgen.metrics.lints.findings import (
    Finding,
    cell_ids,
    cell_label,
    finding,
    fmt,
    matrix_runs,
)
from reportgen.metrics.registry import MetricSet, MetricValue
from reportgen.model import CanonicalRun, context_label
from reportgen.samples import packed


def ttft_vs_prefill(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """The lowest-concurrency decode TTFT of each context against its cold-prefill TTFT."""
    lowest: dict[tuple[str, int], MetricValue] = {}
    for v in metrics.values:
        if v.metric == "decode.ttft_s" and v.context is not None and v.concurrency is not None:
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


# (lint id, metric key, axis, direction physics forbids, message template). Templates get
# hi/lo (the two cells' axis labels), at (the fixed coordinate) and change (signed percent).
TRENDS: tuple[tuple[str, str, str, int, str], ...] = (
    (
        "throughput-rises-with-context",
        "decode.aggregate_tok_s",
        "context",
        +1,
        "With {at} concurrent requests, all requests together decode faster at {hi} than at {lo} "
        "({change}); a longer context should not decode faster.",
    ),
    (
        "speed-rises-with-context",
        "decode.per_request_tok_s",
        "context",
        +1,
        "With {at} concurrent requests, each request decodes faster at {hi} than at {lo} "
        "({change}); a longer context should not decode faster.",
    ),
    (
        "ttft-falls-with-context",
        "decode.ttft_s",
        "context",
        -1,
        "With {at} concurrent requests, the first token comes sooner at {hi} than at {lo} "
        "({change}); a longer prompt should not prefill sooner.",
    ),
    (
        "throughput-falls-with-concurrency",
        "decode.aggregate_tok_s",
        "concurrency",
        -1,
        "At {at}, {hi} concurrent requests together decode slower than {lo} ({change}); more "
        "load should raise total throughput until the server saturates.",
    ),
    (
        "speed-rises-with-concurrency",
        "decode.per_request_tok_s",
        "concurrency",
        +1,
        "At {at}, each of {hi} concurrent requests decodes faster than each of {lo} ({change}); "
        "sharing the server should not make a request faster.",
    ),
    (
        "ttft-falls-with-concurrency",
        "decode.ttft_s",
        "concurrency",
        -1,
        "At {at}, the first token comes sooner with {hi} concurrent requests than with {lo} "
        "({change}); more requests waiting for prefill should not shorten the wait.",
    ),
)


def _axis_label(v: MetricValue, axis: str) -> str:
    return context_label(v.context or 0) if axis == "context" else str(v.concurrency)


def trends(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """Each cell against the cells before it along context or concurrency (the other fixed)."""
    for lint_id, key, axis, forbidden, template in TRENDS:
        # a line per run, fixed coordinate and point (one of several tests of a cell: tg128)
        lines: dict[tuple[str, str, int], list[MetricValue]] = {}
        for v in metrics.values:
            if v.metric == key and v.context is not None and v.concurrency is not None:
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
                    template.format(
                        at=at,
                        hi=_axis_label(v, axis),
                        lo=_axis_label(ref, axis),
                        change=f"{change:+.0%}",
                    ),
                    (ref.id, v.id),
                    v.context,
                    v.concurrency,
                )


def aggregate_bound(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
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


def group_bound(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
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


def median_speed_bound(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """All requests together against concurrency x the median request speed, per cell."""
    factor = 1 + t.median_speed_margin
    pairs = (
        ("decode.aggregate_tok_s", "decode.per_request_tok_s"),
        ("load.output_tok_s", "load.per_request_tok_s"),
    )
    for aggregate_key, speed_key in pairs:
        for agg in metrics.values:
            if agg.metric != aggregate_key or not agg.concurrency:
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
