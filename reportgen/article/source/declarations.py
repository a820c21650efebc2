"""The article's declarations as frozen dataclasses: its runs, sections, headlines, tables,
charts, omissions and acknowledgements, each with the place it is written for located errors."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from reportgen.errors import Problem
from reportgen.frozendict import FrozenDict
from reportgen.metrics.cost import Price
from reportgen.metrics.slo import Slo
from reportgen.model import Scalar, Setup


@dataclass(frozen=True, kw_only=True)
class Text:
    """A piece of article text and where it was written (for located errors)."""

    text: str
    file: str
    line: int
    col: int = 1
    markdown: bool = False  # a whole Markdown file rather than one line of the manifest


@dataclass(frozen=True)
class Place:
    """Where a declaration is written, for errors about it."""

    file: str
    line: int
    col: int
    pointer: str

    def problem(self, message: str) -> Problem:
        """A problem located at this declaration."""
        return Problem(
            path=self.file, line=self.line, col=self.col, pointer=self.pointer, message=message
        )


@dataclass(frozen=True)
class Headline:
    """A headline number: which metric (an id), and the words under it."""

    metric: str
    caption: Text
    place: Place


@dataclass(frozen=True, kw_only=True)
class RunDecl:
    """One run of the article: its files and the setup it was measured on."""

    id: str
    label: str
    files: tuple[str, ...]
    setup: Setup
    bench: Text | None
    aliases: FrozenDict[str, tuple[str, ...]]  # model/engine/gpu -> other names
    tools: FrozenDict[str, str]  # tool -> the version the article states
    place: Place

    def alias(self, what: str) -> tuple[str, ...]:
        """The other names declared for the setup's model, engine or GPU."""
        return self.aliases.get(what, ())


# How a table shows a repeated cell's uncertainty: the mean +- the half-width of its 95% t
# interval ("pm"), or the mean with the interval ("interval").
Uncertainty = Literal["pm", "interval"]


@dataclass(frozen=True, kw_only=True)
class Column:
    """A table column that shows one metric."""

    metric: str
    header: str
    unit: str | None = None
    decimals: int | None = None
    uncertainty: Uncertainty | None = None  # the table's, when None


@dataclass(frozen=True)
class Compare:
    """A comparison of two runs: the other run's change against the base run."""

    base: str
    other: str
    show: tuple[str, ...] = ("delta", "ratio")
    judge: bool = True  # say "better" or "worse" by the metric's direction


Where = FrozenDict[str, tuple[Scalar, ...]]  # axis -> the values to keep


@dataclass(frozen=True, kw_only=True)
class TableDecl:
    """A declared table: rows along an axis; columns along an axis (one metric) or a list of
    metrics; optionally a comparison of two runs."""

    id: str
    title: str
    unit_words: str
    note: Text | None
    metric: str | None
    rows: str
    columns: str | tuple[Column, ...]
    where: Where
    rows_values: tuple[Scalar, ...]
    columns_values: tuple[Scalar, ...]
    corner: str | None
    counts: bool
    compare: Compare | None
    published: bool
    place: Place
    # kind "at_interactivity": `metric` (throughput) on the frontier against `x` (tok/s per
    # user), a column per value of `series`, a row per level of `levels` (tok/s per user)
    kind: Literal["grid", "at_interactivity"] = "grid"
    x: str | None = None
    series: str | None = None
    levels: tuple[float, ...] = ()
    cost: bool = False  # add each series' cost per million output tokens ([cost] price)
    # cost = "only": the table shows the costs alone, a column per series (the throughput in a
    # table of its own beside it keeps each table narrow enough to read without scrolling)
    cost_only: bool = False
    # a repeated cell as its repetitions' mean with its 95% interval: "pm" or "interval"
    uncertainty: Uncertainty | None = None


@dataclass(frozen=True, kw_only=True)
class ChartDecl:
    """A declared chart: `metric` against `x` (an axis, or a metric for interactivity), a line
    per value of `series`."""

    id: str
    title: str
    caption: Text | None
    kind: Literal["line", "interactivity"]
    metric: str
    x: str
    series: str | None
    label: str | None
    where: Where
    x_log: bool | None
    y_log: bool
    x_label: str | None
    y_label: str | None
    legend: str | None
    place: Place
    beside: str | None = None  # the id of the table it draws, shown beside it
    replaces: str | None = None  # the id of the table it draws, shown in its place
    frontier: bool = False  # interactivity: a line per series through its frontier points
    # a point measured in several run files at its repetitions' mean, with its 95% t interval
    error_bars: bool = False

    @property
    def table(self) -> str | None:
        """The id of the table the chart sits with, if it declares one."""
        return self.beside or self.replaces


@dataclass(frozen=True, kw_only=True)
class Section:
    """A section of the article, in the order declared."""

    id: str
    title: str | None
    kind: Literal["content", "setup"]
    prose: Text | None
    prose_at: Literal["before", "after"]
    headlines: tuple[Headline, ...]
    tables: tuple[TableDecl, ...]
    charts: tuple[ChartDecl, ...]


@dataclass(frozen=True)
class Omission:
    """A table or metric the built article shows and its published version leaves out."""

    what: str  # a table id or a metric id
    reason: Text


@dataclass(frozen=True)
class Acknowledgement:
    """Lint findings the author accepts: one lint, some cells (or all), and why."""

    lint: str
    cells: tuple[str, ...]  # empty: every finding of the lint
    reason: Text

    def covers(self, lint: str, cell: str | None, run: str | None = None) -> bool:
        """True when a finding of `lint` at `cell` (of the run `run`) falls under this
        acknowledgement: its cells name it bare ("4K x 1", in any run) or with its run's id
        ("sglang 4K x 1")."""
        if lint != self.lint:
            return False
        return (
            not self.cells
            or cell in self.cells
            or (run is not None and f"{run} {cell}" in self.cells)
        )


@dataclass(frozen=True, kw_only=True)
class ArticleSource:
    """Everything an article says that is not measured data."""

    folder: Path
    slug: str
    title: Text
    subtitle: Text | None
    date: str
    status: Text | None
    source: Text | None
    runs: tuple[RunDecl, ...]
    key_results: tuple[Headline, ...]
    sections: tuple[Section, ...]
    published: tuple[str, ...] = ()  # published versions, relative to the folder
    status_at: Literal["start", "end"] = "start"
    omissions: tuple[Omission, ...] = ()
    acknowledgements: tuple[Acknowledgement, ...] = ()
    drafts: tuple[Place, ...] = ()  # where `reportgen init`'s placeholders are still written
    # article.toml and each prose file (path in the folder) -> the SHA-256 of its text: what a
    # build records it was built from, and `check` compares
    digests: FrozenDict[str, str] = FrozenDict()
    cost: Price | None = None  # [cost]: the GPU-hour price costs are computed from
    slo: Slo | None = None  # [slo]: the service-level objectives load points are judged by

    @property
    def setup(self) -> Setup:
        """The setup of the article's first run (its only one, in most articles)."""
        return self.runs[0].setup

    def run(self, run_id: str | None) -> RunDecl | None:
        """The run with this id (None: the only run of a one-run article)."""
        if run_id is None:
            return self.runs[0] if len(self.runs) == 1 else None
        return next((r for r in self.runs if r.id == run_id), None)

    def run_paths(self) -> list[Path]:
        """The run files the article is built from, in manifest order."""
        return [self.folder / name for run in self.runs for name in run.files]

    def run_of(self) -> dict[str, str]:
        """Each run file (by its name in the folder) -> the id of the run it belongs to."""
        return {name: run.id for run in self.runs for name in run.files}

    def setups(self) -> dict[str | None, Setup]:
        """Each run's setup by run id (and by None, for values of a one-run article)."""
        out: dict[str | None, Setup] = {run.id: run.setup for run in self.runs}
        if len(self.runs) == 1:
            out[None] = self.runs[0].setup
        return out

    @property
    def headlines(self) -> tuple[Headline, ...]:
        """Every headline number, key results first, then each section's."""
        return self.key_results + tuple(h for s in self.sections for h in s.headlines)

    def tables(self) -> Iterator[TableDecl]:
        """Every declared table, in page order."""
        return (t for s in self.sections for t in s.tables)

    def charts(self) -> Iterator[ChartDecl]:
        """Every declared chart, in page order."""
        return (c for s in self.sections for c in s.charts)

    def texts(self) -> list[Text]:
        """Every piece of text the article's source gives, in page order."""
        out = [self.title, self.subtitle, self.status]
        out += [run.bench for run in self.runs] + [h.caption for h in self.key_results]
        for section in self.sections:
            out += [section.prose, *(h.caption for h in section.headlines)]
            out += [t.note for t in section.tables] + [c.caption for c in section.charts]
        out += [self.source] + [a.reason for a in self.acknowledgements]
        return [t for t in out if t is not None]

    def published_paths(self) -> list[Path]:
        """The published versions the manifest names, in manifest order."""
        return [self.folder / name for name in self.published]
