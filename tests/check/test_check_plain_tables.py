"""Plain-text tables as a newsletter or forum post lays them out (issue 22): psql's and MySQL's
`+` delimiters, space-aligned tables with columns dropped or with a corner naming only the rows'
axis, and a title line with no table under it, which must not take the next table's rows.

Each post writes one built table (its cells' texts as built, or one of them wrong); the other
tables' numbers are declared omitted, so a true post has nothing to report. No number is typed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_articles import MEASURED, PAITON, Table, table_of
from helpers_articles import built_article as _article

from reportgen.check.compare import check_published
from reportgen.check.result import Item, expected_numbers


def _table(folder: Path, table_id: str) -> Table:
    built, _ = _article(folder)
    return table_of(next(v for v in built.tables if v.id == table_id))


def _items(folder: Path, text: str, shown: set[str]) -> list[Item]:
    """What check says of `text`, every metric but those of `shown` declared omitted."""
    built, shape = _article(folder)
    expected = expected_numbers(built.article, built.metrics, built.tables)
    omitted = frozenset(s.metric for s in expected if s.metric not in shown)
    result = check_published(text, "post", built.metrics, expected, shape, omitted=omitted)
    return list(result.items)


def _wrong(text: str) -> str:
    """`text` off by three units of its last digit: outside what it rounds from."""
    decimals = len(text.partition(".")[2])
    value = float(text.replace(",", "")) + 3 * 10.0**-decimals
    return f"{value:,.{decimals}f}"


def _aligned(cells: list[str], widths: list[int]) -> str:
    return " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True))


def _psql(table: Table, corner: str, wrong: tuple[str, str] | None, mysql: bool) -> list[str]:
    """The table as psql (`----+----` under the header, no outer pipes) or MySQL (`+----+`
    borders, outer pipes) prints it."""
    grid = [[corner, *table.columns]]
    for label, texts in table.rows:
        cells = zip(table.columns, texts, strict=True)
        grid.append([label, *(_wrong(t) if (label, c) == wrong else t for c, t in cells)])
    widths = [max(len(r[k]) for r in grid) for k in range(len(grid[0]))]
    if mysql:
        border = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
        body = [f"| {_aligned(r, widths)} |" for r in grid]
        return [border, body[0], border, *body[1:], border]
    rule = "-+-".join("-" * w for w in widths)
    lines = [_aligned(r, widths).rstrip() for r in grid]
    return [lines[0], rule, *lines[1:]]


@pytest.mark.parametrize("mysql", [False, True], ids=["psql", "mysql"])
def test_a_psql_or_mysql_table_is_read_and_a_wrong_cell_is_an_error_at_its_line(
    mysql: bool,
) -> None:
    table = _table(PAITON, "decode-aggregate")
    shown = set(table.metrics.values())
    label, _texts = table.rows[-1]
    target = (label, table.columns[-1])
    for wrong in (None, target):
        lines = ["A forum post", "", table.title, ""]
        lines += _psql(table, "context", wrong, mysql)
        lines += ["", "Thanks for reading."]
        items = _items(PAITON, "\n".join(lines) + "\n", shown)
        found = [(i.kind, i.line, i.metric) for i in items]
        if wrong is None:
            assert found == []
        else:
            at = next(n for n, line in enumerate(lines, 1) if line.lstrip("| ").startswith(label))
            assert found == [("mismatch", at, table.metrics[target])]


def _spaced(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    return ["  " + "   ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]


def test_a_space_aligned_table_with_columns_dropped_reads_the_columns_it_keeps() -> None:
    """An editor keeps three of the load-point table's columns, in another order: they are
    read (a wrong one is an error at its line) and the dropped ones are missing."""
    table = _table(MEASURED, "load-points-guidellm")
    kept = [table.columns[k] for k in (3, 0, 1)]  # TTFT p50 first (its p99 is not measurable)
    label, _ = table.rows[-1]
    for wrong in (None, (label, kept[0])):
        rows = [[table.corner, *kept]]
        for row, texts in table.rows:
            cells = dict(zip(table.columns, texts, strict=True))
            rows.append([row, *(_wrong(cells[c]) if (row, c) == wrong else cells[c] for c in kept)])
        lines = ["TOOLING WEEKLY", "", table.title, "", *_spaced(rows), "", "See you next week."]
        items = _items(MEASURED, "\n".join(lines) + "\n", set(table.metrics.values()))
        # a gated cell shows no number, so a copy that drops it misses nothing
        words = {(r, c): t for r, ts in table.rows for c, t in zip(table.columns, ts, strict=True)}
        dropped = {
            m
            for (r, c), m in table.metrics.items()
            if c not in kept and words[r, c] != "not measurable"
        }
        assert {i.metric for i in items if i.kind == "missing"} == dropped
        errors = [(i.kind, i.line) for i in items if i.kind != "missing"]
        assert errors == ([] if wrong is None else [("mismatch", len(lines) - 2)])


def test_a_number_in_a_gated_cell_of_a_space_aligned_table_is_a_gated_warning() -> None:
    """The load-point table as an editor aligns it with spaces, or writes it in Markdown: the
    gate's words match; the p99 written instead (as the build computes it) is one `gated`
    warning, at its row."""
    table = _table(MEASURED, "load-points-guidellm")
    built, _ = _article(MEASURED)
    label, _ = table.rows[-1]
    column = "TTFT p99 (ms)"
    value = built.metrics.by_id()[table.metrics[(label, column)]]
    assert value.gate is not None
    for shown in ("not measurable", f"{value.value * 1000:.1f}"):
        rows = [[table.corner, *table.columns]]
        for row, texts in table.rows:
            cells = dict(zip(table.columns, texts, strict=True))
            rows.append([row, *(shown if (row, c) == (label, column) else cells[c] for c in cells)])
        piped = ["| " + " | ".join(r) + " |" for r in rows]
        piped.insert(1, "|" + "---|" * len(rows[0]))
        for layout in (_spaced(rows), piped):  # aligned with spaces, and as Markdown
            lines = ["TOOLING WEEKLY", "", table.title, "", *layout, "", "See you next week."]
            items = _items(MEASURED, "\n".join(lines) + "\n", set(table.metrics.values()))
            found = [(i.kind, i.metric, i.line) for i in items]
            gated = [("gated", value.id, len(lines) - 2)]
            assert found == ([] if shown == "not measurable" else gated), (shown, layout)


def test_a_corner_naming_the_rows_axis_alone_is_read_with_any_true_precision() -> None:
    """'context' for the built 'context \\ concurrent', a cell at one decimal more: the header
    is read, so the table does not hang on every cell being written as built."""
    table = _table(PAITON, "decode-ttft")
    assert "\\" in table.corner
    built, _ = _article(PAITON)
    by_id = built.metrics.by_id()
    label, texts = table.rows[0]
    first = table.metrics[(label, table.columns[0])]
    finer = f"{by_id[first].value:.{len(texts[0].partition('.')[2]) + 1}f}"
    rows = [["context", *table.columns]]
    rows += [
        [r, *(finer if (r, k) == (label, 0) else t for k, t in enumerate(ts))]
        for r, ts in table.rows
    ]
    lines = ["A newsletter", "", table.title, "", *_spaced(rows), ""]
    assert _items(PAITON, "\n".join(lines) + "\n", set(table.metrics.values())) == []


def test_a_title_line_with_no_table_under_it_does_not_take_the_next_tables_rows() -> None:
    """The editor left a table out but kept its title: its numbers are missing, and the next
    table's rows are read as that table's, not judged as the first one's."""
    left_out = _table(PAITON, "decode-aggregate")
    table = _table(PAITON, "decode-per-request")
    rows = [["context", *table.columns], *([r, *ts] for r, ts in table.rows)]
    lines = [left_out.title, "", "(see the full article)", "", table.title, "", *_spaced(rows)]
    shown = set(left_out.metrics.values()) | set(table.metrics.values())
    items = _items(PAITON, "\n".join(lines) + "\n", shown)
    assert {(i.kind, i.metric) for i in items} == {
        ("missing", m) for m in left_out.metrics.values()
    }
