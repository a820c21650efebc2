"""The built page in a real browser: Debian's headless Chromium, driven by Playwright.

The page is opened from a file:// URL with the network cut off (any request other than the page
itself fails the test), at a desktop width and at a phone's, and must render its tables and
charts with no console message, readable on both: tables that do not fit scroll in their own box
with a cue, chart text is never smaller than the page's small print, lines differ by dash and
marker, legends have titles. Screenshots of both widths are left beside the page.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from reportgen.article.build import build
from reportgen.article.source.manifest import load_article

if TYPE_CHECKING:  # imported by the fixture: the fast lane collects this file, never imports it
    from playwright.sync_api import Browser, Page, Request

# Chromium opens the page that `build` wrote, PDF included.
pytestmark = [pytest.mark.browser, pytest.mark.pdf]

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WIDTHS = (1100, 420)

# The rendered size of text: its font size times the scale of its SVG, for chart text.
TEXT_SIZES = """() => {
  const page = [], chart = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg')) continue;
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (own && el.getClientRects().length) page.push(parseFloat(getComputedStyle(el).fontSize));
  }
  for (const t of document.querySelectorAll('figure.chart svg text')) {
    if (!t.textContent.trim()) continue;
    const m = t.getScreenCTM();  // its scale, whatever its rotation (the y label is turned)
    chart.push(parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b));
  }
  const small = parseFloat(getComputedStyle(document.documentElement).fontSize) *
    parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--small'));
  return {page: Math.min(...page), chart: Math.min(...chart), small};
}"""

TABLE_BOXES = """() => [...document.querySelectorAll('.table-scroll')].map(box => ({
  id: box.querySelector('table').dataset.table,
  scroll: box.scrollWidth, client: box.clientWidth,
  overflow: getComputedStyle(box).overflowX,
  cue: (getComputedStyle(box).backgroundImage.match(/radial-gradient/g) || []).length,
}))"""

# Make one table far wider than a phone: the columns repeated.
WIDEN = """() => {
  const table = document.querySelector('table.data[data-table="decode-aggregate"]');
  for (const row of table.rows) {
    const cells = [...row.cells].slice(1);
    for (let i = 0; i < 3; i++) cells.forEach(c => row.appendChild(c.cloneNode(true)));
  }
}"""

LINES = """() => [...document.querySelectorAll('figure.chart svg')].map(svg =>
  [...svg.querySelectorAll('g[id*="-line-"]')].map(g => {
    const path = g.querySelector('path');
    const marker = g.querySelector('defs path, use');
    return {
      id: g.id,
      dash: path ? (path.getAttribute('stroke-dasharray') || 'solid') : 'none',
      marker: g.querySelector('use') ? g.querySelector('use').getAttribute('xlink:href') : null,
    };
  }))"""


@pytest.fixture(scope="session")
def page_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    return build(ROOT / "runs" / "paiton-kimi-k3.1-pro", out, {}) / "index.html"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), "Debian's chromium is needed (make test installs it)"
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def _open(browser: Browser, page_path: Path, width: int) -> tuple[Page, list[str], list[str]]:
    messages: list[str] = []
    foreign: list[str] = []
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.on("console", lambda m: messages.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: messages.append(f"pageerror: {e}"))

    def only_the_page(request: Request) -> None:
        if request.url != page_path.as_uri():
            foreign.append(request.url)

    page.on("request", only_the_page)
    page.goto(page_path.as_uri(), wait_until="load")
    return page, messages, foreign


@pytest.mark.parametrize("width", WIDTHS)
def test_page_renders_tables_and_charts_without_console_errors(
    browser: Browser, page_path: Path, width: int
) -> None:
    page, messages, foreign = _open(browser, page_path, width)
    try:
        tables = page.eval_on_selector_all(
            "table.data",
            "ts => ts.map(t => [t.dataset.table, t.rows.length,"
            " t.getBoundingClientRect().width, t.getBoundingClientRect().height])",
        )
        charts = page.eval_on_selector_all(
            "figure.chart svg",
            "ss => ss.map(s => [s.getBoundingClientRect().width,"
            " s.getBoundingClientRect().height, s.querySelectorAll('path').length])",
        )
        numbers = page.eval_on_selector_all("span.num[data-metric]", "ns => ns.length")
        notice = page.is_visible("#reconstructed-label")
        sideways = page.evaluate("document.documentElement.scrollWidth")
        page.screenshot(path=str(page_path.with_name(f"page-{width}.png")), full_page=True)
    finally:
        page.close()
    assert messages == [] and foreign == []
    assert [t[0] for t in tables] == [
        "prefill",
        "decode-aggregate",
        "decode-per-request",
        "decode-ttft",
    ]
    for _, rows, w, h in tables:
        assert rows >= 2 and w > 300 and h > 50
    assert len(charts) == len(list(load_article(ROOT / "runs" / "paiton-kimi-k3.1-pro").charts()))
    for w, h, paths in charts:
        assert w > 300 and h > 200 and paths > 5
    assert numbers > 70 and notice
    assert sideways <= width  # the page itself never scrolls sideways


@pytest.mark.parametrize("width", WIDTHS)
def test_chart_text_is_never_smaller_than_the_small_print(
    browser: Browser, page_path: Path, width: int
) -> None:
    page, _, _ = _open(browser, page_path, width)
    try:
        sizes: dict[str, float] = page.evaluate(TEXT_SIZES)
    finally:
        page.close()
    assert sizes["small"] == pytest.approx(12.8)
    assert sizes["page"] >= sizes["small"] - 0.01  # no text outside the charts is smaller
    assert sizes["chart"] >= sizes["small"], sizes


def test_a_table_wider_than_a_phone_scrolls_in_its_box_with_a_cue(
    browser: Browser, page_path: Path
) -> None:
    page, _, _ = _open(browser, page_path, 420)
    try:
        fitting = page.evaluate(TABLE_BOXES)
        page.evaluate(WIDEN)
        widened = {b["id"]: b for b in page.evaluate(TABLE_BOXES)}["decode-aggregate"]
        figure = page.query_selector("#table-decode-aggregate")
        assert figure is not None
        figure.screenshot(path=str(page_path.with_name("wide-table-420.png")))
        sideways = page.evaluate("document.documentElement.scrollWidth")
        page.eval_on_selector(
            'table.data[data-table="decode-aggregate"]',
            "t => t.closest('.table-scroll').scrollLeft = 10000",
        )
        moved = page.eval_on_selector(
            'table.data[data-table="decode-aggregate"]',
            "t => t.closest('.table-scroll').scrollLeft",
        )
        figure.screenshot(path=str(page_path.with_name("wide-table-420-scrolled.png")))
    finally:
        page.close()
    for b in fitting:  # the bundled tables fit a phone: headers wrap
        assert b["scroll"] <= b["client"], b
    assert widened["scroll"] > widened["client"] + 100
    assert widened["overflow"] == "auto" and widened["cue"] == 2
    assert sideways <= 420 and moved > 100


def test_lines_differ_by_dash_and_marker_and_legends_have_titles(
    browser: Browser, page_path: Path
) -> None:
    page, _, _ = _open(browser, page_path, 1100)
    try:
        lines: list[list[dict[str, Any]]] = page.evaluate(LINES)
        legends = page.eval_on_selector_all(
            "figure.chart svg", "ss => ss.map(s => s.textContent.includes('context length'))"
        )
    finally:
        page.close()
    with_lines = [chart for chart in lines if len(chart) > 1]
    assert len(with_lines) == 4
    for chart in with_lines:
        assert len({line["dash"] for line in chart}) == len(chart), chart
        assert len({line["marker"] for line in chart}) == len(chart), chart
    # a chart of several lines has a legend with its title; the prefill chart, one line, none
    assert legends == [len(chart) > 1 for chart in lines] and legends.count(False) == 1


# What the first screen shows: the bottom of each element, in the viewport's pixels.
FIRST_SCREEN = """() => {
  const bottom = sel => { const e = document.querySelector(sel);
    return e ? e.getBoundingClientRect().bottom : null; };
  const top = sel => { const e = document.querySelector(sel);
    return e ? e.getBoundingClientRect().top : null; };
  return {title: bottom('h1'), label: bottom('.provenance-label'),
          headlines: bottom('#key-results'), figure: top('.table-figure, figure.chart'),
          figureTitle: bottom('.table-figure .caption-title, figure.chart .chart-title')};
}"""


@pytest.mark.parametrize(("width", "height"), [(1100, 900), (420, 800)])
def test_the_first_screen_shows_the_title_label_headlines_and_a_figure(
    browser: Browser, page_path: Path, width: int, height: int
) -> None:
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        page.goto(page_path.as_uri(), wait_until="load")
        seen: dict[str, float] = page.evaluate(FIRST_SCREEN)
        page.screenshot(path=str(page_path.with_name(f"first-{width}.png")))
    finally:
        page.close()
    assert all(v is not None for v in seen.values()), seen
    assert seen["title"] < seen["label"] < seen["headlines"] <= seen["figure"], seen
    assert seen["headlines"] <= height and seen["figureTitle"] <= height, seen


def test_the_pdf_fits_five_pages_and_marks_each_as_reconstructed(page_path: Path) -> None:
    from pypdf import PdfReader

    reader = PdfReader(page_path.with_name("article.pdf"))
    assert len(reader.pages) <= 5
    label = "Reconstructed data: rebuilt from the published text"
    assert all(label in p.extract_text() for p in reader.pages)
