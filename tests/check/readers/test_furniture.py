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


# A table's note in the prose, then a chart of the same table (ticks, axis label, its mark).
BESIDE = (
    "<p>(reconstructed data) <span data-metric='matrix.duration_s'>30 s</span> of sustained "
    "decode per cell.</p>"
    "<svg><text>0</text><text>200</text><text>400</text><text>600</text>"
    "<text>output tok/s, all requests</text><text>reconstructed data</text></svg>"
)


def _read(page: str, text: str) -> list[tuple[str, str | None]]:
    expected, charts = expected_prose(page)
    lines = list(enumerate(text.split("\n"), start=1))
    _, aligned, offered = prose_numbers(tokens(lines, set()), expected, charts)
    return [(r.text, r.metric_id) for r in [*aligned, *offered]]


def test_a_charts_words_in_another_order_are_the_charts() -> None:
    # pdftotext's reading order: the chart's mark and ticks, top down, before the note it sits
    # under; its "600" is no duration, though "reconstructed data" precedes both
    copy = "reconstructed data\n600\n400\n200\n0\n(reconstructed data) 30 s of sustained decode"
    assert [t for t, _ in _read(BESIDE, copy)] == ["30"]
    # the ticks mixed with the axis label's words, in any order
    mixed = "400 output\n600 tok/s, all\n0 200 requests reconstructed data"
    assert _read(BESIDE, mixed) == []


def test_an_authors_sentence_among_a_charts_words_is_still_read() -> None:
    # words of the author's own between the numbers: a sentence, not the chart's block
    said = "Output tok/s, all requests: from 200 tok/s to 600 tok/s, all requests."
    assert [t for t, _ in _read(BESIDE, said)] == ["200", "600"]
    # two of the chart's numbers alone are too few to be its block
    assert [t for t, _ in _read(BESIDE, "200 tok/s 400 tok/s all requests")] == ["200", "400"]
