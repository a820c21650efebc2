"""Load stage for an article's source: `article.toml` and its Markdown prose.

Folder in, `ArticleSource` out: the file found and read, validated against
`schemas/article.schema.json` (each problem located at its line), turned into declarations
(`article/source/reader.py`, `article/source/declarations.py`) and its ids checked unique.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
from dataclasses import replace
from pathlib import Path
from typing import Any

from reportgen.article.prose.render import malformed_references
from reportgen.article.source.declarations import (
    Acknowledgement,
    ArticleSource,
    ChartDecl,
    Omission,
    Place,
    Section,
    Text,
)
from reportgen.article.source.draft import source_drafts
from reportgen.article.source.limits import over_limits
from reportgen.article.source.reader import ManifestReader, decode
from reportgen.article.source.toml import parse_toml
from reportgen.errors import InputError, Problem, did_you_mean, whole_file
from reportgen.fileio import read_input
from reportgen.formats.schema.validate import check
from reportgen.frozendict import FrozenDict
from reportgen.metrics.cost import Price
from reportgen.metrics.slo import PERCENTILES, Objective, Slo
from reportgen.model import Setup

MANIFEST = "article.toml"


def _unique(problems: list[Problem], kind: str, items: list[tuple[str, Place]]) -> None:
    seen: dict[str, Place] = {}
    for key, place in items:
        if key in seen:
            first = seen[key]
            problems.append(
                place.problem(f"{kind} id {key!r} is declared twice (first at line {first.line})")
            )
        seen.setdefault(key, place)


# How many names of an article folder a misspelled run file is compared with: enough for any
# article, few enough that a folder of a million files costs nothing.
NEAR_NAMES = 1000


def _absent_run_files(
    reader: ManifestReader, folder: Path, data: dict[str, Any], text: str
) -> list[Problem]:
    """A problem at each run file `[[runs]] files` names that is not in the folder, with the
    nearest name that is."""
    problems = []
    names: list[str] | None = None
    for i, run in enumerate(data["runs"]):
        for j, name in enumerate(run["files"]):
            if (folder / name).exists():
                continue
            if names is None:
                names = sorted(p.name for p in itertools.islice(folder.iterdir(), NEAR_NAMES))
            pointer = f"/runs/{i}/files/{j}"
            message = f"no run file {name!r} in {folder}{did_you_mean(name, names)}"
            line, col = _written_at(text, reader.where.locate(pointer), name)
            problems.append(
                Problem(path=reader.label, line=line, col=col, pointer=pointer, message=message)
            )
    return problems


def _written_at(text: str, array: tuple[int, int], value: str) -> tuple[int, int]:
    """Where the string `value` is written in the array that starts at `array` (line, col): the
    manifest's locator places an array, not its items."""
    lines = text.split("\n")
    start = sum(len(line) + 1 for line in lines[: array[0] - 1]) + array[1] - 1
    found = [text.find(q + value + q, start) for q in ('"', "'")]
    at = min((f for f in found if f >= 0), default=-1)
    if at < 0:
        return array
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def _unknown_lints(reader: ManifestReader, data: dict[str, Any]) -> list[Problem]:
    """A problem at each `[[acknowledge]]` whose lint id is no lint's: it could never match."""
    # every lint a finding can come from: the data's, and the article's check of its setup
    import reportgen.article.consistency
    import reportgen.metrics.lints  # noqa: F401
    from reportgen.metrics.lints.findings import LINTS

    problems = []
    for i, ack in enumerate(data.get("acknowledge", [])):
        if ack["lint"] not in LINTS:
            problems.append(
                reader.problem(
                    f"/acknowledge/{i}/lint",
                    f"unknown lint {ack['lint']!r}{did_you_mean(ack['lint'], LINTS)} "
                    "(docs/article-format.md lists the lints)",
                )
            )
    return problems


def _chart_tables(problems: list[Problem], sections: tuple[Section, ...]) -> None:
    """Each chart's `beside` or `replaces` names a table of the article, and only one chart
    replaces a table."""
    tables = [t.id for s in sections for t in s.tables]
    replaced: dict[str, ChartDecl] = {}
    for chart in (c for s in sections for c in s.charts):
        if chart.beside and chart.replaces:
            problems.append(
                chart.place.problem(f"chart {chart.id!r}: give beside or replaces, not both")
            )
            continue
        key = "beside" if chart.beside else "replaces"
        if chart.table is None:
            continue
        if chart.table not in tables:
            hint = (
                did_you_mean(chart.table, tables) or f"; its tables: {', '.join(tables) or 'none'}"
            )
            problems.append(
                chart.place.problem(
                    f"chart {chart.id!r}: {key} names no table {chart.table!r}{hint}"
                )
            )
        elif chart.replaces:
            if chart.replaces in replaced:
                first = replaced[chart.replaces].place.line
                problems.append(
                    chart.place.problem(
                        f"chart {chart.id!r}: table {chart.replaces!r} is already replaced by "
                        f"the chart at line {first}"
                    )
                )
            replaced.setdefault(chart.replaces, chart)


def _price(raw: dict[str, Any] | None) -> Price | None:
    """The `[cost]` table as a price (the schema requires all three keys)."""
    if raw is None:
        return None
    return Price(float(raw["gpu_hour_usd"]), raw["source"], raw["date"])


def _slo(reader: ManifestReader, raw: dict[str, Any] | None) -> tuple[Slo | None, list[Problem]]:
    """The `[slo]` table as objectives; the schema checks each key's type, this what the schema
    cannot: each objective is at a percentile or per request (one of the two), and at least one
    objective is declared."""
    if raw is None:
        return None, []
    problems, objectives = [], []
    for name, spec in raw.items():
        if name == "attainment":
            continue
        at = f"/slo/{name}"
        if name == "tpot_ms":
            problems.append(
                reader.problem(
                    at,
                    "declare it as itl_ms: reportgen's per-request ITL is the request's mean time "
                    "between output tokens, (end-to-end - TTFT) / (output tokens - 1), which "
                    "other tools call TPOT",
                )
            )
            continue
        if ("p" in spec) == bool(spec.get("per_request")):
            problems.append(
                reader.problem(
                    at,
                    f"{name} needs one of p (a percentile of the load point's requests: "
                    "50, 90, 95, 99) or per_request = true (each request must meet it)",
                )
            )
            continue
        if "p" in spec and spec["p"] not in PERCENTILES:
            problems.append(
                reader.problem(
                    f"{at}/p",
                    f"p = {spec['p']}: reportgen computes a load point's percentiles "
                    f"{', '.join(map(str, PERCENTILES))}; pick one of them",
                )
            )
            continue
        objectives.append(Objective(name, float(spec["max"]), spec.get("p")))
    if not objectives and not problems:
        problems.append(
            reader.problem("/slo", "[slo] declares no objective: add ttft_ms, itl_ms or e2e_s")
        )
    return Slo(tuple(objectives), float(raw["attainment"])), problems


def _frontier_tables(
    problems: list[Problem], sections: tuple[Section, ...], data: dict[str, Any]
) -> None:
    """An `at_interactivity` table needs its throughput, x, series and levels; one that shows
    costs needs the article's `[cost]`."""
    for table in (t for s in sections for t in s.tables):
        if table.kind != "at_interactivity":
            continue
        for key in ("metric", "x", "series"):
            if getattr(table, key) is None:
                problems.append(
                    table.place.problem(f"table {table.id!r}: kind at_interactivity needs {key}")
                )
        if not table.levels:
            problems.append(
                table.place.problem(f"table {table.id!r}: kind at_interactivity needs levels")
            )
        if table.cost and "cost" not in data:
            problems.append(
                table.place.problem(
                    f"table {table.id!r}: cost = true needs the article's [cost] price "
                    "(gpu_hour_usd, source, date)"
                )
            )


def load_article(folder: Path) -> ArticleSource:
    """Read and validate `folder/article.toml` and the prose files it names."""
    path = folder / MANIFEST
    label = str(path)
    if not folder.is_dir():
        what = "no such article folder" if not folder.exists() else "not a folder"
        raise InputError([Problem(path=str(folder), line=1, col=1, pointer="", message=what)])
    if not path.exists():
        raise InputError([whole_file(label, f"no {MANIFEST} in {folder}")])
    text = decode(read_input(path, "text", label=label, inside=folder), label, MANIFEST)
    data = parse_toml(text, label)
    reader = ManifestReader(folder, label, text, data)
    problems = [reader.problem(p.pointer, p.message) for p in check("article", data)]
    if problems:
        raise InputError(problems)
    runs = reader.runs()
    sections = reader.sections()
    try:
        dt.date.fromisoformat(data["date"])  # the schema checks its form, not the calendar
    except ValueError as exc:
        problems.append(reader.problem("/date", f"{data['date']!r} is not a date: {exc}"))
    _unique(problems, "run", [(r.id, r.place) for r in runs])
    _unique(problems, "table", [(t.id, t.place) for s in sections for t in s.tables])
    _unique(problems, "chart", [(c.id, c.place) for s in sections for c in s.charts])
    _chart_tables(problems, sections)
    _frontier_tables(problems, sections, data)
    if "cost" in data:
        try:
            dt.date.fromisoformat(data["cost"]["date"])
        except ValueError as exc:
            problems.append(
                reader.problem("/cost/date", f"{data['cost']['date']!r} is not a date: {exc}")
            )
    slo, slo_problems = _slo(reader, data.get("slo"))
    problems += slo_problems
    files = [(name, r.place) for r in runs for name in r.files]
    _unique(problems, "run file", files)
    problems += _absent_run_files(reader, folder, data, text)
    problems += _unknown_lints(reader, data)
    if problems:
        raise InputError(problems)
    published = data.get("published", {})
    article = ArticleSource(
        folder=folder,
        slug=folder.resolve().name,
        title=reader.required("/title"),
        subtitle=reader.text("/subtitle"),
        date=data["date"],
        status=reader.prose(data["status"]) if "status" in data else None,
        status_at=data.get("status_at", "start"),
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
        cost=_price(data.get("cost")),
        slo=slo,
    )
    prose = [t for t in (article.status, *(s.prose for s in sections)) if t is not None]
    drafts = source_drafts(Text(text=text, file=label, line=1), prose)
    digests = {MANIFEST: text} | {t.file.removeprefix(f"{folder}/"): t.text for t in prose}
    article = replace(
        article,
        drafts=drafts,
        digests=FrozenDict(
            (name, hashlib.sha256(body.encode("utf-8")).hexdigest())
            for name, body in sorted(digests.items())
        ),
    )
    problems = over_limits(article)  # first: past a limit, prose may be too large to parse
    if not problems:
        problems = [p for text in article.texts() for p in malformed_references(text)]
    if problems:
        raise InputError(problems)
    return article


def load_setup(folder: Path) -> Setup:
    """The setup stated by an article folder's manifest (its first run's)."""
    return load_article(folder).setup
