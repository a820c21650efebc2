"""What a published text of an article is expected to hold: its tables (by title, with the
metric of each row and column), its headline numbers (by caption), and the sentences that carry
numbers from data (each reference a number to find).

Built from the built article's own tables (`from_views`, exact: every cell's id is known), or
from the declarations alone (`from_declarations`, for context x concurrency tables, which the
reconstruction needs before any run file exists).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from html import unescape

from reportgen.article.prose.resolver import REFERENCE
from reportgen.article.source.declarations import ArticleSource, Text
from reportgen.article.tables.cells import MARKS, CellView
from reportgen.article.tables.layout import TableView
from reportgen.check.readers.align import Aligner
from reportgen.check.readers.sentences import sentence_numbers
from reportgen.frozendict import FrozenDict
from reportgen.metrics.claims import claim_unit, is_claim
from reportgen.metrics.display import display_of
from reportgen.metrics.registry import DEFINITIONS, key_of, split_metric

Cell = Callable[[str, str], str | None]  # (row label, column label) -> metric id
_SYMBOLS = frozenset(MARKS + ",")  # a lint's marks, and the comma between two marks


@dataclass(frozen=True, kw_only=True)
class Metric:
    """One metric the article shows: its id, definition key, unit, axes and quantity words."""

    id: str
    key: str
    unit: str
    axes: dict[str, str]
    words: frozenset[str]

    @property
    def better(self) -> str | None:
        """Which way of this metric is better ("higher", "lower"); None for a setting."""
        return DEFINITIONS[self.key].better


@dataclass(frozen=True)
class Grid:
    """A built table's labels, for reading it back from text that lost its grid lines."""

    corner: str
    columns: tuple[str, ...]
    # (label, per column: (whether it shows a number, how many words, its decimals), as built)
    rows: tuple[tuple[str, tuple[tuple[bool, int, int], ...]], ...]


@dataclass(frozen=True, kw_only=True)
class TableShape:
    """One table as a published text shows it."""

    id: str
    title: str
    unit_words: str
    cell: Cell
    grid: Grid | None = None
    # the letters the built table marks its cells' footnotes with ("a": why a cell shows no
    # number, or the price beside a cost); symbols (`*`, `†`) are read after any number
    marks: frozenset[str] = frozenset()

    def unmarked(self, text: str) -> str:
        """A number's or a dash's text without the footnote marks of this table after it,
        written apart or run into it as a copy of `<sup>` gives them: "1.27d*", "1.27 d" and
        "—c" -> "1.27", "1.27", "—". A letter is a mark only after no other letter, and only
        when the table marks with it."""
        bare = text.rstrip().rstrip("".join(_SYMBOLS)).rstrip()
        if len(bare) > 1 and bare[-1] in self.marks and not bare[-2].isalpha():
            return bare[:-1].rstrip()
        return text


@dataclass(frozen=True)
class Phrase:
    """A sentence with numbers from data: the literal words, and the metric each number shows."""

    pattern: re.Pattern[str]
    metrics: tuple[str | None, ...]  # per number group, in order (None: not a metric)
    text: Text


@dataclass(frozen=True, kw_only=True)
class HeadlineShape:
    """A declared headline number: its metric, unit, caption, and the group it is shown in (the
    key results, or one section's headlines)."""

    metric: str
    unit: str | None
    caption: str  # references as {N}
    pattern: re.Pattern[str]  # the caption's words, each {N} any number
    group: int

    @property
    def words(self) -> tuple[str, ...]:
        """The caption's first words, up to its first number (to find it in a word stream)."""
        return tuple(normalize(self.caption.split("{N}")[0]).split())


@dataclass(frozen=True)
class Expected:
    """One token of the built article's prose: its text and, in a number span, its metric."""

    text: str
    metric: str | None
    key: str  # what the alignment compares: "#" for a number, else its normalized words


# How many words in a row, drawn by a chart in that order, mark a number as the chart's.
RUN = 3


# How many numbers a chart draws, at least, in a block of its words that reads as its own.
BLOCK_NUMBERS = 3


@dataclass(frozen=True)
class ChartText:
    """The words the built article's charts draw: each word, each `RUN` words in a row (ticks
    and the axis label after them), as a PDF's text shows them in the order drawn, and each
    chart's words apart (a PDF's text may give them in another order, or mixed with the words
    of the table beside it)."""

    words: frozenset[str] = frozenset()
    runs: frozenset[tuple[str, ...]] = frozenset()
    charts: tuple[frozenset[str], ...] = ()


NO_CHARTS = ChartText()


@dataclass(frozen=True)
class Preview:
    """A link preview the built page states (its `<meta>` description): its words, and the
    metric of each (None for a word, or a number the build names no metric for)."""

    words: tuple[str, ...]
    metrics: tuple[str | None, ...]


@dataclass(frozen=True, kw_only=True)
class Shape:
    """Everything a published version of the article is matched against."""

    tables: tuple[TableShape, ...]
    headlines: tuple[HeadlineShape, ...]
    phrases: tuple[Phrase, ...]
    prose: tuple[Expected, ...] = ()  # the built article's prose, to align copies with
    chart_text: ChartText = NO_CHARTS  # the words the built article's charts show
    # the built article's charts as an HTML copy must show them to show them (channels.form)
    charts: frozenset[tuple[str, ...]] = frozenset()
    # how many times the built article shows each metric (a key result and a table cell, say):
    # a copy may show it as often without showing it "twice"
    times: FrozenDict[str, int] = FrozenDict()
    # the metrics shown, with the words the article labels each by (`labels.metrics_shown`)
    shown: tuple[Metric, ...] = ()
    previews: tuple[Preview, ...] = ()  # the built page's link previews that state a number

    @cached_property
    def aligner(self) -> Aligner:
        """The prose's keys, indexed once: a check of many copies aligns each with them without
        indexing them again."""
        return Aligner([e.key for e in self.prose])

    @cached_property
    def prose_sentences(self) -> tuple[int, ...]:
        """Each prose token's sentence, numbered in order (`sentences.sentence_numbers`),
        counted once for every copy."""
        return sentence_numbers(e.text for e in self.prose)

    def table_for(self, caption: str) -> TableShape | None:
        """The table whose title the caption (a line or two above it) starts with."""
        low = normalize(caption)
        best = None
        for table in self.tables:
            title = normalize(table.title)
            if title and title in low and (best is None or len(title) > len(normalize(best.title))):
                best = table
        return best


@lru_cache(maxsize=1 << 14)  # a check reads the same words in every copy it is given
def normalize(text: str) -> str:
    """Lower case, punctuation to spaces, whitespace collapsed: for matching titles."""
    return " ".join(re.sub(r"[^\w%/]+", " ", text.lower()).split())


# a number: it starts where a run of digits does, and a search restarted at each comma of a long
# run reads at most 40 characters on from it (no article writes a longer number)
_NUMBER = r"(-?(?<!\d)\d[\d,]{0,40}(?:\.\d+)?)"
_GAP = r"\s*+"  # what may stand between two words: one possessive run of whitespace


def _atoms(text: str) -> list[str]:
    return [re.escape(w) for w in text.split()]


def _joined(atoms: list[str]) -> re.Pattern[str]:
    """One pattern of `atoms` with exactly one possessive gap between each two and none at the
    ends: no two quantifiers over whitespace stand side by side, so a match attempt is linear in
    the text it reads and a search linear in the line."""
    return re.compile(_GAP.join(atoms), re.IGNORECASE)


def phrase_pattern(text: str) -> tuple[re.Pattern[str], tuple[str | None, ...]]:
    """A regex that finds `text` in a published line: its words as they are (whitespace free),
    each reference a number (with the metric's unit after it unless the reference is bare)."""
    atoms: list[str] = []
    metrics: list[str | None] = []
    at = 0
    for found in REFERENCE.finditer(text):
        atoms += _atoms(text[at : found.start()])
        name, flt = found.group(1), found.group(2)
        unit = _unit(name) if flt != "number" else None
        atoms += [_NUMBER, *([re.escape(unit)] if unit else [])]
        metrics.append(name if _unit(name) is not None else None)
        at = found.end()
    atoms += _atoms(text[at:])
    return _joined(atoms), tuple(metrics)


def _unit(name: str) -> str | None:
    """The unit a metric id (or a claim of two) is shown with; None when the name is neither."""
    if is_claim(name):
        return claim_unit(name)
    found = key_of(name)
    return None if found is None else display_of(*found).unit


def _headlines(article: ArticleSource) -> tuple[HeadlineShape, ...]:
    groups = [article.key_results, *(s.headlines for s in article.sections)]
    out = []
    for group, headlines in enumerate(groups):
        for h in headlines:
            caption = REFERENCE.sub("{N}", h.caption.text)
            parts = [_atoms(part) for part in caption.split("{N}")]
            pattern = _joined([a for k, part in enumerate(parts) for a in [_NUMBER][:k] + part])
            out.append(
                HeadlineShape(
                    metric=h.metric,
                    unit=_unit(h.metric),
                    caption=caption,
                    pattern=pattern,
                    group=group,
                )
            )
    return tuple(out)


def _phrases(texts: Iterable[Text | None]) -> tuple[Phrase, ...]:
    out = []
    for text in texts:
        if text is not None and REFERENCE.search(text.text):
            pattern, metrics = phrase_pattern(text.text)
            out.append(Phrase(pattern, metrics, text))
    return tuple(out)


_BRACKETS = re.compile(r"\([^()]*+\)|\[[^\[\]]*+\]")  # each start reads to its next bracket


def bare_label(label: str) -> str:
    """A column label without what it says in brackets, normalized: 'TTFT p50 (s)' and 'TTFT
    p50 (ms)' are one column, whose unit a copy may convert."""
    return normalize(_BRACKETS.sub(" ", label))


def _by_bare(labels: Iterable[str]) -> dict[str, str]:
    """Each label's bare form -> the label, for bare forms that only one label has."""
    count: dict[str, list[str]] = {}
    for label in labels:
        count.setdefault(bare_label(label), []).append(label)
    return {bare: found[0] for bare, found in count.items() if len(found) == 1 and bare}


@dataclass(frozen=True)
class _Laid:
    """A built table's cells: (row label, column label) -> metric id; a column is also found
    by its label without its unit ('TTFT (ms)' for the built 'TTFT (s)')."""

    cells: Mapping[tuple[str, str], str]
    columns: Mapping[str, str] = field(default_factory=dict)  # bare label -> normalized label

    def __call__(self, row: str, col: str) -> str | None:
        found = self.cells.get((normalize(row), normalize(col)))
        if found is None and bare_label(col) in self.columns:
            found = self.cells.get((normalize(row), self.columns[bare_label(col)]))
        return found


@dataclass(frozen=True, kw_only=True)
class _Declared:
    """A declared table's cells from its labels: the metric of the column (a points table) or of
    the table, at the row's (and column's) coordinates."""

    rows: str
    metric: str | None = None
    columns_axis: str | None = None
    columns: Mapping[str, str] | None = None  # header -> metric
    bare: Mapping[str, str] = field(default_factory=dict)  # header without its unit -> metric

    def __call__(self, row: str, col: str) -> str | None:
        if self.columns is not None:
            metric = self.columns.get(normalize(col)) or self.bare.get(bare_label(col))
            return None if metric is None else _id(metric, {self.rows: row})
        if self.metric is None or self.columns_axis is None:
            return None
        return _id(self.metric, {self.rows: row, self.columns_axis: col})


def from_views(article: ArticleSource, views: Iterable[TableView]) -> Shape:
    """The shape of the built article: every table cell's metric id, as laid out."""
    tables = []
    for view in views:
        if not view.decl.published:
            continue
        grid = {
            (normalize(row), normalize(col)): cell.metric
            for row, cells in view.rows
            for col, cell in zip(view.columns, cells, strict=True)
            if cell.metric
        }
        laid = Grid(
            view.corner,
            view.columns,
            tuple((label, tuple(_size(c) for c in cells)) for label, cells in view.rows),
        )
        bare = {k: normalize(v) for k, v in _by_bare(view.columns).items()}
        cells = _Laid(grid, bare)
        tables.append(
            TableShape(
                id=view.id,
                title=view.title,
                unit_words=view.decl.unit_words,
                cell=cells,
                grid=laid,
                marks=frozenset(m for m, _ in view.footnotes if m.isalpha()),
            )
        )
    notes = [t.note for t in article.tables()]
    return Shape(tables=tuple(tables), headlines=_headlines(article), phrases=_phrases(notes))


# a gated cell's size: no number, the two words "not measurable" (a copy may show the number
# the gate keeps out: it is read, and judged as shown where the article says not measurable)
GATED = (False, 2, -1)


def _size(cell: CellView) -> tuple[bool, int, int]:
    """Whether the cell shows a number, how many words it shows (a verdict after it), and the
    decimals of the number it shows."""
    if cell.gated:  # "not measurable", two words, where a copy may show the number instead
        return GATED
    # a span runs into the text around it: "519 [503, 569]" is three words, not six
    words = html_text(re.sub(r"</?span\b[^<>]*>", "", cell.html)).split()
    decimals = len(words[0].partition(".")[2].rstrip(MARKS)) if words else 0
    return bool(cell.metric and not cell.missing), max(1, len(words)), decimals


def html_text(html: str) -> str:
    """The text of an HTML fragment."""
    return unescape(re.sub(r"<[^<>]+>", " ", html))  # each start reads to the next "<" only


def from_declarations(article: ArticleSource) -> Shape:
    """The shape from article.toml alone: tables over context and concurrency (the ids follow
    from the labels), headlines and notes."""
    tables = []
    for decl in article.tables():
        if isinstance(decl.columns, tuple):
            headers = {normalize(c.header): c.metric for c in decl.columns}
            by_header = {c.header: c.metric for c in decl.columns}
            bare = {b: by_header[h] for b, h in _by_bare(by_header).items()}
            cell = _Declared(rows=decl.rows, columns=headers, bare=bare)
        else:
            cell = _Declared(rows=decl.rows, metric=decl.metric, columns_axis=decl.columns)
        tables.append(
            TableShape(id=decl.id, title=decl.title, unit_words=decl.unit_words, cell=cell)
        )
    notes = [t.note for t in article.tables()]
    return Shape(tables=tuple(tables), headlines=_headlines(article), phrases=_phrases(notes))


def _id(metric: str, labels: dict[str, str]) -> str | None:
    key, stat = split_metric(metric)
    if key not in DEFINITIONS:
        return None
    concurrency = labels.get("concurrency")
    if concurrency is not None and not concurrency.isdigit():
        return None
    context = labels.get("context")
    try:
        base = DEFINITIONS[key].id_pattern.format(
            context=context, concurrency=concurrency, point=None
        )
    except (KeyError, IndexError):
        return None
    return base if stat is None else f"{base}.{stat}"
