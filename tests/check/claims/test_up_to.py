"""A number said "up to" in a copy's prose, plain text or HTML: judged against the highest of
the cells its words range over, and check names that cell with its value and its repetitions'
interval. A ratio or change said "up to" ("up to 1.4x vLLM's", "up to 20% higher") is judged
against the highest over the pairs of cells its words range over, named with both cells, their
values and, with repetitions, the ratio's interval (checked against scipy's Welch t); a best
pair inside the noise gets the article's claim findings. Every expected number is computed here
from the article's metrics."""

from __future__ import annotations

import dataclasses
import html
import math
from pathlib import Path

import numpy as np
import pytest
from helpers_articles import ROOT
from helpers_articles import built_article as _article
from helpers_claims import half_up

from reportgen.check.compare import check_published
from reportgen.check.result import SourceResult, expected_numbers
from reportgen.metrics.display import shown_text
from reportgen.metrics.registry import MetricSet, MetricValue

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


# --- "up to" a ratio or a change: the highest over the pairs of cells its words range over ---

ENGINES = ROOT / "tests" / "articles" / "two-engines"


def _aggregate(folder: Path, run: str | None = None) -> dict[tuple[int, int], MetricValue]:
    """Each decode throughput cell as a table shows it (the repetitions' mean where there are
    repetitions), by (context, concurrency), of `run` where the article has several."""
    built, _ = _article(folder)
    return {
        (m.context, m.concurrency): m
        for m in built.metrics.values
        if m.key == KEY
        and m.stat in (None, "rep_mean")
        and (run is None or m.id.startswith(f"{run}."))
        and m.context is not None
        and m.concurrency is not None
    }


def _engine_pairs(context: int | None) -> list[tuple[MetricValue, MetricValue]]:
    """(SGLang's cell, vLLM's) at every place both runs measured, at `context` if given."""
    sglang, vllm = _aggregate(ENGINES, "sglang"), _aggregate(ENGINES, "vllm")
    places = sorted(p for p in sglang.keys() & vllm.keys() if context in (None, p[0]))
    return [(sglang[p], vllm[p]) for p in places]


def _check_in(folder: Path, sentence: str, *, as_html: bool) -> tuple[SourceResult, int]:
    built, shape = _article(folder)
    expected = expected_numbers(built.article, built.metrics, built.tables)
    if as_html:
        text = f"<!doctype html>\n<html><body>\n<p>{html.escape(sentence)}</p>\n</body></html>\n"
    else:
        text = f"A copy.\n\n{sentence}\n"
    return check_published(text, "copy", built.metrics, expected, shape, html=as_html), 3


def _said_ratio(x: float) -> str:
    return f"{half_up(x, 2)}x"


@pytest.mark.parametrize("as_html", [False, True], ids=["text", "html"])
@pytest.mark.parametrize("context", [4096, None], ids=["at 4K", "every shared cell"])
def test_an_up_to_ratio_is_the_highest_over_the_pairs_its_words_range_over(
    as_html: bool, context: int | None
) -> None:
    pairs = _engine_pairs(context)
    ratios = [a.value / b.value for a, b in pairs]
    best = max(range(len(pairs)), key=lambda k: ratios[k])
    a, b = pairs[best]
    at = " at 4K context" if context else ""
    sentence = f"SGLang's decode throughput{at} is up to {_said_ratio(ratios[best])} vLLM's."
    result, line = _check_in(ENGINES, sentence, as_html=as_html)
    assert _at_line(result, line) == []
    (note,) = result.notes
    assert f"highest ratio of the {len(pairs)} pairs of cells" in note
    assert f"{a.id}/{b.id} = {ratios[best]:.2f}x" in note
    assert f"{a.id} = {shown_text(a, unit=True)}, {b.id} = {shown_text(b, unit=True)}" in note
    assert "interval" not in note, "no repetitions: no interval"
    assert result.findings == ()


@pytest.mark.parametrize("as_html", [False, True], ids=["text", "html"])
@pytest.mark.parametrize("which", ["second best", "beyond the best"])
def test_an_up_to_ratio_that_is_not_the_highest_is_a_mismatch_at_its_line(
    as_html: bool, which: str
) -> None:
    pairs = _engine_pairs(4096)
    ratios = sorted((a.value / b.value, a.id, b.id) for a, b in pairs)
    top, a, b = ratios[-1]
    said = ratios[-2][0] if which == "second best" else top * 1.5
    assert _said_ratio(said) != _said_ratio(top), "the two differ at the precision written"
    sentence = f"SGLang's decode throughput at 4K context is up to {_said_ratio(said)} vLLM's."
    result, line = _check_in(ENGINES, sentence, as_html=as_html)
    assert _at_line(result, line) == [("mismatch", f"{a}/{b}")]
    (item,) = [i for i in result.items if i.line == line]
    assert f"give {_said_ratio(top)}" in item.message and "said 'up to'" in item.message


@pytest.mark.parametrize("as_html", [False, True], ids=["text", "html"])
@pytest.mark.parametrize("true", [True, False], ids=["true", "false"])
def test_an_up_to_change_is_the_highest_change_over_the_pairs(as_html: bool, true: bool) -> None:
    pairs = _engine_pairs(4096)
    changes = sorted(((a.value - b.value) / b.value * 100, a.id, b.id) for a, b in pairs)
    top, a, b = changes[-1]
    said = half_up(top, 0) if true else half_up(top + 5, 0)
    sentence = f"SGLang's decode throughput at 4K context is up to {said}% higher than vLLM's."
    result, line = _check_in(ENGINES, sentence, as_html=as_html)
    assert _at_line(result, line) == ([] if true else [("mismatch", f"{b}->{a}")])
    (note,) = result.notes
    assert f"{b}->{a} = {top:+.1f}%" in note


def test_an_up_to_fall_is_judged_against_the_deepest_fall() -> None:
    """ "up to P% lower": of the changes it ranges over, the one furthest below none."""
    cells = _aggregate(REPEATED)
    top = max(cells, key=lambda p: p[1])
    falls = {p: (m.value - cells[top].value) / cells[top].value * 100 for p, m in cells.items()}
    deepest = min((p for p in falls if p != top), key=lambda p: falls[p])
    said = half_up(-falls[deepest], 0)
    sentence = (
        f"Decode throughput at 4K is up to {said}% lower than with {top[1]} concurrent requests."
    )
    result, line = _check_in(REPEATED, sentence, as_html=False)
    assert _at_line(result, line) == []
    (note,) = result.notes
    assert f"{cells[top].id}->{cells[deepest].id} = {falls[deepest]:+.1f}%" in note


def _welch_ratio(a: MetricValue, b: MetricValue) -> tuple[float, float]:
    """The 95% interval of a's repetitions over b's, computed here with scipy: Welch's t on the
    logs, exponentiated."""
    from scipy import stats

    xs, ys = (np.log([v for _, v in m.repeats]) for m in (a, b))
    ci = stats.ttest_ind(xs, ys, equal_var=False).confidence_interval(0.95)
    return math.exp(ci.low), math.exp(ci.high)


@pytest.mark.parametrize("as_html", [False, True], ids=["text", "html"])
@pytest.mark.parametrize("true", [True, False], ids=["true", "false"])
def test_an_up_to_ratio_with_repetitions_names_its_interval(as_html: bool, true: bool) -> None:
    cells = _aggregate(REPEATED)
    one = cells[min(cells, key=lambda p: p[1])]
    others = [m for m in cells.values() if m is not one]
    best = max(others, key=lambda m: m.value / one.value)
    ratio = best.value / one.value
    said = _said_ratio(ratio if true else ratio * 0.8)  # the second best, or less
    sentence = f"Decode throughput at 4K is up to {said} that at one request."
    result, line = _check_in(REPEATED, sentence, as_html=as_html)
    assert _at_line(result, line) == ([] if true else [("mismatch", f"{best.id}/{one.id}")])
    (note,) = result.notes
    low, high = _welch_ratio(best, one)
    assert f"{best.id}/{one.id} = {ratio:.2f}x" in note
    assert f"95% interval {low:.2f}x to {high:.2f}x" in note
    assert f"the {len(others)} pairs of cells" in note
    assert result.findings == (), "an interval well clear of no change, outside the noise"


def _flat(folder: Path, best: MetricValue, base: MetricValue, scale: float) -> MetricSet:
    """The article's metrics with `best`'s repetitions replaced by `base`'s times `scale` in
    another order (synthetic: the same measurement again, so a ratio near `scale`)."""
    built, _ = _article(folder)
    values = [v for _, v in base.repeats][::-1]
    repeats = tuple((f, values[k % len(values)] * scale) for k, (f, _) in enumerate(best.repeats))
    mean = float(np.mean([v for _, v in repeats]))
    flat = dataclasses.replace(best, repeats=repeats, value=mean)
    return dataclasses.replace(
        built.metrics,
        values=tuple(flat if v.id == best.id else v for v in built.metrics.values),
    )


@pytest.mark.parametrize(
    ("scale", "words", "lint", "severity"),
    [
        (1.0, "faster than", "claim-not-supported", "error"),
        (1.02, "that of", "claim-within-noise", "warning"),
    ],
)
def test_an_up_to_whose_best_pair_is_inside_the_noise_gets_the_claim_finding(
    scale: float, words: str, lint: str, severity: str
) -> None:
    """Synthetic repetitions: the 4-request cell made the one-request cell measured again (its
    values in another order, times `scale`), every other cell left as it is."""
    from reportgen.check.result import CheckResult
    from reportgen.metrics.lints.findings import fails

    built, shape = _article(REPEATED)
    cells = _aggregate(REPEATED)
    by_c = {p[1]: m for p, m in cells.items()}
    one, four = by_c[1], by_c[4]
    metrics = _flat(REPEATED, four, one, scale)
    flat = metrics.by_id()[four.id]
    ratio = flat.value / one.value
    said = f"{half_up(ratio, 2)}x"
    if words == "faster than":
        sentence = f"Decode throughput at 4K with 4 concurrent requests is up to {said} faster "
        sentence += "than with one request."
    else:
        sentence = f"Decode throughput at 4K with 4 concurrent requests is up to {said} that of "
        sentence += "one request."
    expected = expected_numbers(built.article, metrics, built.tables)
    result = check_published(f"A copy.\n\n{sentence}\n", "copy.md", metrics, expected, shape)
    (found,) = result.findings
    assert (found.id, found.severity, found.file) == (lint, severity, "copy.md")
    low, high = _welch_ratio(flat, one)
    assert found.evidence.startswith(f"line 3: {four.id}/{one.id} = {ratio:.2f}x; ")
    assert f"95% interval {low:.2f}x to {high:.2f}x" in found.evidence
    assert f"'up to {said}" in found.message and f"{low:.2f}x to {high:.2f}x" in found.message
    assert [i.kind for i in result.items if i.line == 3] == [], "the ratio itself matches"
    alone = dataclasses.replace(result, items=())  # the article's tables it does not show, aside
    for strict in (False, True):
        checked = CheckResult(article="a", sources=(alone,), findings=alone.findings, strict=strict)
        assert checked.failed == (strict or severity == "error")
        assert fails(result.findings, strict=strict) == checked.failed


def test_a_copy_s_claim_findings_join_the_result_acknowledged_as_the_article_s_are() -> None:
    from reportgen.article.source.declarations import Acknowledgement, Text
    from reportgen.check.compare import copies_findings

    built, shape = _article(REPEATED)
    by_c = {p[1]: m for p, m in _aggregate(REPEATED).items()}
    metrics = _flat(REPEATED, by_c[4], by_c[1], 1.02)
    said = f"{half_up(metrics.by_id()[by_c[4].id].value / by_c[1].value, 2)}x"
    sentence = (
        f"Decode throughput at 4K with 4 concurrent requests is up to {said} that of one request."
    )
    expected = expected_numbers(built.article, metrics, built.tables)
    result = check_published(f"A.\n\n{sentence}\n", "copy.md", metrics, expected, shape)
    (found,), places = copies_findings([result], built.article)
    assert (found.id, found.acknowledged, places) == ("claim-within-noise", None, ((3, 1),))
    reason = Text(text="Synthetic repetitions.", file="article.toml", line=1)
    article = dataclasses.replace(
        built.article,
        acknowledgements=(Acknowledgement("claim-within-noise", (), reason),),
    )
    (found,), _ = copies_findings([result], article)
    assert found.acknowledged == "Synthetic repetitions."


@pytest.mark.parametrize(
    ("scale", "words", "lint"),
    [
        (1.0, "faster than vLLM's", "claim-not-supported"),
        (1.02, "vLLM's", "claim-within-noise"),
        (1.5, "faster than vLLM's", None),
    ],
)
def test_a_plain_claim_in_a_copy_s_own_words_is_judged_with_its_interval(
    scale: float, words: str, lint: str | None
) -> None:
    """Not only "up to": a ratio a copy says of one pair of cells gets the finding the
    article's own claim would. Synthetic repetitions on the two-engine article: vLLM's 4K x 16
    cell measured three times, SGLang's the same values in another order times `scale`."""
    built, shape = _article(ENGINES)
    by_id = built.metrics.by_id()
    base = by_id["vllm.decode.4K.c16.aggregate_tok_s"]
    other = by_id["sglang.decode.4K.c16.aggregate_tok_s"]
    base_reps = [base.value * f for f in (0.99, 1.0, 1.01)]
    other_reps = [v * scale for v in base_reps[::-1]]
    changed = {
        base.id: dataclasses.replace(
            base, repeats=tuple((f"r{k}.json", v) for k, v in enumerate(base_reps, 1))
        ),
        other.id: dataclasses.replace(
            other,
            repeats=tuple((f"r{k}.json", v) for k, v in enumerate(other_reps, 1)),
            value=float(np.mean(other_reps)),
        ),
    }
    metrics = dataclasses.replace(
        built.metrics,
        values=tuple(changed.get(v.id, v) for v in built.metrics.values),
    )
    ratio = changed[other.id].value / base.value
    said = f"{half_up(ratio, 2)}x"
    sentence = f"SGLang's decode throughput at 4K with 16 concurrent requests is {said} {words}."
    expected = expected_numbers(built.article, metrics, built.tables)
    result = check_published(f"A copy.\n\n{sentence}\n", "copy.md", metrics, expected, shape)
    assert [i.kind for i in result.items if i.line == 3] == [], "the ratio itself matches"
    if lint is None:
        assert result.findings == (), "an interval well clear of no change, outside the noise"
        return
    (found,) = result.findings
    assert (found.id, found.file) == (lint, "copy.md")
    low, high = _welch_ratio(changed[other.id], changed[base.id])
    assert found.evidence.startswith(f"line 3: {other.id}/{base.id} = {ratio:.2f}x; ")
    assert f"95% interval {low:.2f}x to {high:.2f}x" in found.evidence
