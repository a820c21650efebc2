"""The article's declared setup against what its run files record: the model, the engine, the
tensor parallelism and the tool versions. A contradiction is a lint error that names both places
(the run file's field and the line of article.toml); names declared as aliases are accepted."""

from __future__ import annotations

from collections.abc import Iterator

from reportgen.article.source.declarations import ArticleSource, RunDecl
from reportgen.metrics.lints.findings import Finding, define_lint
from reportgen.metrics.registry import MetricSet
from reportgen.model import CanonicalRun, MatrixRun, Run, SweepRun

LINT = define_lint(
    "setup-contradicts-data",
    severity="error",
    rule="the setup in article.toml contradicts a run file (model, engine, tensor parallel, tool)",
    title="The article's setup and its run files disagree",
    why="The article says one thing about how the numbers were measured and the run files "
    "another; one of them is wrong.",
)


def _same(declared: str, recorded: str, aliases: tuple[str, ...]) -> bool:
    """Equal ignoring case, or equal in their last path part (a model served from a folder)."""
    names = {n.strip().lower() for n in (declared, *aliases)}
    found = recorded.strip().lower()
    return found in names or found.rsplit("/", 1)[-1] in {n.rsplit("/", 1)[-1] for n in names}


def _recorded(run: Run) -> Iterator[tuple[str, str, str]]:
    """(what, the value the file records, its pointer) for each fact the run file states."""
    if isinstance(run, CanonicalRun):
        yield "model", run.hf_id, f"{run.pointer}/hfId"
        yield "engine", run.engine_name, f"{run.pointer}/engineName"
        tp = run.engine_flags.get("tensorParallel")
        if tp is not None:
            yield "tensor_parallel", str(tp), f"{run.pointer}/engineFlags/tensorParallel"
    elif isinstance(run, MatrixRun | SweepRun):
        base = "/metadata" if isinstance(run, MatrixRun) else ""
        if run.model:
            yield "model", run.model, f"{base}/model"
        if run.engine:
            yield "engine", run.engine, f"{base}/engine"
        if isinstance(run, SweepRun):
            settings = dict(run.settings)
            if settings.get("tensor_parallel") is not None:
                yield "tensor_parallel", str(settings["tensor_parallel"]), "/tp"


def _contradictions(decl: RunDecl, run: Run) -> Iterator[tuple[str, str, str, str]]:
    setup = decl.setup
    declared = {
        "model": (setup.hf_id, decl.alias("model")),
        "engine": (setup.engine_name, decl.alias("engine")),
        "tensor_parallel": (
            None if setup.tensor_parallel is None else str(setup.tensor_parallel),
            (),
        ),
    }
    for what, value, pointer in _recorded(run):
        said, aliases = declared[what]
        if said is not None and not _same(said, value, aliases):
            yield what, said, value, pointer
    tools = dict(decl.tools)
    tool, version = run.source.tool.split(" ", 1)[0], run.source.format_version
    if tool in tools and version and tools[tool] != version:
        yield f"{tool} version", tools[tool], version, ""


def consistency(article: ArticleSource, metrics: MetricSet) -> tuple[Finding, ...]:
    """A finding for every fact a run file records that contradicts the article's setup."""
    out = []
    by_file = {name: decl for decl in article.runs for name in decl.files}
    for run in metrics.runs:
        decl = by_file.get(run.source.label)
        if decl is None:
            continue
        for what, said, recorded, pointer in _contradictions(decl, run):
            place = f"{decl.place.file}:{decl.place.line}"
            out.append(
                Finding(
                    id=LINT.id,
                    severity=LINT.severity,
                    file=run.source.label,
                    pointer=pointer,
                    cell=decl.label,
                    metrics=(),
                    evidence=f"{what}: article.toml says {said!r}, "
                    f"{run.source.label} records {recorded!r}",
                    message=f"The article's setup ({place}) says the {what} is {said!r}, but "
                    f"{run.source.label} records {recorded!r}; correct one of them, or declare "
                    f"the file's name as an alias of the setup's ([runs.setup.aliases]).",
                )
            )
    return tuple(out)
