"""Charts: inline SVG for the bundled article, deterministic, gap-honest, WeasyPrint-clean."""

from __future__ import annotations

import dataclasses
import logging
import os
import pickle
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import matplotlib
import pytest

from reportgen.article.charts.draw import legend_columns
from reportgen.article.charts.render import Chart, render_charts
from reportgen.article.rundata import article_metrics
from reportgen.article.source.declarations import ArticleSource
from reportgen.article.source.manifest import load_article
from reportgen.errors import InputError
from reportgen.metrics.registry import MetricSet

ROOT = Path(__file__).resolve().parents[3]
ARTICLE = ROOT / "runs" / "paiton-kimi-k3.1-pro"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="session")
def article() -> ArticleSource:
    return load_article(ARTICLE)


@pytest.fixture(scope="session")
def metrics() -> MetricSet:
    return article_metrics(ARTICLE)[1]


@pytest.fixture(scope="session")
def charts(article: ArticleSource, metrics: MetricSet) -> tuple[Chart, ...]:
    return render_charts(article, metrics)


def _without(metrics: MetricSet, drop: str) -> MetricSet:
    return dataclasses.replace(metrics, values=tuple(v for v in metrics.values if drop not in v.id))


def _line(chart: Chart, name: str) -> ET.Element:
    found = ET.fromstring(chart.svg).find(f".//{SVG}g[@id='chart-{chart.id}-{name}']")
    assert found is not None, f"{chart.id} has no {name}"
    return found


def test_bundled_article_has_five_inline_svg_charts(charts: tuple[Chart, ...]) -> None:
    assert [c.id for c in charts] == [
        "decode-aggregate",
        "decode-per-request",
        "decode-ttft",
        "prefill",
        "interactivity",
    ]
    ids: list[str] = []
    for chart in charts:
        assert chart.svg.startswith("<svg ") and chart.svg.rstrip().endswith("</svg>")
        assert "<?xml" not in chart.svg and "<!DOCTYPE" not in chart.svg and "<!--" not in chart.svg
        root = ET.fromstring(chart.svg)
        assert root.tag == f"{SVG}svg"
        assert re.fullmatch(r"0 0 [\d.]+ [\d.]+", root.get("viewBox", ""))
        assert root.get("width") == "100%" and root.get("height") is None
        assert root.get("role") == "img" and root.get("aria-label") == chart.title
        assert root.findtext(f"{SVG}title") == chart.title
        assert root.find(f".//{SVG}style") is None  # no CSS that would leak into the page
        assert all("style" not in e.attrib for e in root.iter())  # WeasyPrint warns on them
        ids += [e.attrib["id"] for e in root.iter() if "id" in e.attrib]
        refs = re.findall(r'(?:url\(#|href="#)([^")]+)', chart.svg)
        assert refs and {r for r in refs} <= set(ids)
        assert all(r.startswith(f"chart-{chart.id}-") for r in refs)
    assert len(ids) == len(set(ids))


def test_decode_chart_has_one_line_per_context_with_every_cell(
    charts: tuple[Chart, ...],
) -> None:
    aggregate = charts[0]
    for label, legend in (("0", "0 (none)"), ("8K", "8K"), ("32K", "32K"), ("64K", "64K")):
        assert len(_line(aggregate, f"line-{label}").findall(f".//{SVG}use")) == 5
        assert f">{legend}</text>" in aggregate.svg  # the legend
    assert ">context length (prompt tokens)</text>" in aggregate.svg  # its title
    for tick in ("1", "2", "4", "8", "16"):
        assert f">{tick}</text>" in aggregate.svg
    assert "Gaps" not in aggregate.caption
    prefill = charts[3]
    assert len(_line(prefill, "line").findall(f".//{SVG}use")) == 4
    for tick in ("8K", "32K", "64K", "128K"):
        assert f">{tick}</text>" in prefill.svg


@pytest.mark.process
def test_output_is_byte_identical_in_process_and_in_a_new_process(
    article: ArticleSource, metrics: MetricSet, charts: tuple[Chart, ...]
) -> None:
    # Rendered again in this process, under a user's own rcParams: the same bytes (the user's
    # rcParams do not reach the charts, and ours do not outlive the call).
    with matplotlib.rc_context({"lines.linewidth": 7.0, "font.size": 20.0}):
        assert render_charts(article, metrics) == charts
        assert matplotlib.rcParams["lines.linewidth"] == 7.0
    # A fresh interpreter with another hash seed, given the same metric values.
    code = (
        "import pickle, sys; from reportgen.article.charts.render import render_charts; "
        "a, m = pickle.load(sys.stdin.buffer); "
        "sys.stdout.write(''.join(c.svg for c in render_charts(a, m)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        input=pickle.dumps((article, metrics)),
        capture_output=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "12345"},
    )
    assert out.stdout.decode("utf-8") == "".join(c.svg for c in charts)


@pytest.mark.slow
def test_missing_cell_leaves_a_gap_not_a_point(article: ArticleSource, metrics: MetricSet) -> None:
    (aggregate, *_) = render_charts(article, _without(metrics, "decode.8K.c4.aggregate_tok_s"))
    assert aggregate.id == "decode-aggregate"
    line = _line(aggregate, "line-8K")
    assert len(line.findall(f".//{SVG}use")) == 4
    # The line is broken in two pieces around the gap: two move-tos in its path.
    path = line.find(f"{SVG}path")
    assert path is not None and path.get("d", "").count("M") == 2
    assert len(_line(aggregate, "line-32K").findall(f".//{SVG}use")) == 5
    assert "no measurement: 8K at 4 concurrent requests." in aggregate.caption


def test_a_declared_chart_without_data_is_a_located_error(
    article: ArticleSource, metrics: MetricSet
) -> None:
    with pytest.raises(InputError) as info:
        render_charts(article, _without(metrics, ".ttft_s"))  # decode and prefill TTFT
    (problem,) = info.value.problems
    decl = next(c for c in article.charts() if c.id == "decode-ttft")
    assert (problem.line, problem.pointer) == (decl.place.line, decl.place.pointer)
    assert problem.message == "chart 'decode-ttft': no values of decode.ttft_s in the data"


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def weasyprint_log() -> Iterator[_Records]:
    handler, logger = _Records(), logging.getLogger("weasyprint")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


@pytest.mark.pdf
def test_weasyprint_renders_all_charts_without_warnings(
    charts: tuple[Chart, ...], weasyprint_log: _Records
) -> None:
    import reportgen.article.pdf.render  # noqa: F401  (imports WeasyPrint, silencing its HarfBuzz note)

    weasyprint = pytest.importorskip("weasyprint")
    body = "".join(f"<figure>{c.svg}<figcaption>{c.caption}</figcaption></figure>" for c in charts)
    page = f"<!doctype html><html><head><meta charset='utf-8'></head><body>{body}</body></html>"
    pdf = weasyprint.HTML(string=page).write_pdf()
    assert pdf.startswith(b"%PDF-")
    # Font subsetting falls back to fontTools where HarfBuzz-Subset is not installed: a
    # property of the machine, not of the charts.
    problems = [
        r.getMessage()
        for r in weasyprint_log.records
        if not r.getMessage().startswith("Using fontTools instead of HarfBuzz-Subset")
    ]
    assert problems == []


def test_a_legend_takes_more_rows_where_its_labels_would_not_fit() -> None:
    """Four short labels keep one row; seven llama-bench lengths, which overflowed the chart's
    right edge in two rows, take three; a fourth row lowers the plot further."""
    assert legend_columns(["0 (none)", "8K", "32K", "64K"]) == 4
    assert legend_columns(["c1", "c2", "c4", "c8", "c16", "c32"]) == 3
    lengths = ["pp128", "pp256", "pp512", "pp1024", "pp2048", "pp4096", "pp8192"]
    assert legend_columns(lengths) == 3
    assert legend_columns(["a model name of forty characters, long!"] * 3) == 1
