"""The claims reader: the numbers of a copy's own sentences that the prose reader could align
with nothing in the article, read as the claims and quotes they state (pure).

"2.5x faster than one request", "fell by 12% from 420 tok/s": a claim is tied to the two
metrics it compares and judged against their ratio or change; a number quoted with a unit
("3,900 tokens at 4K took 0.31 s") to the metric its sentence names (`text.tie`). A number
that states neither stays unverified, as the prose reader offered it; one that only labels an
axis value of a metric tied in its sentence ("at 4K") is left out.

Worst case: `text.tie`'s, linear in the running text.
"""

from __future__ import annotations

from dataclasses import replace

from reportgen.check.claims.text import tie
from reportgen.check.readers.prose import unit_after
from reportgen.check.readers.protocol import Found, Reading
from reportgen.check.readers.sentences import sentence_starts


class ClaimsReader:
    """The last reader (`pipeline.READERS`): the numbers the prose reader offered, in the
    running text it read."""

    name = "claims"

    def read(self, reading: Reading) -> Found:
        """Every number offered, tied to the claim or quote its sentence states where it states
        one, else as offered."""
        text = reading.context
        places = {(t.line, t.col): i for i, t in enumerate(text)}
        loose = {places[r.line, r.col]: r for r in reading.offered if (r.line, r.col) in places}
        if not loose:
            return Found()
        units = {i: unit_after(text, i, text[i].text) for i in loose}
        tied = tie(text, list(loose), units, reading.shape.shown)
        starts = sentence_starts(text)
        # offered by a reader before the prose reader, outside its text: left as offered
        out = [r for r in reading.offered if (r.line, r.col) not in places]
        for i, offered in loose.items():
            found = tied.get(i, offered)
            if found is not None:
                out.append(replace(found, sentence=starts.get((found.line, found.col))))
        return Found(numbers=tuple(out), reads_rest=True)


READER = ClaimsReader()
