"""The article's frontiers and costs: each `at_interactivity` table's series, their frontiers
(`metrics/frontier.py`) and values at the table's levels, and the costs of `[cost]`
(`metrics/cost.py`), added to the metrics the page, metrics.json and `check` all read.

The interactivity chart pairs its points with `pairs` and draws `series_frontiers`; the table
lays out `table_levels`; both call the same functions on the same values, so the line drawn,
the number in the table and the number `check` recomputes are one computation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reportgen.article.axes import axis_label, matches, sort_values
from reportgen.article.source.declarations import ArticleSource, ChartDecl, TableDecl, Where
from reportgen.errors import InputError, Problem
from reportgen.metrics.cost import costs, input_shares
from reportgen.metrics.frontier import (
    FrontierPoint,
    Level,
    frontier,
    interval_values,
    levels_of,
    ratio,
    series_label,
)
from reportgen.metrics.registry import MetricSet, MetricValue
from reportgen.model import Scalar


def _place(v: MetricValue) -> tuple[Scalar, ...]:
    return tuple(v.coord(a) for a in ("run", "context", "concurrency", "point"))


def all_pairs(
    metrics: MetricSet, metric: str, x: str, where: Where
) -> list[tuple[MetricValue, MetricValue]]:
    """(x value, y value) of each cell that has both metrics and passes `where`, gated or not."""
    ys = [v for v in metrics.of(metric) if matches(v, where)]
    x_at = {_place(v): v for v in metrics.of(x) if matches(v, where)}
    return [(x_at[_place(y)], y) for y in ys if _place(y) in x_at]


def pairs(
    metrics: MetricSet, metric: str, x: str, where: Where
) -> list[tuple[MetricValue, MetricValue]]:
    """(x value, y value) of each cell that has both metrics and passes `where`, and neither of
    them gated: a point whose throughput or speed is not measurable as shown (incomplete, not
    steady) is no point of a frontier, a table at a level or the chart (`left_out` says which)."""
    return [
        (xv, yv)
        for xv, yv in all_pairs(metrics, metric, x, where)
        if xv.gate is None and yv.gate is None
    ]


def left_out(
    metrics: MetricSet, metric: str, x: str, where: Where
) -> list[tuple[MetricValue, str]]:
    """The y value of each point `pairs` leaves out, and why (its gate's words, or its x's)."""
    out = []
    for xv, yv in all_pairs(metrics, metric, x, where):
        gate = yv.gate or xv.gate
        if gate is not None:
            out.append((yv, gate.words()))
    return out


def left_out_words(
    metrics: MetricSet,
    decl: TableDecl | ChartDecl,
    article: ArticleSource,
) -> dict[str, str]:
    """Each series' points that `left_out` leaves out of its frontier, in words, by the series'
    name: "4 concurrent requests (3 of 40 requests did not complete)"."""
    assert decl.metric is not None and decl.x is not None
    out: dict[str, list[str]] = {}
    for v, why in left_out(metrics, decl.metric, decl.x, decl.where):
        name = axis_label(decl.series, v.coord(decl.series), article) if decl.series else ""
        where = (
            f"{v.concurrency} concurrent requests"
            if v.concurrency is not None
            else f"load point {v.point}"
        )
        out.setdefault(name, []).append(f"{where} ({why})")
    return {name: "; ".join(parts) for name, parts in out.items()}


def series_points(
    found: Sequence[tuple[MetricValue, MetricValue]], series_axis: str | None, value: Scalar
) -> list[FrontierPoint]:
    """The points of one series (all of them, with no axis)."""
    return [
        FrontierPoint(x.value, y.value, x, y)
        for x, y in found
        if series_axis is None or y.coord(series_axis) == value
    ]


def series_frontiers(
    found: Sequence[tuple[MetricValue, MetricValue]],
    series_axis: str | None,
    article: ArticleSource,
) -> list[tuple[Scalar, tuple[FrontierPoint, ...]]]:
    """Each series' frontier, in the axis' order (one series, None, without an axis)."""
    values = (
        sort_values(series_axis, {y.coord(series_axis) for _, y in found}, article)
        if series_axis
        else [None]
    )
    return [(s, frontier(series_points(found, series_axis, s))) for s in values]


@dataclass(frozen=True, kw_only=True)
class TableLevels:
    """An `at_interactivity` table's values: per series (in column order) its name and its
    frontier at each level; the ratios of the compared series (other over base), by level."""

    names: tuple[str, ...]
    levels: tuple[tuple[Level, ...], ...]  # [series][level]
    ratios: tuple[MetricValue | None, ...] = ()


def series_id(axis: str, value: Scalar, article: ArticleSource) -> str:
    """A series as its ids name it: a run by its id, another axis' value by its label."""
    return series_label(str(value) if axis == "run" else axis_label(axis, value, article))


def table_levels(decl: TableDecl, article: ArticleSource, metrics: MetricSet) -> TableLevels:
    """The frontier of each series of an `at_interactivity` table at its levels."""
    assert decl.metric is not None and decl.x is not None and decl.series is not None
    found = pairs(metrics, decl.metric, decl.x, decl.where)
    if not found:
        raise _problem(decl, f"no cell has both {decl.x} and {decl.metric}")
    per_gpu = decl.metric.endswith(".per_gpu")
    if decl.cost and not per_gpu:
        raise _problem(decl, "cost = true needs a throughput per GPU (a metric ending .per_gpu)")
    price = article.cost if decl.cost else None
    names: list[str] = []
    levels: dict[str, tuple[Level, ...]] = {}
    for s, front in series_frontiers(found, decl.series, article):
        sid = series_id(decl.series, s, article)
        names.append(axis_label(decl.series, s, article))
        points = series_points(found, decl.series, s)
        levels[sid] = levels_of(
            sid, front, decl.levels, per_gpu=per_gpu, price=price, points=points
        )
    ratios: tuple[MetricValue | None, ...] = ()
    if decl.compare is not None:
        base, other = (series_label(decl.compare.base), series_label(decl.compare.other))
        for side in (base, other):
            if side not in levels:
                raise _problem(decl, f"no series {side!r} to compare; it has {', '.join(levels)}")
        ratios = tuple(ratio(b, o) for b, o in zip(levels[base], levels[other], strict=True))
    return TableLevels(names=tuple(names), levels=tuple(levels.values()), ratios=ratios)


def _problem(decl: TableDecl, message: str) -> InputError:
    return InputError([decl.place.problem(f"table {decl.id!r}: {message}")])


def with_frontiers(article: ArticleSource, metrics: MetricSet) -> MetricSet:
    """`metrics` with the costs of `[cost]` at every point and the values of every
    `at_interactivity` table added; two tables that give one id two values are an error."""
    added: dict[str, MetricValue] = {}
    if article.cost is not None:
        shares = input_shares(metrics.runs)
        for v in costs(metrics.values, article.cost, article.setups(), shares):
            added[v.id] = v
    problems: list[Problem] = []
    with_costs = _extended(metrics, added)
    for decl in article.tables():
        if decl.kind != "at_interactivity":
            continue
        try:
            found = table_levels(decl, article, with_costs)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        items = [v for row in found.levels for lv in row for v in (lv.throughput, lv.cost, lv.at)]
        made = [x for x in (*items, *found.ratios) if x is not None]
        for v in (*made, *(i for x in made for i in interval_values(x))):
            seen = added.setdefault(v.id, v)
            if seen.value != v.value:
                problems.append(
                    decl.place.problem(
                        f"table {decl.id!r}: {v.id} is also computed by another table, from "
                        "other points; give one of them another series or where"
                    )
                )
    if problems:
        raise InputError(problems)
    return _extended(metrics, added)


def _extended(metrics: MetricSet, added: dict[str, MetricValue]) -> MetricSet:
    if not added:
        return metrics
    values = tuple(sorted((*metrics.values, *added.values()), key=lambda v: v.id))
    return MetricSet(
        values=values,
        cells=metrics.cells,
        runs=metrics.runs,
        varying=metrics.varying,
        read_warnings=metrics.read_warnings,
    )
