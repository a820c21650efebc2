"""A PDF's text holds what the build drew besides the article's statements: chart ticks beside
their axis label, and a word broken at its hyphen across a page. Neither reads as a number the
author wrote; a number the article does not have stays unverified."""

from __future__ import annotations

from reportgen.check.readers.prose import expected_prose, prose_numbers
from reportgen.check.readers.stream import tokens

# A chart as the build draws it (SVG text in drawing order), and the prose around it.
PAGE = (
    "<p>The engine ran llm-inference-bench 0.7.7 for these cells.</p>"
    "<svg><text>0</text><text>25</text><text>50</text><text>75</text><text>100</text>"
    "<text>125</text><text>tok/s per request (median)</text></svg>"
)


def _unverified(text: str) -> list[str]:
    expected, charts = expected_prose(PAGE)
    lines = list(enumerate(text.split("\n"), start=1))
    _, aligned, offered = prose_numbers(tokens(lines, set()), expected, charts)
    return [r.text for r in [*aligned, *offered] if r.expected_text is None and r.metric_id is None]


def test_chart_ticks_before_their_axis_label_are_the_charts() -> None:
    # "125 tok/s" reads as a speed, but these words are the chart's, in the order it drew them
    assert _unverified("0\n25\n50\n75\n100\n125\ntok/s per request (median)") == []
    # the same number said in a sentence of the copy's own is not the chart's
    assert _unverified("Each request reached 125 tok/s per request (median).") == ["125"]


def test_a_literal_broken_at_its_hyphen_across_a_page_is_the_articles() -> None:
    copy = "Page 7 of 10\nfile format provenance sha256\nllm-inference-\nbench 0.7.7\n9a7f"
    assert _unverified(copy) == []
    # other digits after the same word are not the article's
    assert _unverified(copy.replace("0.7.7", "0.7.8")) == ["0.7.8"]
