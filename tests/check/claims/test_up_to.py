"""A number said "up to" in a copy's prose, plain text or HTML: judged against the highest of
the cells its words range over, and check names that cell with its value and its repetitions'
interval. Every expected number is computed here from the article's metrics."""

from __future__ import annotations

import dataclasses
import html
import math
from pathlib import Path

import numpy as np
import pytest
from helpers_articles import ROOT
from helpers_articles import built_article as _article

from reportgen.check.compare import check_published
from reportgen.check.result import SourceResult, expected_numbers
from reportgen.metrics.display import shown_text
from reportgen.metrics.registry import MetricValue

REPEATED = ROOT / "tests" / "articles" / "repetitions"
KEY = "decode.aggregate_tok_s"


def _cells(folder: Path) -> dict[str, float]:
    """The repetitions' mean of every 4K decode throughput cell, by id."""
    built, _ = _article(folder)
    return {
        m.id: m.value
        for m in built.metrics.values
        if m.key == KEY and m.stat == "rep_mean" and m.context == 4096
    }


def _check(sentence: str, *, as_html: bool) -> tuple[SourceResult, int]:
    """check of a copy that is `sentence` alone; the line it stands on."""
    built, shape = _article(REPEATED)
    expected = expected_numbers(built.article, built.metrics, built.tables)
    if as_html:
        text = f"<!doctype html>\n<html><body>\n<p>{html.escape(sentence)}</p>\n</body></html>\n"
        line = 3
    else:
        text, line = f"A copy.\n\n{sentence}\n", 3
    return check_published(text, "copy", built.metrics, expected, shape, html=as_html), line


def _at_line(result: SourceResult, line: int) -> list[tuple[str, str | None]]:
    return [(i.kind, i.metric) for i in result.items if i.line == line]


@pytest.mark.parametrize("as_html", [False, True], ids=["text", "html"])
def test_a_true_up_to_matches_and_names_its_cell(as_html: bool) -> None:
    cells = _cells(REPEATED)
    best = max(cells, key=lambda k: cells[k])
    built, _ = _article(REPEATED)
    value = built.metrics.by_id()[best]
    shown = shown_text(value, unit=True)
    result, line = _check(f"Decode throughput at 4K reaches up to {shown}.", as_html=as_html)
    assert _at_line(result, line) == []
    (note,) = result.notes
    assert f"{best} = {shown}" in note and f"the highest of the {len(cells)} cells" in note
    # the interval of the best cell's repetitions: mean +- t(0.975, n - 1) s / sqrt(n)
    from scipy import stats

    reps = np.array([v for _, v in built.metrics.by_id()[best.removesuffix(".rep_mean")].repeats])
    half = stats.t.ppf(0.975, len(reps) - 1) * reps.std(ddof=1) / math.sqrt(len(reps))
    lo = built.metrics.by_id()[best.replace("rep_mean", "rep_ci_lo")]
    hi = built.metrics.by_id()[best.replace("rep_mean", "rep_ci_hi")]
    assert lo.value == pytest.approx(reps.mean() - half, rel=1e-12)
    assert hi.value == pytest.approx(reps.mean() + half, rel=1e-12)
    assert f"of {len(reps)} repetitions" in note
    assert f"{shown_text(lo, unit=False)} to {shown_text(hi, unit=True)}" in note


@pytest.mark.parametrize("as_html", [False, True], ids=["text", "html"])
@pytest.mark.parametrize("which", ["second best", "beyond the best"])
def test_an_up_to_that_is_not_the_highest_is_a_mismatch_at_the_best_cell(
    as_html: bool, which: str
) -> None:
    cells = _cells(REPEATED)
    ranked = sorted(cells, key=lambda k: cells[k])
    built, _ = _article(REPEATED)
    if which == "second best":  # the data reaches more than the copy says
        said = shown_text(built.metrics.by_id()[ranked[-2]], unit=True)
    else:  # the data never reaches what the copy says
        said = f"{math.ceil(cells[ranked[-1]] * 2):,} tok/s"
    result, line = _check(f"Decode throughput at 4K reaches up to {said}.", as_html=as_html)
    assert _at_line(result, line) == [("mismatch", ranked[-1])]
    (item,) = [i for i in result.items if i.line == line]
    assert "up to" in item.message and ranked[-1] in item.message
    assert len(result.notes) == 1 and ranked[-1] in result.notes[0]


def test_a_number_without_up_to_is_not_read_as_one() -> None:
    """The same sentence without "up to" names no single cell: unverified, no note."""
    cells = _cells(REPEATED)
    best = max(cells, key=lambda k: cells[k])
    built, _ = _article(REPEATED)
    shown = shown_text(built.metrics.by_id()[best], unit=True)
    result, line = _check(f"Decode throughput at 4K reaches {shown}.", as_html=False)
    assert [k for k, _ in _at_line(result, line)] == ["unverified"]
    assert result.notes == ()


def test_of_equal_cells_the_first_the_article_shows_is_named() -> None:
    from reportgen.check.claims.upto import at_best
    from reportgen.check.readers.reported import Reported

    values = {"a": 5.0, "b": 7.0, "c": 7.0, "d": 1.0}
    said = Reported(
        line=1, col=1, text="7", value=7.0, decimals=0, unit=None, metric_id=None,
        up_to=("a", "b", "c", "d"),
    )  # fmt: skip
    found = at_best(said, lambda m: replace_value(m, values))
    assert found.metric_id == "b"


def replace_value(metric: str, values: dict[str, float]) -> MetricValue | None:
    """A stand-in metric of `values[metric]` (only its value is read)."""
    built, _ = _article(REPEATED)
    some = built.metrics.values[0]
    return dataclasses.replace(some, value=values[metric]) if metric in values else None
