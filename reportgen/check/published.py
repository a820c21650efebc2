"""Read numbers out of an article as text: plain text or Markdown (the seed's form).

Text in, `Reported` numbers out (pure). Tables are recognised by their caption and headers, cells
by row (context) and column (concurrency or header) labels, headline numbers by the words after
them. Each reported number keeps its line, column and the precision it was shown with.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from reportgen.article.tables import TABLES, TableSpec

NUMBER = re.compile(r"^\s*(-?\d{1,3}(?:,\d{3})+|-?\d+)(\.\d+)?\s*(tok/s|ms|s|tokens)?\s*$")
HEADLINE = re.compile(r"^\s*(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*(tok/s|ms|s)\s*(.*)$")


@dataclass(frozen=True)
class Reported:
    """One number as an article shows it, and where."""

    line: int
    col: int
    text: str
    value: float
    decimals: int
    unit: str | None
    metric_id: str | None  # None: the number matches no metric (unverified)
    table: str | None = None
    row: str | None = None
    column: str | None = None


@dataclass(frozen=True)
class ParsedTable:
    """A table found in the text: its caption lines, header and rows with line numbers."""

    spec: TableSpec | None
    caption: str
    line: int
    header: tuple[str, ...]
    rows: tuple[tuple[int, tuple[tuple[int, str], ...]], ...]  # (line, ((col, cell text), ...))


def parse_number(text: str) -> tuple[float, int, str | None] | None:
    """(value, decimals, unit) of a shown number like '1,234', '0.50 s', '25 ms'."""
    found = NUMBER.match(text)
    if not found:
        return None
    whole, frac, unit = found.groups()
    value = float(whole.replace(",", "") + (frac or ""))
    return value, len(frac) - 1 if frac else 0, unit


def _cells(line: str) -> tuple[tuple[int, str], ...]:
    out = []
    pos = line.index("|") + 1
    for part in line.strip().strip("|").split("|"):
        start = line.index(part, pos - 1) if part else pos
        stripped = part.strip()
        out.append((start + len(part) - len(part.lstrip()) + 1, stripped))
        pos = start + len(part) + 1
    return tuple(out)


def _spec_for(caption: str) -> TableSpec | None:
    low = caption.lower()
    for spec in TABLES:
        if all(word in low for word in spec.recognise):
            return spec
    return None


Lines = list[tuple[int, str]]  # (line number in the source, text)


def text_lines(text: str) -> Lines:
    """Number the lines of a plain-text or Markdown article."""
    return list(enumerate(text.splitlines(), start=1))


def _is_row(text: str) -> bool:
    return text.lstrip().startswith("|")


def find_tables(lines: Lines) -> list[ParsedTable]:
    """Every pipe table in `lines` with the non-table lines just above it as caption."""
    tables = []
    i = 0
    while i < len(lines):
        if not _is_row(lines[i][1]):
            i += 1
            continue
        start = i
        block = []
        while i < len(lines) and _is_row(lines[i][1]):
            block.append(lines[i])
            i += 1
        caption_lines: list[str] = []
        j = start - 1
        while (
            j >= 0 and lines[j][1].strip() and not _is_row(lines[j][1]) and len(caption_lines) < 2
        ):
            caption_lines.insert(0, lines[j][1].strip().lstrip("#* ").rstrip("* "))
            j -= 1
        header = tuple(c for _, c in _cells(block[0][1]))
        rows = tuple(
            (n, _cells(raw)) for n, raw in block[1:] if not re.fullmatch(r"[\s|:\-]+", raw)
        )
        caption = " ".join(caption_lines)
        # A table is named by its title line: the line above it, or above its note.
        spec = next(filter(None, map(_spec_for, caption_lines)), None)
        tables.append(ParsedTable(spec, caption, block[0][0], header, rows))
    return tables


_UNIT_IN_PARENS = re.compile(r"\((?:[^()]*\s)?(tok/s|ms|s)\b[^()]*\)")


def _unit_words(text: str) -> str | None:
    """The unit a header or caption names in parentheses: 'TTFT (s)', '(ms, median)'."""
    found = _UNIT_IN_PARENS.search(text)
    return found.group(1) if found else None


def _metric_for(spec: TableSpec, row: str, column: str) -> str | None:
    from reportgen.metrics import DEFINITIONS

    if spec.kind == "matrix":
        if not column.isdigit() or spec.metric_key is None:
            return None
        pattern = DEFINITIONS[spec.metric_key].id_pattern
        return pattern.format(context=row, concurrency=int(column))
    for col in spec.columns:
        if col.header.lower() == column.lower():
            return DEFINITIONS[col.key].id_pattern.format(context=row)
    return None


def _headline_metric(unit: str, words: str) -> str | None:
    low = words.lower()
    together = re.match(r"(\d+) requests together", low)
    if together and unit == "tok/s":
        return f"canonical.c{int(together.group(1))}.output_tok_s"
    if "sustained decode" in low and unit == "s":
        return "matrix.duration_s"
    if "one request" in low and unit == "tok/s":
        return "canonical.c1.output_tok_s"
    if "one request" in low and "time to first token" in low and unit == "ms":
        return "canonical.c1.ttft_ms"
    return None


def reported_numbers(text: str) -> list[Reported]:
    """Every number a plain-text or Markdown article reports (see `reported_in_lines`)."""
    return reported_in_lines(text_lines(text))


def _table_numbers(table: ParsedTable) -> Iterator[Reported]:
    caption_unit = _unit_words(table.caption.split(")")[0] + ")") if table.caption else None
    for line, cells in table.rows:
        if not cells:
            continue
        row_label = cells[0][1]
        for (col, cell), head in zip(cells[1:], table.header[1:], strict=False):
            parsed = parse_number(cell)
            if parsed is None:
                continue
            value, decimals, unit = parsed
            metric = _metric_for(table.spec, row_label, head) if table.spec else None
            yield Reported(
                line,
                col,
                cell,
                value,
                decimals,
                unit or _unit_words(head) or caption_unit,
                metric,
                table.spec.id if table.spec else table.caption,
                row_label,
                head,
            )


def reported_in_lines(lines: Lines) -> list[Reported]:
    """Every number the lines report in tables and headlines, mapped to metric ids if known.

    A headline is a number with its unit at the start of a line and the words that say what it
    is after it, on the same line or (in HTML) the next.
    """
    out: list[Reported] = []
    tables = find_tables(lines)
    in_table = {n for t in tables for n, _ in t.rows} | {t.line for t in tables}
    for table in tables:
        out.extend(_table_numbers(table))
    for i, (n, raw) in enumerate(lines):
        if n in in_table or _is_row(raw):
            continue
        found = HEADLINE.match(raw)
        if not found:
            continue
        whole, frac, unit, words = found.groups()
        if not words.strip() and i + 1 < len(lines):
            words = lines[i + 1][1]
        value = float(whole.replace(",", "") + (frac or ""))
        col = raw.index(whole) + 1
        shown = raw[col - 1 : found.end(3)]
        out.append(
            Reported(
                n,
                col,
                shown,
                value,
                len(frac) - 1 if frac else 0,
                unit,
                _headline_metric(unit, words),
                None,
                None,
                words.strip(),
            )
        )
    return sorted(out, key=lambda r: (r.line, r.col))
