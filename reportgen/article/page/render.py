"""Render stage: article source, metrics and findings in; the article's HTML out (pure).

Builds one documented context object (`ArticleContext`, its views in `article/page/view.py`) and
hands it to the Jinja template, which only formats it. Autoescape and `StrictUndefined` are on;
the CSS is inlined so the page is one self-contained file. Sections come in the order
article.toml declares them.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING

import jinja2
from markupsafe import Markup

from reportgen import __version__
from reportgen.article.page.numbers import gated_html, number_html
from reportgen.article.page.setup import setup_rows
from reportgen.article.page.view import (
    ArticleContext,
    FigureGroup,
    HeadlineView,
    InputFile,
    Notice,
    SectionView,
    SetupView,
)
from reportgen.article.prose.render import plain, render_block, render_inline
from reportgen.article.prose.resolver import Resolver, long_date
from reportgen.article.source.declarations import (
    ArticleSource,
    ChartDecl,
    Headline,
    Section,
    Text,
)
from reportgen.article.tables.cells import Notes
from reportgen.article.tables.layout import TableView, table_views
from reportgen.article.workers import Stage
from reportgen.errors import InputError, Problem
from reportgen.fileio import read_input
from reportgen.metrics.claims import claim_problem, claim_value
from reportgen.metrics.frontier import RESAMPLES
from reportgen.metrics.lints.findings import Finding, group
from reportgen.metrics.registry import (
    DEFINITIONS,
    UNCERTAINTY_STATS,
    MetricDef,
    MetricSet,
    repeat_part,
)
from reportgen.model import MatrixRun, SourceFile, SweepRun
from reportgen.resources import template_dir
from reportgen.terminal import visible

if TYPE_CHECKING:  # the page holds charts, but importing them would load matplotlib
    from reportgen.article.charts.render import Chart

TEMPLATE = "article.html.j2"
STYLESHEET = "article.css"
DATA_DIR = "data"  # the build's copies of the run files, linked from the appendix
TABLES_DIR = "tables"  # each table as CSV
PERCENTILES = (
    "Percentiles (the median is p50) interpolate linearly between the two nearest values at rank "
    "(n - 1) x p over a cell's positive values, as numpy.percentile does by default; mean, min and "
    "max are over the same values, and n counts them."
)
REPETITIONS = (
    " A cell that several run files measured again (repetitions) shows the median of its "
    "repetitions' values, for each statistic; its lowest and highest repetition and their number "
    "are values of their own (.rep_min, .rep_max, .reps)."
)

INTERVALS = (
    " Where a cell was measured in several run files, a value shown as m \u00b1 h, or as m [lo, "
    "hi], is the repetitions' mean m (of a statistic such as p99, the mean of each repetition's "
    "own p99) with its 95% confidence interval from Student's t: h = "
    "t(0.975, n - 1) x s / sqrt(n), s their standard deviation (n - 1) and n their number, and "
    "lo, hi = m -/+ h; error bars on a chart are the same interval. The median's own 95% "
    "interval is distribution-free (the order statistics whose binomial coverage is at least "
    "95%), which needs six repetitions or more."
)

FRONTIER_INTERVALS = (
    " A value read on a frontier (at a level of tok/s per user, a ratio of two series there, a "
    "cost there), where every point of its series was measured several times, is shown with its "
    "95% percentile bootstrap interval [lo, hi]: each of "
    f"{RESAMPLES:,} seeded resamples draws each "
    "point's repetitions again with replacement, takes their medians, finds the frontier anew "
    "and reads it at the level; lo and hi are the 2.5th and 97.5th percentiles of those values "
    "(a resample whose frontier does not reach the level is left out, and the value's basis in "
    "metrics.json counts them). Shown as v \u00b1 h, h is the larger distance from v to lo or hi."
)


def _shown(value: object) -> object:
    """A value a template writes: a plain string with its control characters as escapes
    (`terminal.visible`), as the charts, the CSVs and the terminal show them; markup (prose, a
    chart's SVG) as it is."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return visible(value)
    return value


def environment(folder: Path | None = None) -> jinja2.Environment:
    """The Jinja environment for article templates: autoescape, undefined names fail, plain
    strings shown with their control characters as escapes."""
    root = folder or template_dir()

    def load(name: str) -> str:  # through the guarded reader, as every file reportgen reads
        parts = jinja2.loaders.split_template_path(name)  # refuses "..", as FileSystemLoader
        return read_input(root.joinpath(*parts), "cache").decode("utf-8")

    return jinja2.Environment(
        loader=jinja2.FunctionLoader(load),
        autoescape=True,
        finalize=_shown,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _input(src: SourceFile) -> InputFile:
    p = src.provenance
    return InputFile(
        name=src.label,
        sha256=src.sha256,
        format=src.format,
        tool=src.tool,
        provenance=p.status,
        reconstructed_from=p.reconstructed_from,
        generator=p.generator,
        note=p.note,
        link=f"{DATA_DIR}/{src.label}",
    )


# status -> (the story's title, the one line under the article's title, a table's mark)
_NOTICES = {
    "reconstructed": (
        "Reconstructed data, not a measurement",
        "rebuilt from the published text, not measured",
        "reconstructed data",
    ),
    "synthetic": (
        "Synthetic data, not a measurement",
        "generated, not measured",
        "synthetic data",
    ),
}


def _notices(inputs: tuple[InputFile, ...]) -> tuple[Notice, ...]:
    return tuple(
        Notice(status, title, tuple(i for i in inputs if i.provenance == status), label)
        for status, (title, label, _) in _NOTICES.items()
        if any(i.provenance == status for i in inputs)
    )


def _provenance(table: TableView, metrics: MetricSet) -> str | None:
    """The words that mark a table showing numbers not measured ("reconstructed data")."""
    shown = {c.metric for _, cells in table.rows for c in cells if c.metric}
    found = {v.provenance for v in metrics.values if v.id in shown}
    words = [mark for status, (_, _, mark) in _NOTICES.items() if status in found]
    return " and ".join(words) or None


WIDE = 6  # a table of more columns than this (its label column counted) takes a row alone


def _figures(
    s: Section,
    tables: dict[str, TableView],
    notes: dict[str, Markup | None],
    drawn: dict[str, Chart],
    metrics: MetricSet,
    placed: dict[str, tuple[ChartDecl, ...]],
) -> tuple[FigureGroup, ...]:
    """The section's tables, each with the charts that declare it, then its other charts."""
    out = []
    for t in s.tables:
        view, with_it = tables[t.id], placed.get(t.id, ())
        out.append(
            FigureGroup(
                table=view,
                note=notes[t.id],
                charts=tuple(drawn[c.id] for c in with_it if c.id in drawn),
                folded=any(c.replaces for c in with_it),
                provenance=_provenance(view, metrics),
                wide=len(view.columns) + 1 > WIDE or len(with_it) > 1,
            )
        )
    free = tuple(drawn[c.id] for c in s.charts if c.table is None and c.id in drawn)
    if free:
        out.append(
            FigureGroup(
                table=None, note=None, charts=free, folded=False, provenance=None, wide=False
            )
        )
    return tuple(out)


# A number a page shows: its span names its metric (article/page/numbers.py).
_NUMBER_SPAN = re.compile(r'<span\b[^>]*\bdata-metric="([^"]+)"[^>]*>(.*?)</span>', re.S)


def _description(title: str, headlines: tuple[HeadlineView, ...]) -> tuple[str, str]:
    """One sentence for search results and link previews: the title and the first headline;
    and where each of its numbers is in it, with its metric ("offset:metric", space-separated),
    for check to read a copy's preview by."""
    if not headlines:
        return title, ""
    h = headlines[0]
    text = f"{title}: {h.number.striptags()}, {h.caption.striptags()}."
    places, at = [], len(title) + 2
    for metric, inner in _NUMBER_SPAN.findall(f"{h.number} {h.caption}"):
        shown = Markup(inner).striptags()
        found = text.find(shown, at)
        if found >= 0:
            places.append(f"{found}:{metric}")
            at = found + len(shown)
    return text, " ".join(places)


def _contents(
    article: ArticleSource, end: tuple[tuple[str, str], ...]
) -> tuple[tuple[str, str], ...]:
    """(anchor, title) of each section, the page's own ones at the end included, when there are
    more than four; none otherwise."""
    found = tuple((s.id, s.title) for s in article.sections if s.title) + end
    return found if len(found) > 4 else ()


def _headlines(
    items: tuple[Headline, ...], metrics: MetricSet, resolver: Resolver
) -> tuple[HeadlineView, ...]:
    out, problems = [], []
    for h in items:
        # a takeaway may be a claim: "A/B" shows A's ratio to B, "A->B" the change from A to B
        value = metrics.get(h.metric) or claim_value(h.metric, metrics.get)
        if value is None:
            why = claim_problem(h.metric, metrics.get)  # None: no claim either
            problems.append(
                Problem(
                    path=h.place.file,
                    line=h.place.line,
                    col=h.place.col,
                    pointer=h.place.pointer,
                    message=f"headline metric {h.metric} is not computed from the article's runs"
                    if why is None
                    else f"headline claim {h.metric} has no value: {why}",
                )
            )
            continue
        out.append(
            HeadlineView(
                gated_html(value)  # a gated value: the words and the reason, no number
                if value.gate is not None
                else number_html(value, unit=True, css="num headline-number"),
                render_inline(h.caption, resolver),
            )
        )
    if problems:
        raise InputError(problems)
    return tuple(out)


def _tool_definitions(metrics: MetricSet) -> tuple[tuple[str, str, str], ...]:
    """(tool, metric key, its definition) where a tool's number differs from reportgen's: a
    sweep names its quantities (`load.` is added), a matrix its whole keys."""
    found = {
        (run.source.tool, f"load.{quantity}" if isinstance(run, SweepRun) else quantity, text)
        for run in metrics.runs
        if isinstance(run, SweepRun | MatrixRun)
        for quantity, text in run.definitions.items()
    }
    return tuple(sorted(found))


_SHOWN = re.compile(r'data-metric="([^"]+)"')


def _shown_ids(shown: list[Markup]) -> set[str]:
    """The ids of the numbers `shown` holds (both sides of a claim)."""
    return {
        part
        for markup in shown
        for found in _SHOWN.findall(markup)
        for part in re.split(r"/|->", found)
    }


def _method(shown: list[Markup], metrics: MetricSet, article: ArticleSource) -> str:
    """How the page's statistics are computed: percentiles always; repetitions when a cell has
    them; how intervals are computed only when the page shows one (a number or an error bar)."""
    text = PERCENTILES + (REPETITIONS if any(v.repeats for v in metrics.values) else "")
    by_id = metrics.by_id()
    found = [by_id[i] for i in _shown_ids(shown) if i in by_id]
    cells = {repeat_part(v.stat) for v in found if not v.key.startswith("frontier.")}
    if cells & set(UNCERTAINTY_STATS) or any(c.error_bars for c in article.charts()):
        text += INTERVALS
    if any(v.key.startswith("frontier.") and repeat_part(v.stat) for v in found):
        text += FRONTIER_INTERVALS
    return text


def _shown_definitions(
    shown: list[Markup], article: ArticleSource, metrics: MetricSet
) -> tuple[MetricDef, ...]:
    """The definitions of the metrics the page shows: in its text and tables (each number's
    `data-metric`, both sides of a claim) and on its charts' axes."""
    ids = _shown_ids(shown)
    keys = {v.key for v in metrics.values if v.id in ids}
    for chart in article.charts():
        keys |= {k for k in (chart.metric, chart.x) if k in DEFINITIONS}
        keys |= {k.rpartition(".")[0] for k in (chart.metric, chart.x)}
    return tuple(d for k, d in DEFINITIONS.items() if k in keys)


def _markup(sections: tuple[SectionView, ...], *more: Markup | None) -> list[Markup]:
    """Every piece of markup the sections show, and `more`: where the page's numbers are."""
    out = [m for m in more if m is not None]
    for s in sections:
        out += [m for m in (s.prose,) if m is not None]
        out += [m for h in s.headlines for m in (h.number, h.caption)]
        for t, note in s.tables:
            out += [c.html for _, cells in t.rows for c in cells]
            out += [note] if note is not None else []
    return out


def build_context(
    article: ArticleSource,
    metrics: MetricSet,
    findings: tuple[Finding, ...],
    css: str,
    *,
    charts: bool = True,
    chart_cache: Path | None = None,
    chart_drawer: Stage | None = None,
) -> ArticleContext:
    """The template context for one article; without `charts` (for `check`, which reads only
    numbers), no chart is drawn: each shows its title and caption alone. `chart_cache`: a folder
    of charts drawn before (article/charts/cache.py); `chart_drawer`: who draws the others."""
    resolver = Resolver.of(article, metrics)
    inputs = tuple(_input(run.source) for run in metrics.runs)

    def inline(text: Text | None) -> Markup | None:
        return None if text is None else render_inline(text, resolver)

    notes = Notes()
    tables = {t.id: t for t in table_views(article, metrics, findings, notes)}
    drawn = {}
    pending = None
    if charts:
        from reportgen.article.charts.render import start_charts

        started, pending = start_charts(article, metrics, notes, chart_cache, chart_drawer)
        drawn = {c.id: c for c in started}
    else:  # each chart's title and caption, with no drawing
        from reportgen.article.charts.render import undrawn_charts

        drawn = {c.id: c for c in undrawn_charts(article, metrics, notes)}

    placed: dict[str, tuple[ChartDecl, ...]] = {}
    for c in article.charts():
        if c.table is not None:
            placed[c.table] = (*placed.get(c.table, ()), c)
    table_notes = {t.id: inline(t.note) for t in article.tables()}

    def section(s: Section) -> SectionView:
        level = 1 if s.title is None else 2
        return SectionView(
            id=s.id,
            title=s.title,
            kind=s.kind,
            prose=None if s.prose is None else render_block(s.prose, resolver, heading_level=level),
            prose_at=s.prose_at,
            headlines=_headlines(s.headlines, metrics, resolver),
            tables=tuple((tables[t.id], inline(t.note)) for t in s.tables),
            charts=tuple(drawn[c.id] for c in s.charts if c.id in drawn),
            figures=_figures(s, tables, table_notes, drawn, metrics, placed),
        )

    sections = tuple(section(s) for s in article.sections)
    many = len(article.runs) > 1
    title_text = plain(article.title, resolver)
    key_results = _headlines(article.key_results, metrics, resolver)
    notices = _notices(inputs)
    subtitle = inline(article.subtitle)
    status = (
        None if article.status is None else render_block(article.status, resolver, heading_level=1)
    )
    end: tuple[tuple[str, str], ...] = (("data-quality", "Data quality"),)
    end += (("about-the-data", "About the data"),) if notices or article.source else ()
    end += (("appendix", "Method and definitions"),)
    description, description_metrics = _description(
        title_text, key_results or next((s.headlines for s in sections if s.headlines), ())
    )
    shown = _markup(
        sections, subtitle, status, *(m for h in key_results for m in (h.number, h.caption))
    )
    return ArticleContext(
        title=render_inline(article.title, resolver),
        title_text=title_text,
        description=description,
        description_metrics=description_metrics,
        subtitle=subtitle,
        date=article.date,
        date_text=long_date(article.date),
        status=status,
        status_at=article.status_at,
        notices=notices,
        contents=_contents(article, end),
        key_results=key_results,
        setups=tuple(
            SetupView(r.label if many else None, setup_rows(r, resolver)) for r in article.runs
        ),
        sections=sections,
        findings=findings,
        quality=group(findings),
        notes=notes,
        source=inline(article.source),
        inputs=inputs,
        tools=tuple(
            sorted(
                {
                    run.source.tool
                    if run.source.format_version
                    else f"{run.source.tool} (its files do not record its version)"
                    for run in metrics.runs
                }
            )
        ),
        definitions=_shown_definitions(shown, article, metrics),
        tool_definitions=_tool_definitions(metrics),
        percentiles=_method(shown, metrics, article),
        css=Markup(css),
        generator=f"reportgen {__version__}",
        charts=pending,
    )


# What the page never holds as itself: C0 controls but the tab, newline and carriage return (the
# page's own spacing), DEL, C1 controls, lone surrogates, bidirectional overrides and isolates.
# A string from a run file that reaches the page through code-built markup (a caption's names, a
# setup row) is shown with each as its escape, as a plain string is by `_shown`.
_UNSHOWN = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]"
)


@functools.cache
def _package_environment() -> jinja2.Environment:
    """The environment of the templates reportgen ships, made once per process: they do not
    change while it runs, and compiling the page template is about 40 ms of each build and each
    check (the environment keeps what it compiled)."""
    return environment()


def render_page(context: ArticleContext, env: jinja2.Environment | None = None) -> str:
    """The article page as one HTML string, each chart still a mark (`PendingSvgs` in
    article/charts/cache.py puts them in)."""
    env = env or _package_environment()
    return _UNSHOWN.sub(
        lambda found: visible(found.group()), env.get_template(TEMPLATE).render(a=context)
    )


def render_html(context: ArticleContext, env: jinja2.Environment | None = None) -> str:
    """The article page as one HTML string; its charts, drawn meanwhile, go in last."""
    html = render_page(context, env)
    return html if context.charts is None else context.charts.fill(html)


def stylesheet(folder: Path | None = None) -> str:
    """The article CSS (screen and print), to be inlined."""
    return read_input((folder or template_dir()) / STYLESHEET, "cache").decode("utf-8")
