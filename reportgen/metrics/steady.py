"""Steady state: which of a load point's requests ran while the load was what its label says
(pure), from each request's start and end (`LoadPoint.spans`).

A closed-loop load point of target concurrency c ramps up as its first c requests start, and
drains once the last request has started and the first of the last ones ends: from then on fewer
than c are in flight. The steady window is [the moment c requests are first in flight, the first
end after the last start]. A point without a target concurrency (a request rate, or none stated)
has the window [the first end, the last start]: after its first response and while requests
still start. A request is steady when it starts and ends inside the window; `docs/metric-
definitions.md` gives the rule and why.

From `NUMPY_FROM` requests (an AIPerf export of a million records) numpy finds the same window
and count: the events sorted by (time, step) as `sorted` sorts the tuples, then a running sum.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reportgen.samples import NUMPY_FROM, PackedSpans


@dataclass(frozen=True)
class Steady:
    """A load point's steady window (None: it never had one) and the requests inside it."""

    window: tuple[float, float] | None
    inside: int  # requests that started and ended inside the window
    total: int  # requests timed


def _reached(spans: Sequence[tuple[float, float]], target: int) -> float | None:
    """The first moment `target` requests are in flight together (an end at the same instant as
    a start is counted first: the slot is free before it is taken)."""
    events = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans])
    flight = 0
    for t, step in events:
        flight += step
        if flight >= target:
            return t
    return None


def _steady_numpy(spans: Sequence[tuple[float, float]], concurrency: int | None) -> Steady:
    """`steady` by numpy, for many requests: the same window and count."""
    import numpy as np  # only for large load points: it takes ~0.1 s to import

    starts: Any
    ends: Any
    if isinstance(spans, PackedSpans):
        starts = np.frombuffer(spans.starts, dtype=np.float64)
        ends = np.frombuffer(spans.ends, dtype=np.float64)
    else:
        both = np.asarray(spans, dtype=np.float64)
        starts, ends = both[:, 0], both[:, 1]
    last_start = starts.max()
    if concurrency is not None and concurrency > 0:
        times = np.concatenate((starts, ends))
        steps = np.concatenate((np.ones(len(starts), np.int64), -np.ones(len(ends), np.int64)))
        order = np.lexsort((steps, times))  # by time, an end (-1) before a start at a tie
        hits = np.flatnonzero(np.cumsum(steps[order]) >= concurrency)
        begin = float(times[order[hits[0]]]) if hits.size else None
        after = ends[ends > last_start]
        end = float(after.min()) if after.size else None
    else:
        begin, end = float(ends.min()), float(last_start)
    if begin is None or end is None or end <= begin:
        return Steady(None, 0, len(spans))
    inside = int(np.count_nonzero((starts >= begin) & (ends <= end)))
    return Steady((begin, end), inside, len(spans))


def steady(spans: Sequence[tuple[float, float]], concurrency: int | None) -> Steady:
    """The steady window of requests timed by `spans` ((start, end) each) at `concurrency`."""
    if not spans:
        return Steady(None, 0, 0)
    if len(spans) >= NUMPY_FROM:
        return _steady_numpy(spans, concurrency)
    last_start = max(s for s, _ in spans)
    if concurrency is not None and concurrency > 0:
        begin = _reached(spans, concurrency)
        after = [e for _, e in spans if e > last_start]
        end = min(after) if after else None
    else:
        begin, end = min(e for _, e in spans), last_start
    if begin is None or end is None or end <= begin:
        return Steady(None, 0, len(spans))
    inside = sum(1 for s, e in spans if begin <= s and e <= end)
    return Steady((begin, end), inside, len(spans))
