"""Every number a published text reports, by every reader in turn (pure).

Lines and the article's `Shape` in, `Reported` numbers out. The readers, in `READERS` order:

1. `previews`: an HTML copy's link preview, where it keeps the built page's words;
2. `published`: pipe and grid tables, headlines number-first, declared sentences, line by line;
3. `stream`: the tables not laid out as pipe or grid tables, from the word stream;
4. `headlines`: the declared headlines not yet found, caption first or as blocks;
5. `prose`: every other number, aligned with the built article's prose; it offers the ones
   it cannot align, with the running text it read (`Found.context`);
6. `claims` (`check/claims/reader.py`): those numbers read as the claims and quotes of the
   copy's own sentences. The one reader above this floor (`claims/` builds on the readers): the
   pipeline runs them all, so it imports it.

Each reads what the readers before it left (`protocol.Reading`) and returns a
`protocol.Found`. What they all take in and hand out (lines, word tokens, reported numbers) is in
`reported.py`, below every reader, so that nothing here imports in a circle.
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

from reportgen.check.claims.reader import READER as CLAIMS
from reportgen.check.readers import headlines, markdown, previews, prose, published, stream
from reportgen.check.readers.protocol import Reader, Reading
from reportgen.check.readers.reported import Lines, Reported
from reportgen.check.readers.shape import Shape
from reportgen.check.readers.stream import tokens

READERS: tuple[Reader, ...] = (
    previews.READER,
    published.READER,
    stream.READER,
    headlines.READER,
    prose.READER,
    CLAIMS,
)


def reported(lines: Lines, shape: Shape, readers: Sequence[Reader] = READERS) -> list[Reported]:
    """Every number the lines report, each once, in text order."""
    reading = Reading(lines=lines, shape=shape, tokenize=tokens)
    for reader in readers:
        reading.take(reader.read(reading))
    return reading.reported()


def forget_copies(shape: Shape) -> None:
    """Drop what the readers keep from one copy for the next (each line's tokens and plain
    Markdown, the copies' alignments with `shape`'s prose), so that the next copy is read as
    the first: for timing the readers' own work (tests/check/test_linear_inputs.py)."""
    stream.forget_lines()
    markdown.forget_lines()
    shape.aligner.forget()
