"""How each metric is shown, and the one formatting filter: a metric value in, its text out.

The display precision of a metric is also the tolerance `reportgen check` judges a shown number
by: a value shown with k decimals matches x when |x - shown| <= 0.5 * 10^-k.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, localcontext

from reportgen.metrics.registry import MetricValue


@dataclass(frozen=True)
class Display:
    """How a metric is shown: decimals, the unit written after it, thousands separators."""

    decimals: int
    unit: str
    scale: float = 1.0  # shown = value * scale (e.g. seconds shown as ms)
    signed: bool = False  # a change: "+" before a rise

    def tolerance(self) -> float:
        """|value - shown| allowed by the precision shown."""
        return 0.5 * 10.0**-self.decimals


_MS = 1000.0

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
    "decode.itl_s": Display(1, "ms", _MS),
    "decode.latency_s": Display(1, "s"),
    "matrix.duration_s": Display(0, "s"),
    "matrix.max_tokens": Display(0, "tokens"),
    "load.output_tok_s": Display(1, "tok/s"),
    "load.request_s": Display(2, "req/s"),
    "load.ttft_s": Display(1, "ms", _MS),
    "load.itl_s": Display(2, "ms", _MS),
    "load.latency_s": Display(0, "ms", _MS),
    "load.per_request_tok_s": Display(1, "tok/s"),
    "load.concurrency": Display(0, "requests"),
    "load.rate": Display(2, "req/s"),
    "load.requests": Display(0, "requests"),
    "load.failed": Display(0, "requests"),
}
# Efficiency forms of each throughput (see registry.THROUGHPUTS).
_EFFICIENCY = {
    "per_gpu": Display(0, "tok/s/GPU"),
    "per_w": Display(2, "tok/s/W"),
    "j_per_tok": Display(3, "J/tok"),
}
# The sample count of a distribution.
COUNT = Display(0, "requests")


def display_of(key: str, stat: str | None = None) -> Display:
    """The display rule of a metric (a registry key, and a statistic if any)."""
    if stat == "n":
        return COUNT
    base, _, kind = key.rpartition(".")
    if kind in _EFFICIENCY and base in DISPLAY:
        return _EFFICIENCY[kind]
    return DISPLAY[key]


RATIO = Display(2, "x")


def display_for(value: MetricValue) -> Display:
    """The display rule of a metric value (a comparison's: that of what it compares)."""
    if value.key in ("compare.delta", "compare.ratio"):
        if value.key == "compare.ratio":
            return RATIO
        extra = dict(value.extra)
        base = display_of(str(extra["key"]), extra["stat"] if extra["stat"] else None)  # type: ignore[arg-type]
        return Display(base.decimals, base.unit, base.scale, signed=True)
    return display_of(value.key, value.stat)


def format_number(x: float, display: Display) -> str:
    """`x` at the display's precision, rounded half up as a reader rounds, with thousands
    separators: 1234.56 -> '1,235', 102.5 -> '103'."""
    with localcontext() as ctx:
        ctx.prec = 400  # a float has at most 309 digits before the point
        exact = Decimal(repr(x)) * Decimal(repr(display.scale))
        shown = exact.quantize(Decimal(1).scaleb(-display.decimals), rounding=ROUND_HALF_UP)
    text = f"{shown:,.{display.decimals}f}"
    if text.startswith("-") and not shown:
        text = text[1:]  # no "-0"
    return f"+{text}" if display.signed and shown > 0 else text


def shown_text(value: MetricValue, *, unit: bool = False) -> str:
    """The text of a metric value as the article shows it (optionally with its unit)."""
    display = display_for(value)
    text = format_number(value.value, display)
    if unit:
        text = f"{text}\u00a0{display.unit}"  # no line break between number and unit
    return text
