"""Lint stage: metric values (and the runs behind them) in, findings out (pure).

A lint asks whether the data is plausible, not whether it is well formed (validation did that):
failed, skipped or incomplete cells, a lighter load than the label says, a summary that its own
samples contradict, medians over too few requests, and numbers that go against physics or against
the other cells. Every threshold comes from `reportgen.tolerances` (`Thresholds`).

Severity: `error` when a number cannot stand as a measurement of what its label says (the cell
failed, requests failed); `warning` when the number probably stands but a reader should know a
caveat, or when it looks implausible and needs a human look. Each lint id has one severity.
"""

from __future__ import annotations

from reportgen import tolerances as tol
from reportgen.metrics.lints.cells import (
    cells,
    contexts,
    load_points,
    read_warnings,
    tool_warnings,
)
from reportgen.metrics.lints.cross import (
    aggregate_bound,
    group_bound,
    median_speed_bound,
    trends,
    ttft_vs_prefill,
)
from reportgen.metrics.lints.findings import Finding
from reportgen.metrics.lints.samples import few_samples, summaries
from reportgen.metrics.registry import MetricSet

_RANK = {"error": 0, "warning": 1}


def _order(f: Finding) -> tuple[int, str, int, int, str, str, str]:
    ctx = -1 if f.context is None else f.context
    conc = -1 if f.concurrency is None else f.concurrency
    return (_RANK[f.severity], f.file, ctx, conc, f.id, f.pointer, f.evidence)


def lint(metrics: MetricSet, thresholds: tol.Thresholds = tol.THRESHOLDS) -> tuple[Finding, ...]:
    """Every finding over `metrics` and its runs: errors first, then by file, cell and lint id."""
    t = thresholds
    found = [
        *cells(metrics, t),
        *load_points(metrics),
        *summaries(metrics),
        *few_samples(metrics, t),
        *contexts(metrics, t),
        *ttft_vs_prefill(metrics, t),
        *trends(metrics, t),
        *aggregate_bound(metrics, t),
        *median_speed_bound(metrics, t),
        *group_bound(metrics, t),
        *tool_warnings(metrics),
        *read_warnings(metrics),
    ]
    return tuple(sorted(found, key=_order))
