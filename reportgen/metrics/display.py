"""How each metric is shown, and the one formatting filter: a metric value in, its text out.

The display precision of a metric is also the tolerance `reportgen check` judges a shown number
by: a value shown with k decimals matches x when |x - shown| <= 0.5 * 10^-k.
"""

from __future__ import annotations

from dataclasses import dataclass

from reportgen.metrics.registry import MetricValue


@dataclass(frozen=True)
class Display:
    """How a metric is shown: decimals, the unit written after it, thousands separators."""

    decimals: int
    unit: str
    scale: float = 1.0  # shown = value * scale (e.g. seconds shown as ms)

    def tolerance(self) -> float:
        """|value - shown| allowed by the precision shown."""
        return 0.5 * 10.0**-self.decimals


DISPLAY: dict[str, Display] = {
    "canonical.output_tok_s": Display(0, "tok/s"),
    "canonical.ttft_ms": Display(0, "ms"),
    "canonical.prefill_tok_s": Display(0, "tok/s"),
    "canonical.concurrency": Display(0, "requests"),
    "canonical.output_tokens": Display(0, "tokens"),
    "prefill.prompt_tokens": Display(0, "tokens"),
    "prefill.ttft_s": Display(2, "s"),
    "prefill.tok_s": Display(0, "tok/s"),
    "decode.aggregate_tok_s": Display(0, "tok/s"),
    "decode.per_request_tok_s": Display(0, "tok/s"),
    "decode.ttft_s": Display(2, "s"),
    "matrix.duration_s": Display(0, "s"),
    "matrix.max_tokens": Display(0, "tokens"),
}


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
