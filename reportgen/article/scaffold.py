"""`reportgen init`: a new article folder from run files, that builds at once.

The run files are validated and copied in; they are grouped into the article's runs (one per
tool, engine and model; files that measure the same cell again are its repetitions, which the
metrics combine into a median with its spread); the setup is written from what the files
record, and what they do not record (the GPU, often the engine) is left for the author to fill
in, never guessed. Tables, charts and key
results are declared for the shape the data has: a decode matrix, a sweep of load points, or
canonical runs; side by side, with delta and ratio, when there are two runs.

Everything is written into a fresh folder beside the target, built in memory there, and only then
moved into place: a failure leaves nothing half-written.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reportgen.article.manifest import MANIFEST
from reportgen.errors import InputError, Problem, has_errors
from reportgen.formats.load import load
from reportgen.metrics import MetricSet, MetricValue, compute
from reportgen.metrics.lints import Finding
from reportgen.model import CanonicalRun, MatrixRun, Run, SweepRun, context_label

_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\.jsonl?")
_HF_ID = re.compile(r"[^/\s]+/[^/\s]+")
NO_ENGINE = "the engine (its run files do not name it)"


@dataclass
class _Run:
    id: str
    kind: str  # "matrix", "sweep", "canonical"
    tool: str
    engine: str | None
    model: str | None
    files: list[str] = field(default_factory=list)
    versions: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Scaffold:
    """What `init` wrote."""

    folder: Path
    files: tuple[str, ...]  # the run files, as named in the folder
    runs: int
    findings: tuple[str, ...]  # the lint findings the author should review


def _kind(run: Run) -> str:
    if isinstance(run, MatrixRun):
        return "matrix"
    return "sweep" if isinstance(run, SweepRun) else "canonical"


def _engine(run: Run) -> str | None:
    return run.engine_name if isinstance(run, CanonicalRun) else run.engine


def _model(run: Run) -> str | None:
    return run.hf_id if isinstance(run, CanonicalRun) else run.model


def _names(paths: Sequence[Path]) -> list[str]:
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


def _group(runs: Sequence[tuple[str, Run]]) -> list[_Run]:
    """The article's runs: files of one tool, engine and model together. A file that measures a
    cell another file of the run has is a repetition of it (r1, r2, ...), not a run of its own:
    the metrics combine repetitions into their median and spread."""
    groups: list[_Run] = []
    for name, run in runs:
        key = (_kind(run), run.source.tool.split(" ")[0], _engine(run), _model(run))
        home = next(
            (g for g in groups if (g.kind, g.tool, g.engine, g.model) == key),
            None,
        )
        if home is None:
            home = _Run(f"run{len(groups) + 1}", *key)
            groups.append(home)
        home.files.append(name)
        if run.source.format_version:
            home.versions[run.source.tool.split(" ")[0]] = run.source.format_version
    _name_runs(groups)
    return groups


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:24].strip("-") or "run"


def _name_runs(groups: list[_Run]) -> None:
    """Run ids from what tells the runs apart: the engine, else the model, else the tool that
    measured them, else a number."""
    if len(groups) == 1:
        return
    for attr in ("engine", "model", "tool", "kind"):
        ids = [_slug(str(getattr(g, attr) or "")) for g in groups]
        if len(set(ids)) == len(ids) and all(i[0].isalpha() for i in ids):
            for g, i in zip(groups, ids, strict=True):
                g.id = i
            return


def _q(text: str) -> str:
    """A TOML basic string."""
    return json.dumps(text, ensure_ascii=False)


def _setup(run: _Run, hardware: tuple[str, int] | None) -> list[str]:
    lines = []
    if hardware is not None:
        lines += ["[runs.setup.hardware]", f"gpu_name = {_q(hardware[0])}"]
        lines += [f"gpu_count = {hardware[1]}", ""]
    else:
        lines += [
            "# The run files do not record the hardware. State it, and the article shows",
            "# per-GPU (and, with a power cap, per-watt) numbers:",
            "# [runs.setup.hardware]",
            '# gpu_name = "NVIDIA H100 80GB HBM3"',
            "# gpu_count = 8",
            "# gpu_vram_gb = 80",
            "# gpu_power_cap_w = 700",
            "",
        ]
    model = run.model or "unknown/model"
    lines.append("[runs.setup.model]")
    if _HF_ID.fullmatch(model):
        lines.append(f"hf_id = {_q(model)}")
    else:
        hf = f"local/{_slug(model.rsplit('/', 1)[-1]) or 'model'}"
        lines += [
            f"# The run files name the model {model!r}, which is not a Hugging Face id:",
            "# replace this with the model's id.",
            f"hf_id = {_q(hf)}",
        ]
    lines += ["", "[runs.setup.engine]", f"name = {_q(run.engine or NO_ENGINE)}", ""]
    aliases = {"model": run.model} if run.model and not _HF_ID.fullmatch(run.model) else {}
    if aliases:
        lines += ["[runs.setup.aliases]"]
        lines += [f"{k} = [{_q(v)}]" for k, v in aliases.items()] + [""]
    if run.versions:
        lines += ["[runs.setup.tools]"]
        lines += [f"{tool} = {_q(v)}" for tool, v in sorted(run.versions.items())] + [""]
    return lines


def _values(metrics: MetricSet, key: str, run: _Run, many: bool) -> list[MetricValue]:
    return [
        v
        for v in metrics.values
        if v.key == key and v.stat is None and (not many or v.run == run.id)
    ]


def _sweep_axis(metrics: MetricSet, run: _Run, many: bool) -> str:
    points = [c for c in metrics.cells if c.kind == "load" and (not many or c.run == run.id)]
    if points and all(c.rate is not None for c in points):
        return "rate"
    if points and all(c.concurrency is not None for c in points):
        return "concurrency"
    return "point"


_LOAD_COLUMNS = (
    ("load.requests", "completed"),
    ("load.failed", "failed"),
    ("load.output_tok_s", "output tok/s"),
    ("load.ttft_s", "TTFT p50"),
    ("load.ttft_s.p99", "TTFT p99"),
    ("load.itl_s", "ITL p50"),
    ("load.itl_s.p99", "ITL p99"),
    ("load.latency_s.p99", "latency p99"),
)


_MATRIX_TABLES = (
    (
        "aggregate",
        "decode.aggregate_tok_s",
        "Decode throughput, all requests together",
        "(output tok/s)",
    ),
    (
        "per-request",
        "decode.per_request_tok_s",
        "Decode speed seen by each request",
        "(tok/s, median)",
    ),
    ("ttft", "decode.ttft_s", "Time to first token", "(s, median)"),
)
# Cells measured in several files (repetitions): the tables above show their median.
_SPREAD_TABLES = (
    (
        "aggregate-lowest",
        "decode.aggregate_tok_s.rep_min",
        "Decode throughput, lowest repetition",
        "(output tok/s)",
    ),
    (
        "aggregate-highest",
        "decode.aggregate_tok_s.rep_max",
        "Decode throughput, highest repetition",
        "(output tok/s)",
    ),
    ("repetitions", "decode.aggregate_tok_s.reps", "Repetitions of each cell", "(files)"),
)
_REPEATED = (
    "Several files measured these cells again: each cell is the median of its repetitions, "
    "with the lowest and highest repetition in the tables below."
)
_PREFILL_COLUMNS = (
    ("prefill.prompt_tokens", "prompt tokens"),
    ("prefill.ttft_s", "TTFT"),
    ("prefill.tok_s", "prefill tok/s"),
)
_SECTION_TITLES = {"matrix": "Decode matrix", "sweep": "Load points", "canonical": "Single runs"}
_THROUGHPUT = {"matrix": "decode.aggregate_tok_s", "sweep": "load.output_tok_s"}
_SPEED = {"matrix": "decode.per_request_tok_s", "sweep": "load.per_request_tok_s"}


def _contexts(metrics: MetricSet, key: str) -> list[int]:
    return sorted({v.context for v in metrics.values if v.key == key and v.context is not None})


def _own_tables(metrics: MetricSet, run: _Run, many: bool) -> list[str]:
    """The tables of one run on its own (in an article of several, filtered to it)."""
    suffix, rid = (f" ({run.id})", f"-{run.id}") if many else ("", "")
    where = [f"where = {{ run = {_q(run.id)} }}"] if many else []
    lines: list[str] = []
    if run.kind == "matrix":
        have = {v.metric for v in metrics.values if not many or v.run == run.id}
        if "prefill.tok_s" in have:
            lines += ["[[sections.table]]", f'id = "prefill{rid}"']
            lines += [f"title = {_q('Prefill (one cold request)' + suffix)}", 'rows = "context"']
            lines += [*where, "columns = ["]
            lines += [f'  {{ metric = "{m}", header = {_q(h)} }},' for m, h in _PREFILL_COLUMNS]
            lines += ["]", ""]
        tables = [*_MATRIX_TABLES]
        if "decode.aggregate_tok_s.reps" in have:
            tables += _SPREAD_TABLES
        for tid, metric, title, unit in tables:
            if metric not in have:
                continue
            lines += ["[[sections.table]]", f'id = "{tid}{rid}"', f"title = {_q(title + suffix)}"]
            lines += [f"unit = {_q(unit)}", f'metric = "{metric}"', 'rows = "context"']
            if tid == "aggregate" and "decode.aggregate_tok_s.reps" in have:
                lines += [f"note = {_q(_REPEATED)}"]
            lines += ['columns = "concurrency"', 'corner = "context \\\\ concurrent"', *where, ""]
        return lines
    have = {v.metric for v in metrics.values if not many or v.run == run.id}
    lines += ["[[sections.table]]", f'id = "load-points{rid}"']
    lines += [f"title = {_q('One row per load point' + suffix)}"]
    lines += [f'rows = "{_sweep_axis(metrics, run, many)}"', *where, "columns = ["]
    lines += [f'  {{ metric = "{m}", header = {_q(h)} }},' for m, h in _LOAD_COLUMNS if m in have]
    return [*lines, "]", ""]


def _compare_tables(metrics: MetricSet, base: _Run, other: _Run) -> list[str]:
    """Side by side, with delta and ratio: per context for a matrix, by load for a sweep."""
    key = _THROUGHPUT[base.kind]
    axis = "concurrency" if base.kind == "matrix" else _sweep_axis(metrics, base, True)
    contexts: list[int | None] = [*_contexts(metrics, key)] or [None]
    lines: list[str] = []
    for ctx in contexts:
        at = f" at context {context_label(ctx)}" if ctx is not None else ""
        lines += ["[[sections.table]]", f'id = "compare{"-" + str(ctx) if ctx else ""}"']
        lines += [f"title = {_q(f'{other.id} against {base.id}{at}')}", f'metric = "{key}"']
        lines += [f'rows = "{axis}"', 'columns = "run"']
        lines += [f"where = {{ context = {ctx} }}"] if ctx is not None else []
        lines += [
            f'compare = {{ base = "{base.id}", other = "{other.id}", show = ["delta", "ratio"] }}',
            "",
        ]
    return lines


def _interactivity(metrics: MetricSet, kind: str, first: _Run, many: bool) -> list[str]:
    y, x = _THROUGHPUT[kind], _SPEED[kind]
    series = "run" if many else ("context" if kind == "matrix" else None)
    label = "concurrency" if kind == "matrix" else _sweep_axis(metrics, first, many)
    lines = ["[[sections.chart]]", f'id = "interactivity-{kind}"', 'kind = "interactivity"']
    lines += ['title = "Throughput against interactivity"', f'metric = "{y}"', f'x = "{x}"']
    lines += [f'label = "{label}"'] + ([f'series = "{series}"'] if series else [])
    contexts = _contexts(metrics, y)
    if kind == "matrix" and many and contexts:
        lines += [f"where = {{ context = {contexts[0]} }}"]
    caption = "Output tokens per second of all requests against the median speed one request sees."
    return [*lines, f"caption = {_q(caption)}", ""]


def _declarations(metrics: MetricSet, runs: list[_Run]) -> list[str]:
    """Sections, tables and charts for the data's shape."""
    many = len(runs) > 1
    lines = ["[[sections]]", 'kind = "setup"', 'title = "Setup"', ""]
    for kind in ("matrix", "sweep", "canonical"):
        of_kind = [r for r in runs if r.kind == kind]
        if not of_kind:
            continue
        lines += ["[[sections]]", f'id = "{kind}"', f"title = {_q(_SECTION_TITLES[kind])}", ""]
        if kind == "canonical":
            for r in of_kind:
                for v in _values(metrics, "canonical.output_tok_s", r, many):
                    lines += ["[[sections.headline]]", f'metric = "{v.id}"']
                    lines += [f'caption = "output, {v.concurrency} request(s) together"', ""]
            continue
        if len(of_kind) == 2:
            lines += _compare_tables(metrics, *of_kind)
        for r in of_kind:
            lines += _own_tables(metrics, r, many)
        lines += _interactivity(metrics, kind, of_kind[0], many)
    return lines


def _top(metrics: MetricSet) -> MetricValue | None:
    """The highest throughput of the article's main kind of data."""
    for key in ("decode.aggregate_tok_s", "load.output_tok_s", "canonical.output_tok_s"):
        found = [v for v in metrics.values if v.key == key and v.stat is None]
        if found:
            return max(found, key=lambda v: v.value)
    return None


def _key_results(metrics: MetricSet) -> list[str]:
    top = _top(metrics)
    if top is None:
        return []
    return ["[[key_results]]", f'metric = "{top.id}"', 'caption = "the most output"', ""]


def _manifest(
    title: str, date: str, runs: list[_Run], metrics: MetricSet, hardware: tuple[str, int] | None
) -> str:
    lines = [
        "# Written by `reportgen init`: edit freely. Numbers are never typed here: prose and",
        "# captions refer to them as {{ metric.id }} (`reportgen metrics FOLDER` lists the ids).",
        "",
        f"title = {_q(title)}",
        f"date = {_q(date)}",
        'status = "intro.md"',
        "",
    ]
    for run in runs:
        lines += ["[[runs]]"]
        if len(runs) > 1:
            lines += [f'id = "{run.id}"', f"label = {_q(run.engine or run.id)}"]
        if len(run.files) <= 3:
            lines += ["files = [" + ", ".join(_q(f) for f in run.files) + "]", ""]
        else:
            lines += ["files = [", *(f"  {_q(f)}," for f in run.files), "]", ""]
        lines += _setup(run, hardware)
    lines += _key_results(metrics)
    lines += _declarations(metrics, runs)
    return "\n".join(lines).rstrip("\n") + "\n"


def _title(runs: list[_Run]) -> str:
    model = runs[0].model or "a model"
    engines = list(dict.fromkeys(r.engine for r in runs if r.engine))
    if len(engines) > 1:
        return f"{model.rsplit('/', 1)[-1]}: {' against '.join(engines)}"
    return f"{model.rsplit('/', 1)[-1]} on {engines[0]}" if engines else f"{model} benchmarked"


def scaffold(
    folder: Path,
    paths: Sequence[Path],
    *,
    title: str | None = None,
    date: str | None = None,
    hardware: tuple[str, int] | None = None,
) -> Scaffold:
    """Write a new article in `folder` from the run files `paths`; `InputError` when a file is
    not a valid run file or the folder already holds an article (nothing is written then)."""
    if (folder / MANIFEST).exists():
        raise InputError(
            [Problem(str(folder / MANIFEST), 1, 1, "", "already exists: init never overwrites")]
        )
    if folder.exists() and not folder.is_dir():
        raise InputError([Problem(str(folder), 1, 1, "", "exists and is not a folder")])
    result = load(paths)
    if has_errors(result.problems):
        raise InputError(list(result.problems))
    names = _names(paths)
    by_label = {str(p): n for p, n in zip(paths, names, strict=True)}
    runs = _group([(by_label[r.source.label], r) for r in result.runs])
    parent = folder.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{folder.name}.init-", dir=parent))
    try:
        for path, name in zip(paths, names, strict=True):
            shutil.copyfile(path, work / name)
        relabelled = load([work / n for n in names], label_root=work)
        run_of = {f: r.id for r in runs for f in r.files} if len(runs) > 1 else {}
        metrics = compute(relabelled.runs, run_of=run_of)
        text = _manifest(
            title or _title(runs), date or dt.date.today().isoformat(), runs, metrics, hardware
        )
        (work / MANIFEST).write_text(text, encoding="utf-8")
        (work / "intro.md").write_text(_intro(metrics), encoding="utf-8")
        from reportgen.article.build import render_article

        built = render_article(work)
        if built.findings:
            (work / MANIFEST).write_text(text + _acknowledgements(built.findings), "utf-8")
        _move_in(work, folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    findings = tuple(f.format(reason=False) for f in built.findings)
    return Scaffold(folder, tuple(names), len(runs), findings)


def _acknowledgements(findings: Sequence[Finding]) -> str:
    """Each lint's findings as a commented-out acknowledgement for the author to review."""
    by_lint: dict[str, list[str]] = {}
    for f in findings:
        by_lint.setdefault(f.id, []).extend([f.where] if f.where else [])
    lines = [
        "",
        "# What reportgen's checks found in the data (`reportgen check` lists each finding).",
        "# Review each one; where the data stands as it is, uncomment its block and say why.",
    ]
    for lint, cells in by_lint.items():
        lines += ["", "# [[acknowledge]]", f"# lint = {_q(lint)}"]
        if cells:
            lines += ["# cells = [" + ", ".join(_q(c) for c in dict.fromkeys(cells)) + "]"]
        lines += ['# reason = "..."']
    return "\n".join(lines) + "\n"


def _intro(metrics: MetricSet) -> str:
    """The prose stub: what to write, and one reference to show how numbers are written."""
    text = (
        "**Draft.** Say here what was measured, on what, and why; then what a reader should take "
        "away. Numbers are references, never typed: `reportgen metrics .` lists every id.\n"
    )
    top = _top(metrics)
    if top is not None:
        text += f"\nThe most output any run reached is {{{{ {top.id} }}}}.\n"
    return text


def _move_in(work: Path, folder: Path) -> None:
    """Move the written files into `folder` (created if missing; files already there are kept)."""
    folder.mkdir(parents=True, exist_ok=True)
    for item in sorted(work.iterdir()):
        target = folder / item.name
        run_file = item.suffix in (".json", ".jsonl")
        if target.exists() and run_file and target.read_bytes() == item.read_bytes():
            continue  # the run file was already in the folder
        if target.exists():
            raise InputError(
                [Problem(str(target), 1, 1, "", "already exists: init never overwrites")]
            )
    for item in sorted(work.iterdir()):
        target = folder / item.name
        if not target.exists():
            item.replace(target)
