"""The gate lints of what an article shows (`reportgen.metrics.lints.gates`): a gated value
is a finding when a table or chart of the article shows its metric, or a headline or a
reference in its text names it; one that stays in metrics.json alone is not.
"""

from __future__ import annotations

import re

from reportgen.article.source.declarations import ArticleSource
from reportgen.metrics.lints.findings import Finding
from reportgen.metrics.lints.gates import gate_findings
from reportgen.metrics.registry import MetricSet, MetricValue

_REFERENCE = re.compile(r"\{\{\s*([A-Za-z0-9_.\-]+)")


def _shown(article: ArticleSource) -> tuple[frozenset[str], frozenset[str]]:
    """The metrics (key with statistic) the tables and charts show, and the ids the headlines
    and the text name."""
    metrics: set[str] = set()
    for table in article.tables():
        if table.metric:
            metrics.add(table.metric)
        if not isinstance(table.columns, str):
            metrics.update(c.metric for c in table.columns)
    for chart in article.charts():
        metrics.update((chart.metric, chart.x))
    ids = {h.metric for h in article.headlines}
    ids.update(m for text in article.texts() for m in _REFERENCE.findall(text.text))
    return frozenset(metrics), frozenset(ids)


def shown_gate_findings(article: ArticleSource, metrics: MetricSet) -> tuple[Finding, ...]:
    """The gate findings of the values `article` shows."""
    keys, ids = _shown(article)

    def shown(v: MetricValue) -> bool:
        return v.metric in keys or v.id in ids

    return gate_findings(metrics, shown)
