"""A styled page's text as the lines the published-text readers read (pure): the tree with its
`Seen` on every element in, numbered lines and where each of their words is in the page out.

The lines are the page as Markdown would write it: a line per block, `## Title` for a heading
(hashes by level), and a table as pipe rows under a `Table: Title` line holding its own caption
(`<caption>`, or the `<figcaption>` of the figure that holds it, before or after it), with a
blank line around it. What readers do not see (hidden by CSS, or by HTML: `<template>`, `<head>`)
is left out; what CSS writes (`::before`, `::after`, a list marker) is read where it shows.

Lines are numbered 1, 2, ... here; `Words` says, for each word of a line, where it starts in the
page, so a finding at a number's line and column can be put at the number's own place in the
HTML: the line its digits are on, whichever block, row or cell it is in.

Worst case: linear in the page: one iterative walk over the tree, each text run read once.
"""

from __future__ import annotations

import bisect
import html
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from reportgen.check.html.css.cascade import Seen
from reportgen.check.html.css.look import Doubt
from reportgen.check.html.tree import HEADINGS, Node, Text, Tree


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


BLOCKS = _names(
    "p div h1 h2 h3 h4 h5 h6 li dt dd figcaption caption section article header footer aside "
    "blockquote pre ul ol dl figure br hr tr table thead tbody title main nav address details "
    "summary dialog fieldset legend form hgroup menu search center option optgroup body html "
    "noscript xmp plaintext listing"
)
_CHARREF = re.compile(r"&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)")
_PIECE = re.compile(r"\s+|\S+")
_WORD = re.compile(r"\S+")
_DIGIT = re.compile(r"\d")
_OVERRIDES = {"\u202d": "U+202D LEFT-TO-RIGHT OVERRIDE", "\u202e": "U+202E RIGHT-TO-LEFT OVERRIDE"}
UNIT_WORDS = frozenset({"tok/s", "req/s", "ms", "s", "tokens", "requests", "x", "\u00d7", "%"})


@dataclass
class Word:
    """A word being read: its characters (in pieces until it is cut), where its first one is in
    the page, and the elements whose text or generated text it holds."""

    parts: list[str]
    offset: int
    owners: list[Node] = field(default_factory=list)
    text: str = ""


@dataclass
class Lines:
    """The lines read so far: (text, [(column of a word, its offset in the page)])."""

    out: list[tuple[str, list[tuple[int, int]]]] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)  # "text", "heading", "blank", "row", ...

    def add(self, words: list[Word], prefix: str = "", kind: str = "text") -> None:
        if not words and kind != "blank":
            return
        text = prefix
        places = []
        for w in words:
            if text and not text.endswith(" "):
                text += " "
            places.append((len(text), w.offset))
            text += w.text
        self.out.append((text, places))
        self.kinds.append(kind)

    def blank(self) -> None:
        if self.kinds and self.kinds[-1] != "blank":
            self.add([], kind="blank")

    def row(self, cells: list[list[Word]]) -> None:
        text = "|"
        places = []
        for cell in cells:
            text += " "
            for k, w in enumerate(cell):
                if k:
                    text += " "
                places.append((len(text), w.offset))
                text += w.text.replace("|", "\u00a6")
            text += " |"
        self.out.append((text, places))
        self.kinds.append("row")


def decoded(text: Text) -> Iterator[tuple[str, int]]:
    """A text run as (piece, offset in the page): its character references decoded."""
    raw, start = text.raw, text.start
    if not text.decode or "&" not in raw:
        yield raw, start
        return
    at = 0
    for found in _CHARREF.finditer(raw):
        if found.start() > at:
            yield raw[at : found.start()], start + at
        yield html.unescape(found.group(0)), start + found.start()
        at = found.end()
    if at < len(raw):
        yield raw[at:], start + at


class Reader:
    """Reads a page's visible text into `Lines`, word by word."""

    def __init__(self, tree: Tree, flag: Callable[[int, str], None]) -> None:
        self.tree, self.flag = tree, flag
        self.lines = Lines()
        self.words: list[Word] = []
        self.space = True  # the next characters start a new word
        self.number_words: list[Word] = []

    # --- words -----------------------------------------------------------------------------

    def text(self, run: Text, owner: Node) -> None:
        for piece, offset in decoded(run):
            end = 0
            for found in _WORD.finditer(piece):
                if found.start() > end:
                    self.space = True
                self.chars(found.group(0), offset + found.start(), owner)
                end = found.end()
            if end < len(piece):
                self.space = True

    def chars(self, chunk: str, at: int, owner: Node) -> None:
        """Visible characters at page offset `at` (format characters dropped: readers do not
        see them; an override of the text's direction flagged: they see it reordered)."""
        if not chunk.isascii():
            for c, name in _OVERRIDES.items():
                if c in chunk:
                    self.flag(
                        at + chunk.index(c),
                        f"holds {name}, which shows the text after it in "
                        "another order than check reads it; remove it",
                    )
            chunk = "".join(c for c in chunk if unicodedata.category(c) != "Cf")
            if not chunk:
                return
        if self.space or not self.words:
            self.words.append(Word([chunk], at, [owner]))
            self.space = False
            return
        word = self.words[-1]
        word.parts.append(chunk)
        if word.owners[-1] is not owner:
            word.owners.append(owner)

    def generated(self, text: str, owner: Node) -> None:
        """Text a pseudo-element shows, read where it shows (at its element's start tag)."""
        for found in _PIECE.finditer(text):
            if found.group(0)[0].isspace():
                self.space = True
            else:
                self.chars(found.group(0), owner.offset, owner)

    def cut(self) -> list[Word]:
        words, self.words, self.space = self.words, [], True
        for w in words:
            w.text = "".join(w.parts)
        self.number_words.extend(w for w in words if _numberish(w.text))
        return words

    def flush(self, prefix: str = "", kind: str = "text") -> None:
        self.lines.add(self.cut(), prefix, kind)


def _numberish(text: str) -> bool:
    return _DIGIT.search(text) is not None or text.strip(".,;:()") in UNIT_WORDS


@dataclass(frozen=True)
class Placed:
    """The lines a page reads as, and where the words of each line are in the page: for each
    line, the columns its words start at and their offsets in the page."""

    lines: list[tuple[int, str]]
    columns: list[list[int]]
    offsets: list[list[int]]

    def offset(self, line: int, col: int) -> int | None:
        """The page offset of column `col` of line `line` (both from 1)."""
        if not 1 <= line <= len(self.columns) or not self.columns[line - 1]:
            return None
        columns = self.columns[line - 1]
        k = max(0, bisect.bisect_right(columns, col - 1) - 1)
        return self.offsets[line - 1][k] + max(0, col - 1 - columns[k])


def placed(lines: Lines) -> Placed:
    return Placed(
        [(n, text) for n, (text, _) in enumerate(lines.out, start=1)],
        [[c for c, _ in places] for _, places in lines.out],
        [[o for _, o in places] for _, places in lines.out],
    )


def doubts_of(word: Word) -> list[Doubt]:
    """The styles that may keep readers from seeing a word, from every element it is from."""
    out: dict[tuple[str, int, int], Doubt] = {}
    for owner in word.owners:
        seen = owner.look
        if isinstance(seen, Seen):
            for d in seen.doubts():
                out.setdefault((d.what, d.line, d.col), d)
    return list(out.values())


def heading_prefix(el: Node) -> str:
    return "#" * int(el.tag[1]) + " " if el.tag in HEADINGS else ""
