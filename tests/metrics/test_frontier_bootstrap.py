"""The bootstrap of a frontier's values (`reportgen.metrics.frontier.resample_levels`,
`interval_values`): its PCHIP and its frontier sweep against the slow paths they stand for, its
draws reproducible, and its intervals against an independent computation, scipy's own bootstrap
(`scipy.stats.bootstrap`, with scipy's PCHIP) on the same repetitions of the synthetic
three-configs article."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from helpers_sweeps import Sweep

from reportgen.article.frontiers import pairs, series_points, with_frontiers
from reportgen.article.rundata import article_metrics
from reportgen.metrics.claims import claim_spread, lookup
from reportgen.metrics.frontier import (
    RESAMPLES,
    FrontierPoint,
    _front_knots,
    frontier,
    interval_values,
    knots,
    paired,
    pchip_at,
    resample_levels,
)
from reportgen.metrics.registry import MetricSet
from reportgen.metrics.uncertainty import percentile_interval

ROOT = Path(__file__).resolve().parents[2]
ARTICLE = ROOT / "tests" / "articles" / "three-configs"
METRIC, X, LEVEL = "decode.aggregate_tok_s.per_gpu", "decode.per_request_tok_s", 50.0
# Two independent bootstraps of 2,000 resamples each place a 2.5th percentile within
# sqrt(2 x 0.025 x 0.975 / 2000) = 0.49 percentage points of rank of each other (one standard
# error); four of those is the tolerance: a rank between 0.5% and 4.5% for the low end.
RANK_TOLERANCE = 4 * math.sqrt(2 * 0.025 * 0.975 / RESAMPLES)


@pytest.mark.slow
def test_pchip_at_is_scipy_s_pchip(sweep: Sweep) -> None:
    from scipy.interpolate import PchipInterpolator

    def case(seed: int) -> str | None:
        rng = random.Random(seed)
        n = rng.randint(2, 8)
        xs = sorted(rng.sample(range(1, 200), n))
        ys = [rng.choice([rng.uniform(0, 900), 300.0]) for _ in range(n)]  # flat runs too
        level = rng.uniform(xs[0], xs[-1]) if seed % 5 else float(rng.choice(xs))
        want = float(PchipInterpolator(xs, ys, extrapolate=False)(level))
        got = pchip_at([float(x) for x in xs], ys, level)
        if math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9):
            return None
        return f"{xs} {ys} at {level}: {got} against scipy's {want}"

    sweep.judge(range(2000), case)


def test_the_resamples_frontier_sweep_is_knots_of_frontier(sweep: Sweep) -> None:
    def case(seed: int) -> str | None:
        rng = random.Random(seed)
        pts = [
            (float(rng.randint(0, 6)), float(rng.randint(0, 6))) for _ in range(rng.randint(1, 9))
        ]
        slow = knots(frontier(FrontierPoint(x, y, None, None) for x, y in pts))  # type: ignore[arg-type]
        fast = _front_knots(list(pts))
        return None if (list(slow[0]), list(slow[1])) == fast else f"{pts}: {fast} != {slow}"

    sweep.judge(range(3000), case)


def _metrics() -> MetricSet:
    article, metrics = article_metrics(ARTICLE)
    return with_frontiers(article, metrics)


def _series(metrics: MetricSet, run: str) -> list[FrontierPoint]:
    article, _ = article_metrics(ARTICLE)
    return series_points(pairs(metrics, METRIC, X, next(article.tables()).where), "run", run)


@pytest.mark.slow
def test_each_point_is_resampled_from_its_own_repetitions_and_the_draws_repeat() -> None:
    metrics = _metrics()
    points = _series(metrics, "tp4")
    assert points and all(len(paired(p)) == 3 for p in points)
    first = resample_levels(points, [LEVEL], series="tp4")
    assert first is not None and len(first[0]) == RESAMPLES
    assert resample_levels(points, [LEVEL], series="tp4") == first
    # another series name draws other indices: two series are resampled independently
    assert resample_levels(points, [LEVEL], series="tp2") != first
    # a point measured once: no interval rather than one that pretends it varied
    once = replace(points[0], y_value=replace(points[0].y_value, repeats=()))
    assert resample_levels([once, *points[1:]], [LEVEL], series="tp4") is None


def _scipy_draws(points: list[FrontierPoint], seed: int) -> np.ndarray:
    """The series' PCHIP value at LEVEL over RESAMPLES resamples drawn by scipy.stats.bootstrap
    (each point's repetitions resampled independently: `paired=False`), read by scipy's PCHIP."""
    from scipy.interpolate import PchipInterpolator
    from scipy.stats import bootstrap

    reps = [np.array(paired(p)) for p in points]
    seen: list[float] = []

    def statistic(*picked: np.ndarray) -> float:
        drawn = [
            (float(np.median(r[idx.astype(int), 0])), float(np.median(r[idx.astype(int), 1])))
            for r, idx in zip(reps, picked, strict=True)
        ]
        xs, ys = knots(frontier(FrontierPoint(x, y, None, None) for x, y in drawn))  # type: ignore[arg-type]
        if not xs or not xs[0] <= LEVEL <= xs[-1]:
            value = math.nan
        elif len(xs) == 1:
            value = ys[0]
        else:
            value = float(PchipInterpolator(xs, ys, extrapolate=False)(LEVEL))
        seen.append(value)
        return value

    bootstrap(
        tuple(np.arange(len(r), dtype=float) for r in reps),
        statistic,
        paired=False,
        vectorized=False,
        n_resamples=RESAMPLES,
        method="percentile",
        random_state=np.random.default_rng(seed),
    )
    return np.array(seen[-RESAMPLES:])


def _rank(draws: np.ndarray, x: float) -> float:
    """The share of `draws` (with a value) below `x`, counting ties as half."""
    found = draws[~np.isnan(draws)]
    return float((np.sum(found < x) + 0.5 * np.sum(found == x)) / len(found))


def _assert_same_interval(ours: tuple[float, float], theirs: np.ndarray, what: str) -> None:
    """Our interval's ends sit at the 2.5th and 97.5th percentile ranks of scipy's draws,
    within the Monte Carlo tolerance of two bootstraps of RESAMPLES each."""
    lo, hi = ours
    assert abs(_rank(theirs, lo) - 0.025) <= RANK_TOLERANCE + 0.5 / RESAMPLES, what
    assert abs(_rank(theirs, hi) - 0.975) <= RANK_TOLERANCE + 0.5 / RESAMPLES, what


@pytest.mark.slow
def test_the_intervals_are_scipy_s_bootstrap_of_the_same_repetitions() -> None:
    metrics = _metrics()
    tp4, tp2 = _series(metrics, "tp4"), _series(metrics, "tp2")
    a, b = _scipy_draws(tp4, 1), _scipy_draws(tp2, 2)
    price = article_metrics(ARTICLE)[0].cost
    assert price is not None

    def ends(metric_id: str) -> tuple[float, float]:
        lo, hi = (metrics.get(f"{metric_id}.{s}") for s in ("rep_ci_lo", "rep_ci_hi"))
        assert lo is not None and hi is not None, metric_id
        return lo.value, hi.value

    value = metrics.get("frontier.tp4.at_50.tok_s_per_gpu")
    assert value is not None
    _assert_same_interval(ends(value.id), a, "throughput")
    lo, hi = ends(value.id)
    assert lo <= value.value <= hi
    # the cost falls as the throughput rises: its interval is the cost of the throughput's
    cost = price.gpu_hour_usd / (3600 * a) * 1e6
    _assert_same_interval(ends("frontier.tp4.at_50.usd_per_mtok"), cost, "cost")
    # the ratio of two independently resampled series: scipy's draws paired at random
    _assert_same_interval(ends("frontier.tp4-vs-tp2.at_50.ratio"), a / b, "ratio")
    # and the percentiles of our own draws are numpy's
    ours = np.array(value.resamples)
    assert ends(value.id) == tuple(np.percentile(ours[~np.isnan(ours)], [2.5, 97.5]))


def test_a_claim_on_two_frontier_values_has_the_ratio_s_interval() -> None:
    metrics = _metrics()
    claim = "frontier.tp4.at_50.tok_s_per_gpu/frontier.tp2.at_50.tok_s_per_gpu"
    spread = claim_spread(claim, lookup(metrics.by_id()))
    lo, hi = (
        metrics.get(f"frontier.tp4-vs-tp2.at_50.ratio.{s}") for s in ("rep_ci_lo", "rep_ci_hi")
    )
    assert spread is not None and lo is not None and hi is not None
    assert (spread.low, spread.high) == (lo.value, hi.value)
    assert not spread.includes_no_change
    sides = [metrics.get(i) for i in claim.split("/")]
    cvs = [np.std(v.resamples, ddof=1) / np.mean(v.resamples) * 100 for v in sides if v]
    assert spread.noise_pct == pytest.approx(max(cvs), rel=1e-9)


def test_interval_values_say_how_many_resamples_did_not_reach() -> None:
    metrics = _metrics()
    value = metrics.get("frontier.tp4.at_50.tok_s_per_gpu")
    assert value is not None
    gaps = (math.nan,) * 100 + value.resamples[100:]
    lo, hi, half = interval_values(replace(value, resamples=gaps))
    assert "100 did not reach the level" in lo.basis  # type: ignore[operator]
    found = percentile_interval(gaps)
    assert found is not None and found.missing == 100
    assert (lo.value, hi.value) == (found.lo, found.hi)
    assert half.value == max(value.value - lo.value, hi.value - value.value)
    # fewer than half reach: no interval at all
    assert interval_values(replace(value, resamples=(math.nan,) * 1500 + gaps[:500])) == ()
