"""Each table of the article as CSV, one row per cell: its row and column labels, the metric id,
the value at full precision, its unit, the text the page shows, and the cell's footnote marks.

Labels come from run files (a `meta.` axis holds whatever a file states), so every cell that a
spreadsheet would run as a formula is written as text, the OWASP way: a leading single quote. A
plain number, negative or signed, stays a number. A control character is written as its escape
(`terminal.visible`: `del\\x7fname`), as the page, the charts and the terminal show it.
"""

from __future__ import annotations

import csv
import io
import re

from reportgen.article.tables.layout import TableView
from reportgen.metrics.registry import MetricSet
from reportgen.terminal import visible

HEADER = ("row", "column", "metric", "value", "unit", "shown", "note")
# What a spreadsheet reads as the start of a formula (or of a cell it trims first), full-width and
# small forms included: = + - @, tab, CR, LF.
_FORMULA_START = frozenset("=+-@\t\r\n\uff1d\uff0b\uff0d\uff20\ufe62\ufe63\ufe66\ufe6b")
_SPACES = " \u00a0\u3000\u2007\u202f\u200b\u200c\u200d\u2060\ufeff"  # and invisible ones
_NUMBER = re.compile(r"[+-]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?")


def spreadsheet_cell(text: str) -> str:
    """`text` as a CSV cell no spreadsheet runs: a leading quote unless it is a number."""
    start = text.lstrip(_SPACES)[:1]
    if not start or start not in _FORMULA_START or _NUMBER.fullmatch(text):
        return text
    return "'" + text


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
            if cell.gated and value is not None and value.gate is not None:
                shown = value.gate.words()  # the reason with the words
            fields = (
                row,
                column,
                cell.metric or "",
                "" if value is None else repr(value.value),
                "" if value is None else value.unit,
                shown.replace("&amp;", "&"),
                cell.note or "",
            )
            out.writerow([spreadsheet_cell(visible(c)) for c in fields])
    return buf.getvalue()
