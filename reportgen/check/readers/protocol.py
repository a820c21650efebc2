"""What a reader of published text is, and what it hands back (pure).

A reader reads what the readers before it left of one published text (`pipeline.Reading`: its
lines and word tokens, and what is taken) and returns a `Found`: the numbers it reports, which
claim their places, and what else it read, which the readers after it do not see. The readers,
in their order, are `pipeline.READERS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from reportgen.check.readers.pipeline import Reading
    from reportgen.check.readers.published import Reported

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


class Reader(Protocol):
    """One reader of published text: one module, one object (see `pipeline.READERS`)."""

    @property
    def name(self) -> str:
        """What it reads, in a word or two ("pipe tables", "prose")."""
        ...

    def read(self, reading: Reading) -> Found:
        """What it finds in what the readers before it left of the text."""
        ...
