"""Gates on what is shown (pure): a value is computed, but marked "not measurable" with its
reason (`Gate` on `MetricValue`), when its cell cannot stand for it.

- **Too few samples.** A p-th percentile needs at least `need(p)` = ceil(1 / (1 - p)) requests:
  p90 10, p95 20, p99 100 (and p99.9 1,000, as AIPerf guards it). Below that the expected number
  of requests beyond the percentile is under one, and at rank (n - 1) x p the value is read
  between the two largest requests: the maximum, more or less, not a percentile. A percentile
  that a tool wrote with its request count is gated by that count; one without a count is gated
  for that reason, never passed.
- **Incomplete.** A cell whose requests did not all complete (failed, errored, cancelled): its
  latencies and throughput leave out the requests that failed, so none of them is shown.
- **Not steady.** A load point whose per-request times show no steady window
  (`reportgen.metrics.steady`) shows none of its measurements; one whose steady window holds
  fewer requests than a percentile needs does not show that percentile.

`docs/metric-definitions.md` states the rule and its sources.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator

from reportgen.metrics.registry import Gate, MetricValue
from reportgen.metrics.steady import steady
from reportgen.model import DecodeCell, LoadPoint

# The percentile of each statistic reportgen computes beyond the median.
PERCENTILES = {"p90": 0.90, "p95": 0.95, "p99": 0.99}
# The measurements a cell's completeness and steadiness stand behind: its throughput and the
# statistics of its requests (their counts stay shown).
MEASURED = frozenset(
    {
        "decode.aggregate_tok_s",
        "decode.per_request_tok_s",
        "decode.ttft_s",
        "decode.itl_s",
        "decode.latency_s",
        "load.output_tok_s",
        "load.request_s",
        "load.ttft_s",
        "load.itl_s",
        "load.latency_s",
        "load.per_request_tok_s",
    }
)


def need(p: float) -> int:
    """The fewest requests a p-quantile (0 < p < 1) may be computed from: ceil(1 / (1 - p)),
    rounded first so that float error does not add one (p = 0.99 needs 100, not 101)."""
    return math.ceil(round(1 / (1 - p), 9))


def _requests(n: int) -> str:
    return f"{n:,} request" if n == 1 else f"{n:,} requests"


def _measured(v: MetricValue) -> bool:
    return v.key in MEASURED and v.stat != "n"


def _few(v: MetricValue) -> Gate | None:
    """The percentile gate of `v` by its own count (None: not a percentile, or enough)."""
    p = PERCENTILES.get(v.stat or "")
    if p is None or v.key not in MEASURED:
        return None
    needed = need(p)
    if v.n is None:
        reason = f"the file does not say how many requests its {v.stat} is over"
        return Gate(kind="count-unknown", reason=reason, need=needed)
    if v.n < needed:
        reason = f"{_requests(v.n)}, {v.stat} needs {needed:,}"
        return Gate(kind="too-few-samples", reason=reason, n=v.n, need=needed)
    return None


def _gated(values: Iterable[MetricValue], cell_gate: Gate | None) -> Iterator[MetricValue]:
    for v in values:
        gate = cell_gate if cell_gate is not None and _measured(v) else _few(v)
        yield v if gate is None else v.but(gate=gate)


def _incomplete(failed: int, total: int) -> Gate:
    reason = f"{failed:,} of {total:,} requests did not complete"
    return Gate(kind="incomplete", reason=reason, n=total - failed, need=total)


def gate_decode(cell: DecodeCell, values: Iterable[MetricValue]) -> Iterator[MetricValue]:
    """A decode cell's values, gated: incomplete when it counted errors (a request still
    streaming when the fixed window closed is not a failure: the window measures it); each
    percentile by its count."""
    failed = cell.num_errors
    total = len(cell.samples) + failed
    yield from _gated(values, _incomplete(failed, total) if failed > 0 else None)


def gate_point(point: LoadPoint, values: Iterable[MetricValue]) -> Iterator[MetricValue]:
    """A load point's values, gated: incomplete when requests failed; not steady when its
    request times show no steady window, or a percentile's requests are not in it; each
    percentile by its count."""
    ok = point.requests_ok or 0
    if point.requests_failed > 0:
        yield from _gated(values, _incomplete(point.requests_failed, ok + point.requests_failed))
        return
    window = steady(point.spans, point.concurrency) if point.spans else None
    if window is not None and window.window is None:
        load = f"{point.concurrency} requests in flight" if point.concurrency else "a steady load"
        reason = f"the requests never reached {load} between ramp-up and drain"
        cell_gate = Gate(kind="not-steady", reason=reason, n=0, need=1)
        yield from _gated(values, cell_gate)
        return
    for v in _gated(values, None):
        p = PERCENTILES.get(v.stat or "")
        if v.gate is None and window is not None and p is not None and _measured(v):
            needed = need(p)
            if window.inside < needed:
                reason = (
                    f"{window.inside:,} of {window.total:,} requests ran in the steady state, "
                    f"{v.stat} needs {needed:,}"
                )
                v = v.but(gate=Gate(kind="not-steady", reason=reason, n=window.inside, need=needed))
        yield v
