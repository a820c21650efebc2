"""Claims and quotes a copy writes in its own words: tied to the metrics their sentence names,
recomputed, judged at the precision shown; left unverified when the sentence names no single
metric. Every expected number is computed here from the article's metrics."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_articles import MEASURED, PAITON
from helpers_articles import built_article as _article
from helpers_claims import half_up

from reportgen.check.claims.labels import metrics_shown, said, stem
from reportgen.check.compare import check_published
from reportgen.check.readers.sentences import sentences
from reportgen.check.readers.stream import tokens
from reportgen.check.result import Item, expected_numbers


def _value(folder: Path, metric: str) -> float:
    return _article(folder)[0].metrics.by_id()[metric].value


def _items(folder: Path, sentence: str) -> list[Item]:
    """What check says of the article's own published text with `sentence` added after it."""
    built, shape = _article(folder)
    if folder == PAITON:
        text = (PAITON / "published" / "paiton-kimi-k3.1-pro.txt").read_text("utf-8")
    else:
        text = ""
    text = text.rstrip("\n") + "\n\n" + sentence + "\n"
    expected = expected_numbers(built.article, built.metrics, built.tables)
    result = check_published(text, "copy.txt", built.metrics, expected, shape)
    last = text.count("\n")
    return [i for i in result.items if i.line == last]


def _ratio(a: str, b: str, decimals: int = 1) -> str:
    return half_up(_value(PAITON, a) / _value(PAITON, b), decimals)


def _change(a: str, b: str) -> str:
    """The change from `a` to `b` in percent, unsigned, as a copy writes it."""
    return half_up((_value(PAITON, b) - _value(PAITON, a)) / _value(PAITON, a) * 100, 0)


C16, C1 = "canonical.c16.output_tok_s", "canonical.c1.output_tok_s"
TTFT32, TTFT8 = "decode.32K.c16.ttft_s", "decode.8K.c16.ttft_s"


@pytest.mark.parametrize(
    "sentence",
    [
        lambda: f"Running 16 requests together gives {_ratio(C16, C1)}x the output of one request.",
        lambda: (
            f"With 16 requests together the output is {_ratio(C16, C1)} times that of a "
            "single request."
        ),
        lambda: (
            f"Time to first token at 32K context and 16 concurrent requests is "
            f"{_ratio(TTFT32, TTFT8)}x longer than at 8K."
        ),
        lambda: (
            f"Time to first token at 8K context and 16 concurrent requests is "
            f"{_ratio(TTFT32, TTFT8)}x shorter than at 32K context."
        ),
        lambda: (
            f"At 16 concurrent requests, time to first token rose by {_change(TTFT8, TTFT32)}% "
            "from 8K context to 32K context."
        ),
        lambda: (
            f"Time to first token at 32K context and 16 concurrent requests is "
            f"{_change(TTFT8, TTFT32)}% slower than at 8K context."
        ),
        lambda: (
            f"Time to first token at 8K context and 16 concurrent requests is "
            f"{_ratio(TTFT32, TTFT8)}x as fast as at 32K context."
        ),
        lambda: (
            "The cold prefill at 32K context took "
            f"{half_up(_value(PAITON, 'prefill.32K.ttft_s'), 2)} s."
        ),
    ],
)
def test_a_true_claim_or_quote_in_new_words_passes(sentence: object) -> None:
    assert callable(sentence)
    assert _items(PAITON, sentence()) == []


@pytest.mark.parametrize(
    ("sentence", "metric"),
    [
        (
            lambda: (
                f"Time to first token at 32K context and 16 concurrent requests is "
                f"{float(_ratio(TTFT32, TTFT8)) + 1:.1f}x longer than at 8K."
            ),
            f"{TTFT32}/{TTFT8}",
        ),
        (
            lambda: (
                f"Time to first token at 32K context and 16 concurrent requests is "
                f"{_ratio(TTFT32, TTFT8)}x shorter than at 8K."
            ),
            f"{TTFT8}/{TTFT32}",
        ),
        (
            lambda: (
                f"At 16 concurrent requests, time to first token fell by "
                f"{_change(TTFT8, TTFT32)}% from 8K context to 32K context."
            ),
            f"{TTFT8}->{TTFT32}",
        ),
        (
            lambda: (
                f"Running 16 requests together gives {float(_ratio(C16, C1)) * 2:.1f}x the "
                "output of one request."
            ),
            f"{C16}/{C1}",
        ),
        (
            lambda: (
                "The cold prefill at 32K context took "
                f"{_value(PAITON, 'prefill.32K.ttft_s') * 2:.2f} s."
            ),
            "prefill.32K.ttft_s",
        ),
    ],
)
def test_a_false_claim_or_quote_is_a_mismatch_at_its_line(sentence: object, metric: str) -> None:
    assert callable(sentence)
    items = _items(PAITON, sentence())
    assert [(i.kind, i.metric) for i in items] == [("mismatch", metric)]
    assert "the run files give" in items[0].message


@pytest.mark.parametrize(
    "sentence",
    [
        # names no quantity: which metric is 7.7x?
        "At 16 concurrent requests it is 7.7x more than at 8K context.",
        # names a quantity shown in every context, but no context: ambiguous
        "Time to first token at 16 concurrent requests is 7.7x longer than at one request.",
        # a change with no base to compare with
        "Decode throughput fell by 17% at 32K context.",
        # "faster" means nothing for a setting, and a percentage with no verb compares nothing
        "About 47% of the requests finished early.",
    ],
)
def test_a_claim_that_names_no_single_metric_stays_unverified(sentence: str) -> None:
    items = _items(PAITON, sentence)
    assert items and {i.kind for i in items} == {"unverified"}


def test_numbers_that_name_axis_values_are_labels_not_statements() -> None:
    """ "32K" and "16" say where the quoted metric is, not what it is: no item for them."""
    ratio = _ratio(TTFT32, TTFT8)
    items = _items(
        PAITON, f"TTFT at 32K context and 16 concurrent requests is {ratio}x longer than at 8K."
    )
    assert items == []
    # with the claim's metric unresolved they stay unverified
    assert {i.kind for i in _items(PAITON, "We also ran 32 concurrent requests.")} == {"unverified"}


def test_runs_and_statistics_are_named_by_their_words() -> None:
    """On the two-tool article: the run by its tool's name, the statistic by its word (the
    median; a p99 over the 12 requests of c4 is not measurable, and a ratio of it is a gated
    warning, true or not)."""
    built, shape = _article(MEASURED)
    by_id = built.metrics.by_id()
    expected = expected_numbers(built.article, built.metrics, built.tables)
    for stat, word, true_kind in (("", "median", None), (".p99", "p99", "gated")):
        a, b = f"aiperf.load.c4.ttft_s{stat}", f"guidellm.load.c4.ttft_s{stat}"
        ratio = half_up(by_id[a].value / by_id[b].value, 2)
        said = f"AIPerf's {word} time to first token at 4 concurrent requests"
        text = f"{said} is {ratio}x GuideLLM's.\n"
        result = check_published(text, "copy.txt", built.metrics, expected, shape)
        claims = [(i.kind, i.metric) for i in result.items if i.line == 1 and i.kind != "missing"]
        assert claims == ([] if true_kind is None else [(true_kind, f"{a}/{b}")])
        wrong = text.replace(f"{ratio}x", f"{float(ratio) + 0.5:.2f}x")
        result = check_published(wrong, "copy.txt", built.metrics, expected, shape)
        found = [(i.kind, i.metric) for i in result.items if i.line == 1 and i.kind != "missing"]
        assert found == [(true_kind or "mismatch", f"{a}/{b}")]


def test_words_and_axis_values_of_a_sentence() -> None:
    s = said(
        ["Time", "to", "first", "token", "at", "32K", "context", "and", "16", "concurrent"]  # noqa: RUF005 -- a list wrapped by hand; one literal would take a line an item
        + ["requests"],
        range(11),
        frozenset(),
    )
    assert s.axes == {"context": {"32k"}, "concurrency": {"16"}}
    assert {"time", "first", "token"} <= s.words and "contex" not in s.words
    assert said(["one", "request"], range(2), frozenset()).axes == {"concurrency": {"1"}}
    assert said(["8192-token", "context"], range(1), frozenset()).axes == {}
    assert said(["8192", "context"], range(1), frozenset()).axes == {"context": {"8k"}}
    assert stem("Requests") == stem("request") and stem("GuideLLM's") == stem("guidellm")


def test_every_metric_the_article_shows_has_words() -> None:
    shown = metrics_shown(_article(PAITON)[1])
    assert shown and all(m.words for m in shown)
    ttft = next(m for m in shown if m.id == TTFT32)
    assert ttft.axes == {"context": "32k", "concurrency": "16", "stat": "p50"}


def test_sentences_end_at_stops_and_blank_lines_not_decimal_points() -> None:
    toks = tokens([(1, "It took 2.40 s. Then"), (2, "more words"), (4, "new paragraph")], set())
    spans = [[toks[k].text for k in span] for span in sentences(toks)]
    assert spans == [["It", "took", "2.40", "s."], ["Then", "more", "words"], ["new", "paragraph"]]


def _n(metric: str, factor: float = 1.0) -> str:
    return f"{round(_value(PAITON, metric) * factor):,}"


@pytest.mark.parametrize(
    ("words", "metric"),
    [
        ("Each decode cell ran for {} s of sustained decode.", "matrix.duration_s"),
        ("Requests in the matrix were capped at {} output tokens.", "matrix.max_tokens"),
        (
            "The 16-request canonical run produced {} output tokens per request.",
            "canonical.c16.output_tokens",
        ),
        ("The prefill run at 32K context sent {} prompt tokens.", "prefill.32K.prompt_tokens"),
    ],
)
def test_a_setting_quoted_in_new_words_is_checked_against_the_run_files(
    words: str, metric: str
) -> None:
    """Durations, max tokens and token counts, said in a sentence the article does not have."""
    assert _items(PAITON, words.format(_n(metric))) == []
    wrong = _items(PAITON, words.format(_n(metric, 2)))
    assert [(i.kind, i.metric) for i in wrong] == [("mismatch", metric)]


def _v(metric: str, decimals: int = 0) -> str:
    """The metric as a copy would write it: rounded to `decimals` (negative: to tens, hundreds)."""
    return f"{round(_value(PAITON, metric), decimals):,.{max(0, decimals)}f}"


@pytest.mark.parametrize(
    "sentence",
    [
        # two values and two places in one sentence: which is which is the reader's guess
        lambda: (
            "Going from one to 16 concurrent requests at 0 context raised the aggregate from "
            f"{_v('decode.0.c1.aggregate_tok_s')} tok/s to "
            f"{_v('decode.0.c16.aggregate_tok_s')} tok/s."
        ),
        lambda: (
            "Time to first token at 64K context stayed close to 32K at one request: "
            f"{_v('decode.64K.c1.ttft_s', 2)} s against {_v('decode.32K.c1.ttft_s', 2)} s."
        ),
        # a bound, not a value
        lambda: "Time to first token at 64K context and one request stayed within 0.05 s of 32K.",
        lambda: f"Prefill held near {_v('prefill.32K.tok_s', -2)} tok/s at 32K context.",
    ],
)
def test_a_number_that_may_state_something_else_is_never_a_mismatch(sentence: object) -> None:
    """Tied by the words of a sentence that states several numbers, in a reading that leaves one
    of them unaccounted for, or said as a bound or an estimate: a difference is unverified (it
    fails with --strict), never a false mismatch."""
    assert callable(sentence)
    assert {i.kind for i in _items(PAITON, sentence())} <= {"unverified"}


def test_a_wrong_number_among_several_is_judged_when_the_others_check_out() -> None:
    """The other value checks out and 0 and 16 are axis values: the wrong one is a mismatch.
    With a number that checks out against nothing beside it, it stays unverified and says
    which number held it (tests/check/test_check_editor_sentences.py has more)."""
    wrong = float(_v("decode.0.c16.aggregate_tok_s")) * 2
    sentence = (
        f"At 0 context the aggregate rose from {_v('decode.0.c1.aggregate_tok_s')} tok/s with one "
        f"request to {wrong:.0f} tok/s with 16 concurrent requests"
    )
    items = _items(PAITON, sentence + ".")
    assert [(i.kind, i.metric) for i in items] == [("mismatch", "decode.0.c16.aggregate_tok_s")]
    items = _items(PAITON, sentence + " on 3 nodes.")
    assert {i.kind for i in items} == {"unverified"}
    assert any("also states 3 " in i.message and "not judged" in i.message for i in items)
