"""Lay out the article's tables from metric values (pure): rows and columns follow the data.

Each table of `reportgen.tables.TABLES` becomes a `TableView`: the contexts and concurrencies the
runs hold, every cell a number or the reason it has none (skipped, failed, not measured), with
footnotes numbered per table.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from reportgen.article.numbers import number_html
from reportgen.article.tables import TABLES, TableSpec
from reportgen.metrics import DEFINITIONS, MetricSet
from reportgen.model import context_label

STATUS_WORDS = {
    "skipped_capacity": "skipped",
    "skipped_user": "skipped",
    "loop_detected": "invalid",
    "error": "failed",
    "failed": "failed",
    "ok": "no data",
}


@dataclass(frozen=True)
class CellView:
    """One table cell: a number, or a word and a footnote mark."""

    html: Markup
    note: str | None = None  # footnote mark ("a", "b", ...)
    missing: bool = False
    metric: str | None = None  # the id of the metric shown


@dataclass(frozen=True)
class TableView:
    """A table ready for the template."""

    spec: TableSpec
    corner: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple[CellView, ...]], ...]
    footnotes: tuple[tuple[str, str], ...]  # (mark, text)


class _Notes:
    def __init__(self) -> None:
        self.marks: dict[str, str] = {}

    def mark(self, text: str) -> str:
        if text not in self.marks:
            self.marks[text] = "abcdefghijklmnopqrstuvwxyz"[len(self.marks) % 26]
        return self.marks[text]

    def items(self) -> tuple[tuple[str, str], ...]:
        return tuple((mark, text) for text, mark in self.marks.items())


def _matrix(spec: TableSpec, metrics: MetricSet) -> TableView | None:
    assert spec.metric_key is not None
    states = {(c.context, c.concurrency): c for c in metrics.cells if c.kind == "decode"}
    values = [v for v in metrics.values if v.key == spec.metric_key]
    contexts = sorted({c for c, _ in states} | {v.context for v in values if v.context is not None})
    levels = sorted(
        {n for _, n in states if n is not None}
        | {v.concurrency for v in values if v.concurrency is not None}
    )
    if not contexts or not levels:
        return None
    notes = _Notes()
    by_id = metrics.by_id()
    pattern = DEFINITIONS[spec.metric_key].id_pattern
    rows = []
    for ctx in contexts:
        cells = []
        for level in levels:
            value = by_id.get(pattern.format(context=context_label(ctx), concurrency=level))
            if value is not None:
                cells.append(CellView(number_html(value), metric=value.id))
                continue
            state = states.get((ctx, level))
            if state is None:
                text, word = "not measured: the run has no such cell", "—"
            elif state.status == "ok":
                text, word = "measured, but the cell holds no samples for this metric", "—"
            else:
                text, word = state.reason or state.status, STATUS_WORDS[state.status]
            cells.append(CellView(Markup(word), notes.mark(text), missing=True))
        rows.append((context_label(ctx), tuple(cells)))
    return TableView(
        spec, "context \\ concurrent", tuple(map(str, levels)), tuple(rows), notes.items()
    )


def _per_context(spec: TableSpec, metrics: MetricSet) -> TableView | None:
    by_id = metrics.by_id()
    contexts = sorted(
        {
            v.context
            for v in metrics.values
            if v.context is not None and v.key in {c.key for c in spec.columns}
        }
    )
    if not contexts:
        return None
    notes = _Notes()
    rows = []
    for ctx in contexts:
        cells = []
        for column in spec.columns:
            value = by_id.get(DEFINITIONS[column.key].id_pattern.format(context=context_label(ctx)))
            if value is None:
                cells.append(CellView(Markup("—"), notes.mark("not measured"), missing=True))
            else:
                cells.append(CellView(number_html(value), metric=value.id))
        rows.append((context_label(ctx), tuple(cells)))
    return TableView(
        spec, "context", tuple(c.header for c in spec.columns), tuple(rows), notes.items()
    )


def table_views(metrics: MetricSet) -> tuple[TableView, ...]:
    """Every article table that the metrics have data for, in article order."""
    views = []
    for spec in TABLES:
        view = _matrix(spec, metrics) if spec.kind == "matrix" else _per_context(spec, metrics)
        if view is not None:
            views.append(view)
    return tuple(views)
