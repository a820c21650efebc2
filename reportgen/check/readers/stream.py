"""Read tables out of text that has lost their grid (pure): PDF text with or without `-layout`,
a copy of the HTML page's text, any text whose cells are only separated by spaces or line breaks.

Such text is a stream of words, so a table is found by what the built article says it is: its
title, then its header (the corner, then the column labels, in any order), then rows, each a row
label followed by one cell per column. A cell that shows a number is one token (a unit and
footnote marks may follow it); a cell that shows words has the built cell's number of tokens.
Rows may come in any order (rows moved with their labels read the same); the table ends at the
first token that starts no row it has not read yet.

Every number keeps the line and column of its token, so findings point at the source text.

Worst case: linear in the tokens, times the article's tables: each occurrence of a table's title
is read for at most 80 tokens after it, header and rows, and a start where no header or row
label can begin (its first word is no label's) is passed over at once (a title repeated 12,500
times, 50,000 words, takes about 1.5 s; it took 9 s before that check).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from reportgen.check.readers.pipetables import is_title_line
from reportgen.check.readers.protocol import Found, Reading
from reportgen.check.readers.published import (
    PM,
    UNITS,
    alternatives,
    header_unit,
    malformed,
    misplaced_verdict,
    not_measurable_cell,
    parse_number,
    sibling_id,
    unit_named,
    verdict_cell,
    word_cell,
)
from reportgen.check.readers.reported import Lines, Reported, Token
from reportgen.check.readers.shape import GATED, Grid, TableShape, normalize
from reportgen.metrics.display import QUANTITIES
from reportgen.metrics.slo import verdict_value

_MARK = re.compile(r"^[*†‡§¶#,]+$")


def _is_mark(text: str, shape: TableShape) -> bool:
    """Whether a token is only footnote marks: a lint's symbols, or a letter the table marks
    its cells with, written apart from its cell ("1.27 d", "unreachable a")."""
    return _MARK.match(text) is not None or (len(text) == 1 and text in shape.marks)


_UNIT = re.compile(rf"^({UNITS})$")
_TOKEN = re.compile(r"\S+")
_PARENS = re.compile(r"\([^()]*\)")
# a unit PDF text runs into the word after it: "ms" or one with a slash ("tok/s", "USD/Mtok")
_GLUED = re.compile(
    rf"^({alternatives(u for u in QUANTITIES if '/' in u or u == 'ms')})(?=[A-Za-z0-9])"
)


def tokens(lines: Lines, skip: set[int]) -> list[Token]:
    """Every whitespace-separated token of the lines not in `skip`, with its place."""
    out: list[Token] = []
    for n, raw in lines:
        if n in skip:
            continue
        # a line's first token may be a unit glued to a number that ended a line of the same
        # number before it (lines read from HTML share a number)
        after_number = bool(out) and out[-1].line == n and bool(parse_number(out[-1].text))
        # a long line is cut afresh (`__wrapped__`: the function under the cache), so that the
        # cache holds at most its lines times `_CACHED_CHARS` of text
        cut = _line_tokens if len(raw) <= _CACHED_CHARS else _line_tokens.__wrapped__
        out += cut(n, raw, after_number)
    return out


# Copies checked one after another (the edits of one post, a copy and its Markdown) share most
# of their lines, each at the same number: each line's tokens are made once. tokens took 5.2 s
# of 62 s of check_published on the check tests' 1,698 edited copies, and 0.33 s of 11 s for
# 700 edits of the bundled posts with the cache (cProfile). Bounded: 2,048 lines (a post has a
# few hundred) of at most `_CACHED_CHARS` characters.
_CACHED_CHARS = 1_000


@lru_cache(maxsize=1 << 11)
def _line_tokens(n: int, raw: str, after_number: bool) -> tuple[Token, ...]:
    """The tokens of line `n` (`after_number`: the token before the line, on line `n` too, is
    a number)."""
    out: list[Token] = []
    for found in _TOKEN.finditer(raw):
        text, col = found.group(0), found.start() + 1
        glued = _GLUED.match(text)
        if glued and (parse_number(out[-1].text) if out else after_number):
            # PDF text runs a headline's unit into its caption: "240 msone request"
            unit = glued.group(1)
            out.append(Token(n, col, unit, (unit,)))
            text, col = text[len(unit) :], col + len(unit)
        out.append(Token(n, col, text, tuple(normalize(text).split())))
    return tuple(out)


def forget_lines() -> None:
    """Drop the lines' tokens kept so far (`pipeline.forget_copies`)."""
    _line_tokens.cache_clear()


def match_template(toks: Sequence[Token], at: int, parts: Sequence[Sequence[str]]) -> int | None:
    """The token after a caption that starts at `at`: its words, `parts`, with one number token
    between each two (a reference); None when it is not there."""
    i = at
    for k, words in enumerate(parts):
        if k:
            while i < len(toks) and not toks[i].words:
                i += 1
            if i >= len(toks) or parse_number(toks[i].text.rstrip(",.;:")) is None:
                return None
            i += 1
        end = match_words(toks, i, words) if words else i
        if end is None:
            return None
        i = end
    return i


def match_words(toks: Sequence[Token], at: int, words: Sequence[str]) -> int | None:
    """The token index just after `words` when they start at token `at` (tokens without words,
    such as footnote marks, are passed over); None when they do not."""
    i, w = at, 0
    while w < len(words):
        while i < len(toks) and not toks[i].words:
            i += 1
        if i >= len(toks):
            return None
        tw = toks[i].words
        if tuple(words[w : w + len(tw)]) != tw:
            return None
        w += len(tw)
        i += 1
    return i


@lru_cache(maxsize=1 << 12)  # a table's labels, asked for at every place a header may start
def _label_words(label: str) -> tuple[str, ...]:
    """A header's words without its parenthesised unit ('TTFT (s)' -> ('ttft',))."""
    return tuple(normalize(_PARENS.sub(" ", label)).split())


def _written_unit(toks: Sequence[Token], at: int) -> tuple[str | None, int]:
    """The unit of a header's '(...)' that starts at token `at`, and the token after it."""
    if at >= len(toks) or not toks[at].text.startswith("("):
        return None, at
    text, i = "", at
    while i < len(toks) and i < at + 4:
        text += " " + toks[i].text
        i += 1
        if ")" in toks[i - 1].text:
            break
    return unit_named(text.replace("(", " ").replace(")", " ")), i


Place = tuple[int, int, str]  # where a unit is written: line, column, the text that writes it


def _place(toks: Sequence[Token], start: int, end: int) -> Place:
    return toks[start].line, toks[start].col, " ".join(t.text for t in toks[start:end])


@dataclass(frozen=True, kw_only=True)
class _Header:
    start: int  # the token the header starts at
    end: int
    columns: tuple[tuple[int, str | None], ...]  # (index into grid.columns, unit written)
    unit: str | None = None  # the unit the caption writes, for columns whose header has none
    places: tuple[Place | None, ...] = ()  # where each column's unit is written
    unit_at: Place | None = None  # where the caption's is


def _in_order(toks: Sequence[Token], at: int, grid: Grid) -> _Header | None:
    """The header at token `at` as one line of labels: the corner, then each column's label
    (in any order), a unit in parentheses after it read as that column's. A header that leaves
    columns out (a copy that dropped them) is one only when it is a line of its own: its
    corner first on its line, its last label last."""
    corners = _corners(grid.corner)
    found = (match_words(toks, at, words) for words in corners)
    i = next((end for end in found if end is not None), None) if corners else at
    if i is None:
        return None
    order: list[tuple[int, str | None]] = []
    places: list[Place | None] = []
    left = dict(enumerate(_label_words(c) for c in grid.columns))
    while left:
        label = i
        best = max(
            ((k, end) for k, words in left.items() if (end := match_words(toks, i, words))),
            key=lambda hit: hit[1],
            default=None,
        )
        if best is None:
            break
        k, i = best
        unit, i = _written_unit(toks, i)
        order.append((k, unit))
        places.append(_place(toks, label, i) if unit else None)
        del left[k]
    if left and not (order and _own_line(toks, at, i)):
        return None
    return _Header(start=at, end=i, columns=tuple(order), places=tuple(places))


@lru_cache(maxsize=256)
def _corners(corner: str) -> tuple[tuple[str, ...], ...]:
    """The words a header's corner may be written as: all of them, or, for a corner that names
    both axes ('context \\ concurrent'), the rows' axis alone ('context')."""
    rows, _, columns = corner.partition("\\")
    words = [_label_words(corner), *([_label_words(rows)] if columns.strip() else [])]
    return tuple(w for w in words if w)


def _own_line(toks: Sequence[Token], start: int, end: int) -> bool:
    """Whether tokens `start` to `end` (exclusive) are a whole line."""
    line = toks[start].line
    return (
        (start == 0 or toks[start - 1].line != line)
        and toks[end - 1].line == line
        and (end == len(toks) or toks[end].line != line)
    )


@lru_cache(maxsize=256)
def _header_words(grid: Grid) -> tuple[str, ...]:
    """The words of a table's corner and column labels, sorted."""
    return tuple(sorted(w for label in (grid.corner, *grid.columns) for w in _label_words(label)))


def _stacked(toks: Sequence[Token], at: int, grid: Grid) -> _Header | None:
    """The header at token `at` when its labels are stacked over several lines (`pdftotext
    -layout` of narrow columns): exactly the labels' words, in some order. The columns are then
    taken to be in the built order, and their units as built: the one each built label names
    ("TTFT p99 (ms)"), placed where the header starts."""
    want = _header_words(grid)
    got: list[str] = []
    i = at
    while i < len(toks) and len(got) < len(want):
        if not toks[i].text.startswith("("):
            got.extend(toks[i].words)
        i += 1
    while i < len(toks) and toks[i].text.startswith("("):
        i += 1
    if tuple(sorted(got)) != want:
        return None
    units = tuple(header_unit(c) for c in grid.columns)
    return _Header(
        start=at,
        end=i,
        columns=tuple(enumerate(units)),
        places=tuple(_place(toks, at, at + 1) if u else None for u in units),
    )


def _cells(
    toks: Sequence[Token],
    at: int,
    shape: TableShape,
    grid: Grid,
    head: _Header,
    row: int,
    limit: int,
) -> Iterator[Reported | int]:
    """The Reported numbers of one row starting at token `at` (none at or after `limit`), then
    the token after the row."""
    label, kinds = grid.rows[row]
    i = at
    for j, (k, unit) in enumerate(head.columns):
        column = grid.columns[k]
        while i < limit and _is_mark(toks[i].text, shape):
            i += 1
        if i >= limit:
            break
        tok = toks[i]
        metric = shape.cell(label, column)
        words = _words(toks, i, limit, shape, kinds[k], metric, (shape.id, label, column))
        if words is not None:
            yield from words[0]
            i = words[1]
            continue
        size = 1 if kinds[k] == GATED else kinds[k][1]  # a gated cell's number stands alone
        text = tok.text if parse_number(tok.text) else shape.unmarked(tok.text)
        parsed = parse_number(text)
        verdict = (
            None
            if parsed
            else verdict_cell(text, (tok.line, tok.col), metric, (shape.id, label, column))
        )
        if verdict is not None:
            yield verdict
            i += 1
            continue
        if parsed is None:
            why = malformed(text) or misplaced_verdict(text, metric)
            if why is None:
                break  # not this table any more
            yield _malformed(tok, metric, (shape.id, label, column), why)
            i += 1
            continue
        value, decimals, written = parsed
        i += 1
        if written is None and i < len(toks) and _UNIT.match(toks[i].text):
            written = toks[i].text
            i += 1
            size -= 1
        more, after = _uncertainty(toks, i, limit)
        if more:  # the number read is the repetitions' mean
            metric = sibling_id(metric, "rep_mean")
        for text_tok, stat, (more_value, more_decimals) in more:
            yield Reported(
                line=text_tok.line,
                col=text_tok.col,
                text=text_tok.text,
                value=more_value,
                decimals=more_decimals,
                unit=written or unit or head.unit,
                metric_id=sibling_id(metric, stat),
                table=shape.id,
                row=label,
                column=column,
                unit_soft=not (written or unit),
                unit_from=None if written else head.places[j] if unit else head.unit_at,
            )
        size -= after - i
        i = after
        for _ in range(size - 1):  # the words after a number in the built cell: "(better)"
            if i < len(toks) and parse_number(toks[i].text) is None and not malformed(toks[i].text):
                i += 1
        # the caption's unit speaks for a column whose built header names none of its own
        caption = None if header_unit(column) else head.unit
        yield Reported(
            line=tok.line,
            col=tok.col,
            text=text,
            value=value,
            decimals=decimals,
            unit=written or unit or caption,
            metric_id=metric,
            table=shape.id,
            row=label,
            column=column,
            unit_soft=not (written or unit),
            unit_from=None
            if written
            else head.places[j]
            if unit
            else head.unit_at
            if caption
            else None,
        )
    yield i


def _words(
    toks: Sequence[Token],
    i: int,
    limit: int,
    shape: TableShape,
    kind: tuple[bool, int, int],
    metric: str | None,
    where: tuple[str, str, str],
) -> tuple[list[Reported], int] | None:
    """A cell of words at token `i`: what it reports and the token after it; None for a cell
    to read as a number. The words "not measurable" are read in any cell (a match where the
    article gates it); a gated cell that shows a number is read as one, a verdict's word or a
    malformed number there is reported; a built cell of words is as many tokens as it has."""
    tok = toks[i]
    if _not_measurable(toks, i, limit, shape):
        text = f"{tok.text} {toks[i + 1].text[: len('measurable')]}"
        found = (
            []
            if metric is None
            else [not_measurable_cell(text, (tok.line, tok.col), metric, where)]
        )
        return found, i + 2
    if kind == GATED:  # the number the gate keeps out, or other words than the build's
        shown = shape.unmarked(tok.text)
        if shown[-1:] in shape.marks and verdict_value(shown[:-1]) is not None:
            shown = shown[:-1]  # "meetsa": a verdict's word, its cell's mark run in
        if parse_number(shown) is not None:
            return None
        why = malformed(shown) or misplaced_verdict(shown, metric)
        if why is not None:
            return [_malformed(tok, metric, where, why)], i + 1
    number, size, _ = kind
    return None if number else ([], i + size)


def _malformed(tok: Token, metric: str | None, where: tuple[str, str, str], why: str) -> Reported:
    """A cell's token that is no well-formed number where the article shows one (`why`)."""
    return word_cell(tok.text, (tok.line, tok.col), metric, where, malformed=why)


def _uncertainty(
    toks: Sequence[Token], i: int, limit: int
) -> tuple[list[tuple[Token, str, tuple[float, int]]], int]:
    """The numbers after a cell's mean that show its uncertainty, "± 2" or "[181, 185]" (as
    tokens "[181," and "185]"): each token, its statistic and (value, decimals); and the token
    after them. None read, and `i` back, when the tokens at `i` are in neither form."""
    if i + 1 < limit and toks[i].text == PM:
        parsed = parse_number(toks[i + 1].text)
        if parsed is not None:
            return [(toks[i + 1], "rep_hw", parsed[:2])], i + 2
    if i + 1 < limit and toks[i].text.startswith("[") and toks[i].text.endswith(","):
        low = parse_number(toks[i].text[1:-1])
        high = parse_number(toks[i + 1].text.rstrip(_MARKS).removesuffix("]"))
        if low is not None and high is not None and toks[i + 1].text.rstrip(_MARKS).endswith("]"):
            return [
                (toks[i], "rep_ci_lo", low[:2]),
                (toks[i + 1], "rep_ci_hi", high[:2]),
            ], i + 2
    return [], i


_MARKS = "*†‡§¶#"


def _not_measurable(toks: Sequence[Token], i: int, limit: int, shape: TableShape) -> bool:
    """Whether the tokens at `i` are the words "not measurable" (a footnote mark after them,
    run in as a copy of `<sup>` gives it: "measurablea")."""
    if i + 1 >= limit or toks[i].text.lower() != "not":
        return False
    word = toks[i + 1].text.rstrip(_MARKS).lower()
    return word == "measurable" or (word[:-1] == "measurable" and word[-1] in shape.marks)


def _read_at(
    toks: Sequence[Token], at: int, shape: TableShape, grid: Grid, limit: int
) -> list[Reported]:
    """The table's numbers when its title ends at token `at`: its header within 80 tokens, it
    and its rows before token `limit` (the next table's title line)."""
    caption_unit, end = _written_unit(toks, at)
    unit_at = _place(toks, at, end) if caption_unit else None
    head = None
    labels = frozenset(_header_words(grid))
    for start in range(at, min(at + 80, limit)):  # the table's note may come first
        if not _may_start(toks, start, labels):
            continue  # most starts end here
        head = _in_order(toks, start, grid) or _stacked(toks, start, grid)
        if head is not None and head.end <= limit:
            break
        head = None
    if head is None:
        return _bare(toks, at, shape, grid, limit)
    return _rows(toks, replace(head, unit=caption_unit, unit_at=unit_at), shape, grid, limit)


def _rows(
    toks: Sequence[Token], head: _Header, shape: TableShape, grid: Grid, limit: int
) -> list[Reported]:
    out: list[Reported] = []
    i, left = head.end, dict(enumerate(_label_words(label) for label, _ in grid.rows))
    while left:
        while i < limit and _is_mark(toks[i].text, shape):
            i += 1
        if i >= limit:
            break
        hit = max(
            ((r, end) for r, words in left.items() if (end := match_words(toks, i, words))),
            key=lambda h: h[1],
            default=None,
        )
        if hit is None:
            break
        row, end = hit
        del left[row]
        for item in _cells(toks, end, shape, grid, head, row, limit):
            if isinstance(item, int):
                i = item
            else:
                out.append(item)
    return out


def _bare(
    toks: Sequence[Token], at: int, shape: TableShape, grid: Grid, limit: int
) -> list[Reported]:
    """The table's rows when its header cannot be read (PDF text that keeps a stacked header's
    words elsewhere): within 80 tokens and before `limit`, the columns in the built order."""
    columns = tuple((k, None) for k in range(len(grid.columns)))
    built = {
        (label, grid.columns[k]): decimals
        for label, kinds in grid.rows
        for k, (number, _, decimals) in enumerate(kinds)
        if number
    }
    firsts = {words[0] if words else "" for words in map(_label_words, (r for r, _ in grid.rows))}
    for start in range(at, min(at + 80, limit)):
        if "" not in firsts and _first_word(toks, start, shape) not in firsts:
            continue  # no row label starts here (most starts end here)
        found = _rows(toks, _Header(start=start, end=start, columns=columns), shape, grid, limit)
        # Without a header to go by, numbers are this table's only when every cell is there,
        # each written as the built table writes it (a chart's axis ticks are not); a gated
        # cell's words, or a number in it, come beside them.
        numbers = [r for r in found if (r.row or "", r.column or "") in built]
        if len(numbers) == len(built) and all(
            built.get((r.row or "", r.column or "")) == r.decimals for r in numbers
        ):
            return found
    return []


def _may_start(toks: Sequence[Token], at: int, labels: frozenset[str]) -> bool:
    """False when no header can start at token `at`: one in order starts with the first token
    that has words, a stacked one with the first such token not in parentheses, and each of those
    holds only words of the labels."""
    i, first = at, True
    while i < len(toks):
        tok = toks[i]
        i += 1
        if not tok.words or (not first and tok.text.startswith("(")):
            continue
        if labels.issuperset(tok.words):
            return True
        if not tok.text.startswith("("):
            return False
        first = False
    return not labels


def _first_word(toks: Sequence[Token], at: int, shape: TableShape) -> str:
    """The first word at or after token `at`, past footnote marks and tokens without words."""
    while at < len(toks) and (_is_mark(toks[at].text, shape) or not toks[at].words):
        at += 1
    return toks[at].words[0] if at < len(toks) else ""


def _title_lines(toks: Sequence[Token], titles: Sequence[str]) -> list[int]:
    """The token indices, in order, where a line that is a table's title line starts: the
    title first on a short line that ends no sentence ("Time to first token (s, median)")."""
    texts: dict[int, list[str]] = {}
    for t in toks:
        texts.setdefault(t.line, []).append(t.text)
    by_first: dict[str, list[tuple[str, ...]]] = {}  # each title's words, by its first word
    for title in titles:
        words = tuple(normalize(title).split())
        if words:
            by_first.setdefault(words[0], []).append(words)
    starts = []
    for i, t in enumerate(toks):
        if i and toks[i - 1].line == t.line:
            continue
        first = next((k for k in range(i, len(toks)) if toks[k].words), None)
        maybe = by_first.get(toks[first].words[0], ()) if first is not None else ()
        named = any(match_words(toks, i, words) is not None for words in maybe)
        if named and is_title_line(" ".join(texts[t.line])):
            starts.append(i)
    return starts


def stream_tables(
    toks: Sequence[Token], shapes: Sequence[TableShape], titles: Sequence[str] = ()
) -> tuple[list[Reported], set[tuple[int, int]]]:
    """The numbers of each table in `shapes` found in the token stream: at the occurrence of its
    title that reads the most cells; and the places of every token from each table's title to
    its last cell (its header's numbers are no prose). A table's header and rows end at the
    next title line of a table in `shapes` or `titles` (the article's other tables)."""
    out: list[Reported] = []
    spans: set[tuple[int, int]] = set()
    where = {(t.line, t.col): i for i, t in enumerate(toks)}
    # the tokens each word starts, in order: each table's title is looked for where its first
    # word is, not at every token (a tenth of stream_tables' time on the bundled posts)
    by_first: dict[str, list[int]] = {}
    for at, tok in enumerate(toks):
        if tok.words:
            by_first.setdefault(tok.words[0], []).append(at)
    stops = _title_lines(toks, [*titles, *(s.title for s in shapes)])
    for shape in shapes:
        if shape.grid is None:
            continue
        title = tuple(normalize(shape.title).split())
        best: tuple[int, int, list[Reported]] = (0, 0, [])
        first = 0
        for at in by_first.get(title[0], ()) if by_first else ():
            end = match_words(toks, at, title)
            if end is not None:
                stop = bisect.bisect_left(stops, end)
                limit = stops[stop] if stop < len(stops) else len(toks)
                found = _read_at(toks, end, shape, shape.grid, limit)
                # the most cells; of those, the title nearest its table
                gap = found[0].line - toks[end - 1].line if found else 0
                if (len(found), -gap) > best[:2]:
                    best = (len(found), -gap, found)
                    first = at
        out.extend(best[2])
        if best[2]:
            last = max(where[(r.line, r.col)] for r in best[2])
            spans.update((t.line, t.col) for t in toks[first : last + 1])
    return out, spans


class StreamTablesReader:
    """The second reader (`pipeline.READERS`): the article's tables no reader before it read,
    from every token of the lines not read whole (`stream_tables`). It reads each table's
    tokens, from its title to its last cell."""

    name = "tables in a word stream"

    def read(self, reading: Reading) -> Found:
        """The cells of the tables left, and the places of their tokens."""
        shape = reading.shape
        rest = [t for t in shape.tables if t.id not in reading.tables_read]
        cells, places = stream_tables(reading.tokens(), rest, [t.title for t in shape.tables])
        return Found(
            numbers=tuple(cells),
            places=frozenset(places),
            tables=frozenset(r.table for r in cells if r.table),
        )


READER = StreamTablesReader()
