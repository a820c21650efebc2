"""Pipe and grid tables in an article's text lines, each with the title it is named by (pure).

Lines in, `ParsedTable`s out. A table is found in the layouts Markdown authors and site
generators write:

- pipe rows with a leading `|`, or GFM rows without one (`a | b`) under a `---|---` delimiter
  row, alignment colons and `\\|` (a pipe inside a cell) allowed; grid tables' `+---+` borders;
- psql's rows without pipes at their ends under a `----+----` delimiter, MySQL's between
  `+----+----+` borders;
- blank lines, a note or a whole paragraph between its title and its rows.

A table is named by its own title, never by a sentence that mentions another table's. Looking
up from its header (no further than the table before it), the first line that names one of the
article's tables is its title, among, in this order:

1. its caption: `Table: Title` or Pandoc's `: Title`, the line just above the table, else the
   line just below it (HTML's `<caption>` is read as such a line). A caption in the editor's
   own words that names no table leaves the naming to the lines below, and stays the
   table's caption (its unit is the table's);
2. the nearest heading (`#` lines, setext underlines; the scan stops there), or a title line: a
   short line with no sentence's end (a bold-only line, a plain text's title), which names a
   table when it is the title with a few words before it ("Table 2:") and, after it, words
   that qualify it ("by tool", "at each context, in seconds"), parentheses aside. A sentence
   that mentions a title goes on to say something of it ("... is where the tools disagree").

Only when none of these is there at all are the lines just above the table read as its title,
as a plain copy writes them.

Worst case: linear in the lines, times the article's tables (each line is looked at by the one
table below it, within 40 lines of text; cells are split in one pass over each row).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from reportgen.check.readers.markdown import GRID_BORDER
from reportgen.check.readers.shape import Shape, TableShape, normalize

Lines = list[tuple[int, str]]  # (line number in the source, text), as `published.Lines`

_CAPTION = re.compile(r"^\s*+(?:table\s*+:|:(?=\s))\s*+(.*)$", re.IGNORECASE)
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]++(.*+))?$")
_SETEXT = re.compile(r"^\s{0,3}(?:=++|-++)\s*+$")
_HEADLINE = re.compile(r"^\s*+[\d,.]++\s*+(?:tok/s|ms|s)")  # "183 tok/sone request, output"
_PARENS = re.compile(r"\([^()]*+\)|\[[^\[\]]*+\]")  # each start reads to its next bracket only
_ENDS_SENTENCE = (".", "!", "?", ";", ",")
_LOOK_UP = 40  # lines of text above a table that may hold its title
_TITLE_WORDS = 12  # a title line is at most this many words outside parentheses
_BEFORE = 3  # words a title line may have before the table's title ("Table 2:")
_AFTER = 2  # words it may have after it, unless they start with a word that qualifies it
_QUALIFIERS = frozenset(
    ("at", "by", "per", "for", "in", "across", "vs", "versus", "over", "with", "of", "on")  # noqa: RUF005 -- a list wrapped by hand; one literal would take a line an item
    + ("under", "from", "to", "and", "or", "as", "when")
)


@dataclass(frozen=True, kw_only=True)
class ParsedTable:
    """A table found in the text: what names it, its header and rows with line numbers."""

    shape: TableShape | None
    caption: str  # the line that names it (or the lines just above it)
    line: int  # its header's line
    header: tuple[str, ...]
    rows: tuple[tuple[int, tuple[tuple[int, str], ...]], ...]  # (line, ((col, cell text), ...))
    caption_line: int = 0  # the line of `caption` (0: none)
    header_cols: tuple[int, ...] = ()  # where each header cell starts


def _pipes(line: str) -> list[int]:
    """Where the line's cell separators stand: each `|` not escaped by a backslash."""
    return [k for k, c in enumerate(line) if c == "|" and (k == 0 or line[k - 1] != "\\")]


def cells(line: str) -> tuple[tuple[int, str], ...]:
    """The cells of a pipe row, each with the column (from 1) where its text starts: the leading
    and trailing pipes optional, `\\|` a pipe inside a cell."""
    seps = _pipes(line)
    if not seps:
        return ()
    bounds = [-1, *seps, len(line)]
    pieces = [(bounds[k] + 1, bounds[k + 1]) for k in range(len(bounds) - 1)]
    if not line[: seps[0]].strip():
        pieces = pieces[1:]
    if pieces and not line[seps[-1] + 1 :].strip():
        pieces = pieces[:-1]
    out = []
    for start, end in pieces:
        part = line[start:end]
        lead = len(part) - len(part.lstrip())
        out.append((start + lead + 1, part.strip().replace("\\|", "|")))
    return tuple(out)


def is_row(text: str) -> bool:
    """Whether a line is a row of a table that starts each row with a pipe, or a grid border."""
    return text.lstrip().startswith("|") or GRID_BORDER.match(text) is not None


def _is_delimiter(text: str) -> bool:
    """A delimiter row: dashes, alignment colons, spaces and at least one pipe (GFM), or dashes
    joined by `+` (psql's `----+----`, MySQL's `+----+----+` borders)."""
    return ("|" in text or "+" in text) and "-" in text and not text.strip(" \t|:+-")


def _blocks(lines: Lines) -> Iterator[tuple[int, int]]:
    """(first, end) indices of each table's lines: rows with a leading pipe (or grid borders),
    or a row with a pipe over a delimiter row and the rows with a pipe after them."""
    i = 0
    while i < len(lines):
        text = lines[i][1]
        piped = is_row(text)
        if not piped and not (
            i + 1 < len(lines) and _is_delimiter(lines[i + 1][1]) and _pipes(text)
        ):
            i += 1
            continue
        end = i + 1
        while end < len(lines) and lines[end][1].strip():
            row = lines[end][1]
            if not (is_row(row) or (not piped and _pipes(row)) or _is_delimiter(row)):
                break
            end += 1
        yield i, end
        i = end


def _caption(text: str) -> str | None:
    found = _CAPTION.match(text)
    return found.group(1).strip() if found else None


def _heading(lines: Lines, k: int) -> str | None:
    """The heading at index `k`: a `#` line, or the text over a setext underline at `k + 1`."""
    found = _HEADING.match(lines[k][1])
    if found:
        text = (found.group(1) or "").strip()
        closing = text.rstrip("#")  # an optional closing run of #s, after a space
        return closing.strip() if closing.endswith((" ", "\t")) or not closing else text
    below = lines[k + 1][1] if k + 1 < len(lines) else ""
    if lines[k][1].strip() and _SETEXT.match(below) and not is_row(lines[k][1]):
        return lines[k][1].strip()
    return None


def is_title_line(text: str) -> bool:
    """A short line that ends no sentence and states no headline number."""
    bare = text.strip().rstrip(":").strip()
    words = _PARENS.sub(" ", bare).split()
    return (
        0 < len(words) <= _TITLE_WORDS
        and not bare.endswith(_ENDS_SENTENCE)
        and not _HEADLINE.match(bare)
    )


def _at(words: list[str], part: list[str]) -> int | None:
    """Where the words `part` start in `words`, if they do."""
    for k in range(len(words) - len(part) + 1):
        if words[k : k + len(part)] == part:
            return k
    return None


def _titled(shape: Shape, text: str) -> TableShape | None:
    """The table a title line names: its title, a few words before it ("Table 2:") and after it
    words that qualify it ("by tool", "at each context, in seconds"), not a sentence's verb
    ("is where the tools disagree most"); parentheses aside."""
    found = shape.table_for(text)
    if found is None:
        return None
    words = normalize(_PARENS.sub(" ", text)).split()
    title = normalize(_PARENS.sub(" ", found.title)).split()
    at = _at(words, title)
    if at is None or at > _BEFORE:
        return None
    after = words[at + len(title) :]
    return found if len(after) <= _AFTER or after[0] in _QUALIFIERS else None


@dataclass(frozen=True)
class _Title:
    shape: TableShape | None
    text: str
    index: int | None  # the index of its line in the lines (None: no title)


def _nearest(lines: Lines, ks: range) -> int | None:
    return next((k for k in ks if lines[k][1].strip()), None)


def _caption_of(lines: Lines, first: int, end: int, floor: int, taken: int | None) -> int | None:
    """The index of the table's caption line: the line just above it, else just below it."""
    for k in (
        _nearest(lines, range(first - 1, floor - 1, -1)),
        _nearest(lines, range(end, len(lines))),
    ):
        if k is not None and k != taken and _caption(lines[k][1]) is not None:
            return k
    return None


def _named(
    lines: Lines, first: int, end: int, floor: int, shape: Shape, taken: int | None
) -> _Title:
    """The title of the table whose lines are `first` to `end`: see the module's docstring.
    `floor`: the index after the table above; `taken`: the caption line that one took."""
    k = _caption_of(lines, first, end, floor, taken)
    caption = None
    if k is not None:
        text = _caption(lines[k][1]) or ""
        caption = _Title(shape.table_for(text), text, k)
        if caption.shape is not None:
            return caption
    candidates: list[_Title] = [] if caption is None else [caption]
    seen = 0
    for k in range(first - 1, floor - 1, -1):
        text = lines[k][1]
        if not text.strip() or _SETEXT.match(text) or _caption(text) is not None:
            continue
        seen += 1
        heading = _heading(lines, k)
        if heading is not None:
            candidates.append(_Title(shape.table_for(heading), heading, k))
            break
        if is_title_line(text):
            candidates.append(_Title(_titled(shape, text), text.strip(), k))
        if seen >= _LOOK_UP:
            break
    named = next((c for c in candidates if c.shape is not None), None)
    if named is not None and caption is not None:
        # a caption in the editor's own words under the article's title: the title names the
        # table, the caption's words (and the unit they state) are still its caption
        return _Title(named.shape, f"{caption.text} {named.text}", caption.index)
    if named is not None:
        return named
    if candidates:  # a title the article does not have: an unknown table, not one a sentence names
        return candidates[0]
    adjacent: list[int] = []  # no title at all: the lines just above, as a plain copy writes them
    for k in range(first - 1, max(floor, first - 2) - 1, -1):
        if not lines[k][1].strip():
            break
        adjacent.insert(0, k)
    texts = [lines[k][1].strip().lstrip("#* ").rstrip("* ") for k in adjacent]
    found = next(filter(None, map(shape.table_for, texts)), None)
    return _Title(found, " ".join(texts), adjacent[0] if adjacent else None)


def find_tables(lines: Lines, shape: Shape) -> list[ParsedTable]:
    """Every pipe or grid table in `lines`, each with the article's table its title names."""
    tables = []
    floor, taken = 0, None
    for first, end in _blocks(lines):
        title = _named(lines, first, end, floor, shape, taken)
        if title.index is not None and title.index >= end:
            taken = title.index  # a caption under this table is not the next one's
        floor = end
        block = [(n, raw) for n, raw in lines[first:end] if not GRID_BORDER.match(raw)]
        if not block:
            continue
        head = cells(block[0][1])
        rows = tuple((n, cells(raw)) for n, raw in block[1:] if not _is_delimiter(raw))
        tables.append(
            ParsedTable(
                shape=title.shape,
                caption=title.text,
                line=block[0][0],
                header=tuple(c for _, c in head),
                rows=rows,
                caption_line=0 if title.index is None else lines[title.index][0],
                header_cols=tuple(col for col, _ in head),
            )
        )
    return tables
