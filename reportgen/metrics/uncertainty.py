"""The uncertainty of a cell measured several times (pure): the repetitions' values in, their
count, mean, median, standard deviation, coefficient of variation and two 95% intervals out.

- The mean's interval is Student's t: mean +- t(0.975, n - 1) x s / sqrt(n), with s the sample
  standard deviation (n - 1 in its denominator). The t quantile is scipy's, imported only here
  and only when a cell has repetitions.
- A ratio of two such quantities (a claim's "1.4x") has Welch's t interval of the difference of
  their mean logarithms, exponentiated: the ratio of their geometric means, whose interval
  needs neither the same number of repetitions nor the same spread on both sides.
- The median's interval is distribution-free: the order statistics [x(k), x(n - k + 1)] with the
  largest k whose coverage, 1 - 2 P(Binomial(n, 1/2) <= k - 1), is still at least 95%. No such
  k exists below six repetitions (five give at most 1 - 2/32 = 93.75% with the lowest and
  highest), so there the median has no interval, and says so, rather than a bootstrap's: with
  three to five values a bootstrap of the median can only return the values themselves, and its
  nominal 95% would overstate what it covers.
- A value derived from several repeated cells through a computation with no formula for its
  error (a frontier's throughput at a level, read by PCHIP through points that may or may not
  be on the frontier) has a percentile bootstrap interval: the 2.5th and 97.5th percentiles of
  its values over seeded resamples (`percentile_interval`; `reportgen.metrics.frontier` draws
  them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

LEVEL = 0.95  # the confidence level of every interval here


@dataclass(frozen=True, kw_only=True)
class Spread:
    """The repetitions of one cell's value, summarised."""

    n: int
    mean: float
    median: float
    sd: float  # sample standard deviation (n - 1)
    cv_pct: float | None  # sd / |mean| x 100; None when the mean is 0
    ci_lo: float  # the mean's t interval
    ci_hi: float
    half_width: float  # t(0.975, n - 1) x sd / sqrt(n)
    median_lo: float | None  # the median's order-statistic interval (None: fewer than six)
    median_hi: float | None
    median_coverage: float | None  # that interval's exact coverage (>= LEVEL)


def sorted_median(s: Sequence[float]) -> float:
    """The median of values already sorted (any sign: a repetition's value may be negative)."""
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def t_quantile(level: float, df: float) -> float:
    """The two-sided Student's t quantile: t such that P(|T_df| <= t) = level (`df` need not
    be whole: Welch's)."""
    # scipy.special's inverse of Student's t CDF: the same numbers as scipy.stats.t.ppf (the
    # tests compare them) for a third of the import time (0.23 s against 0.66 s, measured).
    from scipy.special import stdtrit  # imported only where a cell has repetitions

    return float(stdtrit(df, 0.5 + level / 2))


def order_interval(n: int, level: float = LEVEL) -> tuple[int, float] | None:
    """(k, coverage) of the median's distribution-free interval [x(k), x(n - k + 1)] (1-based
    order statistics) for `n` values: the largest k whose coverage is at least `level`; None
    when even the lowest and highest values cover less."""
    best = None
    below = 0  # 2^n x P(Binomial(n, 1/2) <= k - 1), an exact count
    for k in range(1, n // 2 + 1):
        below += math.comb(n, k - 1)
        coverage = 1 - 2 * below / 2**n
        if coverage < level:
            break
        best = (k, coverage)
    return best


def spread(values: Sequence[float], level: float = LEVEL) -> Spread:
    """The count, mean, median, standard deviation, CV and the two intervals of `values` (two
    or more repetitions of one cell)."""
    n = len(values)
    if n < 2:
        raise ValueError("a spread needs two or more repetitions")
    s = sorted(values)
    mean = math.fsum(s) / n
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in s) / (n - 1))
    half = t_quantile(level, n - 1) * sd / math.sqrt(n)
    found = order_interval(n, level)
    lo, hi, coverage = (None, None, None)
    if found is not None:
        k, coverage = found
        lo, hi = s[k - 1], s[n - k]
    return Spread(
        n=n,
        mean=mean,
        median=sorted_median(s),
        sd=sd,
        cv_pct=None if mean == 0 else sd / abs(mean) * 100,
        ci_lo=mean - half,
        ci_hi=mean + half,
        half_width=half,
        median_lo=lo,
        median_hi=hi,
        median_coverage=coverage,
    )


@dataclass(frozen=True, kw_only=True)
class RatioInterval:
    """The ratio of two quantities each measured several times, with its 95% interval."""

    ratio: float  # exp(mean log a - mean log b): the ratio of their geometric means
    lo: float
    hi: float
    df: float  # Welch-Satterthwaite degrees of freedom


def ratio_interval(
    a: Sequence[float], b: Sequence[float], level: float = LEVEL
) -> RatioInterval | None:
    """How many times `b` `a` is, from their repetitions: Welch's t interval of the difference
    of their mean logarithms, exponentiated. None when either has fewer than two values, a value
    that is not positive, or both have no spread at all."""
    if len(a) < 2 or len(b) < 2 or min(*a, *b) <= 0:
        return None
    la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
    ma, mb = math.fsum(la) / len(la), math.fsum(lb) / len(lb)
    va = math.fsum((x - ma) ** 2 for x in la) / (len(la) - 1) / len(la)
    vb = math.fsum((x - mb) ** 2 for x in lb) / (len(lb) - 1) / len(lb)
    if va + vb == 0:
        return None
    df = (va + vb) ** 2 / (va**2 / (len(la) - 1) + vb**2 / (len(lb) - 1))
    half = t_quantile(level, df) * math.sqrt(va + vb)
    d = ma - mb
    return RatioInterval(ratio=math.exp(d), lo=math.exp(d - half), hi=math.exp(d + half), df=df)


@dataclass(frozen=True, kw_only=True)
class BootInterval:
    """A percentile bootstrap interval: the resamples' 2.5th and 97.5th percentiles (numpy's
    default, linear between the two nearest ranks) over the resamples that have a value."""

    lo: float
    hi: float
    cv_pct: float | None  # the resamples' standard deviation over |their mean| x 100
    resamples: int  # how many were drawn
    missing: int  # how many have no value (nan: a level the resample's frontier did not reach)


def percentile_interval(draws: Sequence[float], level: float = LEVEL) -> BootInterval | None:
    """The percentile interval of bootstrap `draws` (nan: a resample without a value); None
    when fewer than half of them have a value, as an interval over the rest would describe
    a value that mostly does not exist."""
    import numpy as np  # imported only where a derived value has resamples

    arr = np.asarray(draws, dtype=float)
    found = arr[~np.isnan(arr)]
    if len(found) < 2 or 2 * len(found) < len(arr):
        return None
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(found, [tail, 100 - tail])
    mean = float(found.mean())
    sd = float(found.std(ddof=1))
    return BootInterval(
        lo=float(lo),
        hi=float(hi),
        cv_pct=None if mean == 0 else sd / abs(mean) * 100,
        resamples=len(arr),
        missing=len(arr) - len(found),
    )
