"""A claim's interval from its sides' repetitions (`reportgen.metrics.claims.claim_spread`,
`reportgen.metrics.uncertainty.ratio_interval`), against scipy's Welch t interval of the
difference of the sides' mean logarithms, computed here on the same values."""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers_runs import bench_cell, bench_run, load_matrix

from reportgen.metrics.claims import claim_spread, lookup
from reportgen.metrics.compute import compute
from reportgen.metrics.registry import MetricSet
from reportgen.metrics.uncertainty import ratio_interval


def _welch(a: list[float], b: list[float]) -> tuple[float, float]:
    from scipy import stats as sps  # here: the workers that run no such test never import it

    ci = sps.ttest_ind(np.log(a), np.log(b), equal_var=False).confidence_interval(0.95)
    return float(np.exp(ci.low)), float(np.exp(ci.high))


@pytest.mark.parametrize("seed", range(12))
def test_the_ratio_interval_is_scipys_welch_interval_of_the_logs(seed: int) -> None:
    rng = random.Random(seed)
    a = [rng.uniform(90, 110) for _ in range(rng.randint(2, 8))]
    b = [rng.uniform(70, 120) for _ in range(rng.randint(2, 8))]
    found = ratio_interval(a, b)
    assert found is not None
    assert (found.lo, found.hi) == pytest.approx(_welch(a, b), rel=1e-9)
    assert found.ratio == pytest.approx(float(np.exp(np.mean(np.log(a)) - np.mean(np.log(b)))))


def test_no_ratio_interval_without_two_positive_values_a_side() -> None:
    assert ratio_interval([1.0], [1.0, 2.0]) is None
    assert ratio_interval([1.0, 0.0], [1.0, 2.0]) is None
    assert ratio_interval([3.0, 3.0], [2.0, 2.0]) is None  # no spread on either side


def _two_cells(c1: list[float], c2: list[float]) -> MetricSet:
    """Repetitions (synthetic) of two cells: concurrency 1 and 2, aggregate tok/s given."""
    runs = [
        load_matrix(
            bench_run(
                bench_cell(concurrency=1, aggregate_tps=x, tokens=round(x * 1000), seconds=1000.0),
                bench_cell(concurrency=2, aggregate_tps=y, tokens=round(y * 1000), seconds=1000.0),
            ),
            f"r{i}.json",
        )
        for i, (x, y) in enumerate(zip(c1, c2, strict=True), start=1)
    ]
    return compute(runs)


@pytest.mark.parametrize("n", [3, 5, 20])
@pytest.mark.parametrize("gap", [0.0, 0.01, 0.05, 0.3])
def test_a_claims_interval_and_noise_follow_its_sides(n: int, gap: float) -> None:
    rng = random.Random(f"{n}/{gap}")
    c1 = [100 * rng.gauss(1, 0.02) for _ in range(n)]
    c2 = [100 * (1 + gap) * rng.gauss(1, 0.02) for _ in range(n)]
    metrics = _two_cells(c1, c2)
    get = lookup(metrics.by_id())
    a, b = "decode.0.c2.aggregate_tok_s", "decode.0.c1.aggregate_tok_s"
    x, y = (np.array([v for _, v in get(m).repeats]) for m in (a, b))  # type: ignore[union-attr]
    noise = max(float(v.std(ddof=1) / v.mean() * 100) for v in (x, y))

    ratio = claim_spread(f"{a}/{b}", get)
    assert ratio is not None
    lo, hi = _welch(list(x), list(y))
    assert (ratio.low, ratio.high) == pytest.approx((lo, hi), rel=1e-9)
    assert ratio.shown == pytest.approx(float(np.median(x) / np.median(y)))
    assert ratio.noise_pct == pytest.approx(noise)
    assert ratio.includes_no_change == (lo <= 1 <= hi)
    assert ratio.within_noise == (abs(ratio.shown - 1) * 100 <= noise)

    change = claim_spread(f"{b}->{a}", get)  # (a - b) / b, in percent
    assert change is not None
    assert (change.low, change.high) == pytest.approx(((lo - 1) * 100, (hi - 1) * 100), rel=1e-9)
    assert change.includes_no_change == ratio.includes_no_change


def test_a_side_measured_once_gives_no_interval() -> None:
    metrics = compute(
        [load_matrix(bench_run(bench_cell(concurrency=1), bench_cell(concurrency=2)), "r1.json")]
    )
    get = lookup(metrics.by_id())
    assert claim_spread("decode.0.c2.aggregate_tok_s/decode.0.c1.aggregate_tok_s", get) is None
