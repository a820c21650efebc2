"""The one formatting filter: a metric value in, the text the article shows out.

Precision comes from `reportgen.tables.DISPLAY`; it is also the tolerance `reportgen check` judges
a shown number by. In HTML every number carries its metric id and full-precision value.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from reportgen.metrics import MetricValue
from reportgen.tables import DISPLAY, Display

# Units written after a number in running text; counts read better bare ("2,048 output tokens").
PROSE_UNITS = frozenset({"tok/s", "ms", "s"})


def display_for(value: MetricValue) -> Display:
    """The display rule of a metric value."""
    return DISPLAY[value.key]


def format_number(x: float, display: Display) -> str:
    """`x` at the display's precision, with thousands separators: 1234.56 -> '1,235'."""
    shown = x * display.scale
    text = f"{shown:,.{display.decimals}f}"
    return "0" if text in ("-0", "-0.0") else text.replace("-0.00", "0.00")


def shown_text(value: MetricValue, *, unit: bool = False) -> str:
    """The text of a metric value as the article shows it (optionally with its unit)."""
    display = display_for(value)
    text = format_number(value.value, display)
    if unit and display.unit in PROSE_UNITS:
        text = f"{text}\u00a0{display.unit}"  # no line break between number and unit
    return text


def number_html(value: MetricValue, *, unit: bool = False, css: str = "num") -> Markup:
    """A number as HTML: `<span class=num data-metric=ID data-value=FULL>TEXT</span>`."""
    return Markup('<span class="{}" data-metric="{}" data-value="{}">{}</span>').format(
        css, value.id, repr(value.value), escape(shown_text(value, unit=unit))
    )
