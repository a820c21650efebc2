"""Each table of the article as CSV, one row per cell: its row and column labels, the metric id,
the value at full precision, its unit, the text the page shows, and the cell's footnote marks."""

from __future__ import annotations

import csv
import io
import re

from reportgen.article.tableview import TableView
from reportgen.metrics import MetricSet

HEADER = ("row", "column", "metric", "value", "unit", "shown", "note")


def table_csv(view: TableView, metrics: MetricSet) -> str:
    """The CSV text of one table (lines end in \\n, so the bytes are the same everywhere)."""
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(HEADER)
    by_id = metrics.by_id()
    for row, cells in view.rows:
        for column, cell in zip(view.columns, cells, strict=True):
            value = by_id.get(cell.metric) if cell.metric else None
            shown = re.sub(r"<[^>]+>", "", str(cell.html)).replace("\u00a0", " ")
            out.writerow(
                (
                    row,
                    column,
                    cell.metric or "",
                    "" if value is None else repr(value.value),
                    "" if value is None else value.unit,
                    shown.replace("&amp;", "&"),
                    cell.note or "",
                )
            )
    return buf.getvalue()
