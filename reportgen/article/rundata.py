"""An article's data: its run files loaded (each inside its folder) and every metric computed
with its runs and setups, as the build, check and diff all need it. Imports neither WeasyPrint
nor matplotlib."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from reportgen.article.source.declarations import ArticleSource
from reportgen.article.source.manifest import load_article
from reportgen.errors import InputError
from reportgen.formats.load import load
from reportgen.metrics.compute import compute
from reportgen.metrics.measured import unmeasured
from reportgen.metrics.registry import MetricSet


def article_metrics(folder: Path) -> tuple[ArticleSource, MetricSet]:
    """An article's source and every metric of its runs, as its build computes them."""
    article = load_article(folder)
    result = load(article.run_paths(), label_root=folder, inside=folder)
    if not result.ok:
        raise InputError(result.problems)
    metrics = compute(result.runs, run_of=article.run_of(), setups=article.setups())
    empty = unmeasured(result.runs, metrics)
    if empty:
        raise InputError(empty)
    warnings = tuple(p for p in result.problems if p.severity == "warning")
    return article, replace(metrics, read_warnings=warnings)
