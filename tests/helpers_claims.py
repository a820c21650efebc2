"""Sentences a copy of an article may add in its own words, each with whether it is true: derived
claims (ratios, "fell by P%", "Nx higher", "P% faster"), metrics quoted in a new sentence, and
sentences that state several numbers (two cells quoted together, a ratio with its operands).

Every sentence is written from the built article's own labels (a table's title, its row and
column labels, its corner's axis words), and its number is computed from the metrics, never
typed: the true version shows the value at the precision written, the false one a value off by
more than half a unit of its last digit. Used by the checker's mutation test.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from reportgen.article.build import Built
from reportgen.check.readers.reported import Reported
from reportgen.check.readers.shape import Shape, TableShape
from reportgen.metrics.display import display_for, format_number
from reportgen.metrics.registry import DEFINITIONS, MetricValue, coordinates


@dataclass(frozen=True)
class Said:
    name: str
    sentence: str
    true: bool


def _plain(label: str) -> str:
    return re.sub(r"\s*\([^)]*\)", "", label).strip()


def half_up(value: float, decimals: int) -> str:
    """`value` rounded half up at `decimals`, as an article shows it."""
    scaled = math.floor(abs(value) * 10**decimals + 0.5) / 10**decimals
    return f"{scaled:.{decimals}f}"


@dataclass(frozen=True)
class _Table:
    shape: TableShape
    row_word: str
    col_word: str | None  # None: the columns are names (runs), not an axis's values
    key: str | None  # the one definition all its cells show; None: a column per quantity

    def phrase(self, row: str, col: str) -> str:
        title = _plain(self.shape.title)
        if self.key is None:
            return f"{title} {_plain(col)} at {row} {self.row_word}"
        if self.col_word is None:
            return f"{title} for {col} at {row} {self.row_word}"
        return f"{title} at {row} {self.row_word} and {col} {self.col_word} requests"

    def other(self, row: str, col: str) -> str:
        """The words that name a second cell after the first ("than at 8K context")."""
        return f"for {col}" if self.col_word is None else f"at {row} {self.row_word}"


def _tables(shape: Shape) -> Iterator[tuple[_Table, dict[tuple[str, str], str]]]:
    for table in shape.tables:
        if table.grid is None:
            continue
        corner = [w.strip() for w in table.grid.corner.split("\\")]
        cells = {
            (row, col): m
            for row, _ in table.grid.rows
            for col in table.grid.columns
            if (m := table.cell(row, col))
        }
        # a ratio column beside two runs' columns ("AIPerf / GuideLLM") is no cell to compare
        cells = {k: m for k, m in cells.items() if not m.startswith("compare.")}
        keys = Counter((coordinates(m) or ("", {}))[0] for m in cells.values())
        key = keys.most_common(1)[0][0]
        single = len(keys) == 1
        words = corner[1] if len(corner) > 1 else None
        yield _Table(table, corner[0], words, key if single else None), cells


def claims(built: Built, shape: Shape) -> Iterator[Said]:
    """True and false derived claims between two cells of each table that shows one quantity."""
    by_id = built.metrics.by_id()
    for table, cells in _tables(shape):
        if table.key is None or DEFINITIONS[table.key].better is None:
            continue
        rows = list(dict.fromkeys(r for r, _ in cells))
        cols = list(dict.fromkeys(c for _, c in cells))
        if table.col_word is None:  # two runs, one row
            pairs = [((rows[-1], cols[1]), (rows[-1], cols[0]))] if len(cols) > 1 else []
        else:  # two rows, one column
            pairs = [((rows[-1], cols[-1]), (rows[1], cols[-1]))] if len(rows) > 1 else []
        for (ra, ca), (rb, cb) in pairs:
            if (ra, ca) not in cells or (rb, cb) not in cells:
                continue
            a, b = by_id[cells[ra, ca]].value, by_id[cells[rb, cb]].value
            yield from _claims_between(table, (ra, ca, a), (rb, cb, b))


def _claims_between(
    table: _Table, first: tuple[str, str, float], second: tuple[str, str, float]
) -> Iterator[Said]:
    (ra, ca, a), (rb, cb, b) = first, second
    name = f"{table.shape.id}:{ra}/{ca}~{rb}/{cb}"
    subject, obj = table.phrase(ra, ca), table.other(rb, cb)
    ratio, change = a / b, (a - b) / b * 100
    d = 1 if ratio >= 2 else 2
    for true, n in ((True, ratio), (False, ratio * 1.37)):
        yield Said(f"ratio {name}", f"{subject} is {half_up(n, d)}x that {obj}.", true)
    big, small = (a, b) if a > b else (b, a)
    sa, so = (subject, obj) if a > b else (table.phrase(rb, cb), table.other(ra, ca))
    for true, n in ((True, big / small), (False, big / small + 0.6)):
        yield Said(f"ratio-higher {name}", f"{sa} is {half_up(n, d)}x higher than {so}.", true)
    verb = "rose" if change > 0 else "fell"
    if table.col_word is None:
        where, frm, to = f"at {ra} {table.row_word}", cb, ca
    else:
        where, frm, to = f"at {ca} {table.col_word} requests", f"{rb} {table.row_word}", ra
        to = f"{ra} {table.row_word}"
    title = _plain(table.shape.title)
    for true, p in ((True, change), (False, change + math.copysign(9, change))):
        text = f"{title} {where} {verb} by {half_up(p, 0)}% from {frm} to {to}."
        yield Said(f"fell-by {name}", text, true)
    better = DEFINITIONS[table.key or ""].better
    faster = "faster" if (a > b) == (better == "higher") else "slower"
    for true, p in ((True, change), (False, change + math.copysign(abs(change) / 2 + 5, change))):
        text = f"{subject} is {half_up(p, 0)}% {faster} than {obj}."
        yield Said(f"faster {name}", text, true)


def quotes(shape: Shape, tied: list[Reported], built: Built) -> Iterator[Said]:
    """True and false quotes, in a new sentence, of table cells shown with a unit of time."""
    tables = {t.shape.id: t for t, _ in _tables(shape)}
    seen: set[str] = set()
    for r in tied:
        table = tables.get(r.table or "")
        if table is None or r.unit not in ("s", "ms") or r.row is None or r.column is None:
            continue
        if table.shape.id in seen:
            continue
        seen.add(table.shape.id)
        subject = table.phrase(r.row, r.column)
        value = built.metrics.by_id()[r.metric_id or ""].value * (1000 if r.unit == "ms" else 1)
        wrong = half_up(value * 1.25 + 10.0**-r.decimals * 3, r.decimals)
        name = f"{table.shape.id}:{r.row}/{r.column}"
        yield Said(f"quote {name}", f"{subject} was {r.text} {r.unit}.", True)
        yield Said(f"quote {name}", f"{subject} was {wrong} {r.unit}.", False)
        other = "s" if r.unit == "ms" else "ms"
        yield Said(f"quote-unit {name}", f"{subject} was {r.text} {other}.", False)


def _shown(value: MetricValue, factor: float = 1.0) -> tuple[str, str]:
    """The value (times `factor`) as the article's table shows it, and its unit."""
    display = display_for(value)
    return format_number(value.value * factor, display), display.unit


def _off(value: MetricValue) -> float:
    """A factor that moves the value shown well outside half a unit of its last digit."""
    return 1.37 if value.value else 1.0


def several(built: Built, shape: Shape) -> Iterator[Said]:
    """Sentences that state two cells of one table together, true and with one number false:
    both quoted ("X s at 32K context, against Y s at 8K context"), and a ratio written with its
    operands ("Nx that at 8K context (X vs Y s)"). A false number is caught at its line; the
    true sentence passes with every number verified."""
    by_id = built.metrics.by_id()
    for table, cells in _tables(shape):
        if table.key is None or DEFINITIONS[table.key].better is None:
            continue
        rows = list(dict.fromkeys(r for r, _ in cells))
        cols = list(dict.fromkeys(c for _, c in cells))
        if table.col_word is None:
            pairs = [((rows[-1], cols[1]), (rows[-1], cols[0]))] if len(cols) > 1 else []
        else:
            pairs = [((rows[-1], cols[-1]), (rows[1], cols[-1]))] if len(rows) > 1 else []
        for (ra, ca), (rb, cb) in pairs:
            if (ra, ca) not in cells or (rb, cb) not in cells:
                continue
            a, b = by_id[cells[ra, ca]], by_id[cells[rb, cb]]
            yield from _several_between(table, (ra, ca, a), (rb, cb, b))


def _several_between(
    table: _Table, first: tuple[str, str, MetricValue], second: tuple[str, str, MetricValue]
) -> Iterator[Said]:
    (ra, ca, a), (rb, cb, b) = first, second
    name = f"{table.shape.id}:{ra}/{ca}~{rb}/{cb}"
    subject, obj = table.phrase(ra, ca), table.other(rb, cb)
    (ta, unit), (tb, _) = _shown(a), _shown(b)
    (wa, _), (wb, _) = _shown(a, _off(a)), _shown(b, _off(b))
    for true, x, y in ((True, ta, tb), (False, wa, tb), (False, ta, wb)):
        text = f"{subject} was {x} {unit}, against {y} {unit} {obj}."
        yield Said(f"several-quotes {name}", text, true)
    big, small = (a, b) if a.value >= b.value else (b, a)
    sa, so = (subject, obj) if big is a else (table.phrase(rb, cb), table.other(ra, ca))
    (tbig, _), (tsmall, _) = _shown(big), _shown(small)
    ratio = big.value / small.value
    d = 1 if ratio >= 2 else 2
    (wbig, _), (wsmall, _) = _shown(big, _off(big)), _shown(small, _off(small))
    for true, x, y, n in (
        (True, tbig, tsmall, ratio),
        (False, wbig, tsmall, ratio),
        (False, tbig, wsmall, ratio),
        (False, tbig, tsmall, ratio * 1.37),
    ):
        text = f"{sa} is {half_up(n, d)}x that {so} ({x} vs {y} {unit})."
        yield Said(f"ratio-operands {name}", text, true)
