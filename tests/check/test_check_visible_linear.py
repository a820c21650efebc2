"""Reading an HTML copy as readers see it takes time linear in the page and its CSS (issue 22,
classes 5 and 6): the tree builder, the cascade and the text reader on hostile pages of doubling
size (tests/check/test_linear_inputs.py's method), and the caps that bound what cannot be linear."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from test_linear_inputs import assert_linear

from reportgen.check.html.css import match
from reportgen.check.html.text import read_html

pytestmark = pytest.mark.slow  # timing: each input grows until the curve shows


def _page(unit: str, prefix: str = "", suffix: str = "") -> Callable[[int], str]:
    return lambda size: prefix + unit * max(1, size // len(unit)) + suffix


def _css(rule: Callable[[int], str], body: str, rules: int = 0) -> Callable[[int], str]:
    """`rules` rules (0: as many as the page has elements, half the page) and the elements.
    Matching is rules x elements: linear when one of them is fixed, bounded by the budgets
    (the last test) when both grow."""

    def make(size: int) -> str:
        n = max(1, size // (len(body) + 40))
        count = rules or n
        return "<style>" + "".join(rule(k) for k in range(count)) + "</style>" + body * n

    return make


PAGES = {
    "paragraphs": _page("<p>It read 183 tok/s, or 2 s.</p>\n"),
    "unclosed elements nested ever deeper": _page("<div><span>", suffix="1 ms"),
    "unclosed paragraphs and list items": _page("<p>1 ms<li>2 s<dd>3<option>4"),
    "text misplaced in a table": _page("x<b>1 ms</b>", prefix="<table><tr><td>a</td></tr>"),
    "end tags with nothing open": _page("</p></div></x></td>1"),
    "end tags inside SVG": _page("<g></x></text>1", prefix="<svg>"),
    "comments browsers and html.parser end differently": _page("<!-->1<!-- --!>2 -->"),
    "raw text with false end tags": _page("</script x>1<script>", prefix="<script>"),
    "a rule per element, each needing an ancestor": _css(
        lambda k: f".c{k} .d{k} {{ font-size: 0 }}", '<p class="c1 d2">1</p>'
    ),
    "sibling combinators": _css(
        lambda k: f".a{k} ~ .b {{ opacity: 0 }}", '<p class="b">1 ms</p>', rules=200
    ),
    "nested :not and :is": _css(
        lambda k: f":not(:is(.x, :not(.y{k}))) p {{ color: red }}", "<div><p>1</p></div>", 100
    ),
    "a media query per rule": _css(
        lambda k: f"@media (min-width: {k}px) {{ .m{k} {{ color: #fff }} }}", "<p class=m1>1</p>"
    ),
    "style attributes, each different": lambda size: "".join(
        f'<p style="font-size: {k % 97 + 8}px">1</p>' for k in range(size // 36)
    ),
    "custom properties in a chain": _css(
        lambda k: f":root {{ --v{k + 1}: var(--v{k}) }}", "<p style='opacity: var(--v1)'>1</p>"
    ),
    "attributes stating numbers": _page('<input value="1 ms" title="2 s" aria-label="3">'),
}


@pytest.mark.parametrize("make", PAGES.values(), ids=PAGES.keys())
def test_a_hostile_page_is_read_in_linear_time(make: Callable[[int], str]) -> None:
    assert_linear(read_html, make, size=40_000, repeat=3, floor_s=0.5)


@pytest.mark.parametrize(
    "rule",
    [
        "div p:not(.q{k}) {{ color: red }}",  # each a selector test: the test budget
        ".a{k} ~ p {{ color: red }}",  # each passed over at once: the pairs budget
    ],
)
def test_css_too_complex_to_resolve_fails_closed_within_its_budgets(rule: str) -> None:
    """Rules x elements past the budgets: the cascade stops (a note at the top of the page) in
    bounded time, and no text is taken as read."""
    css = "".join(rule.format(k=k) for k in range(3000))
    page = f"<style>{css}</style>" + "<div>" * 20 + "<p>1 ms</p>" * 3000
    start = time.process_time()
    read = read_html(page)
    assert time.process_time() - start < 10
    assert read.lines == []
    assert any("too complex" in u.message and u.severity == "error" for u in read.unseen)
    assert match.BUDGET <= 1_000_000
