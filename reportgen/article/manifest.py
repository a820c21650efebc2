"""Load stage for an article's source: `article.toml` and its Markdown prose.

Folder in, `ArticleSource` out: the article's runs (files and setup), its sections with their
headlines, tables and charts as declared, what its published version leaves out and the findings
it acknowledges. The manifest is validated against `schemas/article.schema.json`; every problem is
located at its line in the file, and strings keep their location, so that a bad reference to data
inside them can be reported where it was written.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from reportgen.article.toml import Locator, parse_toml, value_at
from reportgen.errors import InputError, Problem
from reportgen.files import read_input
from reportgen.formats.schemas import check
from reportgen.model import Hardware, Scalar, Setup

MANIFEST = "article.toml"


@dataclass(frozen=True)
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
        return Problem(self.file, self.line, self.col, self.pointer, message)


@dataclass(frozen=True)
class Headline:
    """A headline number: which metric (an id), and the words under it."""

    metric: str
    caption: Text
    place: Place


@dataclass(frozen=True)
class RunDecl:
    """One run of the article: its files and the setup it was measured on."""

    id: str
    label: str
    files: tuple[str, ...]
    setup: Setup
    bench: Text | None
    aliases: tuple[tuple[str, tuple[str, ...]], ...]  # model/engine/gpu -> other names
    tools: tuple[tuple[str, str], ...]  # tool -> the version the article states
    place: Place

    def alias(self, what: str) -> tuple[str, ...]:
        """The other names declared for the setup's model, engine or GPU."""
        return dict(self.aliases).get(what, ())


@dataclass(frozen=True)
class Column:
    """A table column that shows one metric."""

    metric: str
    header: str
    unit: str | None = None
    decimals: int | None = None


@dataclass(frozen=True)
class Compare:
    """A comparison of two runs: the other run's change against the base run."""

    base: str
    other: str
    show: tuple[str, ...] = ("delta", "ratio")
    judge: bool = True  # say "better" or "worse" by the metric's direction


Where = tuple[tuple[str, tuple[Scalar, ...]], ...]  # axis -> the values to keep


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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
    omissions: tuple[Omission, ...] = ()
    acknowledgements: tuple[Acknowledgement, ...] = ()

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


def _decode(raw: bytes, label: str, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError([Problem(label, line, 1, "", f"{what} is not valid UTF-8")]) from None


class _Reader:
    """Builds the article's declarations from the validated manifest, with locations."""

    def __init__(self, folder: Path, label: str, text: str, data: dict[str, Any]) -> None:
        self.folder, self.label, self.data = folder, label, data
        self.where = Locator(text)

    def place(self, pointer: str) -> Place:
        return Place(self.label, *self.where.locate(pointer), pointer)

    def text(self, pointer: str) -> Text | None:
        value = value_at(self.data, pointer)
        if value is None:
            return None
        line, col = self.where.locate(pointer)
        return Text(str(value), self.label, line, col + 1)  # the text starts after its quote

    def required(self, pointer: str) -> Text:
        found = self.text(pointer)
        assert found is not None, pointer  # the schema requires it
        return found

    def prose(self, name: str) -> Text:
        label = f"{self.folder}/{name}"
        raw = read_input(self.folder / name, "text", label=label, inside=self.folder)
        return Text(_decode(raw, label, "prose"), label, 1, 1, markdown=True)

    def headlines(self, items: list[dict[str, Any]], at: str) -> tuple[Headline, ...]:
        return tuple(
            Headline(h["metric"], self.required(f"{at}/{i}/caption"), self.place(f"{at}/{i}"))
            for i, h in enumerate(items)
        )

    def setup(self, raw: dict[str, Any]) -> Setup:
        hw, model, engine = raw.get("hardware"), raw["model"], raw["engine"]
        return Setup(
            hardware=None
            if hw is None
            else Hardware(
                gpu_name=hw["gpu_name"],
                gpu_count=hw["gpu_count"],
                gpu_vram_gb=hw.get("gpu_vram_gb"),
                gpu_power_cap_w=hw.get("gpu_power_cap_w"),
                gpu_rated_power_w=hw.get("gpu_rated_power_w"),
                gpu_note=hw.get("gpu_note"),
                cpu=hw.get("cpu"),
                ram_gb=hw.get("ram_gb"),
                os=hw.get("os"),
            ),
            hf_id=model["hf_id"],
            checkpoint=model.get("checkpoint"),
            quantization=model.get("quantization"),
            engine_name=engine["name"],
            engine_build=engine.get("build"),
            engine_description=engine.get("description"),
            spec_decoding=engine.get("spec_decoding"),
            command_snippet=engine.get("command_snippet"),
            engine_version=engine.get("version"),
            tensor_parallel=engine.get("tensor_parallel"),
        )

    def runs(self) -> tuple[RunDecl, ...]:
        out = []
        many = len(self.data["runs"]) > 1
        for i, raw in enumerate(self.data["runs"]):
            at = f"/runs/{i}"
            run_id = raw.get("id") or ("run" + str(i + 1) if many else "run")
            out.append(
                RunDecl(
                    id=run_id,
                    label=raw.get("label") or raw["setup"]["engine"]["name"],
                    files=tuple(raw["files"]),
                    setup=self.setup(raw["setup"]),
                    bench=self.text(f"{at}/setup/bench/text"),
                    aliases=tuple(
                        (k, tuple(v)) for k, v in sorted(raw["setup"].get("aliases", {}).items())
                    ),
                    tools=tuple(sorted(raw["setup"].get("tools", {}).items())),
                    place=self.place(at),
                )
            )
        return tuple(out)

    def table(self, raw: dict[str, Any], at: str) -> TableDecl:
        columns = raw.get("columns", "concurrency")
        if isinstance(columns, list):
            columns = tuple(
                Column(c["metric"], c.get("header", c["metric"]), c.get("unit"), c.get("decimals"))
                for c in columns
            )
        compare = raw.get("compare")
        return TableDecl(
            id=raw["id"],
            title=raw["title"],
            unit_words=raw.get("unit", ""),
            note=self.text(f"{at}/note") if raw.get("note") else None,
            metric=raw.get("metric"),
            rows=raw["rows"],
            columns=columns,
            where=_where(raw.get("where", {})),
            rows_values=tuple(raw.get("rows_values", ())),
            columns_values=tuple(raw.get("columns_values", ())),
            corner=raw.get("corner"),
            counts=bool(raw.get("counts", False)),
            compare=Compare(
                compare["base"],
                compare["other"],
                tuple(compare.get("show", ("delta", "ratio"))),
                bool(compare.get("judge", True)),
            )
            if compare
            else None,
            published=raw.get("published", True),
            place=self.place(at),
        )

    def chart(self, raw: dict[str, Any], at: str) -> ChartDecl:
        return ChartDecl(
            id=raw["id"],
            title=raw["title"],
            caption=self.text(f"{at}/caption") if raw.get("caption") else None,
            kind=raw.get("kind", "line"),
            metric=raw["metric"],
            x=raw["x"],
            series=raw.get("series"),
            label=raw.get("label"),
            where=_where(raw.get("where", {})),
            x_log=raw.get("x_log"),
            y_log=bool(raw.get("y_log", False)),
            x_label=raw.get("x_label"),
            y_label=raw.get("y_label"),
            legend=raw.get("legend"),
            place=self.place(at),
        )

    def sections(self) -> tuple[Section, ...]:
        out = []
        for i, raw in enumerate(self.data["sections"]):
            at = f"/sections/{i}"
            kind = raw.get("kind", "content")
            title = raw.get("title") or ("Setup" if kind == "setup" else None)
            out.append(
                Section(
                    id=raw.get("id") or _slug(title) or f"section-{i + 1}",
                    title=title,
                    kind=kind,
                    prose=self.prose(raw["prose"]) if "prose" in raw else None,
                    prose_at=raw.get("prose_at", "before"),
                    headlines=self.headlines(raw.get("headline", []), f"{at}/headline"),
                    tables=tuple(
                        self.table(t, f"{at}/table/{j}") for j, t in enumerate(raw.get("table", []))
                    ),
                    charts=tuple(
                        self.chart(c, f"{at}/chart/{j}") for j, c in enumerate(raw.get("chart", []))
                    ),
                )
            )
        return tuple(out)


def _where(raw: dict[str, Any]) -> Where:
    return tuple(
        (axis, tuple(v) if isinstance(v, list) else (v,)) for axis, v in sorted(raw.items())
    )


def _slug(title: str | None) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in (title or "").lower()).split())


def _unique(problems: list[Problem], kind: str, items: list[tuple[str, Place]]) -> None:
    seen: dict[str, Place] = {}
    for key, place in items:
        if key in seen:
            first = seen[key]
            problems.append(
                place.problem(f"{kind} id {key!r} is declared twice (first at line {first.line})")
            )
        seen.setdefault(key, place)


def load_article(folder: Path) -> ArticleSource:
    """Read and validate `folder/article.toml` and the prose files it names."""
    path = folder / MANIFEST
    label = str(path)
    if not folder.is_dir():
        what = "no such article folder" if not folder.exists() else "not a folder"
        raise InputError([Problem(str(folder), 1, 1, "", what)])
    if not path.exists():
        raise InputError([Problem(label, 1, 1, "", f"no {MANIFEST} in {folder}")])
    text = _decode(read_input(path, "text", label=label, inside=folder), label, MANIFEST)
    data = parse_toml(text, label)
    reader = _Reader(folder, label, text, data)
    problems = [
        Problem(label, *reader.where.locate(p.pointer), p.pointer, p.message)
        for p in check("article", data)
    ]
    if problems:
        raise InputError(problems)
    runs = reader.runs()
    sections = reader.sections()
    _unique(problems, "run", [(r.id, r.place) for r in runs])
    _unique(problems, "table", [(t.id, t.place) for s in sections for t in s.tables])
    _unique(problems, "chart", [(c.id, c.place) for s in sections for c in s.charts])
    files = [(name, r.place) for r in runs for name in r.files]
    _unique(problems, "run file", files)
    if problems:
        raise InputError(problems)
    published = data.get("published", {})
    return ArticleSource(
        folder=folder,
        slug=folder.resolve().name,
        title=reader.required("/title"),
        subtitle=reader.text("/subtitle"),
        date=data["date"],
        status=reader.prose(data["status"]) if "status" in data else None,
        source=reader.text("/source"),
        runs=runs,
        key_results=reader.headlines(data.get("key_results", []), "/key_results"),
        sections=sections,
        published=tuple(published.get("files", [])),
        omissions=tuple(
            Omission(o["what"], reader.required(f"/published/omit/{i}/reason"))
            for i, o in enumerate(published.get("omit", []))
        ),
        acknowledgements=tuple(
            Acknowledgement(
                a["lint"], tuple(a.get("cells", [])), reader.required(f"/acknowledge/{i}/reason")
            )
            for i, a in enumerate(data.get("acknowledge", []))
        ),
    )


def load_setup(folder: Path) -> Setup:
    """The setup stated by an article folder's manifest (its first run's)."""
    return load_article(folder).setup
