"""The Setup section's words: each run's rows (GPUs, CPUs and RAM, model, engine, bench) and
RAM and GPUs as a reader writes them."""

from __future__ import annotations

from markupsafe import Markup, escape

from reportgen.article.prose.render import render_inline
from reportgen.article.prose.resolver import Resolver
from reportgen.article.source.declarations import RunDecl
from reportgen.model import Hardware


def ram_text(gb: float) -> str:
    """RAM as a reader writes it: 2048 -> "2 TB", 2200 -> "2.2 TB", 2050 -> "2,050 GB"."""
    if gb >= 1024 and gb % 1024 == 0:
        return f"{gb / 1024:g} TB"
    if gb >= 1000 and (gb / 1000) * 10 == int((gb / 1000) * 10):
        return f"{gb / 1000:g} TB"
    return f"{gb:,g} GB"


def gpus_text(hw: Hardware | None) -> str:
    """The GPUs row: count, name, memory, power cap and note."""
    if hw is None:
        return "not stated by the article"
    gpus = f"{hw.gpu_count}x {hw.gpu_name}"
    if hw.gpu_vram_gb:
        gpus += f", {hw.gpu_vram_gb:g} GB each"
    if hw.gpu_power_cap_w:
        gpus += f", {hw.gpu_power_cap_w:,g} W cap per GPU"
    if hw.gpu_note:
        gpus += f"; {hw.gpu_note}"
    return gpus


def setup_rows(run: RunDecl, resolver: Resolver) -> tuple[tuple[str, Markup], ...]:
    """(label, HTML) of each row of one run's setup table."""
    s, hw = run.setup, run.setup.hardware
    rows = [("GPUs", escape(gpus_text(hw)))]
    if hw is not None:
        host = ", ".join(x for x in (hw.cpu, ram_text(hw.ram_gb) if hw.ram_gb else None) if x)
        if host:
            rows.append(("CPUs, RAM", escape(host)))
    rows.append(("Model", escape(", ".join(x for x in (s.hf_id, s.checkpoint) if x))))
    engine = s.engine_name + (f" {s.engine_version}" if s.engine_version else "")
    engine += f" (build {s.engine_build})" if s.engine_build else ""
    if s.tensor_parallel:
        engine += f", tensor parallel {s.tensor_parallel}"
    if s.engine_description:
        engine += f": {s.engine_description}"
    rows.append(("Engine", escape(engine)))
    if run.bench is not None:
        rows.append(("Bench", render_inline(run.bench, resolver)))
    return tuple(rows)
