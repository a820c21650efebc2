"""Numbers as the article's HTML shows them: the formatted text, with its metric id and value.

Every number the page shows goes through `number_html`, so `reportgen check` can read each one
back exactly from its data attributes.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from reportgen.metrics import MetricValue
from reportgen.metrics.display import shown_text


def number_html(value: MetricValue, *, unit: bool = False, css: str = "num") -> Markup:
    """A number as HTML: `<span class=num data-metric=ID data-value=FULL>TEXT</span>`."""
    return Markup('<span class="{}" data-metric="{}" data-value="{}">{}</span>').format(
        css, value.id, repr(value.value), escape(shown_text(value, unit=unit))
    )
