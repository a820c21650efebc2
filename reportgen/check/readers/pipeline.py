"""Every number a published text reports, by every reader in turn (pure).

Lines and the article's `Shape` in, `Reported` numbers out. The readers, in `READERS` order:

1. `published`: pipe and grid tables, headlines number-first, declared sentences, line by line;
2. `stream`: the tables not laid out as pipe or grid tables, from the word stream;
3. `headlines`: the declared headlines not yet found, caption first or as blocks;
4. `prose`: every other number, aligned with the built article's prose (and the claims and
   quotes of a copy's own sentences, `claims.text.tie`, among the numbers it cannot align).

Each reads what the readers before it left (`Reading`) and returns a `Found` (`protocol.py`).
A number a reader could tie to nothing (a line that starts with a number and a unit but no
declared caption) is offered to the later readers: the prose reader reads it again with the
rest, and without prose it stays unverified unless a later reader claims its place.

How to add a reader: write one module with one object that has a `name` and a
`read(reading) -> Found` (the `protocol.Reader` protocol). It reads `reading.unread_lines()` or
the tokens `reading.unclaimed()` leaves, and returns the numbers it reports, which claim their
places, and the lines and tokens it read, which later readers do not see. Put the object in
`READERS` where it should read, and give it a test beside its module's.

Worst case: the sum of the readers', each linear in the lines (see each module); what is taken
is looked up in sets, each place in constant time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from reportgen.check.readers import headlines, prose, published, stream
from reportgen.check.readers.protocol import Found, Place, Reader
from reportgen.check.readers.published import Lines, Reported
from reportgen.check.readers.shape import Shape
from reportgen.check.readers.stream import Token, tokens

READERS: tuple[Reader, ...] = (published.READER, stream.READER, headlines.READER, prose.READER)


@dataclass
class Reading:
    """What the readers have read of one published text so far: the state they share, which
    only `take` changes (after each reader, with what it found)."""

    lines: Lines
    shape: Shape
    found: list[Reported] = field(default_factory=list)  # in the order the readers found them
    offered: list[Reported] = field(default_factory=list)
    claimed: set[Place] = field(default_factory=set)  # the places of the numbers found
    lines_read: set[int] = field(default_factory=set)
    places_read: set[Place] = field(default_factory=set)
    tables_read: set[str] = field(default_factory=set)
    _tokens: list[Token] | None = None

    def unread_lines(self) -> Lines:
        """The lines no reader read whole."""
        return [(n, raw) for n, raw in self.lines if n not in self.lines_read]

    def tokens(self) -> list[Token]:
        """Every word token of the lines no reader read whole."""
        if self._tokens is None:
            self._tokens = tokens(self.lines, self.lines_read)
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

    def reported(self) -> list[Reported]:
        """Every number found, and each one offered whose place no reader claimed, in text
        order."""
        out = self.found + [r for r in self.offered if not self.is_claimed(r)]
        return sorted(out, key=lambda r: (r.line, r.col))


def reported(lines: Lines, shape: Shape, readers: Sequence[Reader] = READERS) -> list[Reported]:
    """Every number the lines report, each once, in text order."""
    reading = Reading(lines, shape)
    for reader in readers:
        reading.take(reader.read(reading))
    return reading.reported()
