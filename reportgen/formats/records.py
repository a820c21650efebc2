"""What several importers share: the most requests in flight at once, the load point of a
records file that states no load of its own, per-request arrays, and vLLM-lineage statistics
written as `{stat}_{metric}_ms` keys."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from reportgen.model import CellStatus, LoadPoint, RequestSample, Summary


def most_in_flight(starts: Sequence[float], ends: Sequence[float]) -> int:
    """The most requests in flight at once (one ending as another starts is not both)."""
    starts, ends = sorted(starts), sorted(ends)
    most, ended = 0, 0
    for started, at in enumerate(starts, start=1):
        while ended < len(ends) and ends[ended] <= at:
            ended += 1
        most = max(most, started - ended)
    return most


def records_point(
    pointer: str,
    samples: Sequence[RequestSample],
    seconds: float,
    most: int,
    reason: str | None,
) -> LoadPoint:
    """The load point of a file's requests: labelled by the most in flight (`inflight{N}-records`,
    never a summary file's label, so the two never combine as repetitions), with no load, rate or
    throughput of its own (the records state none); `reason` explains a point where none
    succeeded."""
    done, tokens = 0, 0  # one sample at a time: `samples` may be a packed million
    for s in samples:
        if s.completed:
            done, tokens = done + 1, tokens + s.output_tokens
    status: CellStatus = "ok" if done else "failed"
    return LoadPoint(
        pointer=pointer,
        label=f"inflight{most}-records",
        concurrency=None,  # not recorded in a records file
        rate=None,
        strategy=None,
        status=status,
        reason=None if done else reason,
        duration_s=seconds if seconds > 0 else None,
        output_tokens=tokens,
        aggregate_tok_s=None,
        requests_ok=done,
        requests_failed=len(samples) - done,
        samples=samples,
    )


def parallel_arrays(
    raw: dict[str, Any],
    names: Sequence[str],
    required: Sequence[str],
    report: Callable[[str, str, str], None],
) -> dict[str, list[Any]] | None:
    """A file's per-request arrays, one entry per request in each (vLLM's `--save-detailed`,
    SGLang's `--output-details`): None when the `required` ones are absent, or when their
    lengths differ (an error at the first required one)."""
    arrays = {name: raw[name] for name in names if name in raw}
    if not set(required) <= arrays.keys():
        return None
    lengths = {name: len(values) for name, values in arrays.items()}
    if len(set(lengths.values())) > 1:
        listed = ", ".join(f"{name} {n}" for name, n in sorted(lengths.items()))
        report(f"/{required[0]}", f"the per-request arrays differ in length ({listed})", "error")
        return None
    return arrays


def ms_statistics(
    raw: dict[str, Any],
    pattern: re.Pattern[str],
    stats: Mapping[str, str],
    quantities: Mapping[str, str],
    at: str = "",
) -> tuple[tuple[tuple[str, Summary], ...], list[tuple[str, str]]]:
    """A vLLM- or SGLang-style result's own statistics (`median_ttft_ms`, `p99_tpot_ms`, ...) in
    seconds, by reportgen quantity, and the pointer of each (under `at`). `pattern` matches a
    key as (statistic, metric); `stats` and `quantities` name them as reportgen does."""
    found: dict[str, dict[str, float]] = {}
    where: list[tuple[str, str]] = []
    for key, value in raw.items():
        match = pattern.fullmatch(key)
        stat = stats.get(match.group(1)) if match else None
        if match is None or stat is None or match.group(2) not in quantities:
            continue
        quantity = quantities[match.group(2)]
        found.setdefault(quantity, {})[stat] = float(value) / 1000
        where.append((quantity if stat == "p50" else f"{quantity}.{stat}", f"{at}/{key}"))
    n = raw.get("completed")
    summaries = tuple(sorted((q, Summary(**values, n=n)) for q, values in found.items()))
    return summaries, sorted(where)
