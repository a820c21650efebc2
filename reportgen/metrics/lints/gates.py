"""Lints of the gates (`reportgen.metrics.gates`): each cell whose values an article shows as
"not measurable", once per gate, naming the cell, how many requests it has and how many the gate
needs. They are warnings: the article already shows the words, not the number, and an author can
acknowledge them like any other lint.

A gated value that no table, chart, headline or reference shows stays marked in metrics.json and
is no finding (a matrix of two-request cells would otherwise list every cell's unused p99): each
lint is registered `shown_only`, and `lint()` gives it the values the article shows
(`reportgen.article.gates`). A cell gated because requests failed is no lint of its own here:
`requests-failed` and `load-requests-failed` state that fact, once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from reportgen import tolerances as tol
from reportgen.metrics.gates import PERCENTILES, need
from reportgen.metrics.lints.findings import Finding, cell_label, finding, finds
from reportgen.metrics.registry import GateKind, MetricSet, MetricValue


def _cell(v: MetricValue) -> str:
    if v.context is not None and v.concurrency is not None:
        label = cell_label(v.context, v.concurrency)
        return f"{label} {v.point}" if v.point else label
    return v.point or "run"


def _by_cell(
    values: Iterable[MetricValue], kinds: tuple[GateKind, ...]
) -> dict[tuple[str, str | None, str], list[MetricValue]]:
    """The gated values of `kinds`, by (file, run, cell), in id order."""
    out: dict[tuple[str, str | None, str], list[MetricValue]] = {}
    for v in values:
        if v.gate is not None and v.gate.kind in kinds and v.source != "derived":
            out.setdefault((v.file, v.run, _cell(v)), []).append(v)
    return out


def _stats(values: list[MetricValue]) -> str:
    stats = sorted({v.stat for v in values if v.stat in PERCENTILES}, key=list(PERCENTILES).index)
    return ", ".join(f"{s} needs {need(PERCENTILES[s]):,}" for s in stats)


@finds(
    "percentile-too-few-samples",
    severity="warning",
    rule="a percentile over fewer requests than 1 / (1 - p), or over a count the file omits",
    title="Percentiles over too few requests: not measurable",
    why="With fewer requests than the percentile needs, the value is about the slowest request; "
    "the article shows these as not measurable.",
    shown_only=True,
)
def too_few(metrics: MetricSet, _: tol.Thresholds) -> Iterator[Finding]:
    """One finding per run file: each cell with a percentile gated by its count (or by a
    missing count), with its count and what its percentiles need."""
    gated = metrics.values
    by_file: dict[str, list[tuple[str, list[MetricValue]]]] = {}
    for (file, _run, cell), values in _by_cell(gated, ("too-few-samples", "count-unknown")).items():
        by_file.setdefault(file, []).append((cell, values))
    for file, cells in by_file.items():
        first = cells[0][1][0]
        parts = [f"{cell} n {_n(values[0])} ({_stats(values)})" for cell, values in cells]
        many = "cell's" if len(cells) == 1 else f"{len(cells)} cells'"
        yield finding(
            "percentile-too-few-samples",
            file,
            first.pointer,
            None,
            "; ".join(parts),
            f"The {many} percentiles rest on fewer requests than they need, so the article "
            "shows them as not measurable.",
        )


def _n(v: MetricValue) -> str:
    """The count the gate judged (a repeated cell's: its first repetition's, not their sum)."""
    n = v.gate.n if v.gate is not None and v.gate.n is not None else v.n
    return "not stated" if n is None else f"{n:,}"


@finds(
    "cell-not-steady",
    severity="warning",
    rule="a load point's steady window (from per-request times) is empty, or holds fewer "
    "requests than a percentile needs",
    title="Load points without enough steady-state requests: not measurable",
    why="Requests sent while the load ramped up or drained did not see the load the label says.",
    shown_only=True,
)
def not_steady(metrics: MetricSet, _: tol.Thresholds) -> Iterator[Finding]:
    """One finding per load point gated as not steady."""
    for (file, _run, cell), values in _by_cell(metrics.values, ("not-steady",)).items():
        gate = values[0].gate
        assert gate is not None
        needs = _stats(values) or "any value needs 1"
        yield finding(
            "cell-not-steady",
            file,
            values[0].pointer,
            cell,
            f"{gate.n:,} steady requests; {needs}",
            f"The {cell} load point is not measurable as shown: {gate.reason}.",
            concurrency=values[0].concurrency,
            context=values[0].context,
        )
