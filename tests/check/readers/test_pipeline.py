"""The readers of published text as one loop (`pipeline.py`): a reader is one object behind the
`Reader` protocol, and what it takes, the readers after it do not read.

A toy reader, put in front of the real ones, stands for a new text form added as one module."""

from __future__ import annotations

import math
from dataclasses import dataclass

from helpers_posts import built, fill

from reportgen.check.readers.pipeline import READERS, reported
from reportgen.check.readers.protocol import Found, Reader, Reading
from reportgen.check.readers.published import text_lines
from reportgen.check.readers.reported import Lines, Reported
from reportgen.check.readers.shape import Shape


@dataclass(frozen=True)
class Toy:
    """Reports a number at one place, or reads some lines whole and reports nothing there."""

    at: tuple[int, int] | None = None
    whole: frozenset[int] = frozenset()
    name: str = "toy"

    def read(self, _reading: Reading) -> Found:
        if self.at is None:
            return Found(lines=self.whole)
        line, col = self.at
        number = Reported(
            line=line,
            col=col,
            text="toy",
            value=math.nan,
            decimals=0,
            unit=None,
            metric_id="toy.metric",
        )
        return Found(numbers=(number,))


def _post() -> tuple[Lines, Shape]:
    """The lines of an editor's plain-text post about the measured article, and its shape."""
    _, shape = built("measured")
    return text_lines(fill("measured", "txt").text), shape


def test_the_real_readers_are_readers() -> None:
    readers: tuple[Reader, ...] = READERS
    names = [r.name for r in readers]
    assert len(set(names)) == len(names) == 6, names
    assert names[0] == "link previews", "a preview in the build's words is read before any text"
    assert names[-2:] == ["prose", "claims"], "claims read what prose could not align"


def test_a_reader_put_first_claims_a_place_that_no_later_reader_reads() -> None:
    lines, shape = _post()
    before = reported(lines, shape)
    prose = [r for r in before if r.in_prose and r.metric_id and r.table is None]
    assert prose, "the post has numbers in its prose"
    at = (prose[0].line, prose[0].col)
    after = reported(lines, shape, (Toy(at=at), *READERS))
    there = [r for r in after if (r.line, r.col) == at]
    assert [r.metric_id for r in there] == ["toy.metric"]
    assert {(r.line, r.col) for r in after} == {(r.line, r.col) for r in before}


def test_lines_a_reader_reads_whole_are_not_read_again() -> None:
    lines, shape = _post()
    before = reported(lines, shape)
    table = {r.line for r in before if r.table}
    assert table, "the post has tables"
    after = reported(lines, shape, (Toy(whole=frozenset(table)), *READERS))
    assert after, "the rest of the post is still read"
    assert not [r for r in after if r.line in table]


def test_a_number_offered_is_reported_only_if_no_later_reader_claims_its_place() -> None:
    lines, shape = _post()
    offered = Reported(line=1, col=1, text="7", value=7.0, decimals=0, unit=None, metric_id=None)

    @dataclass(frozen=True)
    class Offers:
        name: str = "offers"

        def read(self, _reading: Reading) -> Found:
            return Found(offered=(offered,))

    alone = reported(lines, shape, (Offers(),))
    assert alone == [offered]
    claimed = reported(lines, shape, (Offers(), Toy(at=(1, 1))))
    assert [r.text for r in claimed] == ["toy"]
