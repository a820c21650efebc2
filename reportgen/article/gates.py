"""What an article shows, for the gate lints (`reportgen.metrics.lints.gates`, registered
`shown_only`): a gated value is a finding when a table or chart of the article shows its metric,
or a headline or a reference in its text names it; one that stays in metrics.json alone is not.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from reportgen.article.source.declarations import ArticleSource
from reportgen.metrics.registry import MetricValue

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


def shown_by(article: ArticleSource) -> Callable[[MetricValue], bool]:
    """Whether `article` shows a value: in a table or chart, a headline or a reference."""
    keys, ids = _shown(article)

    def shown(v: MetricValue) -> bool:
        return v.metric in keys or v.id in ids

    return shown
