"""GuideLLM's own statistics and strategies as reportgen's load-point values, for both of its
report layouts (`benchmarks`: 0.4 and later; `legacy`: 0.2 and 0.3).

Raw GuideLLM JSON in (a benchmark's strategy, its `metrics` blocks); labels, `Summary`s in
seconds with the pointers of each value, and located errors for numbers no float holds out. Each
statistics block is `metrics.<name>.successful`: `{mean, median, min, max, count, percentiles
{p90, p95, p99, ...}}` in both layouts (0.2 has no `percentiles.p50`; `median` is the same value).
`*_ms` statistics are milliseconds, `request_latency` seconds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from reportgen import tolerances as tol
from reportgen.formats.guidellm.requests import QUANTITIES, Report
from reportgen.formats.json_input.document import FLOAT_MAX, TOO_LARGE, escape_pointer_token
from reportgen.frozendict import FrozenDict
from reportgen.model import CellStatus, LoadPoint, RequestSample, Scalar, Summary
from reportgen.stats import close

_OWN_RATE = "metrics/output_tokens_per_second/successful/mean"  # GuideLLM's own rate, per benchmark

# reportgen statistic -> its path in one of GuideLLM's distributions
_STATS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("mean", ("mean",)),
    ("p90", ("percentiles", "p90")),
    ("p95", ("percentiles", "p95")),
    ("p99", ("percentiles", "p99")),
    ("min", ("min",)),
    ("max", ("max",)),
)


def scalar_at(node: Any, *path: str | int) -> Scalar:
    """The scalar at `path` under `node` (keys and list indexes), None when there is none."""
    for key in path:
        if isinstance(node, dict) and isinstance(key, str):
            node = node.get(key)
        elif isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
        else:
            return None
    return node if isinstance(node, str | int | float | bool) else None


def unfit(node: Any, at: str, report: Report) -> int:
    """Report every number under `node` that no 64-bit float holds (1e999); how many there were."""
    found, stack = 0, [(node, at)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict):
            stack += [(v, f"{where}/{escape_pointer_token(k)}") for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(v, f"{where}/{i}") for i, v in enumerate(value)]
        elif isinstance(value, int | float) and not -FLOAT_MAX <= value <= FLOAT_MAX:
            report(where, TOO_LARGE, "error")
            found += 1
    return found


def strategy_load(strategy: dict[str, Any]) -> tuple[str, int | None, float | None]:
    """(label, concurrency, request rate) of a benchmark's strategy (`type_` and its settings)."""
    kind = str(strategy["type_"])
    if kind == "synchronous":
        return "sync", 1, None
    if kind == "concurrent":
        streams = int(strategy["streams"])
        return f"c{streams}", streams, None
    if kind == "throughput":
        return "max", None, None
    if kind in ("constant", "poisson"):
        rate = float(strategy["rate"])
        return f"r{rate:g}", None, rate
    return kind, None, None


def unique_labels(labels: list[str]) -> list[str]:
    """The labels, each repeated one suffixed with its benchmark's index (`r2-b3`)."""
    counts = Counter(labels)
    return [f"{label}-b{i}" if counts[label] > 1 else label for i, label in enumerate(labels)]


def summaries(
    metrics: dict[str, Any], at: str, *, with_records: bool, itl_counts_requests: bool
) -> tuple[tuple[tuple[str, Summary], ...], list[tuple[str, str]]]:
    """GuideLLM's statistics in seconds, by reportgen quantity, and where each is. With records
    the median is left out: it is not reportgen's median (GuideLLM's is not interpolated).
    `itl_counts_requests`: the ITL block's `count` is a number of requests (0.2/0.3), not of
    tokens (0.4 and later, where it is the sum of the output tokens - 1 weights)."""
    found: list[tuple[str, Summary]] = []
    where: list[tuple[str, str]] = []
    for quantity, (metric, _unit, per_s) in QUANTITIES.items():
        stats = (metrics.get(metric) or {}).get("successful")
        if not stats or not stats["count"]:
            continue  # GuideLLM writes zeros when no request had the quantity
        place = f"{at}/{metric}/successful"
        values = {name: float(scalar_at(stats, *path) or 0) / per_s for name, path in _STATS}
        median = None if with_records else stats["median"] / per_s
        counted = quantity != "itl_s" or itl_counts_requests
        count = int(stats["count"]) if counted else None
        found.append((quantity, Summary(**values, p50=median, n=count)))
        where.append((quantity, f"{place}/median"))
        where += [(f"{quantity}.{name}", f"{place}/{'/'.join(path)}") for name, path in _STATS]
        if count is not None:
            where.append((f"{quantity}.n", f"{place}/count"))
    return tuple(found), sorted(where)


def prompt_tokens(metrics: dict[str, Any]) -> int | None:
    """The prompt length, when every successful request had the same."""
    stats = (metrics.get("prompt_token_count") or {}).get("successful")
    if not stats or not stats["count"] or stats["min"] != stats["max"]:
        return None
    return int(stats["min"]) if float(stats["min"]).is_integer() else None


def first_error(records: Any, *path: str) -> str:
    """Why no request succeeded: the first errored record's error (at `path` in it), in its own
    words; "no request completed" when none says."""
    for record in records or ():
        error = scalar_at(record, *path)
        if isinstance(error, str) and error.strip():
            return error.strip().splitlines()[-1]
    return "no request completed"


def check_rate(
    bench: dict[str, Any], expected: float | None, definition: str, at: str, report: Report
) -> None:
    """Warn when GuideLLM's own output tokens per second is not `expected`, its rate over the
    records by the release's `definition` (words for the message); None: nothing to compare."""
    own = float(bench["metrics"]["output_tokens_per_second"]["successful"]["mean"])
    if expected is None or close(own, expected, rel=tol.AGGREGATE.rel, abs_=tol.AGGREGATE.abs_):
        return
    report(
        f"{at}/{_OWN_RATE}",
        f"mean {own:.6g} tok/s disagrees with the {expected:.6g} tok/s of requests.successful "
        f"({definition})",
        "warning",
    )


def statistics_point(
    bench: dict[str, Any],
    at: str,
    *,
    label: str,
    strategy: dict[str, Any],
    requests: tuple[int, int],
    reason: str,
    duration_s: float,
    output_tokens: int | None,
    samples: Sequence[RequestSample],
    with_records: bool,
    itl_counts_requests: bool,
) -> LoadPoint:
    """A benchmark as a load point: its load, request counts (ok, errored), `samples` (empty
    unless the file keeps every successful record) and GuideLLM's own statistics and rate."""
    metrics = bench["metrics"]
    _, concurrency, rate = strategy_load(strategy)
    ok, errored = requests
    found, found_at = summaries(
        metrics, f"{at}/metrics", with_records=with_records, itl_counts_requests=itl_counts_requests
    )
    status: CellStatus = "ok" if ok > 0 else "failed"
    return LoadPoint(
        pointer=at,
        label=label,
        concurrency=concurrency,
        rate=rate,
        strategy=str(strategy["type_"]),
        status=status,
        reason=None if ok > 0 else reason,
        duration_s=duration_s if duration_s > 0 else None,
        output_tokens=output_tokens,
        aggregate_tok_s=float(metrics["output_tokens_per_second"]["successful"]["mean"]),
        requests_ok=ok,
        requests_failed=errored,
        samples=samples,
        summaries=FrozenDict(found),
        prompt_tokens=prompt_tokens(metrics),
        summary_at=FrozenDict((("aggregate_tok_s", f"{at}/{_OWN_RATE}"), *found_at)),
    )
