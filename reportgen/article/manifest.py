"""Load stage for an article's source: `article.toml` and its Markdown prose.

Folder in, `ArticleSource` out. The manifest is validated against `schemas/article.schema.json`;
every problem is located at its line in the file. Strings keep their location, so a bad reference
to data inside them can be reported where it was written.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportgen.errors import InputError, Problem
from reportgen.files import read_input
from reportgen.formats.jsonfile import split_pointer
from reportgen.formats.schemas import check
from reportgen.model import Hardware, Setup

MANIFEST = "article.toml"
_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\"' ]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-\"']+)\s*=")


@dataclass(frozen=True)
class Text:
    """A piece of article text and where it was written (for located errors)."""

    text: str
    file: str
    line: int
    col: int = 1
    markdown: bool = False  # a whole Markdown file rather than one line of the manifest


@dataclass(frozen=True)
class Headline:
    """A headline number of the canonical section: which metric, and the words under it."""

    metric: str
    caption: Text


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

    def covers(self, lint: str, cell: str | None) -> bool:
        """True when a finding of `lint` at `cell` falls under this acknowledgement."""
        return lint == self.lint and (not self.cells or cell in self.cells)


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
    setup: Setup
    bench: Text | None
    canonical_runs: tuple[str, ...]
    headlines: tuple[Headline, ...]
    matrix_run: str | None
    notes: tuple[tuple[str, Text], ...]  # table id -> method note
    prose: tuple[Text, ...]
    published: tuple[str, ...] = ()  # published versions, relative to the folder
    omissions: tuple[Omission, ...] = ()
    acknowledgements: tuple[Acknowledgement, ...] = ()

    def texts(self) -> list[Text]:
        """Every piece of text the article's source gives, in page order."""
        out = [self.title, self.subtitle, self.status, self.bench]
        out += [h.caption for h in self.headlines] + [t for _, t in self.notes]
        out += [*self.prose, self.source] + [a.reason for a in self.acknowledgements]
        return [t for t in out if t is not None]

    def published_paths(self) -> list[Path]:
        """The published versions the manifest names, in manifest order."""
        return [self.folder / name for name in self.published]

    def run_paths(self) -> list[Path]:
        """The run files the article is built from, in manifest order."""
        names = (*self.canonical_runs, *([self.matrix_run] if self.matrix_run else []))
        return [self.folder / name for name in names]

    def note(self, table_id: str) -> Text | None:
        """The method note under a table, if the manifest gives one."""
        return dict(self.notes).get(table_id)


class _Locator:
    """Line and column of a key path in a TOML text (tables, arrays of tables, plain keys)."""

    def __init__(self, text: str) -> None:
        self.places: dict[str, tuple[int, int]] = {}
        table: list[str] = []
        counts: dict[str, int] = {}
        for n, line in enumerate(text.splitlines(), start=1):
            header = _HEADER.match(line)
            if header and not _KEY.match(line):
                parts = [p.strip().strip("\"'") for p in header.group(2).split(".")]
                if header.group(1) == "[[":
                    key = "/".join(parts)
                    counts[key] = counts.get(key, -1) + 1
                    parts = [*parts, str(counts[key])]
                table = parts
                self.places.setdefault("/" + "/".join(table), (n, line.index("[") + 1))
                continue
            key_match = _KEY.match(line)
            if key_match:
                key = key_match.group(1).strip("\"'")
                value_col = line.index("=") + 2
                while value_col <= len(line) and line[value_col - 1] == " ":
                    value_col += 1
                self.places["/" + "/".join([*table, key])] = (n, value_col)

    def locate(self, pointer: str) -> tuple[int, int]:
        tokens = split_pointer(pointer)
        while tokens:
            place = self.places.get("/" + "/".join(tokens))
            if place:
                return place
            tokens = tokens[:-1]
        return 1, 1


def _text(data: dict[str, Any], pointer: str, label: str, where: _Locator) -> Text | None:
    value: Any = data
    for token in split_pointer(pointer):
        if isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        elif isinstance(value, dict) and token in value:
            value = value[token]
        else:
            return None
    line, col = where.locate(pointer)
    # The value starts at its opening quote; the text one column later.
    return Text(str(value), label, line, col + 1)


def _decode(raw: bytes, label: str, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError([Problem(label, line, 1, "", f"{what} is not valid UTF-8")]) from None


def _prose_file(folder: Path, name: str, label: str) -> Text:
    raw = read_input(folder / name, "text", label=label, inside=folder)
    return Text(_decode(raw, label, "prose"), label, 1, 1, markdown=True)


def _parse_toml(text: str, label: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line, col = (int(found.group(1)), int(found.group(2))) if found else (1, 1)
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise InputError([Problem(label, line, col, "", f"invalid TOML: {message}")]) from None
    except RecursionError:
        raise InputError(
            [Problem(label, 1, 1, "", "invalid TOML: tables or arrays nested too deeply")]
        ) from None


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
    data = _parse_toml(text, label)
    where = _Locator(text)
    problems = [
        Problem(label, *where.locate(p.pointer), p.pointer, p.message)
        for p in check("article", data)
    ]
    if problems:
        raise InputError(problems)
    base = str(folder)

    def prose(name: str) -> Text:
        return _prose_file(folder, name, f"{base}/{name}")

    hw, model, engine = (data["setup"][k] for k in ("hardware", "model", "engine"))
    setup = Setup(
        hardware=Hardware(
            gpu_name=hw["gpu_name"],
            gpu_count=hw["gpu_count"],
            gpu_vram_gb=hw["gpu_vram_gb"],
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
    )
    canonical = data.get("canonical", {})
    headlines = tuple(
        Headline(
            h["metric"],
            _text(data, f"/canonical/headline/{i}/caption", label, where) or Text("", label, 1),
        )
        for i, h in enumerate(canonical.get("headline", []))
    )
    notes = tuple(
        (table_id, t)
        for table_id in sorted(data.get("matrix", {}).get("notes", {}))
        if (t := _text(data, f"/matrix/notes/{table_id}", label, where)) and t.text
    )
    title = _text(data, "/title", label, where)
    assert title is not None
    published = data.get("published", {})

    def text_at(pointer: str) -> Text:
        found = _text(data, pointer, label, where)
        assert found is not None  # the schema requires it
        return found

    return ArticleSource(
        folder=folder,
        slug=folder.resolve().name,
        title=title,
        subtitle=_text(data, "/subtitle", label, where),
        date=data["date"],
        status=prose(data["status"]) if "status" in data else None,
        source=_text(data, "/source", label, where),
        setup=setup,
        bench=_text(data, "/setup/bench/text", label, where),
        canonical_runs=tuple(canonical.get("runs", [])),
        headlines=headlines,
        matrix_run=data.get("matrix", {}).get("run"),
        notes=notes,
        prose=tuple(prose(name) for name in data.get("prose", [])),
        published=tuple(published.get("files", [])),
        omissions=tuple(
            Omission(o["what"], text_at(f"/published/omit/{i}/reason"))
            for i, o in enumerate(published.get("omit", []))
        ),
        acknowledgements=tuple(
            Acknowledgement(
                a["lint"], tuple(a.get("cells", [])), text_at(f"/acknowledge/{i}/reason")
            )
            for i, a in enumerate(data.get("acknowledge", []))
        ),
    )


def load_setup(folder: Path) -> Setup:
    """The setup stated by an article folder's manifest."""
    return load_article(folder).setup
