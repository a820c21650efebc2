"""Numbers as the article's HTML shows them: the formatted text, with its metric id and value.

Every number the page shows goes through `number_html`, so `reportgen check` can read each one
back exactly from its data attributes.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from reportgen.metrics.display import Display, display_attr, shown_text
from reportgen.metrics.registry import MetricValue


def number_html(
    value: MetricValue, *, unit: bool = False, css: str = "num", display: Display | None = None
) -> Markup:
    """A number as HTML: `<span class=num data-metric=ID data-value=FULL>TEXT</span>`.

    `display`: show it other than the registry says (a table column in ms); the span then says
    how (`data-display="decimals scale unit"`), so the checker can still read it exactly.
    """
    if display is None:
        return Markup('<span class="{}" data-metric="{}" data-value="{}">{}</span>').format(
            css, value.id, repr(value.value), escape(shown_text(value, unit=unit))
        )
    text = shown_text(value, unit=unit, display=display)
    return Markup(
        '<span class="{}" data-metric="{}" data-value="{}" data-display="{}">{}</span>'
    ).format(css, value.id, repr(value.value), display_attr(display), escape(text))


def gated_html(value: MetricValue) -> Markup:
    """A gated value as prose shows it: "not measurable (REASON)", in a span that names the
    metric (`data-gate`) but carries no number for a checker to read."""
    assert value.gate is not None
    return Markup('<span class="gated" data-gate="{}">not measurable ({})</span>').format(
        value.id, value.gate.reason
    )
