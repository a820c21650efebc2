"""Several files of one run: files that measure the same cell again (r1, r2, ...), whose values
become the median over those repetitions with their spread and uncertainty as values of their
own (`.rep_min`, `.rep_mean`, `.rep_ci_lo`, ...; a percentile's too: `.p99.rep_hw`), and run
settings the files state differently, which then stand for no one value."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from reportgen.metrics.registry import SPREAD_OF, MetricValue, repeat_part
from reportgen.metrics.uncertainty import sorted_median, spread
from reportgen.model import ProvenanceStatus

# Provenance of a combination: the least trusted of its files'.
_TRUST: tuple[ProvenanceStatus, ...] = ("measured", "synthetic", "reconstructed")


def _spread_values(values: list[float], unit: str) -> Iterator[tuple[str, float, str]]:
    """(statistic, value, unit) of the repetitions' spread: lowest, highest, how many, and their
    mean, standard deviation, CV and intervals (`reportgen.metrics.uncertainty`)."""
    s = spread(values)
    yield "rep_min", min(values), unit
    yield "rep_max", max(values), unit
    yield "reps", float(len(values)), "repetitions"
    yield "rep_mean", s.mean, unit
    yield "rep_sd", s.sd, unit
    if s.cv_pct is not None:
        yield "rep_cv", s.cv_pct, "%"
    yield "rep_ci_lo", s.ci_lo, unit
    yield "rep_ci_hi", s.ci_hi, unit
    yield "rep_hw", s.half_width, unit
    if s.median_lo is not None and s.median_hi is not None:
        yield "rep_med_lo", s.median_lo, unit
        yield "rep_med_hi", s.median_hi, unit


def _combined(group: list[MetricValue]) -> Iterator[MetricValue]:
    first = group[0]
    values = [v.value for v in group]
    counts = [v.n for v in group]
    repeats = tuple((v.file, v.value) for v in group)
    yield first.but(
        value=sorted_median(sorted(values)),
        source="repetitions",
        n=None if None in counts else sum(c or 0 for c in counts),
        summary=None,
        summary_pointer=None,
        provenance=max((v.provenance for v in group), key=_TRUST.index),
        repeats=repeats,
    )
    if first.stat is not None and first.stat not in SPREAD_OF:
        return  # a count of requests (`.n`): no measurement of the cell, so no spread
    for stat, value, unit in _spread_values(values, first.unit):
        yield first.but(
            id=f"{first.id}.{stat}",
            value=value,
            unit=unit,
            source="repetitions",
            stat=stat if first.stat is None else f"{first.stat}.{stat}",
            n=None,
            summary=None,
            summary_pointer=None,
            repeats=repeats,
        )


def combine(values: Iterable[MetricValue], settings: frozenset[str]) -> list[MetricValue]:
    """`values` with each value that several files of one run give (the same id, one per file)
    replaced by its median over those files and the spread (`.rep_min`, `.rep_max`, `.reps`,
    `.rep_mean`, `.rep_sd`, `.rep_cv`, `.rep_ci_lo`, `.rep_ci_hi`, `.rep_hw`, and with six or
    more repetitions `.rep_med_lo`, `.rep_med_hi`), of the bare value and of each statistic in
    `SPREAD_OF` alike (`X.p99.rep_hw`: the same computation over the repetitions' p99s).
    Run settings (`settings`) and ids given twice by one file are left for the caller."""
    groups: dict[tuple[str | None, str], list[MetricValue]] = {}
    for v in values:
        groups.setdefault((v.run, v.id), []).append(v)
    out: list[MetricValue] = []
    for group in groups.values():
        files = {v.file for v in group}
        if len(group) == 1 or len(files) != len(group) or group[0].key in settings:
            out += group
        else:
            out += _combined(group)
    assert not any(repeat_part(v.stat) for g in groups.values() if len(g) == 1 for v in g)
    return out


def varying_settings(values: list[MetricValue], settings: frozenset[str]) -> dict[str, str]:
    """Run settings that the files of one run state differently (a 60 s window in one file, 90 s
    in another): id -> the values and their files, in words."""
    by_id: dict[str, list[MetricValue]] = {}
    for v in values:
        if v.key in settings:
            by_id.setdefault(v.id, []).append(v)
    varying = {}
    for metric_id, group in by_id.items():
        if len({v.value for v in group}) > 1:
            shown = sorted({f"{v.value:g}" for v in group}, key=float)
            varying[metric_id] = f"the run's files state {', '.join(shown)} ({len(group)} files)"
    return varying
