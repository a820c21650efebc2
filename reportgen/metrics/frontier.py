"""The throughput-interactivity frontier of a series of load points, and its values at fixed
interactivity levels (pure: points in, metric values out).

A series (a run, a configuration, an engine) has points of (x = tok/s per user, y = throughput,
per GPU where the setup states its GPUs). A point is on the series' upper-right Pareto frontier
when no other point of the series has both more x and more y. Along the frontier, sorted by x, y
falls (or stays); the value at a level of x is read from a monotone cubic through the frontier
points (PCHIP, `scipy.interpolate.PchipInterpolator`), never beyond its first and last point: a
level outside them is unreachable. The chart draws these frontiers, the `at_interactivity` table
shows these values, and `check` reads them back: one computation for the three.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from reportgen.frozendict import FrozenDict
from reportgen.metrics.cost import Price, usd_per_mtok
from reportgen.metrics.registry import MetricValue
from reportgen.model import Scalar


@dataclass(frozen=True)
class FrontierPoint:
    """One load point of a series: its tok/s per user (x), its throughput (y), and the values
    they were read from."""

    x: float
    y: float
    x_value: MetricValue
    y_value: MetricValue


def on_frontier(points: Sequence[tuple[float, float]]) -> list[bool]:
    """For each (x, y), whether no other point has both a larger x and a larger y."""
    order = sorted(range(len(points)), key=lambda i: -points[i][0])
    out = [False] * len(points)
    best = -math.inf  # the largest y among points of strictly larger x
    i = 0
    while i < len(order):
        x = points[order[i]][0]
        j = i
        while j < len(order) and points[order[j]][0] == x:  # a group of equal x
            j += 1
        for k in order[i:j]:
            out[k] = not points[k][1] < best
        best = max(best, *(points[k][1] for k in order[i:j]))
        i = j
    return out


def frontier(points: Iterable[FrontierPoint]) -> tuple[FrontierPoint, ...]:
    """The points on the series' frontier, by x (then by y, highest first)."""
    pts = list(points)
    keep = on_frontier([(p.x, p.y) for p in pts])
    return tuple(
        sorted((p for p, k in zip(pts, keep, strict=True) if k), key=lambda p: (p.x, -p.y))
    )


def knots(front: Sequence[FrontierPoint]) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The (xs, ys) the interpolation passes through: the frontier's points, one per x (the
    highest y where two frontier points share an x), by x."""
    best: dict[float, float] = {}
    for p in front:
        best[p.x] = max(best.get(p.x, -math.inf), p.y)
    xs = tuple(sorted(best))
    return xs, tuple(best[x] for x in xs)


def at_level(front: Sequence[FrontierPoint], level: float) -> float | None:
    """The frontier's throughput at `level` tok/s per user, by PCHIP through its points; None
    (unreachable) outside the range of x its points span."""
    xs, ys = knots(front)
    if not xs or level < xs[0] or level > xs[-1]:
        return None
    if level in xs:
        return ys[xs.index(level)]
    from scipy.interpolate import PchipInterpolator  # only where a level falls between points

    return float(PchipInterpolator(xs, ys, extrapolate=False)(level))


def level_label(level: float) -> str:
    """A level as an id part: 50 -> "at_50", 12.5 -> "at_12p5"."""
    return "at_" + f"{level:g}".replace(".", "p").replace("-", "m")


def series_label(text: str) -> str:
    """A series' name as an id part: lower case, any run of other characters one "-"."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "series"


@dataclass(frozen=True, kw_only=True)
class Level:
    """The frontier of one series at one level: its throughput there (None: unreachable) and,
    with a price, its cost per million output tokens."""

    series: str  # the series as an id part
    level: float
    span: tuple[float, float] | None  # the frontier's range of x; None: no frontier
    throughput: MetricValue | None
    cost: MetricValue | None = None
    # the level itself as a value (`frontier.<series>.at_<level>.level`, tok/s per user), so
    # prose can state it by reference; None where the frontier does not reach it
    at: MetricValue | None = None


def _derived(base: MetricValue, front: Sequence[FrontierPoint], **extra: Scalar) -> MetricValue:
    """A value derived from the frontier of `front`: its place and provenance from the point
    nearest its top, its basis the points it rests on."""
    return replace(
        base,
        source="derived",
        n=None,
        summary=None,
        summary_pointer=None,
        stat=None,
        repeats=(),
        context=None,
        concurrency=None,
        point=None,
        rate=None,
        extra=FrozenDict(sorted(extra.items())),
        basis="frontier through " + ", ".join(p.y_value.id for p in front),
    )


def levels_of(
    series: str,
    front: Sequence[FrontierPoint],
    levels: Sequence[float],
    *,
    per_gpu: bool,
    price: Price | None = None,
) -> tuple[Level, ...]:
    """The frontier `front` of the series `series` (an id part) at each level, as metric values:
    `frontier.<series>.at_<level>.tok_s_per_gpu` (`.tok_s` when the throughput is not per
    GPU), and with a price and a per-GPU throughput `.usd_per_mtok`."""
    xs, _ = knots(front)
    span = (xs[0], xs[-1]) if xs else None
    suffix, unit = ("tok_s_per_gpu", "tok/s/GPU") if per_gpu else ("tok_s", "tok/s")
    out = []
    for level in levels:
        found = at_level(front, level)
        if found is None:
            out.append(Level(series=series, level=level, span=span, throughput=None))
            continue
        stem = f"frontier.{series}.{level_label(level)}"
        base = _derived(front[-1].y_value, front, series=series, level=level)
        value = replace(
            base, id=f"{stem}.{suffix}", key=f"frontier.{suffix}", value=found, unit=unit
        )
        cost = None
        if price is not None and per_gpu and found > 0:
            cost = replace(
                base,
                id=f"{stem}.usd_per_mtok",
                key="frontier.usd_per_mtok",
                value=usd_per_mtok(price.gpu_hour_usd, 1, found),
                unit="USD/Mtok",
                basis=f"{price.words()}, at {value.id}",
            )
        at = replace(
            base,
            id=f"{stem}.level",
            key="frontier.level",
            value=level,
            unit="tok/s",
            basis=f"the level {value.id} is read at",
        )
        out.append(Level(series=series, level=level, span=span, throughput=value, cost=cost, at=at))
    return tuple(out)


def ratio(base: Level, other: Level) -> MetricValue | None:
    """`other`'s throughput over `base`'s at one level (None where either is unreachable or
    the base is 0): `frontier.<other>-vs-<base>.at_<level>.ratio`."""
    if base.throughput is None or other.throughput is None or not base.throughput.value:
        return None
    return replace(
        other.throughput,
        id=f"frontier.{other.series}-vs-{base.series}.{level_label(other.level)}.ratio",
        key="frontier.ratio",
        value=other.throughput.value / base.throughput.value,
        unit="x",
        basis=f"{other.throughput.id} / {base.throughput.id}",
    )
