"""The page's layout: results first, each chart with the table it draws, the data's provenance on
every table and once in full at the end, one footnote mark per finding kind, and an appendix of
the definitions of the metrics the page shows."""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path

import pytest

from reportgen.article.build import Built, render_article
from reportgen.metrics.lints.findings import LINTS

ROOT = Path(__file__).resolve().parents[3]
PAITON = ROOT / "runs" / "paiton-kimi-k3.1-pro"
MEASURED = ROOT / "runs" / "tiny-llamacpp-two-tools"


@pytest.fixture(scope="session")
def paiton() -> Built:
    return render_article(PAITON, {})


@pytest.fixture(scope="session")
def measured() -> Built:
    return render_article(MEASURED, {}, charts=False)


def _at(html: str, needle: str) -> int:
    assert needle in html, needle
    return html.index(needle)


def test_the_page_opens_on_its_results_and_tells_the_data_story_once_at_the_end(
    paiton: Built,
) -> None:
    html = paiton.html
    order = [
        "<h1>",
        'class="provenance-label reconstructed"',
        'id="key-results"',
        'class="table-figure"',
        'id="data-quality"',
        'id="reconstructed-notice"',
        'id="appendix"',
    ]
    assert [_at(html, n) for n in order] == sorted(_at(html, n) for n in order)
    # The status prose is declared to go at the end, with the story of the data.
    assert paiton.article.status is not None and paiton.article.status_at == "end"
    first_words = " ".join(paiton.article.status.text.split()[:4])
    assert _at(html, first_words) > _at(html, 'id="data-quality"')
    # The files' notes share their opening sentence: the page says it once.
    notes = [run.source.provenance.note or "" for run in paiton.metrics.runs]
    shared = notes[0].split(". ")[0] + "."
    assert all(n.startswith(shared) for n in notes) and html.count(shared) == 1


def test_each_chart_sits_in_one_row_with_the_table_it_draws(paiton: Built) -> None:
    groups = re.findall(r'<div class="figures[^"]*">(.*?)\n</div>', paiton.html, re.S)
    placed = [c for c in paiton.article.charts() if c.table]
    assert len(placed) == len(list(paiton.article.charts())) > 0
    for chart in placed:
        (group,) = [g for g in groups if f'id="chart-{chart.id}"' in g]
        assert f'id="table-{chart.table}"' in group
    assert 'id="charts"' not in paiton.html  # no separate section of charts


def test_every_table_of_reconstructed_data_says_so_in_its_caption(
    paiton: Built, measured: Built
) -> None:
    titles = re.findall(r'<div class="caption-title">(.*?)</div>', paiton.html)
    assert len(titles) == len(paiton.tables) > 0
    assert all('<span class="prov-mark">(reconstructed data)</span>' in t for t in titles)
    assert not re.search(r"class=\"(prov-mark|provenance-label)", measured.html)


def test_a_finding_kind_has_one_mark_everywhere_and_marks_keep_one_order(paiton: Built) -> None:
    html = paiton.html
    meaning: dict[str, set[str]] = {}
    for mark, text in re.findall(r"<li><sup>([^<]+)</sup> ([^(<]+) \(see", html):
        meaning.setdefault(mark, set()).add(text)
    titles = {lint.title for lint in LINTS.values()}
    assert meaning and all(len(t) == 1 and t <= titles for t in meaning.values()), meaning
    # The data-quality list shows each mark with its finding's plain title, no lint id.
    listed = re.findall(r'<span class="mark">([^<]+)</span> <span class="finding-title">', html)
    assert set(meaning) <= set(listed)
    quality = html[html.index('id="data-quality"') : html.index('id="about-the-data"')]
    assert not any(f"[{lint}]" in quality for lint in LINTS)
    cells = re.findall(r'<sup class="fn">([^<]+)</sup>', html)
    several = [c for c in cells if len(c) > 1 and all(m in listed for m in c)]
    assert several, "the bundled article has a cell with two marks"
    for marks in several:
        assert list(marks) == sorted(marks, key=listed.index), marks


def test_acknowledged_findings_are_folded(paiton: Built) -> None:
    reviewed = [f for f in paiton.findings if f.acknowledged]
    folded = re.findall(r'<li class="finding [a-z]+ reviewed"[^>]*>\s*<details>', paiton.html)
    assert reviewed and len(folded) == len({f.id for f in reviewed})


def test_the_appendix_defines_only_the_metrics_the_page_shows(paiton: Built) -> None:
    html = paiton.html
    body, appendix = html[: html.index('id="appendix"')], html[html.index('id="appendix"') :]
    shown = set(re.findall(r'data-metric="([^"]+)"', body))
    keys = {v.key for v in paiton.metrics.values if v.id in shown}
    keys |= {c.metric for c in paiton.article.charts()}
    computed = {v.key for v in paiton.metrics.values}
    defined = set(re.findall(r"<dt>.*? v\d+</dt>", appendix))
    assert 0 < len(defined) <= len(keys) < len(computed)
    assert "<details" in appendix  # folded on screen


def test_the_head_describes_the_article_and_long_pages_have_contents(
    paiton: Built, measured: Built
) -> None:
    html = paiton.html
    title = re.search(r"<title>(.*?)</title>", html)
    assert title is not None
    for prop in ("og:title", "og:description"):
        assert f'<meta property="{prop}" content="' in html
    assert '<meta property="og:type" content="article">' in html
    description = re.search(
        r'<meta name="description" content="([^"]+)" data-metrics="([^"]+)">', html
    )
    assert description is not None and description.group(1).startswith(title.group(1))
    first = paiton.article.key_results[0].metric
    shown = re.search(rf'data-metric="{re.escape(first)}"[^>]*>([^<]+)<', html)
    assert shown is not None and shown.group(1).replace("\xa0", " ") in description.group(1)
    # where the headline's number is in the description, and its metric, for check
    offset, metric = description.group(2).split(":")
    assert metric == first
    assert description.group(1)[int(offset) :].startswith(shown.group(1).replace("\xa0", " "))
    for built in (paiton, measured):  # each has more than four sections: a contents list
        nav = re.search(r'<nav class="contents".*?</nav>', built.html, re.S)
        assert nav is not None
        titles = [s.title for s in built.article.sections if s.title]
        links = [html_lib.unescape(t) for t in re.findall(r'">([^<]+)</a>', nav.group())]
        assert links[: len(titles)] == titles


def test_a_phone_gets_short_digests_and_the_page_keeps_the_full_ones(paiton: Built) -> None:
    for run in paiton.metrics.runs:
        digest = run.source.sha256
        assert f'<code class="sha sha-full">{digest}</code>' in paiton.html
        assert f'title="{digest}" aria-hidden="true">{digest[:12]}…</code>' in paiton.html


def test_a_page_built_without_drawings_shows_each_charts_title_and_caption(
    measured: Built,
) -> None:
    # check builds the page in memory without drawing its charts; a copy of the article shows
    # their titles and captions among the tables, and check aligns the copy's words with these
    charts = list(measured.article.charts())
    assert charts and "<svg" not in measured.html
    for chart in charts:
        figure = re.search(
            rf'<figure class="chart" id="chart-{chart.id}">(.*?)</figure>', measured.html, re.S
        )
        assert figure is not None, chart.id
        assert (
            f'<figcaption class="chart-title">{html_lib.escape(chart.title)}</figcaption>'
            in figure.group(1)
        )
        assert chart.caption is not None
        assert html_lib.escape(" ".join(chart.caption.text.split()[:4])) in figure.group(1)


def test_a_table_two_charts_draw_takes_its_own_row_and_they_share_the_next(
    paiton: Built,
) -> None:
    # the interactivity chart plots per-request speed (the table's) against throughput per GPU
    by_table: dict[str, list[str]] = {}
    for chart in paiton.article.charts():
        if chart.table:
            by_table.setdefault(chart.table, []).append(chart.id)
    two = [t for t, charts in by_table.items() if len(charts) == 2]
    assert two, by_table
    groups = re.findall(r'<div class="(figures[^"]*)">(.*?)\n</div>', paiton.html, re.S)
    for table in two:
        (found,) = [(c, g) for c, g in groups if f'id="table-{table}"' in g]
        assert found[0] == "figures wide"
        assert all(f'id="chart-{chart}"' in found[1] for chart in by_table[table])
    # a table one chart draws shares its row with it
    one = [t for t, charts in by_table.items() if len(charts) == 1]
    assert one and all(
        c == "figures" for c, g in groups if any(f'id="table-{t}"' in g for t in one)
    )
