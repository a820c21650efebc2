"""GuideLLM's per-request records (`benchmarks[i].requests.successful[]`) as request samples, and
GuideLLM's own statistics checked against them under GuideLLM's definitions.

Records in, `RequestSample`s and located warnings out. Two record layouts:

- 0.4 and later: each record's `info.timings` are epoch seconds: `request_start` (the headers
  start being sent), `first_token_iteration` and `last_token_iteration` (the first and last
  streamed lines with content, reasoning or a tool call) and `request_end`. The records are every
  request the benchmark sent, warm-up and cool-down ones too, unless GuideLLM sampled them; its
  statistics are over those whose [request_start, request_end] overlaps the measured window
  [`start_time`, `end_time`] (`in_window`).
- 0.2 and 0.3 (`legacy_sample`): `start_time` (just before the POST), `first_token_time` and
  `last_token_time` (the first and last streamed lines with text, -1 when none came) and
  `end_time` (the stream's last line), epoch seconds at the record's top level; the records are
  the measured requests only.

GuideLLM's percentiles are not interpolated: each is the first value, in ascending order, at which
the cumulative share of the weights reaches p; its ITL statistics weight each request by its
output tokens - 1.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from reportgen import tolerances as tol
from reportgen.model import RequestSample
from reportgen.stats import close

Report = Callable[[str, str, str], None]  # (pointer, message, severity)
# reportgen quantity -> (GuideLLM's metric, its unit, units per second)
QUANTITIES = {
    "ttft_s": ("time_to_first_token_ms", "ms", 1000.0),
    "itl_s": ("inter_token_latency_ms", "ms", 1000.0),
    "latency_s": ("request_latency", "s", 1.0),
}
# the timings of a record, in the order they must come
_ORDER = ("request_start", "first_token_iteration", "last_token_iteration", "request_end")

# 0.4 timing name -> the 0.2/0.3 record's key, for located messages
_LEGACY_NAMES = {
    "request_start": "start_time",
    "first_token_iteration": "first_token_time",
    "last_token_iteration": "last_token_time",
    "request_end": "end_time",
}


def _in_order(
    timings: Mapping[str, Any], at: str, report: Report, names: Mapping[str, str] | None = None
) -> bool:
    """True when the record's timings do not go back in time; an error at the first that does.
    `names`: the record's own keys, at its top level (0.2/0.3); else under `info/timings`."""
    earlier = None
    for name in _ORDER:
        value = timings.get(name)
        if value is None:
            continue
        if earlier is not None and value < timings[earlier]:
            gap = timings[earlier] - value
            key, before = (names[name], names[earlier]) if names else (name, earlier)
            where = f"{at}/{key}" if names else f"{at}/info/timings/{key}"
            report(where, f"{key} is {gap:.6g} s before {before}", "error")
            return False
        earlier = name
    return True


def in_window(record: Mapping[str, Any], start: float, end: float) -> bool:
    """True when a 0.4+ record's [request_start, request_end] overlaps the window [start, end]:
    the records GuideLLM's statistics are over."""
    timings = record["info"]["timings"]
    return bool(timings["request_end"] >= start and timings["request_start"] <= end)


def token_span_rate(spans: Iterable[tuple[float, float, int]]) -> float | None:
    """Output tokens over (last token - first token) of a set of requests, each given as (first
    token, last token, output tokens): the mean of GuideLLM 0.4-0.7's output tokens per second,
    whose rate series runs from the first token event to the last; None without a span."""
    firsts, lasts, tokens = [], [], 0
    for first, last, out in spans:
        firsts.append(first)
        lasts.append(last)
        tokens += out
    if not firsts or max(lasts) <= min(firsts):
        return None
    return tokens / (max(lasts) - min(firsts))


def request_spans(
    requests: Mapping[str, Any], times: Callable[[Mapping[str, Any]], tuple[Any, Any]]
) -> tuple[tuple[float, float], ...]:
    """Each successful and errored record's (start, end) in epoch seconds, as `times` reads them
    from a record of its layout, for the steady-state gate; () when a record lacks either."""
    found = []
    for kind in ("successful", "errored"):
        for record in requests.get(kind) or ():
            start, end = times(record)
            if not isinstance(start, int | float) or not isinstance(end, int | float):
                return ()
            found.append((float(start), float(end)))
    return tuple(found)


def sample(record: Mapping[str, Any], at: str, report: Report) -> RequestSample:
    """One successful record as a request sample (times in seconds from its own timings)."""
    timings = record["info"]["timings"]
    return _sample(record, timings, _in_order(timings, at, report), at)


def legacy_sample(record: Mapping[str, Any], at: str, report: Report) -> RequestSample:
    """One successful record of GuideLLM 0.2/0.3 as a request sample; a first or last token time
    of -1 (no streamed text) makes it not completed."""
    timings = {
        "request_start": record["start_time"],
        "first_token_iteration": _time(record.get("first_token_time")),
        "last_token_iteration": _time(record.get("last_token_time")),
        "request_end": record["end_time"],
    }
    ordered = _in_order(timings, at, report, _LEGACY_NAMES)
    return _sample(record, timings, ordered, at)


def _time(value: Any) -> float | None:
    """A 0.2/0.3 token time: None where GuideLLM wrote -1 (or nothing) for "no token came"."""
    return None if value is None or value < 0 else float(value)


def _sample(
    record: Mapping[str, Any], timings: Mapping[str, Any], ordered: bool, at: str
) -> RequestSample:
    start, end = timings["request_start"], timings["request_end"]
    first, last = timings["first_token_iteration"], timings["last_token_iteration"]
    out = int(record.get("output_tokens") or 0)
    completed = ordered and first is not None and last is not None and out > 0
    ttft = first - start if completed else 0.0
    itl = (last - first) / (out - 1) if completed and out > 1 else 0.0
    return RequestSample(
        pointer=at,
        ttft_s=float(ttft),
        latency_s=float(end - start),
        itl_s=float(itl),
        input_tokens=int(record.get("prompt_tokens") or 0),
        output_tokens=out,
        completed=completed,
    )


def tool_percentile(weighted: Iterable[tuple[float, float]], p: float) -> float | None:
    """GuideLLM's percentile p of (value, weight) pairs: the first value, in ascending order, at
    which the running sum of the normalized weights reaches p; None when there is none."""
    pairs = sorted((v, w) for v, w in weighted if w > 0)
    total = sum(w for _, w in pairs)
    if not pairs or total <= 0:
        return None
    running = 0.0
    for value, weight in pairs:
        running += weight / total
        if running >= p:
            return value
    return pairs[-1][0]


def weighted_values(quantity: str, samples: Iterable[RequestSample]) -> list[tuple[float, float]]:
    """The (value, weight) pairs GuideLLM's statistics of `quantity` are over."""
    done = [s for s in samples if s.completed]
    if quantity == "ttft_s":
        return [(s.ttft_s, 1.0) for s in done]
    if quantity == "latency_s":
        return [(s.latency_s, 1.0) for s in done]
    return [(s.itl_s, float(s.output_tokens - 1)) for s in done if s.output_tokens > 1]


def _same(a: float, b: float) -> bool:
    # GuideLLM does not round what it writes: agreement within the summary tolerance's share
    return close(a, b, rel=tol.SUMMARY_SECONDS.rel, abs_=1e-9)


def _median_matches(shown: float, pairs: list[tuple[float, float]]) -> bool:
    # a running sum that lands on 1/2 exactly may land just below or above it in floating point
    for p in (0.5 - 1e-9, 0.5, 0.5 + 1e-9):
        found = tool_percentile(pairs, p)
        if found is not None and _same(shown, found):
            return True
    return False


def check_statistics(
    metrics: Mapping[str, Any], samples: tuple[RequestSample, ...], at: str, report: Report
) -> None:
    """Warn where GuideLLM's own median or mean of a quantity is not what its definition gives
    over the records (`at`: the benchmark's metrics)."""
    for quantity, (metric, unit, per_s) in QUANTITIES.items():
        block = metrics.get(metric) or {}
        stats = block.get("successful")
        pairs = weighted_values(quantity, samples)
        if not stats or not pairs:
            continue
        where = f"{at}/{metric}/successful"
        median = stats["median"] / per_s
        if not _median_matches(median, pairs):
            found = (tool_percentile(pairs, 0.5) or 0.0) * per_s
            report(
                f"{where}/median",
                f"median {stats['median']:.6g} {unit} disagrees with the {found:.6g} {unit} "
                "GuideLLM's definition gives over requests.successful",
                "warning",
            )
        total = sum(w for _, w in pairs)
        mean = sum(v * w for v, w in pairs) / total
        if not _same(stats["mean"] / per_s, mean):
            report(
                f"{where}/mean",
                f"mean {stats['mean']:.6g} {unit} disagrees with the {mean * per_s:.6g} {unit} "
                "of requests.successful",
                "warning",
            )
