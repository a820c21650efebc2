"""How each metric is shown, and the one formatting filter: a metric value in, its text out.

The display precision of a metric is also the tolerance `reportgen check` judges a shown number
by: a value shown with k decimals matches x when |x - shown| <= 0.5 * 10^-k.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, localcontext

from reportgen.metrics.registry import MetricValue
from reportgen.metrics.slo import VERDICT_KEYS, verdict_word


@dataclass(frozen=True, kw_only=True)
class Display:
    """How a metric is shown: decimals, the unit written after it, thousands separators."""

    decimals: int
    unit: str
    scale: float = 1.0  # shown = value * scale (e.g. seconds shown as ms)
    signed: bool = False  # a change: "+" before a rise
    trim: bool = False  # a setting: no trailing zeros ("2 req/s", "0.5 req/s")

    def tolerance(self) -> float:
        """|value - shown| allowed by the precision shown."""
        return 0.5 * 10.0**-self.decimals


_MS = 1000.0

DISPLAY: dict[str, Display] = {
    "canonical.output_tok_s": Display(decimals=0, unit="tok/s"),
    "canonical.ttft_ms": Display(decimals=0, unit="ms"),
    "canonical.prefill_tok_s": Display(decimals=0, unit="tok/s"),
    "canonical.concurrency": Display(decimals=0, unit="requests"),
    "canonical.output_tokens": Display(decimals=0, unit="tokens"),
    "prefill.prompt_tokens": Display(decimals=0, unit="tokens"),
    "prefill.ttft_s": Display(decimals=2, unit="s"),
    "prefill.tok_s": Display(decimals=0, unit="tok/s"),
    "decode.aggregate_tok_s": Display(decimals=0, unit="tok/s"),
    "decode.per_request_tok_s": Display(decimals=0, unit="tok/s"),
    "decode.ttft_s": Display(decimals=2, unit="s"),
    "decode.itl_s": Display(decimals=1, unit="ms", scale=_MS),
    "decode.latency_s": Display(decimals=1, unit="s"),
    "matrix.duration_s": Display(decimals=0, unit="s"),
    "matrix.max_tokens": Display(decimals=0, unit="tokens"),
    "load.output_tok_s": Display(decimals=1, unit="tok/s"),
    "load.request_s": Display(decimals=2, unit="req/s"),
    "load.ttft_s": Display(decimals=1, unit="ms", scale=_MS),
    "load.itl_s": Display(decimals=2, unit="ms", scale=_MS),
    "load.latency_s": Display(decimals=0, unit="ms", scale=_MS),
    "load.per_request_tok_s": Display(decimals=1, unit="tok/s"),
    "load.concurrency": Display(decimals=0, unit="requests"),
    "load.rate": Display(decimals=2, unit="req/s", trim=True),
    "load.requests": Display(decimals=0, unit="requests"),
    "load.failed": Display(decimals=0, unit="requests"),
}
# Efficiency forms of each throughput (see registry.THROUGHPUTS).
_EFFICIENCY = {
    "per_gpu": Display(decimals=0, unit="tok/s/GPU"),
    "per_w": Display(decimals=2, unit="tok/s/W"),
    "j_per_tok": Display(decimals=3, unit="J/tok"),
    "usd_per_mtok": Display(decimals=2, unit="USD/Mtok"),
    "usd_per_mtok_total": Display(decimals=2, unit="USD/Mtok"),
}
# The sample count of a distribution.
COUNT = Display(decimals=0, unit="requests")
# How many files measured a cell again.
REPETITIONS = Display(decimals=0, unit="repetitions")
# The repetitions' coefficient of variation, in percent.
CV = Display(decimals=1, unit="%")


def display_of(key: str, stat: str | None = None) -> Display:
    """The display rule of a metric (a registry key, and a statistic if any: a statistic of
    the repetitions of a percentile, "p99.rep_cv", is shown as that of the bare value's)."""
    stat = None if stat is None else stat.rpartition(".")[2]
    if stat == "n":
        return COUNT
    if stat == "reps":
        return REPETITIONS
    if stat == "rep_cv":
        return CV
    base, _, kind = key.rpartition(".")
    if kind in _EFFICIENCY and base in DISPLAY:
        return _EFFICIENCY[kind]
    return DISPLAY[key]


RATIO = Display(decimals=2, unit="x")
DISPLAY["claim.ratio"] = Display(decimals=1, unit="x")
DISPLAY["claim.change"] = Display(decimals=0, unit="%", signed=True)
DISPLAY["frontier.tok_s_per_gpu"] = Display(decimals=0, unit="tok/s/GPU")
DISPLAY["frontier.tok_s"] = Display(decimals=0, unit="tok/s")
DISPLAY["frontier.ratio"] = RATIO
DISPLAY["frontier.level"] = Display(decimals=0, unit="tok/s")
DISPLAY["frontier.usd_per_mtok"] = Display(decimals=2, unit="USD/Mtok")
DISPLAY["load.slo_attainment"] = Display(decimals=0, unit="%", scale=100.0)
DISPLAY["load.goodput_req_s"] = Display(decimals=2, unit="req/s")
DISPLAY["load.goodput_tok_s"] = Display(decimals=1, unit="tok/s")
for _verdict in ("ttft", "itl", "e2e"):  # 1 or 0; a table shows "meets" or "misses"
    DISPLAY[f"load.slo_{_verdict}_met"] = Display(decimals=0, unit="")
DISPLAY["load.slo_met"] = Display(decimals=0, unit="")
DISPLAY["slo.max_concurrency"] = Display(decimals=0, unit="requests")
DISPLAY["slo.max_rate"] = Display(decimals=2, unit="req/s", trim=True)


def display_for(value: MetricValue) -> Display:
    """The display rule of a metric value (a comparison's: that of what it compares)."""
    if value.key in ("compare.delta", "compare.ratio"):
        if value.key == "compare.ratio":
            return RATIO
        extra = dict(value.extra)
        base = display_of(str(extra["key"]), extra["stat"] if extra["stat"] else None)  # type: ignore[arg-type]
        return Display(decimals=base.decimals, unit=base.unit, scale=base.scale, signed=True)
    return display_of(value.key, value.stat)


def format_number(x: float, display: Display) -> str:
    """`x` at the display's precision, rounded half up as a reader rounds, with thousands
    separators: 1234.56 -> '1,235', 102.5 -> '103'."""
    with localcontext() as ctx:
        ctx.prec = 400  # a float has at most 309 digits before the point
        exact = Decimal(repr(x)) * Decimal(repr(display.scale))
        shown = exact.quantize(Decimal(1).scaleb(-display.decimals), rounding=ROUND_HALF_UP)
    text = f"{shown:,.{display.decimals}f}"
    if display.trim and "." in text:
        text = text.rstrip("0").rstrip(".")
    if text.startswith("-") and not shown:
        text = text[1:]  # no "-0"
    return f"+{text}" if display.signed and shown > 0 else text


# The units of a comparison of two numbers, not of a quantity: a ratio and a change.
COMPARISONS = frozenset({RATIO.unit, DISPLAY["claim.change"].unit})
# The units a caption, header, axis label or a number in a copy may name: every unit a display
# rule above shows, so a metric shown in a new unit is read in it everywhere.
# (A verdict, "meets" or "misses", is shown in no unit: "" is none.)
UNITS = (
    frozenset(d.unit for d in (*DISPLAY.values(), *_EFFICIENCY.values(), COUNT, REPETITIONS))
    - COMPARISONS
    - {""}
)
# The units that count things: a table's caption names a quantity, and does not speak for a
# column of counts beside it.
COUNTS = frozenset({COUNT.unit, REPETITIONS.unit, DISPLAY["matrix.max_tokens"].unit})
# The units of a quantity (a time, a rate, a throughput, a cost): what a caption's unit is.
QUANTITIES = UNITS - COUNTS


# Units written out in words, as captions and sentences say them. A cost's currency is USD
# (an article declares its price as `gpu_hour_usd`), so "$" and "dollars" are USD.
SPELLED = (
    (r"tok/s per GPU\b", "tok/s/GPU"),
    (r"tok/s per (W|watt)\b", "tok/s/W"),
    (r"J per tok(en)?\b", "J/tok"),
    (r"(USD|US dollars?|dollars?|\$) per (million|M) (\w+ )?tok(en)?s\b", "USD/Mtok"),
    (r"(USD|\$)/M (\w+ )?tok(en)?s\b", "USD/Mtok"),
)


def units_named(text: str) -> set[str]:
    """The units a caption names inside its parentheses: "(s, median)" -> {"s"}."""
    inside = " ".join(re.findall(r"\(([^()]*)\)", text))
    for spelled, unit in SPELLED:
        inside = re.sub(spelled, unit, inside, flags=re.IGNORECASE)
    return {word for word in re.split(r"[\s,;]+", inside) if word in UNITS}


# value in unit A x factor = value in unit B
UNIT_FACTORS = {("s", "ms"): 1000.0, ("ms", "s"): 0.001}


def unit_factor(unit: str, to: str) -> float | None:
    """The factor that turns a value in `unit` into one in `to`; None when they do not convert."""
    return 1.0 if unit == to else UNIT_FACTORS.get((unit, to))


def shown_in(value: MetricValue, unit: str | None = None, decimals: int | None = None) -> Display:
    """The display of `value` in `unit` at `decimals` (the registry's where None); ValueError
    when the metric's unit does not convert to `unit`."""
    base = display_for(value)
    scale = base.scale
    if unit is not None and unit != base.unit:
        factor = unit_factor(value.unit, unit)
        if factor is None:
            raise ValueError(f"{value.metric} is in {value.unit}, which cannot be shown in {unit}")
        scale = factor
    shown = base.decimals if decimals is None else decimals
    return Display(
        decimals=shown, unit=unit or base.unit, scale=scale, signed=base.signed, trim=base.trim
    )


def standalone(value: MetricValue) -> Display:
    """The display of a number shown on its own with its unit (a key result, a headline, prose):
    the registry's, except that a time of 1,000 ms or more is shown in seconds."""
    base = display_for(value)
    if base.unit != "ms" or value.unit != "s" or abs(value.value) < 1.0:
        return base
    decimals = 2 if abs(value.value) < 10 else 1 if abs(value.value) < 100 else 0
    return Display(decimals=decimals, unit="s", scale=1.0, signed=base.signed)


def display_attr(display: Display) -> str:
    """A display as the `data-display` attribute of a number span: "decimals scale unit"."""
    return f"{display.decimals} {display.scale!r} {display.unit}"


def parse_display_attr(text: str, value: MetricValue) -> Display | None:
    """The display a `data-display` attribute states, when it is a display of `value` (its unit
    converts from the metric's, at that scale); None when it is not."""
    parts = text.split(" ", 2)
    if len(parts) != 3 or not parts[0].isdigit():
        return None
    try:
        scale = float(parts[1])
        display = shown_in(value, parts[2], int(parts[0]))
    except ValueError:
        return None
    return display if scale == display.scale else None


def shown_text(value: MetricValue, *, unit: bool = False, display: Display | None = None) -> str:
    """The text of a metric value as the article shows it: in a table (no unit), or on its own
    with its unit (see `standalone`); `display` overrides both."""
    if value.key in VERDICT_KEYS:  # a verdict is a word, in a table or on its own
        return verdict_word(value.value)
    if display is None:
        display = standalone(value) if unit else display_for(value)
    text = format_number(value.value, display)
    if unit and display.unit in ("x", "%"):
        text = f"{text}{display.unit}"  # 3.4x, +12%
    elif unit:
        text = f"{text}\u00a0{display.unit}"  # no line break between number and unit
    return text
