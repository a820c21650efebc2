"""`reportgen init`'s runs: run files grouped into the article's runs (one per tool, engine and
model; files that measure a cell again are its repetitions), named apart, and the file names
they get in the article folder."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reportgen.model import CanonicalRun, MatrixRun, Run, SweepRun

_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\.jsonl?")


@dataclass(kw_only=True)
class InitRun:
    id: str
    kind: str  # "matrix", "sweep", "canonical"
    tool: str
    engine: str | None
    model: str | None
    files: list[str] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)
    label: str | None = None  # how tables name the run, when not by its engine


def _kind(run: Run) -> str:
    if isinstance(run, MatrixRun):
        return "matrix"
    return "sweep" if isinstance(run, SweepRun) else "canonical"


def _engine(run: Run) -> str | None:
    return run.engine_name if isinstance(run, CanonicalRun) else run.engine


def _model(run: Run) -> str | None:
    return run.hf_id if isinstance(run, CanonicalRun) else run.model


def file_names(paths: Sequence[Path]) -> list[str]:
    """A file name in the article folder for each path: its own, made safe and unique."""
    out: list[str] = []
    for path in paths:
        name = re.sub(r"[^A-Za-z0-9._-]", "-", path.name).lstrip("._-") or "run.json"
        if not name.endswith((".json", ".jsonl")):
            name += ".json"
        if name in out:
            name = f"{re.sub(r'[^A-Za-z0-9_-]', '-', path.parent.name).strip('-')}-{name}"
        base, n = name, 2
        while name in out or not _FILE_NAME.fullmatch(name):
            name = f"{n}-{base}"
            n += 1
        out.append(name)
    return out


def group_runs(runs: Sequence[tuple[str, Run]]) -> list[InitRun]:
    """The article's runs: files of one tool, engine and model together. A file that measures a
    cell another file of the run has is a repetition of it (r1, r2, ...), not a run of its own:
    the metrics combine repetitions into their median and spread. A llama-bench file is a run of
    its own, labelled by its file's name."""
    groups: list[InitRun] = []
    for name, run in runs:
        key = (_kind(run), run.source.tool.split(" ")[0], _engine(run), _model(run))
        # a llama-bench file is a run of its own: its settings (which the file holds, not the
        # run model) may differ from another file's, and its cells are no repetitions of them
        own = name.rsplit(".", 1)[0] if run.source.format == "llama-bench" else None
        home = next(
            (g for g in groups if (g.kind, g.tool, g.engine, g.model) == key and own is None),
            None,
        )
        if home is None:
            kind, tool, engine, model = key
            home = InitRun(
                id=f"run{len(groups) + 1}",
                kind=kind,
                tool=tool,
                engine=engine,
                model=model,
                label=own,
            )
            groups.append(home)
        home.files.append(name)
        if run.source.format_version:
            home.versions[run.source.tool.split(" ")[0]] = run.source.format_version
    _name_runs(groups)
    return groups


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:24].strip("-") or "run"


def _name_runs(groups: list[InitRun]) -> None:
    """Run ids from what tells the runs apart: the engine, else the model, else the tool that
    measured them, else the label (a llama-bench file's name), else a number."""
    if len(groups) == 1:
        return
    for attr in ("engine", "model", "tool", "kind", "label"):
        ids = [slug(str(getattr(g, attr) or "")) for g in groups]
        if len(set(ids)) == len(ids) and all(i[0].isalpha() for i in ids):
            for g, i in zip(groups, ids, strict=True):
                g.id = i
            return


def default_title(runs: list[InitRun]) -> str:
    model = runs[0].model or "a model"
    engines = list(dict.fromkeys(r.engine for r in runs if r.engine))
    if len(engines) > 1:
        return f"{model.rsplit('/', 1)[-1]}: {' against '.join(engines)}"
    return f"{model.rsplit('/', 1)[-1]} on {engines[0]}" if engines else f"{model} benchmarked"
