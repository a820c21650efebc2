"""Building metric values: one run file's values at one place, and a distribution's statistics.

`Emitter` knows the file and the article's run a value belongs to; `distribution` turns the
requests of a cell or load point into its median (the bare id) and p90, p95, p99, mean, min, max
and n, from the requests themselves or, when the file has none, from the tool's own statistics.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from reportgen.frozendict import FrozenDict
from reportgen.metrics.registry import DEFINITIONS, META, STATS, MetricValue, Source, metric_id
from reportgen.model import MatrixRun, Run, Scalar, SourceFile, Summary, SweepRun
from reportgen.stats import describe


@dataclass(frozen=True, kw_only=True)
class Cell:
    """Where a value sits: a decode cell, a cold prefill, a load point or the whole run."""

    context: int | None = None
    concurrency: int | None = None
    point: str | None = None
    rate: float | None = None
    extra: FrozenDict[str, Scalar] = FrozenDict()


RUN = Cell()  # a value of the whole run (a setting)


@dataclass(frozen=True)
class Emitter:
    """Makes the metric values of one run file, for the article run `run`."""

    src: SourceFile
    run: str | None = None
    meta: FrozenDict[str, Scalar] = FrozenDict()  # the file's settings, as `meta.KEY` axes

    def value(
        self,
        key: str,
        value: float,
        source: Source,
        pointer: str,
        at: Cell = RUN,
        *,
        stat: str | None = None,
        n: int | None = None,
        summary: float | None = None,
        summary_pointer: str | None = None,
        basis: str | None = None,
    ) -> MetricValue:
        """One value; its id comes from the registry pattern and the cell (never the run)."""
        unit = "requests" if stat == "n" else DEFINITIONS[key].unit
        return MetricValue(
            id=metric_id(
                key, context=at.context, concurrency=at.concurrency, point=at.point, stat=stat
            ),
            key=key,
            value=value,
            unit=unit,
            source=source,
            file=self.src.label,
            sha256=self.src.sha256,
            provenance=self.src.provenance.status,
            pointer=pointer,
            n=n,
            summary=summary,
            summary_pointer=summary_pointer,
            context=at.context,
            concurrency=at.concurrency,
            run=self.run,
            stat=stat,
            point=at.point,
            rate=at.rate,
            extra=at.extra | self.meta,
            basis=basis,
        )


def distribution(
    emit: Emitter,
    key: str,
    values: Iterable[float],
    pointer: str,
    at: Cell,
    *,
    own: Summary | None = None,
    own_pointer: str | None = None,
    own_pointers: Mapping[str, str] | None = None,
) -> Iterator[MetricValue]:
    """The median (bare id) and statistics of `values`; from `own` (the tool's statistics) when
    there are no values. The median keeps the tool's own median beside it for cross-checks.

    `own_pointer`: where the tool's median is; `own_pointers`: statistic -> where the tool's
    value of it is (the median's pointer when absent)."""
    stats = describe(values)
    if stats is not None:
        n = int(stats["n"])
        own_median = own.p50 if own is not None else None
        yield emit.value(
            key,
            stats["p50"],
            "samples",
            pointer,
            at,
            n=n,
            summary=own_median,
            summary_pointer=own_pointer if own_median is not None else None,
        )
        for stat in STATS:
            yield emit.value(key, stats[stat], "samples", pointer, at, stat=stat, n=n)
        return
    if own is None:
        return
    where = own_pointer or pointer
    if own.p50 is not None:
        yield emit.value(key, own.p50, "summary", where, at, n=own.n)
    for stat in STATS:
        found = own._asdict()[stat]
        if found is not None:
            at_stat = (own_pointers or {}).get(stat, where)
            yield emit.value(key, float(found), "summary", at_stat, at, stat=stat, n=own.n)


def run_settings(run: Run) -> FrozenDict[str, Scalar]:
    """The settings a run file states, as `meta.KEY` axes: its engine and model, a wrapper's
    metadata, and a sweep's settings (None values left out)."""
    pairs: dict[str, Scalar] = {}
    if isinstance(run, MatrixRun | SweepRun):
        pairs.update(engine=run.engine, model=run.model)
    pairs.update(run.source.wrapper)
    if isinstance(run, SweepRun):
        pairs.update(run.settings)
    return FrozenDict((META + k, v) for k, v in sorted(pairs.items()) if v is not None)
