"""Read numbers out of an article as text: plain text or Markdown (the seed's form).

Lines and the article's `Shape` in, `Reported` numbers out (pure). Tables are found and named
by their own titles (`pipetables.py`), cells by their row and column labels, each read in the
unit its cell, column header or the table's caption names (an SLO verdict's cell, "meets" or
"misses", as the verdict's 1 or 0, in no unit); headline numbers by their declared
captions, beside them or on the line above or below; sentences with numbers from data by their
declared words. Each reported number keeps its line, column and the precision it was shown with.

Worst case: linear in the text. `NUMBER`, `_NUMBERISH`, `HEADLINE` and `_LONE` are anchored and
their whitespace runs possessive; a header's unit is looked for inside each pair of parentheses
once; inline Markdown is blanked in linear time (`markdown.py`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator

from reportgen.check.readers.markdown import plain_line
from reportgen.check.readers.pipetables import ParsedTable, find_tables, is_row
from reportgen.check.readers.protocol import Found, Reading
from reportgen.check.readers.reported import Lines, Reported
from reportgen.check.readers.shape import Shape, normalize
from reportgen.metrics.display import QUANTITIES
from reportgen.metrics.display import UNITS as SHOWN_UNITS
from reportgen.metrics.registry import key_of
from reportgen.metrics.slo import VERDICT_KEYS, verdict_value


def alternatives(words: Iterable[str]) -> str:
    """A regex alternation of `words`, longest first, so that a unit is read whole: "tok/s/GPU"
    before "tok/s", "ms" before "s"."""
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


# Every unit a number may be written with: each unit the display rules show
# (`reportgen.metrics.display.UNITS`), a ratio's and a change's. A unit ends where no letter,
# digit or slash follows it ("tok/s" is not read out of "tok/s/GPU").
UNITS = alternatives(SHOWN_UNITS | {"x", "\u00d7", "%"})
_ENDS = r"(?![\w/])"
# Runs of whitespace are possessive (`\s*+`): what follows each never starts with a space, so
# no match is lost, and a cell of long space runs is read in linear time, not cubic.
NUMBER = re.compile(
    r"^\s*+([-+\u2212]?\d{1,3}(?:,\d{3})+|[-+\u2212]?\d+)(\.\d+)?([kKM](?![A-Za-z]))?\s*+"
    rf"({UNITS})?(?:\s*+\([A-Za-z ]++\))?\s*+[*†‡§¶#]*+\s*+$"
)
# Text that means to be a number (digits, separators, a sign, a unit) but is not a well-formed
# one: a checker that skipped it would pass a table with a broken cell.
_NUMBERISH = re.compile(
    r"^\s*+[-+\u2212]?\s*+\d[\d,.]*+[kKM]?\s*+"
    rf"({UNITS})?(?:\s*+\([A-Za-z ]++\))?\s*+[*†‡§¶#]*+\s*+$"
)
SUFFIX = {"k": 3, "K": 3, "M": 6}  # 3.4K tok/s: 3,400, known to the nearest hundred


def malformed(text: str) -> str | None:
    """Why `text`, which looks like a number, is not a well-formed one; None when it is one or
    does not look like one."""
    if NUMBER.match(text) or not _NUMBERISH.match(text):
        return None
    bare = text.partition("(")[0].strip().lstrip("-+\u2212").strip()
    end = len(bare)  # up to its last digit or separator
    while end and not (bare[end - 1].isdecimal() or bare[end - 1] in ",."):
        end -= 1
    digits = bare[:end]
    if re.match(r"[-+\u2212]\s", text.strip()):
        return "a sign set apart from its digits"
    if digits.endswith((".", ",")):
        return "a separator with no digit after it"
    if digits.count(".") > 1:
        return "it has more than one decimal point"
    whole = digits.split(".")[0]
    groups = whole.split(",")
    if "," in whole and (len(groups[0]) > 3 or any(len(g) != 3 for g in groups[1:])):
        return "its thousands separators do not group three digits"
    if "," in digits.partition(".")[2]:
        return "a thousands separator after the decimal point"
    return "it is not a number as the article writes numbers"


# a headline states a measure, or a claim of two ("3.4x", "-12%", a takeaway)
# A headline's unit: a quantity's (no count), which PDF text may run into the caption after it
# ("183 tok/sone request"), or a comparison's, which ends there ("3x", not "3 xeons").
_MEASURE = rf"{alternatives(QUANTITIES)}|(?:x|\u00d7|%){_ENDS}"
HEADLINE = re.compile(rf"^\s*+(\d{{1,3}}(?:,\d{{3}})+|\d+)(\.\d+)?\s*+({_MEASURE})\s*+(.*)$")
# a number and its unit alone on a line, well formed or not ("-183 tok/s", "183K tok/s")
_LONE = re.compile(rf"^\s*+[-+\u2212]?\s*+\d[\d,.]*+[kKM]?\s*+(?:{_MEASURE})\s*+$")


# a gated cell's words (a footnote mark may follow)
_NOT_MEASURABLE = re.compile(r"^\s*+not\s++measurable\s*+[a-z]?+\s*+[*†‡§¶#]*+\s*+$", re.IGNORECASE)


def verdict_cell(
    text: str, at: tuple[int, int], metric: str | None, where: tuple[str, str, str]
) -> Reported | None:
    """A verdict cell's word read as its value ("meets" 1, "misses" 0), in no unit (a header's
    "at most 1,000 ms" is the objective's, not the cell's), at `at` (line, col) of the table,
    row and column `where`; only where the article's cell shows an SLO verdict (`metric`)."""
    found = None if metric is None else key_of(metric)
    if found is None or found[0] not in VERDICT_KEYS:
        return None
    value = verdict_value(text.rstrip(_MARKS))
    return None if value is None else word_cell(text, at, metric, where, value=value)


def not_measurable_cell(
    text: str, at: tuple[int, int], metric: str, where: tuple[str, str, str]
) -> Reported:
    """A cell's words "not measurable" (`text`), at `at` (line, col) of the table, row and column
    `where`, as what the copy shows for `metric`: check matches them where the article gates the
    cell, and finds them wrong where it shows a number."""
    # no number: the words are judged by the cell's gate alone
    return word_cell(text, at, metric, where, value=0.0, not_measurable=True)


def word_cell(
    text: str,
    at: tuple[int, int],
    metric: str | None,
    where: tuple[str, str, str],
    *,
    value: float = math.nan,
    not_measurable: bool = False,
    malformed: str | None = None,
) -> Reported:
    """A table cell that shows words, not a number, at `at` (line, col) of the table, row and
    column `where`: a verdict or "not measurable", read as `value` in no unit, or a token that
    is no well-formed number where the article shows one (`malformed`: why)."""
    table, row, column = where
    return Reported(
        line=at[0],
        col=at[1],
        text=text.strip(),
        value=value,
        decimals=0,
        unit=None,
        metric_id=metric,
        table=table,
        row=row,
        column=column,
        not_measurable=not_measurable,
        malformed=malformed,
    )


def misplaced_verdict(text: str, metric: str | None) -> str | None:
    """Why a verdict's word ("meets") stands where the article's cell shows a number of
    `metric`; None when it does not (another word, or a verdict's own cell)."""
    if metric is None or verdict_value(text.rstrip(_MARKS)) is None:
        return None
    found = key_of(metric)
    if found is not None and found[0] in VERDICT_KEYS:
        return None
    return "a verdict's word where the article shows a number"


def parse_number(text: str) -> tuple[float, int, str | None] | None:
    """(value, decimals, unit) of a shown number like '1,234', '0.50 s', '25 ms' (a footnote
    mark after it allowed)."""
    found = NUMBER.match(text)
    if not found:
        return None
    whole, frac, suffix, unit = found.groups()
    value = float(whole.replace(",", "").replace("\u2212", "-") + (frac or ""))
    decimals = len(frac) - 1 if frac else 0
    if suffix:
        value, decimals = value * 10.0 ** SUFFIX[suffix], decimals - SUFFIX[suffix]
    return value, decimals, "x" if unit == "\u00d7" else unit


_MARKS = " *†‡§¶#"
PM = "\u00b1"
# The statistics a repeated cell's uncertainty shows after its mean (`article/tables/cells.py`):
# "183 ± 2" (the half-width of its 95% interval) or "183 [181, 185]" (the interval).
_PM_STATS = ("rep_mean", "rep_hw")
_INTERVAL_STATS = ("rep_mean", "rep_ci_lo", "rep_ci_hi")


def uncertain_parts(text: str) -> tuple[tuple[str, int, str], ...] | None:
    """The numbers of a cell shown with its uncertainty, "183 ± 2" or "183 [181, 185]" (a
    footnote mark after it allowed): (text, offset in `text`, statistic) of each, the mean
    first; None when the cell is not in either form."""
    if text.count(PM) == 1:
        head, _, tail = text.partition(PM)
        return (head, 0, _PM_STATS[0]), (tail, len(head) + 1, _PM_STATS[1])
    bare = text.rstrip(_MARKS)
    if text.count("[") != 1 or not bare.endswith("]"):
        return None
    head, _, rest = bare.partition("[")
    inner = rest[:-1]  # thousands separators have no space after them: ", " parts the ends
    if inner.count(", ") != 1:
        return None
    low, _, high = inner.partition(", ")
    at = len(head) + 1
    return tuple(zip((head, low, high), (0, at, at + len(low) + 2), _INTERVAL_STATS, strict=True))


def sibling_id(metric: str | None, stat: str) -> str | None:
    """The id of the repetitions' statistic `stat` of the cell whose mean (or median) is
    `metric`: "X.rep_mean" -> "X.rep_hw". The number before the interval is the one the built
    cell shows there, `metric` itself: a repeated cell's mean ("X.rep_mean"), or a value with a
    bootstrap interval (a frontier's, "X" -> "X.rep_ci_lo")."""
    if metric is None:
        return None
    if stat == "rep_mean" and metric.startswith("frontier."):
        return metric
    return f"{metric.removesuffix('.rep_mean')}.{stat}"


def text_lines(text: str) -> Lines:
    """Number the lines of a plain-text or Markdown article, inline markup blanked."""
    # Lines as editors number them: a form feed (pdftotext's page break) ends no line.
    split = re.split(r"\r\n|\r|\n", text.removesuffix("\n"))
    return [(n, plain_line(line.replace("\f", " "))) for n, line in enumerate(split, start=1)]


_IN_PARENS = re.compile(r"\(([^()]*+)\)")  # each start reads on to the next parenthesis only
_SPELLED = {"milliseconds": "ms", "seconds": "s"}
# a quantity's unit as a word of a header or caption: "(s)", "(ms, median)", "(USD/Mtok)"
_UNIT_WORD = re.compile(rf"(?:^|(?<=\s))({alternatives(QUANTITIES | set(_SPELLED))}){_ENDS}")


def unit_named(text: str) -> str | None:
    """The last quantity's unit the words of `text` name ("tok/s/GPU, median" -> "tok/s/GPU",
    "milliseconds" -> "ms"); None when they name none."""
    units = [found.group(1) for found in _UNIT_WORD.finditer(text)]
    return _SPELLED.get(units[-1], units[-1]) if units else None


def _unit_words(text: str) -> str | None:
    """The unit a header or caption names in parentheses: 'TTFT (s)', '(ms, median)'. In the
    first parentheses that name one, the last unit word, else one right after the '('."""
    for group in _IN_PARENS.finditer(text):
        unit = unit_named(group.group(1))
        if unit is not None:
            return unit
    return None


def header_unit(text: str) -> str | None:
    """The unit a column header names: in parentheses ('TTFT p50 (s)'), else as its last word
    ('output tok/s'; a bare 's' is no unit there)."""
    words = text.split()
    last = words[-1] if words else ""
    return _unit_words(text) or _SPELLED.get(
        last, last if last in QUANTITIES and last != "s" else None
    )


def _table_numbers(table: ParsedTable) -> Iterator[Reported]:
    caption_unit = _unit_words(table.caption)
    by_caption = (table.caption_line, 1, table.caption) if caption_unit else None
    columns = [
        (head, header_unit(head), (table.line, col, head))
        for head, col in zip(table.header, table.header_cols, strict=False)
    ]
    name = table.shape.id if table.shape else table.caption
    for line, cells in table.rows:
        if not cells:
            continue
        row_label = cells[0][1]
        for (col, shown), (head, unit, at) in zip(cells[1:], columns[1:], strict=False):
            marks = table.shape is not None and parse_number(shown) is None
            cell = table.shape.unmarked(shown) if marks and table.shape else shown
            parsed = parse_number(cell)
            metric = table.shape.cell(row_label, head) if table.shape else None
            parts = uncertain_parts(cell)
            if parts is not None:
                for text, offset, stat in parts:
                    parsed = parse_number(text.strip())
                    if parsed is None:
                        continue
                    value, decimals, written = parsed
                    yield Reported(
                        line=line,
                        col=col + offset + len(text) - len(text.lstrip()),
                        text=text.strip(),
                        value=value,
                        decimals=decimals,
                        unit=written or unit or caption_unit,
                        metric_id=sibling_id(metric, stat),
                        table=name,
                        row=row_label,
                        column=head,
                        unit_soft=not (written or unit),
                        unit_from=None if written else at if unit else by_caption,
                    )
                continue
            parsed = parse_number(cell)
            verdict = (
                None if parsed else verdict_cell(cell, (line, col), metric, (name, row_label, head))
            )
            if verdict is not None:
                yield verdict
                continue
            if parsed is None and metric is not None and _NOT_MEASURABLE.match(cell):
                yield not_measurable_cell(cell, (line, col), metric, (name, row_label, head))
                continue
            if parsed is None:
                why = malformed(cell) or misplaced_verdict(cell, metric)
                if why is not None:
                    yield word_cell(
                        cell, (line, col), metric, (name, row_label, head), malformed=why
                    )
                continue
            value, decimals, written = parsed
            yield Reported(
                line=line,
                col=col,
                text=cell,
                value=value,
                decimals=decimals,
                unit=written or unit or caption_unit,
                metric_id=metric,
                table=name,
                row=row_label,
                column=head,
                unit_soft=not (written or unit),
                unit_from=None if written else at if unit else by_caption,
            )


# a unit after a number (a search does not restart inside the whitespace before it)
_AFTER = re.compile(rf"(?<!\s)\s*+({alternatives(QUANTITIES)}){_ENDS}")


def _headline_metric(shape: Shape, words: str) -> str | None:
    """The declared headline whose caption the words after a number read as."""
    for h in shape.headlines:
        if h.pattern.fullmatch(" ".join(words.split())):
            return h.metric
    return None


def _phrase_numbers(lines: Lines, shape: Shape, taken: set[int]) -> Iterator[Reported]:
    """Numbers in sentences the article declares with references (table notes, ...)."""
    for n, raw in lines:
        if n in taken:
            continue
        for phrase in shape.phrases:
            found = phrase.pattern.search(raw)
            if not found:
                continue
            for group, metric in enumerate(phrase.metrics, start=1):
                text = found.group(group)
                parsed = parse_number(text)
                if parsed is None or metric is None:
                    continue
                value, decimals, _ = parsed
                end = found.end(group)
                unit = _AFTER.match(raw, end)
                yield Reported(
                    line=n,
                    col=found.start(group) + 1,
                    text=text,
                    value=value,
                    decimals=decimals,
                    unit=unit.group(1) if unit else None,
                    metric_id=metric,
                    table=None,
                    row=None,
                    column=normalize(phrase.text.text)[:60],
                    in_prose=True,
                )
            taken.add(n)
            break


def _caption_beside(lines: Lines, i: int, shape: Shape, used: set[int]) -> str:
    """The caption of the number alone on line `i`: the line just above it when that is a
    headline's caption no number above it took (the caption set above its number), else the
    line just below it. In text order, each number thus goes with its own caption in either
    layout. (Captions a blank line away are paired in the word stream, `headlines.py`.)"""
    if i > 0 and i - 1 not in used and _headline_metric(shape, lines[i - 1][1]):
        return lines[i - 1][1]
    if i + 1 >= len(lines):
        return ""
    used.add(i + 1)
    return lines[i + 1][1]


def reported_in_lines(
    lines: Lines, shape: Shape, tables: list[ParsedTable] | None = None
) -> list[Reported]:
    """Every number the lines report in tables, headlines and declared sentences, mapped to
    metric ids where the article's shape says which.

    A headline is a number with its unit at the start of a line and, after it on the same line,
    the words of a declared headline caption; or a number and unit alone on a line, with the
    caption on the line above or below it (`_caption_beside`).
    """
    out: list[Reported] = []
    tables = find_tables(lines, shape) if tables is None else tables  # found by the caller
    in_table = {n for t in tables for n, _ in t.rows} | {t.line for t in tables}
    for table in tables:
        out.extend(_table_numbers(table))
    taken = set(in_table)
    used: set[int] = set()  # caption lines paired with the number above them
    for i, (n, raw) in enumerate(lines):
        if n in in_table or is_row(raw):
            continue
        found = HEADLINE.match(raw)
        if not found:
            if _LONE.match(raw):  # a headline number read later: its caption is still its own
                _caption_beside(lines, i, shape, used)
            continue
        whole, frac, unit, words = found.groups()
        if not words.strip():
            words = _caption_beside(lines, i, shape, used)
        metric = _headline_metric(shape, words)
        if metric is None and unit in ("x", "\u00d7", "%"):
            continue  # a ratio or change that is no takeaway: a sentence's, the prose reader's
        if metric is None and any(p.pattern.search(raw) for p in shape.phrases):
            continue  # a declared sentence that starts with its number: read below
        value = float(whole.replace(",", "") + (frac or ""))
        col = raw.index(whole) + 1
        shown = raw[col - 1 : found.end(3)]
        taken.add(n)
        out.append(
            Reported(
                line=n,
                col=col,
                text=shown,
                value=value,
                decimals=len(frac) - 1 if frac else 0,
                unit=unit,
                metric_id=metric,
                table=None,
                row=None,
                column=words.strip(),
            )
        )
    out.extend(_phrase_numbers(lines, shape, taken))
    return sorted(out, key=lambda r: (r.line, r.col))


def reported_numbers(text: str, shape: Shape) -> list[Reported]:
    """Every number a plain-text or Markdown article reports (see `reported_in_lines`)."""
    return reported_in_lines(text_lines(text), shape)


def _untied(r: Reported) -> bool:
    return r.metric_id is None and r.table is None and r.malformed is None


class LinesReader:
    """The first reader (`pipeline.READERS`): pipe and grid tables, which it reads whole, and
    number-first headlines and declared sentences. A number first on a line with a unit but no
    declared caption beside it is offered to the later readers."""

    name = "tables, headlines and sentences in lines"

    def read(self, reading: Reading) -> Found:
        """The numbers of the lines no reader read whole (see `reported_in_lines`)."""
        lines = reading.unread_lines()
        tables = find_tables(lines, reading.shape)
        numbers = reported_in_lines(lines, reading.shape, tables)
        return Found(
            numbers=tuple(r for r in numbers if not _untied(r)),
            offered=tuple(r for r in numbers if _untied(r)),
            lines=frozenset({n for t in tables for n, _ in t.rows} | {t.line for t in tables}),
            tables=frozenset(t.shape.id for t in tables if t.shape),
        )


READER = LinesReader()
