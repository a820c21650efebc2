"""SLO verdict cells read back from a published copy (`check/readers/published.py`,
`check/readers/stream.py`): the measured two-tool article's verdicts ("meets" / "misses"), each
flipped in an HTML, a plain-text, a Markdown and a PDF copy of its page, is one error at the
verdict's own line; a verdict left out is missing, like any cell.

Which cells are verdicts, and what each says, comes from the built article's metrics; no word
or number here is typed from the article.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from pathlib import Path

import pytest
from helpers_articles import MEASURED, plain_paste

from reportgen.article.build import Built, render_article, render_pdf
from reportgen.check.compare import article_shape, check_published
from reportgen.check.readers.shape import Shape
from reportgen.check.readers.sources import read_published
from reportgen.check.result import Item, expected_numbers
from reportgen.metrics.slo import VERDICT_KEYS, verdict_word

SENTINEL = "QQVERDICTQQ"


@functools.cache
def _built() -> tuple[Built, Shape]:
    """The article as its page is built, charts drawn (a copy of the page, or the PDF's text,
    shows their words), and what a copy is matched against."""
    built = render_article(MEASURED, {"SOURCE_DATE_EPOCH": "0"}, charts=True)
    return built, article_shape(built, built.html)


def _verdicts() -> list[tuple[str, str]]:
    """(metric id, the word the page shows) of every verdict the article's tables show."""
    built, _ = _built()
    by_id = built.metrics.by_id()
    ids = [s.metric for s in expected_numbers(built.article, built.metrics, built.tables)]
    out = [(m, verdict_word(by_id[m].value)) for m in ids if by_id[m].key in VERDICT_KEYS]
    assert {w for _, w in out} == {"meets", "misses"}  # the article shows both words
    return out


def _one_each() -> list[tuple[str, str]]:
    """A verdict that meets and one that misses."""
    found = _verdicts()
    return [next(v for v in found if v[1] == word) for word in ("meets", "misses")]


def _other(word: str) -> str:
    return verdict_word(0.0 if word == "meets" else 1.0)


def _page_with(metric: str, text: str) -> str:
    """The built page with the verdict cell of `metric` showing `text`, its data attributes
    gone (a copy saved from a browser keeps them; one retyped into a CMS does not)."""
    span = re.compile(rf'<span class="num slo-verdict" data-metric="{re.escape(metric)}"[^>]*>\w+')
    page, n = span.subn(lambda _: f"<span>{text}", _built()[0].html)
    assert n == 1, metric
    return re.sub(r' data-(?:metric|value|display)="[^"]*"', "", page)


def _markdown(plain: str) -> str:
    """A plain paste as Markdown: each run of tab-separated rows a pipe table under a
    delimiter row, a blank line around it."""
    out: list[str] = []
    in_table = False
    for line in plain.split("\n"):
        if "\t" in line:
            cells = [c.strip() for c in line.rstrip("\t").split("\t")]
            if not in_table:
                out += ["", "| " + " | ".join(cells) + " |", "|" + "---|" * len(cells)]
            else:
                out.append("| " + " | ".join(cells) + " |")
            in_table = True
            continue
        if in_table:
            out.append("")
        in_table = False
        out.append(line)
    return "\n".join(out)


def _copy(kind: str, metric: str, text: str) -> tuple[str, int]:
    """A copy of the page (`kind`: html, text or markdown) with `metric`'s verdict cell showing
    `text`, and the line it is on."""
    page = _page_with(metric, SENTINEL)
    copy = {"html": page, "text": plain_paste(page), "markdown": _markdown(plain_paste(page))}[kind]
    line = next(n for n, t in enumerate(copy.split("\n"), start=1) if SENTINEL in t)
    return copy.replace(SENTINEL, text), line


def _items(text: str, html: bool) -> list[Item]:
    built, shape = _built()
    expected = expected_numbers(built.article, built.metrics, built.tables)
    result = check_published(text, "copy", built.metrics, expected, shape, html=html)
    return list(result.items)


@pytest.mark.parametrize("kind", ["html", "text", "markdown"])
def test_a_true_copy_reads_every_verdict(kind: str) -> None:
    metric, word = _verdicts()[0]
    copy, _ = _copy(kind, metric, word)
    assert _items(copy, kind == "html") == []


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["html", "text", "markdown"])
def test_a_flipped_verdict_is_one_error_at_its_line(kind: str) -> None:
    for metric, word in _one_each():
        copy, line = _copy(kind, metric, _other(word))
        items = _items(copy, kind == "html")
        assert [(i.kind, i.line, i.metric) for i in items] == [("mismatch", line, metric)], items
        assert f"shows {_other(word)} but the run files give {word}" in items[0].message


@pytest.mark.parametrize("kind", ["html", "text", "markdown"])
def test_a_verdict_left_out_is_missing(kind: str) -> None:
    metric, _ = _verdicts()[-1]
    copy, _ = _copy(kind, metric, "\u2014")
    items = _items(copy, kind == "html")
    assert [(i.kind, i.metric) for i in items] == [("missing", metric)], items


@pytest.mark.parametrize("kind", ["text", "markdown"])
def test_a_verdict_where_a_number_stands_is_an_error_at_its_line(kind: str) -> None:
    """A verdict's word in a number's cell (the two swapped, say) is caught at its line, and
    the rest of the row is still read."""
    built, _ = _built()
    metric, word = _one_each()[0]
    plain = plain_paste(_page_with(metric, word))
    view = next(t for t in built.tables if any(c.metric == metric for _, r in t.rows for c in r))
    label, cells = next((lb, r) for lb, r in view.rows if any(c.metric == metric for c in r))
    numbers = [
        c
        for c in cells
        if c.metric and c.metric != metric and "slo_" not in c.metric and not c.gated
    ]
    shown = re.sub(r"<[^>]+>", "", str(numbers[0].html))
    lines = plain.split("\n")
    at = next(n for n, t in enumerate(lines) if t.startswith(f"{label}\t") and f"\t{shown}\t" in t)
    lines[at] = lines[at].replace(f"\t{shown}\t", f"\t{word}\t", 1)
    text = "\n".join(lines)
    copy = _markdown(text) if kind == "markdown" else text
    line = next(
        n
        for n, t in enumerate(copy.split("\n"), start=1)
        if t.lstrip("| ").startswith(label) and word in t and shown not in t
    )
    items = _items(copy, html=False)
    assert [(i.kind, i.line, i.metric) for i in items] == [("mismatch", line, numbers[0].metric)]
    assert "a verdict's word where the article shows a number" in items[0].message


@pytest.mark.pdf
def test_a_flipped_verdict_in_a_pdf_is_one_error(tmp_path: Path) -> None:
    """The PDF laid out from the page with one verdict flipped: that one mismatch, and nothing
    else (every other cell, verdicts included, read back true)."""
    built, shape = _built()
    expected = expected_numbers(built.article, built.metrics, built.tables)
    metric, word = _one_each()[1]
    pdf = tmp_path / "flipped.pdf"
    pdf.write_bytes(render_pdf(replace(built, html=_page_with(metric, _other(word)))))
    copy = read_published(pdf)
    items = check_published(copy.lines, str(pdf), built.metrics, expected, shape).items
    assert [(i.kind, i.metric) for i in items] == [("mismatch", metric)], items
    assert f"shows {_other(word)} but the run files give {word}" in items[0].message
