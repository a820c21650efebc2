"""An independent steady window for the format tests, computed with numpy straight from a file's
request times (not by `reportgen.metrics.steady`), and the synthetic ramp they write in each
tool's layout.

The rule (docs/metric-definitions.md): with a target concurrency c the window opens at the first
request start at which c requests are in flight (an end at that very instant counted first), and
closes at the first end after the last start; with no target it runs from the first end to the
last start. A request is steady when it starts and ends inside. Here "in flight at t" is counted
directly, requests started by t less those ended by t, at every start.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from reportgen.formats.load import load_document, parse_run_file
from reportgen.model import LoadPoint, SweepRun

# synthetic: a closed loop of 2 slots, each request 4 s long (longer than any real request the
# tests retime), one slot 2 s behind the other; 12 requests
RAMP_SECONDS = 4.0
RAMP_STARTS = tuple(k * RAMP_SECONDS / 2 for k in range(12))


def window(
    starts: Sequence[float], ends: Sequence[float], concurrency: int | None
) -> tuple[tuple[float, float] | None, int]:
    """The steady window of requests started at `starts` and ended at `ends` (any one unit, ints
    or floats), and how many requests are wholly inside it."""
    s, e = np.asarray(starts), np.asarray(ends)
    if concurrency:
        at = np.sort(s)
        flight = np.array([np.count_nonzero(s <= t) - np.count_nonzero(e <= t) for t in at])
        begin = at[np.argmax(flight >= concurrency)] if np.any(flight >= concurrency) else None
        later = e[e > s.max()]
        end = later.min() if later.size else None
    else:
        begin, end = e.min(), s.max()
    if begin is None or end is None or end <= begin:
        return None, 0
    return (begin.item(), end.item()), int(np.count_nonzero((s >= begin) & (e <= end)))


def only_point(path: Path) -> LoadPoint:
    """The one load point of the run file at `path`, read as `reportgen` reads it."""
    run, problems = load_document(parse_run_file(path.name, path.read_bytes(), path))
    assert isinstance(run, SweepRun), problems
    (point,) = run.points
    return point
