"""Whether each run measured anything: part of the metrics stage. Runs (and their metrics when
already computed) in, an error for each run that yields no metric at all out."""

from __future__ import annotations

from collections.abc import Iterable

from reportgen.errors import Problem, whole_file
from reportgen.metrics.compute import compute
from reportgen.metrics.registry import MetricSet
from reportgen.model import Run


def unmeasured(runs: Iterable[Run], metrics: MetricSet | None = None) -> list[Problem]:
    """An error for each run that reads but yields no metric at all: such a file measured
    nothing reportgen can show (every load point empty, every cell a sentinel with no count), and
    is never "ok". `metrics`: the runs' metrics when already computed, else each run's own."""
    runs = tuple(runs)
    if metrics is None:
        named = {run.source.label for run in runs if compute([run]).values}
    else:
        named = {value.file for value in metrics.values}
        named |= {file for value in metrics.values for file, _ in value.repeats}
    return [
        whole_file(
            run.source.label,
            f"read as {run.source.tool}, but it yields no metric at all: none of its load "
            "points, cells or requests holds a value reportgen computes (not even a count)",
        )
        for run in runs
        if run.source.label not in named
    ]
