"""Sentences a careful editor adds to a copy, judged as the editor expects (issue 22, deliver 7).

- A sentence the built article does not have is read by what it says alone, never aligned with
  prose it shares a few words with: "with 16 concurrent requests" after the last table is not
  the article's "With 8 concurrent requests" in its data-quality notes.
- A number in a sentence that states several numbers is judged when every other number in it is
  accounted for (a metric's value, an axis value such as 128K, a ratio of two of its numbers);
  while one is not, a difference stays unverified and the finding names that number.
- A ratio written with its operands ("3.5x ... (420 vs 120 tok/s)") checks against its metrics
  and each operand against its own.

Every number here is computed from the built metrics; none is typed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from helpers_articles import MEASURED, PAITON, plain_copy
from helpers_articles import built_article as _article
from helpers_claims import half_up
from test_linear_inputs import assert_linear

from reportgen.check.claims.together import derived_problem
from reportgen.check.compare import check_article, check_published
from reportgen.check.readers.align import in_shared_sentences
from reportgen.check.readers.pipeline import reported
from reportgen.check.readers.published import text_lines
from reportgen.check.readers.reported import Reported
from reportgen.check.result import Item, expected_numbers
from reportgen.metrics.display import display_for, format_number


def _text(folder: Path) -> str:
    if folder == PAITON:
        return (PAITON / "published" / "paiton-kimi-k3.1-pro.txt").read_text("utf-8")
    return plain_copy(MEASURED)


def _v(folder: Path, metric: str, factor: float = 1.0) -> str:
    """The metric (times `factor`) as the article's tables show it."""
    value = _article(folder)[0].metrics.by_id()[metric]
    display = display_for(value)
    return format_number(value.value * factor, display)


def _ratio(folder: Path, a: str, b: str, decimals: int) -> str:
    by_id = _article(folder)[0].metrics.by_id()
    return half_up(by_id[a].value / by_id[b].value, decimals)


def _last_table_line(folder: Path, text: str) -> int:
    """The last line of the copy's last table of the article."""
    _, shape = _article(folder)
    return max(r.line for r in reported(text_lines(text), shape) if r.table)


def _after_last_table(folder: Path, sentences: list[str]) -> tuple[str, int]:
    """The copy with `sentences` as lines right after its last table, and the first one's line."""
    text = _text(folder)
    last = _last_table_line(folder, text)
    lines = text.split("\n")
    return "\n".join([*lines[:last], *sentences, *lines[last:]]), last + 1


def _items(folder: Path, text: str) -> list[Item]:
    built, shape = _article(folder)
    expected = expected_numbers(built.article, built.metrics, built.tables)
    return list(check_published(text, "copy.txt", built.metrics, expected, shape).items)


# Sentences an editor adds after the last table, each stating several numbers.
P_RATIO = ("decode.0.c16.aggregate_tok_s", "decode.0.c1.aggregate_tok_s")


def _paiton_sentences(wrong: str = "") -> list[str]:
    """Four sentences on the bundled article; `wrong`: the metric to misstate."""

    def v(metric: str) -> str:
        return _v(PAITON, metric, 1.37 if metric == wrong else 1.0)

    a, b = P_RATIO
    return [
        f"At 0 context, 16 concurrent requests together decoded {_ratio(PAITON, a, b, 1)}x the "
        f"throughput of a single request ({v(a)} vs {v(b)} tok/s).",
        f"The longest cold prefill, {v('prefill.128K.prompt_tokens')} tokens at 128K, took "
        f"{v('prefill.128K.ttft_s')} s.",
        f"At 8K context, time to first token with 16 concurrent requests was "
        f"{v('decode.8K.c16.ttft_s')} s, against {v('decode.8K.c1.ttft_s')} s for one request.",
        f"Decode speed seen by each request at 64K context fell from "
        f"{v('decode.64K.c1.per_request_tok_s')} tok/s with one request to "
        f"{v('decode.64K.c16.per_request_tok_s')} tok/s with 16 concurrent requests.",
    ]


M_RATIO = ("guidellm.load.c4.output_tok_s", "aiperf.load.c4.output_tok_s")


def _measured_sentences(wrong: str = "") -> list[str]:
    """Four sentences on the measured two-tool article; `wrong`: the metric to misstate."""

    def v(metric: str) -> str:
        return _v(MEASURED, metric, 1.37 if metric == wrong else 1.0)

    a, b = M_RATIO
    return [
        f"At 4 concurrent requests, GuideLLM's output throughput was "
        f"{_ratio(MEASURED, a, b, 2)}x AIPerf's ({v(a)} vs {v(b)} tok/s).",
        f"GuideLLM's median time to first token rose from {v('guidellm.load.c1.ttft_s')} ms "
        f"with one request to {v('guidellm.load.c4.ttft_s')} ms with 4 concurrent requests.",
        f"At 4 concurrent requests AIPerf counted {v('aiperf.load.c4.requests')} successful "
        f"requests, with a median time to first token of {v('aiperf.load.c4.ttft_s')} ms.",
        f"With one request, inter-token latency was {v('guidellm.load.c1.itl_s')} ms for "
        f"GuideLLM against {v('aiperf.load.c1.itl_s')} ms for AIPerf.",
    ]


SENTENCES: dict[str, tuple[Path, Callable[[str], list[str]]]] = {
    "paiton": (PAITON, _paiton_sentences),
    "measured": (MEASURED, _measured_sentences),
}


@pytest.mark.parametrize("slug", SENTENCES)
def test_true_sentences_after_the_last_table_pass_with_every_number_verified(slug: str) -> None:
    """Nothing mismatched, nothing unverified: a strict check passes."""
    folder, make = SENTENCES[slug]
    text, _ = _after_last_table(folder, make(""))
    assert [(i.kind, i.line, i.message) for i in _items(folder, text)] == []
    # and every number of them is tied to a metric (the axis values are labels)
    _, shape = _article(folder)
    _, first = _after_last_table(folder, [])
    ours = [r for r in reported(text_lines(text), shape) if first <= r.line < first + 4]
    assert ours and all(r.metric_id or r.operands for r in ours), ours


WRONG = [
    ("paiton", "decode.0.c16.aggregate_tok_s", 0),  # an operand of a ratio
    ("paiton", "decode.0.c1.aggregate_tok_s", 0),
    ("paiton", "prefill.128K.ttft_s", 1),  # beside a token count and a context
    ("paiton", "prefill.128K.prompt_tokens", 1),
    ("paiton", "decode.8K.c1.ttft_s", 2),  # the second of two quotes
    ("paiton", "decode.64K.c16.per_request_tok_s", 3),
    ("measured", "aiperf.load.c4.output_tok_s", 0),
    ("measured", "guidellm.load.c4.ttft_s", 1),
    ("measured", "aiperf.load.c4.ttft_s", 2),
    ("measured", "aiperf.load.c1.itl_s", 3),
]


@pytest.mark.sampled
@pytest.mark.parametrize(("slug", "metric", "k"), WRONG)
def test_a_false_number_among_several_is_a_mismatch_at_its_line(
    slug: str, metric: str, k: int
) -> None:
    """The other numbers of its sentence check out, so a difference is an error, against the
    metric its words name and the value the run files give, at the sentence's line."""
    folder, make = SENTENCES[slug]
    text, first = _after_last_table(folder, make(metric))
    items = _items(folder, text)
    assert [(i.kind, i.line, i.metric) for i in items] == [("mismatch", first + k, metric)]
    assert f"the run files give {_v(folder, metric)}" in items[0].message


def test_a_new_sentence_is_not_judged_against_prose_it_does_not_share() -> None:
    """After the last table the built page goes on with its data-quality notes ("With 8
    concurrent requests, ..."); a new sentence that shares a few of their words is new."""
    sentence = (
        "At 8K context, time to first token with 16 concurrent requests was "
        f"{_v(PAITON, 'decode.8K.c16.ttft_s')} s."
    )
    text, line = _after_last_table(PAITON, [sentence])
    assert _items(PAITON, text) == []
    wrong = sentence.replace("16 concurrent", "12 concurrent")  # a concurrency not measured
    text, line = _after_last_table(PAITON, [wrong])
    items = _items(PAITON, text)
    assert items and all(i.line == line for i in items)
    assert not any("where the article" in i.message for i in items), items


def test_alignment_keeps_only_pieces_of_sentences_that_share_most_words() -> None:
    """Unit: the copy's second sentence shares 3 of its 8 words with the article's long first
    sentence and is cut off; its first sentence, the article's own, stays aligned."""
    article = ["a", "b", "c", "d", "with", "#", "concurrent", "requests", "e", "f", "g", "h"]
    copy = ["a", "b", "c", "d", "x", "with", "#", "concurrent", "requests", "y", "z", "w", "v"]
    copy_sentence = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]
    article_sentence = [0] * 6 + [0] * 6
    runs = [(0, 0, 4), (5, 4, 4)]
    kept = in_shared_sentences(runs, copy, article, copy_sentence, article_sentence)
    assert kept == [(0, 0, 4)]
    # the same words, as a sentence of their own, are the article's
    short = [0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]
    assert in_shared_sentences(runs, copy, article, short, article_sentence) == runs
    # a run that crosses a sentence end is cut there, each piece judged by its own sentences
    assert in_shared_sentences([(0, 0, 4)], copy, article, [0, 0, 1, 1, *[2] * 9], [0] * 12) == [
        (0, 0, 2),
        (2, 2, 2),
    ]


def test_an_unaccounted_number_keeps_the_caution_and_is_named() -> None:
    """A number that checks out against nothing (a node count the run files do not give) leaves
    a false time in its sentence unverified, and the finding says which number held it."""
    sentence = (
        f"The longest cold prefill, {_v(PAITON, 'prefill.128K.prompt_tokens')} tokens at 128K, "
        f"took {_v(PAITON, 'prefill.128K.ttft_s', 1.37)} s on 7 nodes."
    )
    text, line = _after_last_table(PAITON, [sentence])
    items = _items(PAITON, text)
    assert {i.kind for i in items} == {"unverified"}
    held = next(i for i in items if i.metric == "prefill.128K.ttft_s")
    col = sentence.index(" 7 ") + 2
    assert f"also states 7 (line {line}, col {col})" in held.message
    assert "not judged" in held.message


def test_a_false_ratio_beside_true_operands_is_a_mismatch() -> None:
    a, b = P_RATIO
    ratio = float(_ratio(PAITON, a, b, 1))
    sentence = _paiton_sentences()[0].replace(f"{ratio:.1f}x", f"{ratio + 1:.1f}x")
    text, line = _after_last_table(PAITON, [sentence])
    items = _items(PAITON, text)
    assert [(i.kind, i.line, i.metric) for i in items] == [("mismatch", line, f"{a}/{b}")]


def test_an_ambiguous_ratio_with_operands_is_never_a_mismatch() -> None:
    """ "16 concurrent requests together produced Nx the output of a single request" reads as the
    canonical runs as well as the decode matrix: which is meant is a guess, so nothing in it is
    a mismatch (its operands, from the decode matrix, do not check out against the canonical
    runs, which keeps each number unjudged)."""
    a, b = P_RATIO
    sentence = (
        f"16 concurrent requests together produced {_ratio(PAITON, a, b, 1)}x the output of a "
        f"single request ({_v(PAITON, a)} vs {_v(PAITON, b)} tok/s)."
    )
    text, _ = _after_last_table(PAITON, [sentence])
    assert {i.kind for i in _items(PAITON, text)} <= {"unverified"}


def _ratio_of(text: str, value: float, decimals: int, operands: tuple[str, str]) -> Reported:
    return Reported(
        line=1,
        col=1,
        text=text,
        value=value,
        decimals=decimals,
        unit="x",
        metric_id=None,
        operands=operands,
    )


def test_a_ratio_is_checked_against_its_operands_at_their_precision() -> None:
    """Synthetic numbers: 880 / 310 = 2.839, and 2.832 to 2.845 for what the two may round from:
    2.84x holds, 2.82x and 2.86x do not; at one decimal, 1.5 / 1.0 may be 1.40 to 1.62; a time
    in s against one in ms is compared in one unit."""
    assert derived_problem(_ratio_of("2.84x", 2.84, 2, ("880", "310"))) is None
    assert derived_problem(_ratio_of("2.84x", 2.84, 2, ("310", "880"))) is None
    assert derived_problem(_ratio_of("0.35x", 0.35, 2, ("310", "880"))) is None
    for shown in ("2.82x", "2.86x"):
        problem = derived_problem(_ratio_of(shown, float(shown[:-1]), 2, ("880", "310")))
        assert problem is not None and "give 2.84x" in problem
    assert derived_problem(_ratio_of("4.2x", 4.2, 1, ("0.50 s", "120 ms"))) is None
    assert derived_problem(_ratio_of("4.2x", 4.2, 1, ("0.50 s", "120 s"))) is not None
    assert derived_problem(_ratio_of("1.6x", 1.6, 1, ("1.5", "1.0"))) is None
    assert derived_problem(_ratio_of("1.4x", 1.4, 1, ("1.5", "1.0"))) is None
    assert derived_problem(_ratio_of("1.7x", 1.7, 1, ("1.5", "1.0"))) is not None
    # "0" may be 0.4: 1 / 0 at whole numbers may be 2x; at one decimal it cannot
    assert derived_problem(_ratio_of("2x", 2.0, 0, ("1", "0"))) is None
    problem = derived_problem(_ratio_of("2x", 2.0, 0, ("1.0", "0.0")))
    assert problem is not None and "give no ratio" in problem


def test_a_strict_check_of_the_copy_with_new_sentences_passes(tmp_path: Path) -> None:
    text, _ = _after_last_table(PAITON, _paiton_sentences())
    copy = tmp_path / "copy.txt"
    copy.write_text(text, encoding="utf-8")
    result = check_article(PAITON, published=[copy], strict=True)
    assert not result.failed, [i.message for i in result.items]


@pytest.mark.slow
@pytest.mark.parametrize(
    "unit",
    [
        "3.5x the output of one request (420 vs 120 tok/s), ",
        "120 tok/s with one request to 420 tok/s with 12 concurrent requests, against ",
        "420 vs 120 tok/s, 3.5x ",
    ],
    ids=["ratios-with-operands", "quotes-with-separators", "operands-before"],
)
def test_several_numbers_in_one_sentence_are_read_in_linear_time(unit: str) -> None:
    """One endless sentence of ratios with operands, or of quotes between separators."""
    _, shape = _article(MEASURED)

    def read(text: str) -> object:
        return reported(text_lines(text), shape)

    assert_linear(read, lambda size: unit * (size // len(unit)), size=32_000, repeat=5)


@pytest.mark.slow
@pytest.mark.parametrize(("slug", "metric"), [(s, m) for s, m, _ in WRONG[::3]])
def test_new_sentences_in_an_html_page_are_read_the_same(slug: str, metric: str) -> None:
    """The built page with the sentences as a paragraph after its last table: true, nothing to
    say; one number false, a mismatch against its metric (where an HTML paragraph's lines are
    placed is the HTML reader's)."""
    folder, make = SENTENCES[slug]
    built, shape = _article(folder)
    at = built.html.rindex("</table>") + len("</table>")
    expected = expected_numbers(built.article, built.metrics, built.tables)
    found = []
    for wrong in ("", metric):
        paragraph = "\n<p>" + "\n".join(make(wrong)) + "</p>\n"
        page = built.html[:at] + paragraph + built.html[at:]
        result = check_published(page, "copy.html", built.metrics, expected, shape, html=True)
        found.append([(i.kind, i.metric) for i in result.items])
    assert found == [[], [("mismatch", metric)]]


def test_operands_written_before_the_ratio_are_its_operands() -> None:
    """ "A vs B s: ... is Nx that at 32K context": the pair before the claim, checked both ways."""
    a, b = "decode.0.c16.ttft_s", "decode.32K.c16.ttft_s"
    ratio = _ratio(PAITON, a, b, 2)

    def sentence(x: str, y: str) -> str:
        return (
            f"{x} vs {y} s: with 16 concurrent requests, time to first token at 0 context is "
            f"{ratio}x that at 32K context."
        )

    text, line = _after_last_table(PAITON, [sentence(_v(PAITON, a), _v(PAITON, b))])
    assert _items(PAITON, text) == []
    text, line = _after_last_table(PAITON, [sentence(_v(PAITON, a), _v(PAITON, b, 1.37))])
    assert [(i.kind, i.line, i.metric) for i in _items(PAITON, text)] == [("mismatch", line, b)]


def test_two_numbers_read_as_one_metric_are_never_a_mismatch() -> None:
    """ "moved from X for AIPerf to Y": read by the subject's run, both values name GuideLLM's
    cell; one of the two readings is wrong, so neither difference is judged."""
    g, a = "guidellm.load.c1.output_tok_s", "aiperf.load.c1.output_tok_s"
    sentence = (
        "Output throughput, all requests together for GuideLLM at 1 concurrent moved from "
        f"{_v(MEASURED, a)} tok/s for AIPerf to {_v(MEASURED, g)} tok/s."
    )
    text, _ = _after_last_table(MEASURED, [sentence])
    assert {i.kind for i in _items(MEASURED, text)} <= {"unverified"}


def test_operands_in_two_units_are_each_read_in_their_own() -> None:
    """ "(0.271 s vs 229.4 ms)": the first operand in s, the second in ms, each checked so."""
    a, b = "aiperf.load.c1.ttft_s", "guidellm.load.c1.ttft_s"
    by_id = _article(MEASURED)[0].metrics.by_id()
    seconds = f"{by_id[a].value:.3f}"
    sentence = (
        f"Time to first token for AIPerf at 1 concurrent is {_ratio(MEASURED, a, b, 2)}x that "
        f"for GuideLLM ({seconds} s vs {_v(MEASURED, b)} ms)."
    )
    text, line = _after_last_table(MEASURED, [sentence])
    assert _items(MEASURED, text) == []
    wrong = sentence.replace(f"({seconds} s", f"({by_id[a].value * 1.37:.3f} s")
    text, line = _after_last_table(MEASURED, [wrong])
    assert [(i.kind, i.line, i.metric) for i in _items(MEASURED, text)] == [("mismatch", line, a)]


def test_a_number_before_a_closing_parenthesis_and_full_stop_is_read() -> None:
    """ "(7,777)." was no number to the prose reader, so nothing was said of it: it fails closed
    now, as any number the run files do not give."""
    text, line = _after_last_table(PAITON, ["The node drew more than we expected (7,777)."])
    assert [(i.kind, i.line, i.shown) for i in _items(PAITON, text)] == [
        ("unverified", line, "7,777")
    ]


def test_the_two_sides_of_a_change_are_its_from_and_to_values() -> None:
    """ "fell by P% from X tok/s at 0 context to Y tok/s at 32K context": X is the change's
    first metric, Y its second, each checked; the change against both."""
    a, b = "decode.0.c16.aggregate_tok_s", "decode.32K.c16.aggregate_tok_s"
    by_id = _article(PAITON)[0].metrics.by_id()
    change = half_up((by_id[a].value - by_id[b].value) / by_id[a].value * 100, 0)

    def sentence(x: str, y: str) -> str:
        return (
            f"Decode throughput at 16 concurrent requests fell by {change}% from {x} tok/s at 0 "
            f"context to {y} tok/s at 32K context."
        )

    text, line = _after_last_table(PAITON, [sentence(_v(PAITON, a), _v(PAITON, b))])
    assert _items(PAITON, text) == []
    for wrong, metric in ((_v(PAITON, a, 1.37), a), (_v(PAITON, b, 1.37), b)):
        x, y = (wrong, _v(PAITON, b)) if metric == a else (_v(PAITON, a), wrong)
        text, line = _after_last_table(PAITON, [sentence(x, y)])
        found = [(i.kind, i.line, i.metric) for i in _items(PAITON, text)]
        assert found == [("mismatch", line, metric)]
