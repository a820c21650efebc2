"""The repetitions' statistics (`reportgen.metrics.uncertainty`, `reportgen.metrics.repeats`):
each one against numpy's or scipy's own computation on the same values."""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers_runs import bench_cell, bench_run, load_matrix

from reportgen.metrics.compute import compute
from reportgen.metrics.registry import REPEAT_FORMULAS, REPEAT_STATS, UNCERTAINTY_STATS
from reportgen.metrics.uncertainty import LEVEL, order_interval, spread


def _samples() -> list[list[float]]:
    rng = random.Random(26)
    out = [[rng.uniform(50, 500) for _ in range(n)] for n in range(2, 12) for _ in range(4)]
    return [*out, [7.0, 7.0, 7.0], [1.0, 2.0], [-3.0, 3.0, 0.5]]


@pytest.mark.parametrize("values", _samples(), ids=lambda v: f"n{len(v)}-{v[0]:.0f}")
def test_each_statistic_agrees_with_numpy_and_scipy(values: list[float]) -> None:
    from scipy import stats as sps  # here: the workers that run no such test never import it

    s = spread(values)
    x = np.array(values)
    n = len(values)
    assert s.n == n
    assert s.mean == pytest.approx(float(np.mean(x)), rel=1e-12, abs=1e-12)
    assert s.median == pytest.approx(float(np.median(x)), rel=1e-12)
    assert s.sd == pytest.approx(float(np.std(x, ddof=1)), rel=1e-9, abs=1e-12)
    mean = float(np.mean(x))
    if mean:
        assert s.cv_pct == pytest.approx(float(np.std(x, ddof=1)) / abs(mean) * 100, rel=1e-9)
    sem = float(sps.sem(x)) if np.std(x) else 0.0
    lo, hi = (mean, mean) if sem == 0 else sps.t.interval(LEVEL, n - 1, loc=mean, scale=sem)
    assert (s.ci_lo, s.ci_hi) == pytest.approx((lo, hi), rel=1e-9, abs=1e-9)
    assert s.half_width == pytest.approx((hi - lo) / 2, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("n", range(2, 40))
def test_the_median_interval_is_the_widest_order_statistics_that_cover_95_percent(n: int) -> None:
    from scipy import stats as sps  # here: the workers that run no such test never import it

    # scipy's binomial: [x(k), x(n-k+1)] covers the median with 1 - 2 P(B <= k - 1).
    def coverage(k: int) -> float:
        return float(1 - 2 * sps.binom.cdf(k - 1, n, 0.5))

    found = order_interval(n)
    reachable = [k for k in range(1, n // 2 + 1) if coverage(k) >= LEVEL]
    if not reachable:
        assert found is None
        assert n < 6  # five repetitions cover 93.75% at most
        return
    assert found is not None
    k, cover = found
    assert k == max(reachable)
    assert cover == pytest.approx(coverage(k), rel=1e-12)
    values = sorted(random.Random(n).uniform(0, 1) for _ in range(n))
    s = spread(values)
    assert (s.median_lo, s.median_hi) == (values[k - 1], values[n - k])


def test_a_spread_needs_two_repetitions() -> None:
    with pytest.raises(ValueError, match="two or more"):
        spread([1.0])


def test_every_repetition_statistic_has_a_formula() -> None:
    assert set(REPEAT_FORMULAS) == set(REPEAT_STATS)
    assert set(UNCERTAINTY_STATS) < set(REPEAT_STATS)


@pytest.mark.parametrize(
    "tokens", [[1000, 900, 1200, 1050, 980], [1000, 900, 1200, 1050, 980, 1110]], ids=["r5", "r6"]
)
def test_repeated_cells_carry_their_statistics_as_values_of_their_own(tokens: list[int]) -> None:
    from scipy import stats as sps  # here: the workers that run no such test never import it

    # Five, then six repetitions (r1..) of one cell, synthetic values: the median's interval
    # exists from six on.
    runs = [
        load_matrix(bench_run(bench_cell(context=8192, aggregate_tps=t / 10, tokens=t)), f"r{i}")
        for i, t in enumerate(tokens, start=1)
    ]
    metrics = compute(runs)
    x = np.array([t / 10 for t in tokens])
    base = "decode.8K.c1.aggregate_tok_s"
    got = {}
    for stat in REPEAT_STATS:
        found = metrics.get(f"{base}.{stat}")
        if found is not None:
            assert found.source == "repetitions" and len(found.repeats) == len(tokens)
            got[stat] = found
    half = float(sps.t.ppf(0.975, len(x) - 1) * sps.sem(x))
    assert got["reps"].value == len(tokens)
    assert got["rep_mean"].value == pytest.approx(float(x.mean()))
    assert got["rep_sd"].value == pytest.approx(float(x.std(ddof=1)))
    assert got["rep_cv"].value == pytest.approx(float(x.std(ddof=1) / x.mean() * 100))
    assert got["rep_cv"].unit == "%"
    assert got["rep_hw"].value == pytest.approx(half)
    assert got["rep_ci_lo"].value == pytest.approx(float(x.mean()) - half)
    assert got["rep_ci_hi"].value == pytest.approx(float(x.mean()) + half)
    if len(x) < 6:
        assert "rep_med_lo" not in got and "rep_med_hi" not in got
    else:
        assert got["rep_med_lo"].value == float(np.sort(x)[0])
        assert got["rep_med_hi"].value == float(np.sort(x)[-1])


@pytest.mark.parametrize("df", [1, 2, 3, 4, 4.03, 7.5, 19, 120])
def test_the_t_quantile_is_scipy_stats(df: float) -> None:
    from scipy import stats as sps  # here: the workers that run no such test never import it

    from reportgen.metrics.uncertainty import t_quantile

    assert t_quantile(LEVEL, df) == pytest.approx(float(sps.t.ppf(0.975, df)), rel=1e-12)
