"""The throughput-interactivity frontier of a series of load points, and its values at fixed
interactivity levels (pure: points in, metric values out).

A series (a run, a configuration, an engine) has points of (x = tok/s per user, y = throughput,
per GPU where the setup states its GPUs). A point is on the series' upper-right Pareto frontier
when no other point of the series has both more x and more y. Along the frontier, sorted by x, y
falls (or stays); the value at a level of x is read from a monotone cubic through the frontier
points (PCHIP, `scipy.interpolate.PchipInterpolator`), never beyond its first and last point: a
level outside them is unreachable. The chart draws these frontiers, the `at_interactivity` table
shows these values, and `check` reads them back: one computation for the three.

Where every point of a series was measured several times (each point the median of its
repetitions), its values at the levels have a 95% percentile bootstrap interval
(`resample_levels`): each resample draws each point's repetitions again, with replacement and
independently of the other points, takes their medians, finds the resample's frontier and reads
it at each level (nan where it does not reach). The draws come from Python's `random.random`
seeded by the series' name, whose sequence Python keeps from version to version, so a build
gives the same interval every time. A resample's PCHIP is `pchip_at`, scipy's formula written
for one point of a few knots (about 30 times faster than building a `PchipInterpolator` each
time; `tests/metrics/test_frontier_bootstrap.py` holds the two together).
"""

from __future__ import annotations

import functools
import math
import random
import re
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from reportgen.frozendict import FrozenDict
from reportgen.metrics.cost import Price, usd_per_mtok
from reportgen.metrics.registry import MetricValue
from reportgen.metrics.uncertainty import percentile_interval
from reportgen.model import Scalar

# The bootstrap of a series' values at its levels: how many resamples, and the seed that, with
# the series' name, starts them. 2,000 resamples put the Monte Carlo error of a 2.5th percentile
# at sqrt(0.025 x 0.975 / 2000) = 0.35 percentage points of rank.
RESAMPLES = 2000
SEED = 26


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


def pchip_at(xs: Sequence[float], ys: Sequence[float], level: float) -> float:
    """PCHIP through (xs, ys) (increasing xs, two or more) read at `level`, inside them: the
    derivatives of `scipy.interpolate.PchipInterpolator` (a weighted harmonic mean of the two
    slopes inside, 0 where they differ in sign; the three-point end formula, limited, at the
    ends; a line through two points) and its cubic Hermite piece."""
    n = len(xs)
    if level in xs:
        return ys[xs.index(level)]
    h = [xs[i + 1] - xs[i] for i in range(n - 1)]
    m = [(ys[i + 1] - ys[i]) / h[i] for i in range(n - 1)]
    k = max(i for i in range(n - 1) if xs[i] < level)
    d0, d1 = (_slope_at(h, m, k), _slope_at(h, m, k + 1)) if n > 2 else (m[0], m[0])
    t = level - xs[k]
    c3 = (d0 + d1 - 2 * m[k]) / h[k]
    return ys[k] + t * (d0 + t * ((m[k] - d0) / h[k] - c3 + t * c3 / h[k]))


def _slope_at(h: Sequence[float], m: Sequence[float], i: int) -> float:
    """PCHIP's derivative at knot `i` (three or more knots)."""
    if i == 0:
        return _edge(h[0], h[1], m[0], m[1])
    if i == len(h):
        return _edge(h[-1], h[-2], m[-1], m[-2])
    a, b = m[i - 1], m[i]
    if a == 0 or b == 0 or (a > 0) != (b > 0):
        return 0.0
    w1, w2 = 2 * h[i] + h[i - 1], h[i] + 2 * h[i - 1]
    return (w1 + w2) / (w1 / a + w2 / b)


def _edge(h0: float, h1: float, m0: float, m1: float) -> float:
    d = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1)
    if _sign(d) != _sign(m0):
        return 0.0
    if _sign(m0) != _sign(m1) and abs(d) > 3 * abs(m0):
        return 3 * m0
    return d


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def paired(point: FrontierPoint) -> tuple[tuple[float, float], ...]:
    """The repetitions of a point as (x, y), paired by run file (one repetition measures both),
    in the files' order; () when fewer than two files measured both."""
    xs, ys = dict(point.x_value.repeats), dict(point.y_value.repeats)
    files = sorted(set(xs) & set(ys))
    return tuple((xs[f], ys[f]) for f in files) if len(files) >= 2 else ()


def _median(values: list[float]) -> float:
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def _draws(
    reps: Sequence[Sequence[tuple[float, float]]], rng: random.Random
) -> Iterator[tuple[float, float]]:
    """One resample of each point: its repetitions drawn again with replacement, their
    medians of x and of y."""
    draw = rng.random
    for pairs in reps:
        n = len(pairs)
        picked = [pairs[int(draw() * n)] for _ in range(n)]
        yield _median([x for x, _ in picked]), _median([y for _, y in picked])


def _front_knots(points: list[tuple[float, float]]) -> tuple[list[float], list[float]]:
    """`knots(frontier(...))` of plain (x, y) points, in one sweep from the largest x: a point
    is on the frontier when its y is no lower than every y of a larger x, and the knot of an x
    is its highest y (the highest of a group of equal x is on the frontier when any is)."""
    points.sort(key=lambda p: (-p[0], -p[1]))
    xs: list[float] = []
    ys: list[float] = []
    beyond = -math.inf  # the highest y of the x values already passed
    for x, y in points:
        if xs and xs[-1] == x:
            continue  # a lower y of an x already placed
        if y >= beyond:
            xs.append(x)
            ys.append(y)
        beyond = max(beyond, y)
    xs.reverse()
    ys.reverse()
    return xs, ys


def resample_levels(
    points: Sequence[FrontierPoint],
    levels: Sequence[float],
    *,
    series: str,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> tuple[tuple[float, ...], ...] | None:
    """The series' frontier value at each level in each bootstrap resample of its points'
    repetitions ([level][resample]; nan where the resample's frontier does not reach the
    level); None unless every point has two or more repetitions."""
    ordered = sorted(points, key=lambda p: p.y_value.id)
    reps = tuple(paired(p) for p in ordered)
    if not reps or not all(reps):
        return None
    return _resampled(series, reps, tuple(levels), resamples, seed)


@functools.lru_cache(maxsize=64)  # two tables at the same levels of one series draw once
def _resampled(
    series: str,
    reps: tuple[tuple[tuple[float, float], ...], ...],
    levels: tuple[float, ...],
    resamples: int,
    seed: int,
) -> tuple[tuple[float, ...], ...]:
    rng = random.Random(seed * 2**32 + zlib.crc32(series.encode()))
    out: list[list[float]] = [[] for _ in levels]
    for _ in range(resamples):
        xs, ys = _front_knots(list(_draws(reps, rng)))
        for i, level in enumerate(levels):
            if not xs or not xs[0] <= level <= xs[-1]:
                out[i].append(math.nan)
            else:
                out[i].append(ys[0] if len(xs) == 1 else pchip_at(xs, ys, level))
    return tuple(tuple(row) for row in out)


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
    return base.but(
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
    points: Sequence[FrontierPoint] = (),
) -> tuple[Level, ...]:
    """The frontier `front` of the series `series` (an id part) at each level, as metric values:
    `frontier.<series>.at_<level>.tok_s_per_gpu` (`.tok_s` when the throughput is not per
    GPU), and with a price and a per-GPU throughput `.usd_per_mtok`. With the series' `points`
    each repeated, the throughput and cost carry their bootstrap resamples
    (`resample_levels`; `interval_values` makes their intervals)."""
    xs, _ = knots(front)
    boot = resample_levels(points, levels, series=series) if points else None
    span = (xs[0], xs[-1]) if xs else None
    suffix, unit = ("tok_s_per_gpu", "tok/s/GPU") if per_gpu else ("tok_s", "tok/s")
    out = []
    for i, level in enumerate(levels):
        found = at_level(front, level)
        if found is None:
            out.append(Level(series=series, level=level, span=span, throughput=None))
            continue
        stem = f"frontier.{series}.{level_label(level)}"
        base = _derived(front[-1].y_value, front, series=series, level=level)
        draws = () if boot is None else boot[i]
        value = base.but(
            id=f"{stem}.{suffix}",
            key=f"frontier.{suffix}",
            value=found,
            unit=unit,
            resamples=draws,
        )
        cost = None
        if price is not None and per_gpu and found > 0:
            gpu_hour = price.gpu_hour_usd
            cost = base.but(
                id=f"{stem}.usd_per_mtok",
                key="frontier.usd_per_mtok",
                value=usd_per_mtok(gpu_hour, 1, found),
                unit="USD/Mtok",
                basis=f"{price.words()}, at {value.id}",
                resamples=tuple(usd_per_mtok(gpu_hour, 1, y) if y > 0 else math.nan for y in draws),
            )
        at = base.but(
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
    return other.throughput.but(
        id=f"frontier.{other.series}-vs-{base.series}.{level_label(other.level)}.ratio",
        key="frontier.ratio",
        value=other.throughput.value / base.throughput.value,
        unit="x",
        basis=f"{other.throughput.id} / {base.throughput.id}",
        resamples=paired_ratios(other.throughput.resamples, base.throughput.resamples),
    )


def paired_ratios(a: Sequence[float], b: Sequence[float]) -> tuple[float, ...]:
    """a / b resample by resample (nan where either has none or b is not positive); () unless
    both have the same number of resamples. Two series are resampled independently, so
    pairing their i-th resamples is one draw of both."""
    if not a or len(a) != len(b):
        return ()
    return tuple(x / y if y > 0 else math.nan for x, y in zip(a, b, strict=True))


# The statistics of a frontier value's bootstrap, as its ids end: the interval's ends, and the
# larger distance from the value to either end (so that value +- it covers the interval).
INTERVAL_STATS = ("rep_ci_lo", "rep_ci_hi", "rep_hw")


def interval_values(value: MetricValue) -> tuple[MetricValue, ...]:
    """The 95% percentile bootstrap interval of a value with resamples, as values of their own
    (`X.rep_ci_lo`, `X.rep_ci_hi`, `X.rep_hw`, the names a repeated cell's interval has); ()
    without resamples, or when fewer than half of them reach the level."""
    found = percentile_interval(value.resamples) if value.resamples else None
    if found is None:
        return ()
    missing = (
        f"; {found.missing:,} did not reach the level and are left out" if found.missing else ""
    )
    basis = (
        f"95% percentile bootstrap: {found.resamples:,} resamples of each point's repetitions"
        f"{missing} (of {value.id})"
    )
    half = max(value.value - found.lo, found.hi - value.value, 0.0)
    return tuple(
        value.but(id=f"{value.id}.{stat}", stat=stat, value=x, basis=basis, resamples=())
        for stat, x in zip(INTERVAL_STATS, (found.lo, found.hi, half), strict=True)
    )
