"""Turn the schema-validated `article.toml` data into the article's declarations
(`article/source/declarations.py`), each string and declaration with the line and column it is
written at."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reportgen.article.source.declarations import (
    ChartDecl,
    Column,
    Compare,
    Headline,
    Place,
    RunDecl,
    Section,
    TableDecl,
    Text,
    Where,
)
from reportgen.article.source.toml import Locator, value_at
from reportgen.errors import InputError, Problem
from reportgen.fileio import read_input
from reportgen.frozendict import FrozenDict
from reportgen.model import Hardware, Setup


def decode(raw: bytes, label: str, what: str) -> str:
    """`raw` as UTF-8 text; `InputError` at the line of the first byte that is not."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(
            [
                Problem(
                    path=label, line=line, col=1, pointer="", message=f"{what} is not valid UTF-8"
                )
            ]
        ) from None


class ManifestReader:
    """Builds the article's declarations from the validated manifest, with locations."""

    def __init__(self, folder: Path, label: str, text: str, data: dict[str, Any]) -> None:
        self.folder, self.label, self.data = folder, label, data
        self.where = Locator(text)

    def place(self, pointer: str) -> Place:
        return Place(self.label, *self.where.locate(pointer), pointer)

    def problem(self, pointer: str, message: str) -> Problem:
        """An error located at `pointer` in the manifest."""
        line, col = self.where.locate(pointer)
        return Problem(path=self.label, line=line, col=col, pointer=pointer, message=message)

    def text(self, pointer: str) -> Text | None:
        value = value_at(self.data, pointer)
        if value is None:
            return None
        line, col = self.where.locate(pointer)
        return Text(
            text=str(value), file=self.label, line=line, col=col + 1
        )  # the text starts after its quote

    def required(self, pointer: str) -> Text:
        found = self.text(pointer)
        assert found is not None, pointer  # the schema requires it
        return found

    def prose(self, name: str) -> Text:
        label = f"{self.folder}/{name}"
        raw = read_input(self.folder / name, "text", label=label, inside=self.folder)
        return Text(text=decode(raw, label, "prose"), file=label, line=1, col=1, markdown=True)

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
                    aliases=FrozenDict(
                        (k, tuple(v)) for k, v in sorted(raw["setup"].get("aliases", {}).items())
                    ),
                    tools=FrozenDict(sorted(raw["setup"].get("tools", {}).items())),
                    place=self.place(at),
                )
            )
        return tuple(out)

    def table(self, raw: dict[str, Any], at: str) -> TableDecl:
        columns = raw.get("columns", "concurrency")
        if isinstance(columns, list):
            columns = tuple(
                Column(
                    metric=c["metric"],
                    header=c.get("header", c["metric"]),
                    unit=c.get("unit"),
                    decimals=c.get("decimals"),
                    uncertainty=c.get("uncertainty"),
                )
                for c in columns
            )
        compare = raw.get("compare")
        return TableDecl(
            id=raw["id"],
            title=raw["title"],
            unit_words=raw.get("unit", ""),
            note=self.text(f"{at}/note") if raw.get("note") else None,
            metric=raw.get("metric"),
            rows=raw.get("rows", "level"),
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
            kind=raw.get("kind", "grid"),
            x=raw.get("x"),
            series=raw.get("series"),
            levels=tuple(float(v) for v in raw.get("levels", ())),
            cost=bool(raw.get("cost", False)),
            cost_only=raw.get("cost") == "only",
            uncertainty=raw.get("uncertainty"),
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
            beside=raw.get("beside"),
            replaces=raw.get("replaces"),
            frontier=bool(raw.get("frontier", False)),
            error_bars=bool(raw.get("error_bars", False)),
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
    return FrozenDict(
        (axis, tuple(v) if isinstance(v, list) else (v,)) for axis, v in sorted(raw.items())
    )


def _slug(title: str | None) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in (title or "").lower()).split())
