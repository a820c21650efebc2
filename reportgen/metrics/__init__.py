"""Metrics: the registry of metric definitions, their computation from runs, display and lints.

`compute(runs)` gives every metric value; `reportgen.metrics.lints.lint` judges how plausible
they are; `reportgen.metrics.display` says how each is shown.
"""

from __future__ import annotations

from reportgen.metrics.compute import compute
from reportgen.metrics.registry import (
    DEFINITIONS,
    CellState,
    MetricDef,
    MetricSet,
    MetricValue,
    metric_id,
)

__all__ = [
    "DEFINITIONS",
    "CellState",
    "MetricDef",
    "MetricSet",
    "MetricValue",
    "compute",
    "metric_id",
]
