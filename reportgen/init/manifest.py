"""`reportgen init`'s `article.toml` and `intro.md`: the runs with the setup their files record
(what they do not record left for the author, never guessed), the key result, the sections, and
the lint findings as commented-out acknowledgements to review."""

from __future__ import annotations

import re
from collections.abc import Sequence

from reportgen.article.source.draft import DRAFT
from reportgen.article.source.toml import toml_string as q
from reportgen.init.runs import InitRun, slug
from reportgen.init.sections import declarations
from reportgen.metrics.lints.findings import Finding
from reportgen.metrics.registry import MetricSet, MetricValue

_HF_ID = re.compile(r"[^/\s]+/[^/\s]+")
NO_ENGINE = f"{DRAFT} the engine (its run files do not name it)"


def _setup(run: InitRun, hardware: tuple[str, int] | None) -> list[str]:
    lines = []
    if hardware is not None:
        lines += ["[runs.setup.hardware]", f"gpu_name = {q(hardware[0])}"]
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
        lines.append(f"hf_id = {q(model)}")
    else:
        hf = f"local/{slug(model.rsplit('/', 1)[-1]) or 'model'}"
        lines += [
            f"# The run files name the model {model!r}, which is not a Hugging Face id:",
            "# replace this with the model's id.",
            f"hf_id = {q(hf)}",
        ]
    lines += ["", "[runs.setup.engine]", f"name = {q(run.engine or NO_ENGINE)}", ""]
    aliases = {"model": run.model} if run.model and not _HF_ID.fullmatch(run.model) else {}
    if aliases:
        lines += ["[runs.setup.aliases]"]
        lines += [f"{k} = [{q(v)}]" for k, v in aliases.items()] + [""]
    if run.versions:
        lines += ["[runs.setup.tools]"]
        lines += [f"{tool} = {q(v)}" for tool, v in sorted(run.versions.items())] + [""]
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
    return ["[[key_results]]", f"metric = {q(top.id)}", 'caption = "the most output"', ""]


def manifest_text(
    title: str, date: str, runs: list[InitRun], metrics: MetricSet, hardware: tuple[str, int] | None
) -> str:
    lines = [
        "# Written by `reportgen init`: edit freely. Numbers are never typed here: prose and",
        "# captions refer to them as {{ metric.id }} (`reportgen metrics FOLDER` lists the ids).",
        "",
        f"title = {q(title)}",
        f"date = {q(date)}",
        'status = "intro.md"',
        "",
    ]
    for run in runs:
        lines += ["[[runs]]"]
        if len(runs) > 1:
            lines += [f"id = {q(run.id)}", f"label = {q(run.label or run.engine or run.id)}"]
        if len(run.files) <= 3:
            lines += ["files = [" + ", ".join(q(f) for f in run.files) + "]", ""]
        else:
            lines += ["files = [", *(f"  {q(f)}," for f in run.files), "]", ""]
        lines += _setup(run, hardware)
    lines += _key_results(metrics)
    lines += declarations(metrics, runs)
    return "\n".join(lines).rstrip("\n") + "\n"


def acknowledgements(findings: Sequence[Finding]) -> str:
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
        lines += ["", "# [[acknowledge]]", f"# lint = {q(lint)}"]
        if cells:
            lines += ["# cells = [" + ", ".join(q(c) for c in dict.fromkeys(cells)) + "]"]
        lines += ['# reason = "..."']
    return "\n".join(lines) + "\n"


def intro_text(metrics: MetricSet) -> str:
    """The prose stub: what to write, and one reference to show how numbers are written."""
    text = (
        f"{DRAFT} Say here what was measured, on what, and why; then what a reader should take "
        "away. Numbers are references, never typed: `reportgen metrics .` lists every id.\n"
    )
    top = _top(metrics)
    if top is not None:
        text += f"\nThe most output any run reached is {{{{ {top.id} }}}}.\n"
    return text
