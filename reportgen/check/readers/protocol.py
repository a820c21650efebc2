"""What a reader of published text is, and what it hands back (pure).

A reader reads what the readers before it left of one published text (`Reading`: its
lines and word tokens, and what is taken) and returns a `Found`: the numbers it reports, which
claim their places, and what else it read, which the readers after it do not see. The readers,
in their order, are `pipeline.READERS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from reportgen.check.readers.reported import Lines, Reported, Token
from reportgen.check.readers.shape import Shape

Place = tuple[int, int]  # (line, column) of a number or a token in the text read


@dataclass(frozen=True, kw_only=True)
class Found:
    """What one reader found in a published text."""

    # numbers reported, each claiming its place: no reader after it reports one there
    numbers: tuple[Reported, ...] = ()
    # numbers the reader could tie to nothing: reported at the end, unless a later reader
    # claims their place or reads every number left (`reads_rest`)
    offered: tuple[Reported, ...] = ()
    lines: frozenset[int] = frozenset()  # lines read whole: no later reader sees their tokens
    places: frozenset[Place] = frozenset()  # tokens read (words too): no later reader sees them
    tables: frozenset[str] = frozenset()  # the ids of the article's tables read
    # the reader read every number no reader claimed before it, the ones offered included:
    # what was offered is its to report or leave out
    reads_rest: bool = False
    # the running text the reader read, its tokens in order: where a later reader reads the
    # numbers it offered (the claims reader, a claim in its sentence)
    context: tuple[Token, ...] = ()


@dataclass(kw_only=True)
class Reading:
    """What the readers have read of one published text so far: the state they share, which
    only `take` changes (after each reader, with what it found)."""

    lines: Lines
    shape: Shape
    tokenize: Callable[[Lines, set[int]], list[Token]]  # `stream.tokens`, given by the pipeline
    found: list[Reported] = field(default_factory=list)  # in the order the readers found them
    offered: list[Reported] = field(default_factory=list)
    claimed: set[Place] = field(default_factory=set)  # the places of the numbers found
    lines_read: set[int] = field(default_factory=set)
    places_read: set[Place] = field(default_factory=set)
    tables_read: set[str] = field(default_factory=set)
    context: tuple[Token, ...] = ()  # the running text the last reader to give one read
    _tokens: list[Token] | None = None

    def unread_lines(self) -> Lines:
        """The lines no reader read whole."""
        return [(n, raw) for n, raw in self.lines if n not in self.lines_read]

    def tokens(self) -> list[Token]:
        """Every word token of the lines no reader read whole."""
        if self._tokens is None:
            self._tokens = self.tokenize(self.lines, self.lines_read)
        return self._tokens

    def unread(self) -> list[Token]:
        """The tokens no reader read (numbers found outside what a reader read included)."""
        return [t for t in self.tokens() if (t.line, t.col) not in self.places_read]

    def unclaimed(self) -> list[Token]:
        """The tokens no reader read, and none at the place of a number found."""
        return [t for t in self.unread() if (t.line, t.col) not in self.claimed]

    def is_claimed(self, number: Reported) -> bool:
        """Whether a reader before found a number at `number`'s place."""
        return (number.line, number.col) in self.claimed

    def take(self, found: Found) -> None:
        """Record what one reader found."""
        self.found += found.numbers
        self.claimed.update((r.line, r.col) for r in found.numbers)
        if found.reads_rest:
            self.offered.clear()
        self.offered += found.offered
        if found.lines - self.lines_read:
            self.lines_read |= found.lines
            self._tokens = None
        self.places_read |= found.places
        self.tables_read |= found.tables
        if found.context:
            self.context = found.context

    def reported(self) -> list[Reported]:
        """Every number found, and each one offered whose place no reader claimed, in text
        order."""
        out = self.found + [r for r in self.offered if not self.is_claimed(r)]
        return sorted(out, key=lambda r: (r.line, r.col))


class Reader(Protocol):
    """One reader of published text: one module, one object (see `pipeline.READERS`)."""

    @property
    def name(self) -> str:
        """What it reads, in a word or two ("pipe tables", "prose")."""
        ...

    def read(self, reading: Reading) -> Found:
        """What it finds in what the readers before it left of the text."""
        ...
