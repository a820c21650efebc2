"""Hostile strings from run files and article.toml, pushed through every output they reach.

Each string here once gave a traceback, broken markup or unreadable output somewhere (issue 22,
classes 8 and 9): mathtext in a chart label, a quote in an SVG attribute, a lone surrogate, a DEL
in TOML that `init` writes. The outputs must stay well-formed and the CLI must exit 0, 1 or 2.
"""

from __future__ import annotations

import xml.dom.minidom

import pytest

from reportgen.article.chartplot import Line, Plot
from reportgen.article.chartsvg import draw_plot, safe_id

HOSTILE = (
    "$\\undefinedmacro{x}$",
    "$x$ and $\\frac{1}{$",
    '"><script>alert(1)</script>',
    'run style="a;',
    'a;"',
    "del\x7fname",
    "nul\x00name\x01",
    "rtl\u202eevil",
    "x" * 10_000,
)


def _plot(text: str) -> Plot:
    """A chart whose every string is `text`: title, legend, labels, ticks, point labels."""
    lines = (
        Line((1.0, 2.0), (3.0, 4.0), text, f"line-{text}", 0, (text, text)),
        Line((1.0, 2.0), (5.0, 6.0), text + "b", f"line-{text}b", 1, (text, text)),
    )
    return Plot("chart-x", text, lines, "from-zero", (), text, text, "tok/s", False, text)


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_chart_draws_any_string_as_plain_text(text: str) -> None:
    svg = draw_plot(_plot(text))
    xml.dom.minidom.parseString(svg)  # well-formed: no broken attribute, no control character
    assert "<script" not in svg
    if text.startswith("$\\undefined"):
        assert "$\\undefinedmacro{x}$" in svg  # drawn as written, not as mathtext


def test_chart_category_ticks_are_plain_text() -> None:
    text = "$\\undefinedmacro{x}$"
    lines = (Line((0.0, 1.0), (3.0, 4.0), text, "line", 0),)
    plot = Plot(
        "chart-x", "t", lines, "categorical", ((0.0, text), (1.0, "b")), "x", "y", "s", True, None
    )
    assert text in draw_plot(plot)


def test_svg_ids_are_safe_and_distinct() -> None:
    ids = {safe_id(f'line-run style="a;{i}') for i in range(3)} | {safe_id("line-a b")}
    assert len(ids) == 4
    assert all(i.replace("-", "").replace("_", "").isalnum() and i.isascii() for i in ids)
    assert safe_id("line-4K") == "line-4K"
