"""The published-copy readers take time linear in what they read (issue 22, class 6).

Each hostile input is read at a size and at twice that size, side by side in one run. Linear
code takes about twice as long at twice the size; the bound is a ratio of 3, or an absolute time
so small that noise would dominate the ratio. Sizes double from a sixteenth of the largest, so
code that is quadratic (or worse) fails at the first size slow enough to measure, not after
minutes. One read of each size decides a pair that passes; a pair that looks slower than linear
is read again, the fastest of a few reads of each size (the machine is shared and noisy), before
it fails. Noise only slows a read, so it can make a pair look worse, never better than it is.
"""

from __future__ import annotations

import ast
import functools
import gc
import importlib
import pkgutil
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import reportgen.check
from reportgen.check.html.text import html_lines
from reportgen.check.readers.align import Aligner
from reportgen.check.readers.markdown import plain_line
from reportgen.check.readers.published import (
    malformed,
    parse_number,
    reported_in_lines,
    text_lines,
)
from reportgen.check.readers.shape import Shape, phrase_pattern

ROOT = Path(__file__).resolve().parents[2]
MEASURED = ROOT / "runs" / "tiny-llamacpp-two-tools"
SIZE = 20_000  # characters (or tokens) of the smaller of the two inputs compared
RATIO = 3.0  # linear: about 2
FLOOR_S = 0.05  # under this at twice the size, a ratio is noise

Read = Callable[[str], object]


def _seconds(read: Read, text: str, repeat: int = 3) -> float:
    """The fastest of `repeat` reads, each without the garbage collector (whose passes over
    every live object are noise here, not the reader's cost), in this thread's CPU time: the
    other processes of a busy machine take turns on the core, which wall time would count."""
    best = float("inf")
    for _ in range(repeat):
        gc.disable()
        try:
            start = time.thread_time()
            read(text)
            best = min(best, time.thread_time() - start)
        finally:
            gc.enable()
    return best


def assert_linear(
    read: Read,
    make: Callable[[int], str],
    size: int = SIZE,
    repeat: int = 3,
    floor_s: float = FLOOR_S,
) -> None:
    """`read` of `make(2 * m)` takes about twice as long as of `make(m)`, for m doubling up to
    `size`: a step whose larger time is above `FLOOR_S` must have a ratio below `RATIO`. Code
    that is quadratic (or worse) fails at the first step slow enough to measure, in a second.
    Each size is read once; only a pair that fails is read `repeat` times more."""
    m = size // 16
    small = _seconds(read, make(m), 1)
    while m < size:
        large = _seconds(read, make(2 * m), 1)
        if large >= floor_s and large / small >= RATIO:
            # A busy machine (the suite runs on every core) can slow one read of a pair: the
            # pair is measured again, the fastest of `repeat` reads of each size, before it
            # counts. Code that is quadratic fails both times; noise rarely lasts both.
            small = min(small, _seconds(read, make(m), repeat))
            large = min(_seconds(read, make(2 * m), repeat), large)
        assert large < floor_s or large / small < RATIO, (
            f"{small:.4f} s at {m}, {large:.4f} s at {2 * m}: ratio {large / small:.1f}"
        )
        m, small = 2 * m, large


def _quadratic(text: str) -> int:
    """Quadratic in the text's length: each character counted again in all that follows it."""
    return sum(text.count(a, i) for i, a in enumerate(text))


def _linear(text: str) -> int:
    return sum(a == "a" for a in text)


@pytest.mark.slow
def test_the_method_fails_quadratic_code_and_passes_linear_code() -> None:
    """The measure itself, on code of known growth: one read of each size must still catch
    quadratic code at the first measurable size, and pass linear code. (A lower floor than the
    readers' keeps it quick; the floor only decides which sizes count.)"""
    text = "ab" * 200_000
    with pytest.raises(AssertionError, match="ratio"):
        assert_linear(_quadratic, lambda size: text[:size], size=16_000, floor_s=0.01)
    assert_linear(_linear, lambda size: text[:size], size=400_000, floor_s=0.01)


def _repeat(unit: str, prefix: str = "", suffix: str = "") -> Callable[[int], str]:
    return lambda size: prefix + unit * (size // len(unit)) + suffix


# Markdown inline markup on one line: each of these was quadratic or cubic in the line's length.
MARKDOWN = {
    "a line of backticks": _repeat("`"),
    "backtick runs of two lengths": _repeat("`a``"),
    "link openers": _repeat("[a]("),
    "label openers": _repeat("["),
    "autolink openers": _repeat("<http:"),
    "strong that never closes": _repeat(" **a**b"),
    "emphasis that never closes": _repeat(" *a*b"),
    "underscores that never close": _repeat(" _a_b"),
    "strike that never closes": _repeat("~~a "),
    "tags that never close": _repeat("<a "),
}


@pytest.mark.slow
@pytest.mark.parametrize("make", MARKDOWN.values(), ids=MARKDOWN.keys())
def test_inline_markdown_is_blanked_in_linear_time(make: Callable[[int], str]) -> None:
    assert_linear(plain_line, make)


def test_code_spans_pair_runs_of_equal_length_and_emphasis_pairs_as_before() -> None:
    """CommonMark's code spans: `` closes only at ``, a lone ` stays text; emphasis takes the
    first closer its rules allow, as the lazy regexes did."""
    assert plain_line("`` 1 ` 2 `` 3 `4") == "   1 ` 2    3 `4"
    line = " **5 tok/s**b and **6 tok/s** ~~7~~ _8_"
    assert plain_line(line) == "   5 tok/s**b and **6 tok/s          8 "


NO_SHAPE = Shape(tables=(), headlines=(), phrases=())


def _table_read(text: str) -> object:
    return reported_in_lines(text_lines(text), NO_SHAPE)


# A number with long runs of spaces in a table cell: three adjacent `\s*` made this cubic.
HEAD = "| h | v |\n|---|---|\n"
CELLS = {
    "spaces after a number": _repeat(" ", HEAD + "| a | 1", "z |\n"),
    "spaces before a note": _repeat(" ", HEAD + "| a | 1 ms", "(a z |\n"),
}


@pytest.mark.slow
@pytest.mark.parametrize("make", CELLS.values(), ids=CELLS.keys())
def test_table_cells_are_read_in_linear_time(make: Callable[[int], str]) -> None:
    assert_linear(_table_read, make)


@pytest.mark.slow
@pytest.mark.parametrize("read", [parse_number, malformed], ids=["parse_number", "malformed"])
def test_a_number_with_long_space_runs_is_read_in_linear_time(read: Read) -> None:
    assert_linear(read, _repeat(" ", "1", "z"))
    assert_linear(read, _repeat(" ", "- ", "1 ms (a"))


@pytest.mark.slow
def test_a_unit_in_parentheses_is_found_in_linear_time() -> None:
    assert_linear(_table_read, _repeat(" s", "| a | TTFT (", " |\n|---|---|\n| x | 1 |\n"))


@pytest.mark.slow
@pytest.mark.parametrize(
    "make",
    [_repeat(" "), _repeat("1"), _repeat("1,"), _repeat("at "), _repeat("1 ")],
    ids=["spaces", "digits", "digit-commas", "first words", "numbers"],
)
def test_a_declared_sentence_is_searched_for_in_linear_time(make: Callable[[int], str]) -> None:
    starts_with_number, _ = phrase_pattern("{{ decode.8K.c16.ttft_s }} and {{ x | number }}")
    starts_with_word, _ = phrase_pattern("at {{ x | number }} ,  {{ decode.8K.c16.ttft_s }} x")
    assert_linear(starts_with_number.search, make)
    assert_linear(starts_with_word.search, make)


# Python 3.11.7's html.parser searches to the end of the page from each unterminated opener,
# with str.find: quadratic with a small constant, so these are read at up to 320,000 characters
# and only steps slower than 0.2 s are judged.
HTML = {
    "comment openers": _repeat("<!--", "<p>1</p>"),
    "start tags": _repeat("<a ", "<p>1</p>"),
    "end tags": _repeat("</a", "<p>1</p>"),
    "processing instructions": _repeat("<?x", "<p>1</p>"),
    "marked sections": _repeat("<![cdata[", "<p>1</p>"),
}


@pytest.mark.slow
@pytest.mark.parametrize("make", HTML.values(), ids=HTML.keys())
def test_html_is_read_in_linear_time(make: Callable[[int], str]) -> None:
    assert_linear(html_lines, make, size=320_000, floor_s=0.2)


def test_an_unknown_marked_section_is_text_not_a_traceback() -> None:
    assert html_lines("<p>12 tok/s <![foo[ x ]]> 13 ms</p>") == [(1, "12 tok/s 13 ms")]


def test_html_reads_the_same_text_as_before() -> None:
    page = "<p>a <!-- 9 --> 1 ms</p>\n<p>2 s <!-- open\n<p>3 s</p> -->4</p><p>5 <b"
    assert html_lines(page) == [(1, "a 1 ms"), (2, "2 s 4"), (3, "5 <b")]


@pytest.mark.slow
def test_alignment_is_linear_in_a_copy_with_no_anchors() -> None:
    """The same three words over and over: no anchor, so every stretch goes to difflib."""
    words = "ab#"
    article = [words[(k * 7) % 3 if k % 5 else k % 2] for k in range(3000)]
    aligner = Aligner(article)

    def copy(size: int) -> str:
        return "".join(words[(k * k) % 3] for k in range(size // 4))

    assert_linear(lambda text: aligner.runs(list(text)), copy)


@functools.cache
def _measured_shape() -> Shape:
    from reportgen.article.build import render_article
    from reportgen.check.compare import article_shape

    built = render_article(MEASURED, {}, charts=False)
    return article_shape(built, built.html)


def _check_read(text: str) -> object:
    """check's readers over `text`, as over a first copy: what they keep from one copy for the
    next is dropped first, so a timing of repeated reads is of their own work."""
    from reportgen.check.readers.pipeline import forget_copies, reported

    shape = _measured_shape()
    forget_copies(shape)
    return reported(text_lines(text), shape)


# Tables in the layouts editors write (`pipetables.py`): each table's title is looked for above
# it, no further than the table before it, and each row is split in one pass.
TABLES = {
    "titled tables": _repeat(
        "## Time to first token (ms)\n\n| concurrent | GuideLLM |\n|---|---|\n| 1 | 2 |\n\n"
    ),
    "captions above and below": _repeat("Table: Inter-token latency\n\n| a | 1 |\n\n: Output\n\n"),
    "title lines over one table": _repeat("Time to first token\n", suffix="| a | 1 |\n"),
    "blank lines between tables": _repeat("\n", "| a | 1 |\n", "| b | 2 |\n"),
    "rows without a leading pipe": _repeat("1 | 2\n", "a | b\n---|---\n"),
    "escaped pipes": _repeat("\\|", "| a | ", " | 1 |\n"),
    "a row of empty cells": _repeat("|", "| a ", "\n"),
}


@pytest.mark.slow
@pytest.mark.parametrize("make", TABLES.values(), ids=TABLES.keys())
def test_tables_are_found_and_named_in_linear_time(make: Callable[[int], str]) -> None:
    _measured_shape()
    assert_linear(lambda text: reported_in_lines(text_lines(text), _measured_shape()), make)


# Plain text's tables, read by every reader in turn: psql's delimiters, space-aligned headers
# that drop columns, and title lines, each of which ends the table above it.
PLAIN = {
    "psql rows": _repeat("1 | 2\n", "concurrent | GuideLLM\n-----+-----\n"),
    "a title line over each header": _repeat(
        "Time to first token (ms, median)\n\nconcurrent   GuideLLM   AIPerf\n1   2   3\n\n"
    ),
    "headers with columns dropped": _repeat(
        "GuideLLM, one row per load point\nconcurrent   failed   TTFT p99 (s)\n1   0   2\n"
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("make", PLAIN.values(), ids=PLAIN.keys())
def test_plain_text_tables_are_read_in_linear_time(make: Callable[[int], str]) -> None:
    _measured_shape()
    assert_linear(_check_read, make)


@pytest.mark.slow
@pytest.mark.parametrize(
    "unit", ["183 tok/s\n", "183 tok/s.\n", "3x faster than 2 s "], ids=["one", "many", "claims"]
)
def test_claims_are_read_in_linear_time(unit: str) -> None:
    """Lines of a quoted number, as one sentence or many, and claims in one long sentence."""
    _measured_shape()
    assert_linear(_check_read, _repeat(unit), size=16_000)


def _patterns() -> Iterator[tuple[str, tuple[str, bool]]]:
    """Every regular expression in reportgen/check: the compiled ones each module holds, and
    the literal ones its code passes to `re`: (name, (pattern, whether it is only matched at
    the start, `re.match` or `re.fullmatch`, not searched))."""
    package = Path(reportgen.check.__file__).parent
    for info in pkgutil.walk_packages([str(package)], prefix="reportgen.check."):
        module = importlib.import_module(info.name)
        short = info.name.removeprefix("reportgen.check.")
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                yield f"{short}.{name}", (value.pattern, False)
        path = package / short.replace(".", "/")
        path = path / "__init__.py" if info.ispkg else path.with_suffix(".py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                anchored = node.func.attr in ("match", "fullmatch")
                yield f"{short}:{node.lineno}", (node.args[0].value, anchored)


def _hostile(pattern: str) -> list[Callable[[int], str]]:
    """Inputs made of the pattern's own punctuation, alone and between words and spaces."""
    marks = sorted({c for c in pattern if not c.isalnum() and c not in "\\^$"} | {"1", "a"})
    units = [" ", "1", "a ", "1,", " 1 ms", "1" + " " * 9]
    for c in marks:
        units += [c, c + "a", " " + c + "a" + c + "b"]
    runs = [  # one long run after an opening and before a character that ends no match
        _repeat(run, opening, "z") for run in (" ", "1", " s") for opening in ("1", "(", "- ")
    ]
    return [_repeat(u) for u in dict.fromkeys(units)] + runs


PATTERNS = dict(_patterns())


@pytest.mark.slow
@pytest.mark.parametrize("pattern", PATTERNS.values(), ids=PATTERNS.keys())
def test_no_pattern_in_check_backtracks_on_its_own_punctuation(pattern: tuple[str, bool]) -> None:
    """A screen for patterns to come: any input built from the pattern's own characters is
    searched (unless the code only matches it at the start), matched and fully matched in
    linear time."""
    source, anchored = pattern
    compiled = re.compile(source)

    def read(text: str) -> object:
        found = [compiled.match(text)] if anchored else list(compiled.finditer(text))
        return found, compiled.fullmatch(text)

    for make in _hostile(source):
        assert_linear(read, make, size=8_000, repeat=1)
