"""The frontier article (tests/articles/three-configs): the table, chart and metrics agree, an
unreachable level is a cell with a note, `[cost]` and `at_interactivity` errors are located, and
`check` recomputes a published claim at a fixed interactivity."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from reportgen.article.build import render_article
from reportgen.article.charts.render import _planned
from reportgen.article.frontiers import pairs, series_frontiers, with_frontiers
from reportgen.article.rundata import article_metrics
from reportgen.article.source.manifest import load_article
from reportgen.check.compare import check_article
from reportgen.errors import InputError
from reportgen.metrics.cost import usd_per_mtok
from reportgen.metrics.frontier import at_level

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


def test_an_unreachable_level_is_a_cell_with_a_note() -> None:
    built = render_article(ARTICLE, {})
    table = next(t for t in built.tables if t.id == "at-interactivity")
    words = [c for _, row in table.rows for c in row if c.missing and "unreachable" in c.html]
    assert words and all(c.note for c in words)
    notes = " ".join(str(text) for _, text in table.footnotes)
    assert "tok/s per user" in notes and "never extrapolated" in notes


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
    parts = {
        "ratio": f"{a.value / b.value:.1f}x TP2's",
        "level": f"at {level.value:g} tok/s per user",
        "cost": f"for {cost.value:.2f} USD/Mtok at {price.words()}",
    }
    published = (ARTICLE / "published.md").read_text(encoding="utf-8")
    line = next(x for x in published.splitlines() if x.startswith("TP4 gives"))
    assert all(part in line for part in parts.values()), (line, parts)
    return published, parts


def test_the_frontier_sentence_is_written_by_references_only() -> None:
    """The sentence's ratio, level, cost and throughputs are references: outside them the
    prose types no number but the configurations' names (TP2, TP4)."""
    prose = (ARTICLE / "frontier.md").read_text(encoding="utf-8")
    typed = re.sub(r"\bTP\d\b", "", re.sub(r"\{\{[^}]*\}\}", "", prose))
    assert not re.search(r"\d", typed), typed
    for metric in (
        "frontier.tp4.at_50.level",
        "frontier.tp4.at_50.usd_per_mtok",
        "frontier.tp4.at_50.tok_s_per_gpu/frontier.tp2.at_50.tok_s_per_gpu",
    ):
        assert "{{ " + metric + " }}" in prose


def test_check_recomputes_a_published_claim_at_fixed_interactivity() -> None:
    assert not check_article(ARTICLE, strict=True).failed


@pytest.mark.parametrize("part", ["ratio", "level", "cost"])
def test_a_changed_part_of_the_frontier_sentence_is_one_mismatch_at_its_line(
    tmp_path: Path, part: str
) -> None:
    published, parts = _frontier_sentence()
    old = parts[part]
    number = re.search(r"\d+(\.\d+)?", old)
    assert number is not None
    digits = number.group(0)
    bumped = digits[:-1] + ("1" if digits[-1] != "1" else "2")
    new = old[: number.start()] + bumped + old[number.end() :]
    changed = tmp_path / "changed.md"
    changed.write_text(published.replace(old, new, 1), encoding="utf-8")
    line = published[: published.index(old)].count("\n") + 1
    result = check_article(ARTICLE, published=[changed])
    assert result.failed
    errors = [i for i in result.items if i.severity == "error"]
    assert [(i.kind, i.line, i.source) for i in errors] == [("mismatch", line, str(changed))]
