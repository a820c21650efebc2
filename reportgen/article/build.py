"""Build stage: an article folder in; `index.html`, `article.pdf` and `metrics.json` out.

Everything is rendered in memory first; then `publish` swaps the files in atomically, so a failed
build leaves the previous outputs as they were and a reader never finds them missing.
Builds are reproducible: no wall-clock time (SOURCE_DATE_EPOCH, else the article's date), no
absolute paths, fixed ordering.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import jinja2

from reportgen import __version__
from reportgen.article.claims import claim_findings
from reportgen.article.consistency import consistency
from reportgen.article.frontiers import with_frontiers
from reportgen.article.gates import shown_by
from reportgen.article.page.quality import review
from reportgen.article.page.render import (
    DATA_DIR,
    TABLES_DIR,
    build_context,
    render_page,
    stylesheet,
)
from reportgen.article.pdf.forked import Charts, Request, Sketch, pdf_result, request
from reportgen.article.publish import check_output, publish
from reportgen.article.rundata import article_metrics
from reportgen.article.source.declarations import ArticleSource, Text
from reportgen.article.source.draft import draft_findings
from reportgen.article.tables.csvfile import table_csv
from reportgen.article.tables.layout import TableView
from reportgen.article.workers import InProcess, Stage
from reportgen.errors import InputError, Problem, whole_file
from reportgen.fileio import read_input
from reportgen.formats.schema.validate import schema_version
from reportgen.metrics.compare import with_comparisons
from reportgen.metrics.lints import lint
from reportgen.metrics.lints.findings import Finding
from reportgen.metrics.registry import MetricSet
from reportgen.metrics.slo import with_slo
from reportgen.resources import template_dir


@dataclass(frozen=True, kw_only=True)
class Built:
    """One article, rendered (nothing written yet)."""

    article: ArticleSource
    metrics: MetricSet
    findings: tuple[Finding, ...]  # the lints', with the article's acknowledgements applied
    html: str
    created: dt.datetime
    # the source's own warnings, with their (line, col): acknowledgements in article.toml that
    # match no finding, and draft text `reportgen init` wrote that is still there
    stale: tuple[tuple[Finding, tuple[int, int]], ...] = ()
    tables: tuple[TableView, ...] = ()  # the tables as laid out on the page

    @property
    def sources(self) -> dict[str, str]:
        """What the article was built from: article.toml, the prose and the run files (path in
        the folder: SHA-256), as the build's marker records them and `check` compares."""
        runs = {run.source.label: run.source.sha256 for run in self.metrics.runs}
        return dict(self.article.digests) | runs

    @property
    def metrics_json(self) -> str:
        """The `metrics.json` text (made when asked for: `check` never needs it)."""
        return metrics_document(self.article, self.metrics, self.findings)


def build_date(article_date: str, environ: dict[str, str] | None = None) -> dt.datetime:
    """The build's timestamp: SOURCE_DATE_EPOCH when set, else the article's date at 00:00 UTC."""
    env = os.environ if environ is None else environ
    epoch = env.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            return dt.datetime.fromtimestamp(int(epoch), dt.UTC)
        except (ValueError, OverflowError):
            raise InputError(
                [whole_file("SOURCE_DATE_EPOCH", f"{epoch!r} is not a Unix timestamp")]
            ) from None
    day = dt.date.fromisoformat(article_date)
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)


def metrics_document(
    built_article: ArticleSource, metrics: MetricSet, findings: tuple[Finding, ...]
) -> str:
    """The `metrics.json` text (schemas/metrics.schema.json): every metric value with its
    provenance, plus the findings."""
    doc = {
        "schema_version": schema_version("metrics"),
        "article": built_article.slug,
        "generator": f"reportgen {__version__}",
        "inputs": [
            {
                "file": run.source.label,
                "sha256": run.source.sha256,
                "format": run.source.format,
                "tool": run.source.tool,
                "provenance": run.source.provenance.status,
                "reconstructed_from": run.source.provenance.reconstructed_from,
            }
            for run in metrics.runs
        ],
        "metrics": [v.as_json() for v in metrics.values],
        "findings": [f.as_json() for f in findings],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def render_article(
    folder: Path,
    environ: dict[str, str] | None = None,
    *,
    charts: bool = True,
    chart_cache: Path | None = None,
    chart_drawer: Stage | None = None,
    env: jinja2.Environment | None = None,
    pdf: Stage | None = None,
    loaded: tuple[ArticleSource, MetricSet] | None = None,
) -> Built:
    """Load, validate, compute, lint and render one article, in memory (`charts`: draw them;
    `check` does not, as charts hold no number it reads, and gets their titles and captions
    alone; `chart_cache`: a folder of charts drawn before, see article/charts/cache.py;
    `chart_drawer`: who draws the others; `env`: the Jinja environment, whose compiled template
    a process that renders again keeps; `pdf`: a PDF stage sent the page to lay out while the
    charts are drawn, then the charts: its `result()` is the PDF; `loaded`: the article and
    its metrics as `article_metrics(folder)` gave them already, for a caller that renders the
    article twice)."""
    article, measured = loaded if loaded is not None else article_metrics(folder)
    pairs = [(t.compare.base, t.compare.other) for t in article.tables() if t.compare]
    metrics = with_slo(with_frontiers(article, with_comparisons(measured, pairs)), article.slo)
    found = (
        *consistency(article, measured),
        *claim_findings(article, metrics),  # a claim on frontiers too
        *lint(measured, shown=shown_by(article)),
    )
    reviewed = review(article, found)
    findings = reviewed.findings
    context = build_context(
        article,
        metrics,
        findings,
        stylesheet(),
        charts=charts,
        chart_cache=chart_cache,
        chart_drawer=chart_drawer,
    )
    created = build_date(article.date, environ)
    tables = tuple(t for s in context.sections for t, _ in s.tables)
    page = render_page(context, env)
    pending = context.charts
    if pdf is not None:  # the PDF's layout starts now, with stand-ins for the charts drawn
        sketch = page if pending is None else pending.sketch(page)
        label, roots = f"{article.slug}/index.html", (article.folder, template_dir())
        pdf.submit(Sketch(request(sketch, label=label, roots=roots, created=created)))
    # waits for the charts last: they may be drawn meanwhile
    html = page if pending is None else pending.fill(page)
    if pdf is not None:
        pdf.follow(Charts(html, () if pending is None else tuple(pending.drawn())))
    return Built(
        article=article,
        metrics=metrics,
        findings=findings,
        html=html,
        created=created,
        stale=reviewed.stale + draft_findings(article.drafts),
        tables=tables,
    )


_NO_GLYPH = re.compile(r"\.notdef glyph rendered for Unicode string .*\(U\+([0-9A-F]{4,6})\)")


def _written_at(code: int, article: ArticleSource) -> tuple[Text, int] | None:
    """The first place the article's source writes the character `code`, as itself or as an
    HTML entity."""
    forms = re.compile(f"{re.escape(chr(code))}|&#[xX]0*{code:x};|&#0*{code};", re.IGNORECASE)
    for text in article.texts():
        found = forms.search(text.text)
        if found:
            return text, found.start()
    return None


def _locate_glyphs(problems: tuple[Problem, ...], article: ArticleSource) -> list[Problem]:
    """WeasyPrint's "no glyph" warnings, placed at the character in the article's source."""
    out = []
    for p in problems:
        found = _NO_GLYPH.search(p.message)
        place = _written_at(int(found.group(1), 16), article) if found else None
        if found is None or place is None:
            out.append(p)
            continue
        char = chr(int(found.group(1), 16))
        text, offset = place
        before = text.text[:offset]
        line = text.line + before.count("\n")
        col = (text.col + offset) if "\n" not in before else offset - before.rfind("\n")
        name = unicodedata.name(char, "a private-use or unnamed character")
        out.append(
            Problem(
                path=text.file,
                line=line,
                col=col,
                pointer="",
                message=f"U+{ord(char):04X} ({name}) has no glyph in the PDF's fonts: the PDF "
                "would show an empty box; write it another way",
            )
        )
    return out


def _pdf_request(built: Built) -> Request:
    article = built.article
    label, roots = f"{article.slug}/index.html", (article.folder, template_dir())
    return request(built.html, label=label, roots=roots, created=built.created)


def _pdf_result(built: Built, stage: Stage) -> bytes:
    try:
        return pdf_result(stage)
    except InputError as exc:
        raise InputError(_locate_glyphs(exc.problems, built.article)) from None


def render_pdf(built: Built, stage: Stage | None = None) -> bytes:
    """The PDF's bytes, rendered by `stage` (article/pdf/forked.py), else in-process."""
    stage = stage or InProcess()
    stage.submit(_pdf_request(built))
    return _pdf_result(built, stage)


def table_files(built: Built) -> dict[str, bytes]:
    """Each table of the page as CSV, by its path in the output folder."""
    return {
        f"{TABLES_DIR}/{view.id}.csv": table_csv(view, built.metrics).encode("utf-8")
        for view in built.tables
    }


def render_outputs(built: Built, stage: Stage | None = None) -> dict[str, bytes]:
    """The output files' bytes; the PDF by `stage` (article/pdf/forked.py), else in-process."""
    # WeasyPrint is imported only to make a PDF: `check` renders articles without one.
    stage = stage or InProcess()
    stage.submit(_pdf_request(built))
    return _outputs(built, stage)


def _outputs(built: Built, stage: Stage) -> dict[str, bytes]:
    """`render_outputs`, the PDF from `stage`, which has its job."""
    tables = table_files(built)
    raw = raw_data(built)  # while the PDF is rendered, when it is rendered ahead
    pdf = _pdf_result(built, stage)
    return {
        "index.html": built.html.encode("utf-8"),
        "article.pdf": pdf,
        "metrics.json": built.metrics_json.encode("utf-8"),
        **tables,
        **raw,
    }


def raw_data(built: Built, have: Mapping[str, str] | None = None) -> dict[str, bytes]:
    """Copies of the run files, for the article's readers, by their path in the output folder;
    each must still be the file read. `have`: paths already holding a file of that SHA-256,
    which are left out."""
    out = {}
    for run in built.metrics.runs:
        src = run.source
        path = f"{DATA_DIR}/{src.label}"
        if have is not None and have.get(path) == src.sha256:
            continue
        raw = read_input(built.article.folder / src.label, "run", inside=built.article.folder)
        if hashlib.sha256(raw).hexdigest() != src.sha256:
            raise InputError([whole_file(src.label, "changed while the article was being built")])
        out[path] = raw
    return out


def build_article(
    folder: Path,
    out: Path,
    environ: dict[str, str] | None = None,
    *,
    chart_cache: Path | None = None,
    pdf: Stage | None = None,
    chart_drawer: Stage | None = None,
) -> tuple[Path, Built]:
    """Build the article in `folder` into `out/<article>/`: the folder and what was built.
    `chart_cache`: a folder of charts drawn before (article/charts/cache.py); none by default.
    `pdf`, `chart_drawer`: the PDF and chart stages, such as ones started ahead in forked
    workers (article/workers.py); else this process."""
    target = out / folder.resolve().name
    check_output(folder, out, target)  # before any work: never at the article's expense
    pdf = pdf or InProcess()
    built = render_article(
        folder, environ, chart_cache=chart_cache, chart_drawer=chart_drawer, pdf=pdf
    )
    files = _outputs(built, pdf)
    publish(target, files, built.sources)
    return target, built


def build(folder: Path, out: Path, environ: dict[str, str] | None = None) -> Path:
    """Build the article in `folder` into `out/<article>/`; returns that folder."""
    return build_article(folder, out, environ)[0]
