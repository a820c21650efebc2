"""The built page in a real browser: Debian's headless Chromium, driven by Playwright.

The page is opened from a file:// URL with the network cut off (any request other than the page
itself fails the test), and must render its tables and charts with no console message.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Request, sync_playwright

from reportgen.article.build import build

ROOT = Path(__file__).resolve().parents[1]
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


@pytest.fixture(scope="module")
def page_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    return build(ROOT / "runs" / "paiton-kimi-k3.1-pro", out, {}) / "index.html"


def test_page_renders_tables_and_charts_without_console_errors(page_path: Path) -> None:
    assert Path(CHROMIUM).exists(), "Debian's chromium is needed (apt-get install chromium)"
    messages: list[str] = []
    foreign: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.on("console", lambda m: messages.append(f"{m.type}: {m.text}"))
            page.on("pageerror", lambda e: messages.append(f"pageerror: {e}"))

            def only_the_page(request: Request) -> None:
                if request.url != page_path.as_uri():
                    foreign.append(request.url)

            page.on("request", only_the_page)
            page.goto(page_path.as_uri(), wait_until="load")
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
            notice = page.is_visible("#reconstructed-notice")
            page.screenshot(path=str(page_path.with_suffix(".png")), full_page=True)
            # On a phone-sized screen the page itself never scrolls sideways (tables may).
            page.set_viewport_size({"width": 420, "height": 900})
            narrow = page.evaluate("document.documentElement.scrollWidth")
        finally:
            browser.close()
    assert messages == []
    assert foreign == []
    assert [t[0] for t in tables] == [
        "prefill",
        "decode-aggregate",
        "decode-per-request",
        "decode-ttft",
    ]
    for _, rows, width, height in tables:
        assert rows >= 2 and width > 300 and height > 50
    assert len(charts) == 4
    for width, height, paths in charts:
        assert width > 300 and height > 150 and paths > 5
    assert numbers > 70
    assert notice
    assert narrow <= 420
