"""Order statistics used by the metrics, defined as the reference tools define them.

Percentiles drop values <= 0 (the bench's convention for "no measurement") and interpolate
linearly at rank (n - 1) * p.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import partial
from operator import lt

_POSITIVE = partial(lt, 0)  # v -> 0 < v, the values every statistic here keeps


class Ascending(list[float]):
    """Values already kept (all > 0) and sorted: the statistics here take them as they are."""


def _kept(values: Iterable[float]) -> Sequence[float]:
    return values if isinstance(values, Ascending) else sorted(filter(_POSITIVE, values))


def percentiles(values: Iterable[float], *ps: float) -> tuple[float | None, ...]:
    """`percentile` at each rank in `ps`, sorting the values once."""
    for p in ps:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"percentile rank {p} outside [0, 1]")
    kept = _kept(values)
    if not kept:
        return (None,) * len(ps)
    return _ranks(kept, ps)


def _ranks(kept: Sequence[float], ps: Iterable[float]) -> tuple[float, ...]:
    """The percentiles at `ps` of `kept`, sorted and not empty."""
    last = len(kept) - 1
    out = []
    for p in ps:
        rank = last * p
        low = math.floor(rank)
        high = min(low + 1, last)
        out.append(kept[low] + (kept[high] - kept[low]) * (rank - low))
    return tuple(out)


def sorted_percentiles(kept: Sequence[float], *ps: float) -> tuple[float | None, ...]:
    """`percentiles` of values already positive and sorted (a `PackedSamples.series`)."""
    return _ranks(kept, ps) if kept else (None,) * len(ps)


def percentile(values: Iterable[float], p: float) -> float | None:
    """Linear-interpolation percentile at rank (n-1)*p over the positive values; None if none."""
    return percentiles(values, p)[0]


def median(values: Iterable[float]) -> float | None:
    """The p50 of `percentile`."""
    return percentile(values, 0.5)


def close(a: float, b: float, *, rel: float, abs_: float) -> bool:
    """True when a and b agree within a relative or an absolute tolerance."""
    return abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))


DISTRIBUTION = ("p50", "p90", "p95", "p99")


def describe(values: Iterable[float]) -> dict[str, float] | None:
    """p50, p90, p95, p99 (as `percentile`), mean, min, max and n over the positive values.

    None when there is none. The statistics are over the same values the percentiles use: a value
    <= 0 is "no measurement" to the tools, and is left out of every statistic.
    """
    kept = _kept(values)
    if not kept:
        return None
    ranks = _ranks(kept, (0.5, 0.9, 0.95, 0.99))
    out = {name: float(x) for name, x in zip(DISTRIBUTION, ranks, strict=True) if x is not None}
    out.update(mean=math.fsum(kept) / len(kept), min=kept[0], max=kept[-1], n=float(len(kept)))
    return out
