"""Comparisons between two runs of an article: for every metric both runs have at the same
cell, the other run's change against the base run (delta and ratio), as metric values of their
own, so that a table of them is checked like any other number."""

from __future__ import annotations

from collections.abc import Iterable

from reportgen.frozendict import FrozenDict
from reportgen.metrics.registry import MetricSet, MetricValue
from reportgen.model import Scalar


def _place(v: MetricValue) -> tuple[Scalar, ...]:
    return (v.metric, v.context, v.concurrency, v.point, v.rate)


def compare(base: MetricValue, other: MetricValue) -> tuple[MetricValue, ...]:
    """The delta and (when the base is not 0) the ratio of `other` against `base`."""
    bare = base.id.removeprefix(f"{base.run}.") if base.run else base.id
    stem = f"compare.{other.run}-vs-{base.run}.{bare}"
    extra: FrozenDict[str, Scalar] = FrozenDict(
        {"of": base.id, "key": base.key, "stat": base.stat, "base": base.run}
    )
    derived = other.but(
        source="derived",
        n=None,
        summary=None,
        stat=None,
        extra=extra,
        basis=f"{other.id} against {base.id}",
    )
    out = [derived.but(id=f"{stem}.delta", key="compare.delta", value=other.value - base.value)]
    if base.value:
        ratio = other.value / base.value
        out.append(derived.but(id=f"{stem}.ratio", key="compare.ratio", value=ratio, unit="x"))
    return tuple(out)


def with_comparisons(metrics: MetricSet, pairs: Iterable[tuple[str, str]]) -> MetricSet:
    """`metrics` with the comparison values of each (base run, other run) pair added."""
    added: list[MetricValue] = []
    for base_run, other_run in dict.fromkeys(pairs):
        base = {
            _place(v): v
            for v in metrics.values
            if v.run == base_run and not v.key.startswith("compare.")
        }
        for v in metrics.values:
            if v.run == other_run and (match := base.get(_place(v))) is not None:
                added.extend(compare(match, v))
    if not added:
        return metrics
    values = tuple(sorted((*metrics.values, *added), key=lambda v: v.id))
    return MetricSet(values=values, cells=metrics.cells, runs=metrics.runs)
