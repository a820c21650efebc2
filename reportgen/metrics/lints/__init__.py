"""Lint stage: metric values (and the runs behind them) in, findings out (pure).

A lint asks whether the data is plausible, not whether it is well formed (validation did that):
failed, skipped or incomplete cells, a lighter load than the label says, a summary that its own
samples contradict, medians over too few requests, and numbers that go against physics or against
the other cells. Every threshold comes from `reportgen.tolerances` (`Thresholds`).

Severity: `error` when a number cannot stand as a measurement of what its label says (the cell
failed, requests failed); `warning` when the number probably stands but a reader should know a
caveat, or when it looks implausible and needs a human look. Each lint id has one severity.

Each lint is defined once, by the function that finds it: `@finds(id, severity=..., rule=...,
title=..., why=...)` puts it in `LINTS`, and `lint()` runs every function there. A lint whose
findings another stage makes (the article's setup against its run files, a stale
acknowledgement) is defined where they are made, with `define_lint`.
"""

from __future__ import annotations

from collections.abc import Callable

# Importing the modules of lints registers their lints in `LINTS`.
import reportgen.metrics.lints.cells
import reportgen.metrics.lints.cross
import reportgen.metrics.lints.gates
import reportgen.metrics.lints.repetitions
import reportgen.metrics.lints.samples  # noqa: F401
from reportgen import tolerances as tol
from reportgen.metrics.lints.findings import LINTS, Finding
from reportgen.metrics.registry import MetricSet, MetricValue

_RANK = {"error": 0, "warning": 1}


def _order(f: Finding) -> tuple[int, str, int, int, str, str, str]:
    ctx = -1 if f.context is None else f.context
    conc = -1 if f.concurrency is None else f.concurrency
    return (_RANK[f.severity], f.file, ctx, conc, f.id, f.pointer, f.evidence)


def lint(
    metrics: MetricSet,
    thresholds: tol.Thresholds = tol.THRESHOLDS,
    shown: Callable[[MetricValue], bool] | None = None,
) -> tuple[Finding, ...]:
    """Every finding of every lint in `LINTS` over `metrics` and its runs: errors first, then by
    file, cell and lint id. `shown`: which values an article shows; a lint defined `shown_only`
    sees those values alone (none when `shown` is None: without an article, nothing is shown)."""
    values = () if shown is None else tuple(filter(shown, metrics.values))
    visible = MetricSet(values=values, cells=metrics.cells, runs=metrics.runs)
    found = [
        f
        for d in LINTS.values()
        if d.find
        for f in d.find(visible if d.shown_only else metrics, thresholds)
    ]
    return tuple(sorted(found, key=_order))
