"""What every reader of published text takes in and hands out (pure): the text's lines, its word
tokens, and the numbers it reports. Kept below the readers, so that each reader, the protocol
they share and the pipeline can all import them without a cycle."""

from __future__ import annotations

from dataclasses import dataclass

Lines = list[tuple[int, str]]  # (line number in the source, text)


@dataclass(frozen=True, kw_only=True)
class Reported:
    """One number as an article shows it, and where."""

    line: int
    col: int
    text: str
    value: float
    decimals: int
    unit: str | None
    metric_id: str | None  # None: the number matches no metric (unverified)
    table: str | None = None  # the table's id (or the caption of an unknown table)
    row: str | None = None
    column: str | None = None
    malformed: str | None = None  # why the shown text is not a well-formed number
    # the unit is the table caption's, which a column of another dimension (a ratio) overrides
    unit_soft: bool = False
    # where the unit it is read in is written, when not beside it: (line, col, the column's
    # header or the table's caption)
    unit_from: tuple[int, int, str] | None = None
    # a number the article's source writes literally (a date, a version): the text it writes
    expected_text: str | None = None
    in_prose: bool = False  # read from running text, where a setting may be said twice
    # why a number tied to its metric by a sentence's words may state something else (it is
    # said as a bound or an estimate): a match is a match, a difference is unverified, not a
    # mismatch. Empty: judged as any number is.
    tentative: str = ""
    # read in running text: where its sentence starts (line, col), which groups the numbers
    # that are judged together
    sentence: tuple[int, int] | None = None
    # tied by a reader's guess in a sentence that states other claims or quotes too: a
    # difference is a mismatch only when every other number of its sentence checks out
    several: bool = False
    # a ratio written beside its operands ("3.5x ... (420 vs 120 tok/s)"): their texts
    operands: tuple[str, str] | None = None
    # said "up to" ("up to 2,000 tok/s"): the ids of every cell the words range over. It is
    # judged against the highest of them (`metric_id` is then that one's id), and check names it
    up_to: tuple[str, ...] = ()
    # a claim whose sentence says that one side differs (faster, more, higher:
    # `reportgen.article.claims.COMPARATIVE`): an interval that includes no change does not
    # support it
    compares: bool = False
    # the words "not measurable" in the cell of `metric_id`: they match
    # where the article shows the cell as gated, and are a mismatch where it shows a number
    # (`value` is then 0.0, unused)
    not_measurable: bool = False


@dataclass(frozen=True)
class Token:
    line: int
    col: int
    text: str
    words: tuple[str, ...]  # its normalized words (none for punctuation or a footnote mark)
