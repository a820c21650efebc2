"""Render stage: article source, metrics and findings in; the article's HTML out (pure).

Builds one documented context object (`ArticleContext`) and hands it to the Jinja template,
which only formats it. Autoescape and `StrictUndefined` are on; the CSS is inlined so the page is
one self-contained file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from reportgen import __version__
from reportgen.article.charts import Chart, render_charts
from reportgen.article.manifest import ArticleSource, Text
from reportgen.article.prose import Resolver, plain, render_block, render_inline
from reportgen.article.tableview import TableView, table_views
from reportgen.errors import InputError, Problem
from reportgen.metrics import DEFINITIONS, MetricDef, MetricSet
from reportgen.metrics.lints import Finding, FindingGroup, group
from reportgen.model import Run, SourceFile
from reportgen.resources import template_dir

TEMPLATE = "article.html.j2"
STYLESHEET = "article.css"


@dataclass(frozen=True)
class Headline:
    number: Markup
    caption: Markup


@dataclass(frozen=True)
class InputFile:
    name: str
    sha256: str
    format: str
    tool: str
    provenance: str
    reconstructed_from: str | None
    note: str | None

    @property
    def reconstructed_source(self) -> str | None:
        """What the file was reconstructed from, without the digest (the appendix has it)."""
        if self.reconstructed_from is None:
            return None
        return self.reconstructed_from.split(" (sha256", 1)[0]


@dataclass(frozen=True)
class ArticleContext:
    """Everything the template shows; the template adds no data of its own."""

    title: Markup
    title_text: str
    subtitle: Markup | None
    status: Markup | None
    reconstructed: tuple[InputFile, ...]  # non-empty: the prominent notice is shown
    setup: tuple[tuple[str, Markup], ...]
    headlines: tuple[Headline, ...]
    tables: tuple[tuple[TableView, Markup | None], ...]  # table and its method note
    charts: tuple[Chart, ...]
    findings: tuple[Finding, ...]
    quality: tuple[FindingGroup, ...]  # the findings grouped by lint, for the page
    prose: tuple[Markup, ...]
    source: Markup | None
    inputs: tuple[InputFile, ...]
    tools: tuple[str, ...]
    definitions: tuple[MetricDef, ...]
    css: Markup
    generator: str
    lang: str = "en"


def environment(folder: Path | None = None) -> jinja2.Environment:
    """The Jinja environment for article templates: autoescape, undefined names fail."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder or template_dir()),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _input(src: SourceFile) -> InputFile:
    return InputFile(
        src.label,
        src.sha256,
        src.format,
        src.tool,
        src.provenance.status,
        src.provenance.reconstructed_from,
        src.provenance.note,
    )


def tool_versions(runs: tuple[Run, ...]) -> tuple[tuple[str, str], ...]:
    """(tool, "tool version") of each tool that wrote the runs, for `{{ version.TOOL }}`."""
    found = {run.source.tool.split(" ")[0]: run.source.tool for run in runs}
    return tuple(sorted(found.items()))


def _setup_rows(article: ArticleSource, resolver: Resolver) -> tuple[tuple[str, Markup], ...]:
    s, hw = article.setup, article.setup.hardware
    gpus = f"{hw.gpu_count}x {hw.gpu_name}, {hw.gpu_vram_gb:g} GB each"
    if hw.gpu_power_cap_w:
        gpus += f", {hw.gpu_power_cap_w:,g} W cap per GPU"
    if hw.gpu_note:
        gpus += f"; {hw.gpu_note}"
    rows = [("GPUs", escape(gpus))]
    host = ", ".join(x for x in (hw.cpu, _ram(hw.ram_gb) if hw.ram_gb else None) if x)
    if host:
        rows.append(("CPUs, RAM", escape(host)))
    rows.append(("Model", escape(", ".join(x for x in (s.hf_id, s.checkpoint) if x))))
    engine = s.engine_name + (f" (build {s.engine_build})" if s.engine_build else "")
    if s.engine_description:
        engine += f": {s.engine_description}"
    rows.append(("Engine", escape(engine)))
    if article.bench is not None:
        rows.append(("Bench", render_inline(article.bench, resolver)))
    return tuple(rows)


def _ram(gb: float) -> str:
    return f"{gb / 1000:g} TB" if gb >= 1000 else f"{gb:g} GB"


def _headlines(
    article: ArticleSource, metrics: MetricSet, resolver: Resolver
) -> tuple[Headline, ...]:
    from reportgen.article.numbers import number_html

    out, problems = [], []
    for h in article.headlines:
        value = metrics.get(h.metric)
        if value is None:
            problems.append(
                Problem(
                    h.caption.file,
                    h.caption.line,
                    1,
                    "",
                    f"headline metric {h.metric} is not computed from the article's runs",
                )
            )
            continue
        out.append(
            Headline(
                number_html(value, unit=True, css="num headline-number"),
                render_inline(h.caption, resolver),
            )
        )
    if problems:
        raise InputError(problems)
    return tuple(out)


def _used_definitions(metrics: MetricSet) -> tuple[MetricDef, ...]:
    keys = {v.key for v in metrics.values}
    return tuple(d for k, d in DEFINITIONS.items() if k in keys)


def build_context(
    article: ArticleSource,
    metrics: MetricSet,
    findings: tuple[Finding, ...],
    css: str,
) -> ArticleContext:
    """The template context for one article."""
    tools = tool_versions(metrics.runs)
    resolver = Resolver(metrics, article.setup, tools, article.date)
    inputs = tuple(_input(run.source) for run in metrics.runs)

    def inline(text: Text | None) -> Markup | None:
        return None if text is None else render_inline(text, resolver)

    tables = tuple((view, inline(article.note(view.spec.id))) for view in table_views(metrics))
    return ArticleContext(
        title=render_inline(article.title, resolver),
        title_text=plain(article.title, resolver),
        subtitle=inline(article.subtitle),
        status=None if article.status is None else render_block(article.status, resolver),
        reconstructed=tuple(i for i in inputs if i.provenance == "reconstructed"),
        setup=_setup_rows(article, resolver),
        headlines=_headlines(article, metrics, resolver),
        tables=tables,
        charts=render_charts(metrics),
        findings=findings,
        quality=group(findings),
        prose=tuple(render_block(t, resolver) for t in article.prose),
        source=inline(article.source),
        inputs=inputs,
        tools=tuple(v for _, v in tools),
        definitions=_used_definitions(metrics),
        css=Markup(css),
        generator=f"reportgen {__version__}",
    )


def render_html(context: ArticleContext, env: jinja2.Environment | None = None) -> str:
    """The article page as one HTML string."""
    env = env or environment()
    return env.get_template(TEMPLATE).render(a=context)


def stylesheet(folder: Path | None = None) -> str:
    """The article CSS (screen and print), to be inlined."""
    return ((folder or template_dir()) / STYLESHEET).read_text(encoding="utf-8")
