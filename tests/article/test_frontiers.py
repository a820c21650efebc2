"""The frontier article (tests/articles/three-configs): the table, chart and metrics agree, an
unreachable level is a cell with a note, `[cost]` and `at_interactivity` errors are located,
`check` recomputes a published claim at a fixed interactivity and its intervals, a gated point
is off the frontier, and a claim on two frontiers is judged by its bootstrap interval."""

from __future__ import annotations

import math
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from helpers_articles import built_article, check_copy

from reportgen.article.build import render_article
from reportgen.article.charts.render import _planned
from reportgen.article.frontiers import pairs, series_frontiers, table_levels, with_frontiers
from reportgen.article.rundata import article_metrics
from reportgen.article.source.manifest import load_article
from reportgen.article.tables.layout import table_views
from reportgen.check.compare import check_article
from reportgen.errors import InputError
from reportgen.metrics.claims import claim_spread, lookup
from reportgen.metrics.cost import usd_per_mtok
from reportgen.metrics.frontier import at_level
from reportgen.metrics.registry import Gate, MetricSet

ROOT = Path(__file__).resolve().parents[2]
ARTICLE = ROOT / "tests" / "articles" / "three-configs"
METRIC, X = "decode.aggregate_tok_s.per_gpu", "decode.per_request_tok_s"


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "three-configs"
    shutil.copytree(ARTICLE, folder)
    return folder


def test_the_table_values_are_the_frontier_the_chart_draws() -> None:
    article, metrics = article_metrics(ARTICLE)
    metrics = with_frontiers(article, metrics)
    found = pairs(metrics, METRIC, X, article.tables().__next__().where)
    fronts = dict(series_frontiers(found, "run", article))
    chart = next(
        plot for decl, _, plot in _planned(article, metrics, None) if decl.id == "interactivity"
    )
    assert len(chart.frontiers) == 3
    for line, (run, front) in zip(chart.frontiers, fronts.items(), strict=True):
        assert line.xs == tuple(p.x for p in front) and line.ys == tuple(p.y for p in front)
        for level in next(article.tables()).levels:
            value = metrics.get(f"frontier.{run}.at_{level:g}.tok_s_per_gpu")
            expected = at_level(front, level)
            assert (value is None) == (expected is None), (run, level)
            if value is not None:
                assert value.value == expected


@pytest.mark.slow
def test_an_unreachable_level_is_a_cell_with_a_note() -> None:
    built = render_article(ARTICLE, {})
    table = next(t for t in built.tables if t.id == "at-interactivity")
    words = [c for _, row in table.rows for c in row if c.missing and "unreachable" in c.html]
    assert words and all(c.note for c in words)
    notes = " ".join(str(text) for _, text in table.footnotes)
    assert "tok/s per user" in notes and "never extrapolated" in notes


@pytest.mark.slow
def test_every_cost_cell_carries_the_price_source_and_date() -> None:
    built = render_article(ARTICLE, {})
    price = built.article.cost
    assert price is not None
    for table in built.tables:
        for _, row in table.rows:
            for cell in row:
                if cell.metric and cell.metric.endswith(("usd_per_mtok", "usd_per_mtok_total")):
                    marks = dict(table.footnotes)
                    assert cell.note is not None
                    said = " ".join(str(marks[m]) for m in cell.note if m in marks)
                    assert price.source in said and price.date in said, cell.metric


def _edit(folder: Path, old: str, new: str) -> None:
    path = folder / "article.toml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ('source = "an example price for this synthetic article"\n', "", "source"),
        ("gpu_hour_usd = 2.5", "gpu_hour_usd = -1", "gpu_hour_usd"),
        ('date = "2026-11-01"', 'date = "2026-13-01"', "is not a date"),
        ("levels = [20, 30, 50, 70]\n", "", "levels"),
        ('cost = "only"', 'cost = "some"', "cost"),
        ('kind = "at_interactivity"\n', "", "rows"),
    ],
)
def test_article_toml_errors_are_located(tmp_path: Path, old: str, new: str, says: str) -> None:
    folder = _copy(tmp_path)
    _edit(folder, old, new)
    with pytest.raises(InputError) as caught:
        load_article(folder)
    problems = caught.value.problems
    assert any(says in p.message + p.pointer and p.line > 1 for p in problems), problems


def test_cost_true_without_a_price_is_an_error_at_the_table(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    text = (folder / "article.toml").read_text(encoding="utf-8")
    text = re.sub(r"\[cost\]\n(?:[^\n]+\n)+", "", text, count=1)
    (folder / "article.toml").write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_article(folder)
    problems = caught.value.problems
    assert any("needs the article's [cost]" in p.message for p in problems), problems


def _frontier_sentence() -> tuple[str, dict[str, str]]:
    """The copy's sentence that states A's ratio to B at one interactivity and A's cost there,
    and each of its three parts as the copy shows it, computed here from the data."""
    article, metrics = article_metrics(ARTICLE)
    metrics = with_frontiers(article, metrics)
    a = metrics.get("frontier.tp4.at_50.tok_s_per_gpu")
    b = metrics.get("frontier.tp2.at_50.tok_s_per_gpu")
    cost = metrics.get("frontier.tp4.at_50.usd_per_mtok")
    level = metrics.get("frontier.tp4.at_50.level")
    assert a is not None and b is not None and cost is not None and level is not None
    price = article.cost
    assert price is not None and cost.value == usd_per_mtok(price.gpu_hour_usd, 1, a.value)
    ratio_lo = metrics.get("frontier.tp4-vs-tp2.at_50.ratio.rep_ci_lo")
    cost_hi = metrics.get("frontier.tp4.at_50.usd_per_mtok.rep_ci_hi")
    assert ratio_lo is not None and cost_hi is not None
    parts = {
        "ratio": f"{a.value / b.value:.1f}x TP2's",
        "level": f"at {level.value:g} tok/s per user",
        "cost": f"for {cost.value:.2f} USD/Mtok at {price.words()}",
        "ratio interval": f"95% interval {ratio_lo.value:.2f}x to",
        "cost interval": f"to {cost_hi.value:.2f} USD/Mtok.",
    }
    published = (ARTICLE / "published.md").read_text(encoding="utf-8")
    line = next(x for x in published.splitlines() if x.startswith("TP4 gives"))
    assert all(part in line for part in parts.values()), (line, parts)
    return published, parts


def test_the_frontier_sentence_is_written_by_references_only() -> None:
    """The sentence's ratio, level, cost, throughputs and intervals are references: outside
    them the prose types no number but the configurations' names (TP2, TP4) and the
    intervals' level (95%)."""
    prose = (ARTICLE / "frontier.md").read_text(encoding="utf-8")
    typed = re.sub(r"\bTP\d\b|\b95%", "", re.sub(r"\{\{[^}]*\}\}", "", prose))
    assert not re.search(r"\d", typed), typed
    for metric in (
        "frontier.tp4.at_50.level",
        "frontier.tp4.at_50.usd_per_mtok",
        "frontier.tp4.at_50.tok_s_per_gpu/frontier.tp2.at_50.tok_s_per_gpu",
    ):
        assert "{{ " + metric + " }}" in prose


@pytest.mark.slow
def test_check_recomputes_a_published_claim_at_fixed_interactivity() -> None:
    assert not check_article(ARTICLE, strict=True).failed


@pytest.mark.slow
@pytest.mark.parametrize("part", ["ratio", "level", "cost", "ratio interval", "cost interval"])
def test_a_changed_part_of_the_frontier_sentence_is_one_mismatch_at_its_line(
    tmp_path: Path, part: str
) -> None:
    published, parts = _frontier_sentence()
    old = parts[part]
    number = re.search(r"\d+(?:\.\d+)?(?![\d%])", old)
    assert number is not None
    digits = number.group(0)
    bumped = digits[:-1] + ("1" if digits[-1] != "1" else "2")
    new = old[: number.start()] + bumped + old[number.end() :]
    changed = tmp_path / "changed.md"
    changed.write_text(published.replace(old, new, 1), encoding="utf-8")
    line = published[: published.index(old)].count("\n") + 1
    result = check_copy(changed, *built_article(ARTICLE))  # built as check builds it, once
    errors = [i for i in result.items if i.severity == "error"]
    assert [(i.kind, i.line) for i in errors] == [("mismatch", line)]
    assert result.findings == ()


def _gated(metrics: MetricSet, run: str, concurrency: int) -> MetricSet:
    """`metrics` with one point's throughput per GPU gated as incomplete."""
    gate = Gate(kind="incomplete", reason="3 of 40 requests did not complete", n=37, need=40)
    values = tuple(
        replace(v, gate=gate)
        if v.metric == METRIC and v.run == run and v.concurrency == concurrency
        else v
        for v in metrics.values
    )
    return replace(metrics, values=values)


@pytest.mark.slow
def test_a_gated_point_is_off_the_frontier_the_table_and_the_chart() -> None:
    article, measured = article_metrics(ARTICLE)
    decl = next(article.tables())
    front = dict(series_frontiers(pairs(measured, METRIC, X, decl.where), "run", article))["tp4"]
    top = max(front, key=lambda p: p.y)  # the frontier point of most throughput
    assert top.y_value.concurrency is not None
    metrics = _gated(measured, "tp4", top.y_value.concurrency)
    found = pairs(metrics, METRIC, X, decl.where)
    assert (
        all(y.gate is None for _, y in found)
        and len(found) == len(pairs(measured, METRIC, X, decl.where)) - 1
    )
    gone = dict(series_frontiers(found, "run", article))["tp4"]
    assert top.y_value.id not in {p.y_value.id for p in gone}
    # the table's values are read along the frontier without it
    levels = table_levels(decl, article, with_frontiers(article, metrics))
    tp4 = levels.levels[levels.names.index(article.run("tp4").label)]  # type: ignore[union-attr]
    for lv in tp4:
        expected = at_level(gone, lv.level)
        assert (lv.throughput.value if lv.throughput else None) == expected
    # the table's cells of that series carry a note naming the point and its gate
    views = table_views(article, with_frontiers(article, metrics))
    view = next(v for v in views if v.id == decl.id)
    notes = dict(view.footnotes)
    column = view.columns.index(article.run("tp4").label)  # type: ignore[union-attr]
    for _, cells in view.rows:
        said = " ".join(str(notes[m]) for m in (cells[column].note or "") if m in notes)
        assert f"{top.y_value.concurrency} concurrent requests" in said
        assert "3 of 40 requests did not complete" in said
    # and the chart neither draws it nor puts it on a frontier, and says so
    chart_decl, caption, plot = next(
        p
        for p in _planned(article, with_frontiers(article, metrics), None)
        if p[0].kind == "interactivity"
    )
    assert top.y not in {y for line in plot.lines for y in line.ys}
    assert top.y not in {y for line in plot.frontiers for y in line.ys}
    assert "Left out: TP4, 4 GPUs at" in caption and "did not complete" in caption
    del chart_decl


def _claim_copy(tmp_path: Path, prose: str) -> Path:
    """A copy of the article whose TP2 is TP4 measured again (TP4's run files, four GPUs):
    the two frontiers differ by run-to-run noise alone, with `prose` as its frontier text."""
    folder = _copy(tmp_path)
    for rep in (1, 2, 3):
        (folder / f"tp2-r{rep}.json").write_bytes((folder / f"tp4-r{rep}.json").read_bytes())
    _edit(folder, "gpu_count = 2", "gpu_count = 4")
    (folder / "frontier.md").write_text(prose, encoding="utf-8")
    (folder / "article.toml").write_text(
        (folder / "article.toml").read_text(encoding="utf-8").split("[published]")[0],
        encoding="utf-8",
    )
    return folder


RATIO = "frontier.tp4.at_50.tok_s_per_gpu/frontier.tp2.at_50.tok_s_per_gpu"


@pytest.mark.slow
def test_a_frontier_claim_whose_interval_includes_no_change_is_not_supported(
    tmp_path: Path,
) -> None:
    folder = _claim_copy(tmp_path, f"TP4 gives {{{{ {RATIO} }}}} more throughput than TP2.\n")
    _, metrics = article_metrics(folder)
    spread = claim_spread(RATIO, lookup(with_frontiers(load_article(folder), metrics).by_id()))
    assert spread is not None and spread.includes_no_change
    built = render_article(folder, {}, charts=False)
    [found] = [f for f in built.findings if f.id.startswith("claim-")]
    assert (found.id, found.severity) == ("claim-not-supported", "error")
    assert found.evidence.startswith("line 1: ") and "95% interval" in found.evidence
    assert found.metrics == tuple(RATIO.split("/"))
    result = check_article(folder)
    assert result.failed and any(f.id == "claim-not-supported" for f in result.findings)


@pytest.mark.slow
def test_a_frontier_claim_inside_the_noise_is_a_warning_strict_fails_on(tmp_path: Path) -> None:
    folder = _claim_copy(tmp_path, f"TP4 gives {{{{ {RATIO} }}}} of TP2's throughput.\n")
    [found] = [
        f for f in render_article(folder, {}, charts=False).findings if f.id.startswith("claim-")
    ]
    assert (found.id, found.severity) == ("claim-within-noise", "warning")
    assert not check_article(folder).failed
    assert check_article(folder, strict=True).failed


def test_the_article_s_frontier_claim_is_supported() -> None:
    built, _ = built_article(ARTICLE)
    assert not [f for f in built.findings if f.id.startswith("claim-")]


@pytest.mark.slow
def test_a_level_some_resamples_do_not_reach_says_how_many(tmp_path: Path) -> None:
    """Near the end of a frontier, a resample's frontier may stop short of the level: the
    interval is of the others, and the cell's note says how many did not reach."""
    folder = _copy(tmp_path)
    _edit(folder, "levels = [20, 30, 50, 70]\n", "levels = [21.3, 30, 50, 70]\n")
    article, metrics = article_metrics(folder)
    metrics = with_frontiers(article, metrics)
    value = metrics.get("frontier.tp2.at_21p3.tok_s_per_gpu")
    lo = metrics.get("frontier.tp2.at_21p3.tok_s_per_gpu.rep_ci_lo")
    assert value is not None and lo is not None
    missing = sum(math.isnan(x) for x in value.resamples)
    assert 0 < missing < len(value.resamples) / 2
    assert f"{missing:,} did not reach the level" in (lo.basis or "")
    view = next(v for v in table_views(article, metrics) if v.id == "at-interactivity")
    notes = dict(view.footnotes)
    cell = dict(view.rows)["21.3"][view.columns.index("TP2, 2 GPUs")]
    said = " ".join(str(notes[m]) for m in (cell.note or "") if m in notes)
    assert f"{missing:,} of {len(value.resamples):,} bootstrap resamples" in said


@pytest.mark.slow
def test_pm_shows_a_frontier_value_plus_minus_its_larger_distance_and_checks(
    tmp_path: Path,
) -> None:
    folder = _copy(tmp_path)
    _edit(
        folder,
        'compare = { base = "tp2", other = "tp4" }\nuncertainty = "interval"',
        'compare = { base = "tp2", other = "tp4" }\nuncertainty = "pm"',
    )
    built, _ = built_article(folder)
    view = next(t for t in built.tables if t.id == "at-interactivity")
    cell = dict(view.rows)["50"][view.columns.index("TP4, 4 GPUs")]
    assert cell.metric == "frontier.tp4.at_50.tok_s_per_gpu"
    metrics = built.metrics
    value, half = (metrics.get(f"frontier.tp4.at_50.tok_s_per_gpu{s}") for s in ("", ".rep_hw"))
    assert value is not None and half is not None
    text = " ".join(re.sub(r"<[^>]+>", "", str(cell.html)).split())
    assert text == f"{value.value:.0f} \u00b1 {half.value:.0f}"
    assert not check_article(folder, strict=True).failed
