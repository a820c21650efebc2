"""Claims prose makes about two metrics, computed: a ratio (`A/B`) or a change in percent
(`A->B`), named by the two metric ids (pure).

The article writes `{{ run.cN.output_tok_s/run.c1.output_tok_s }}` and the build
shows "3.4x"; the checker reads the same id back and computes it again. Either operand missing,
a zero denominator, or operands in different units give no value (the reference then does not
resolve, which is an error at the reference). Where both sides were measured several times, the
claim has a 95% interval too (`claim_spread`, from `reportgen.metrics.uncertainty`): Welch's
for two repeated cells, the percentile bootstrap for two values with resamples (a frontier's).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from reportgen.metrics.display import unit_factor
from reportgen.metrics.registry import MetricValue
from reportgen.metrics.uncertainty import percentile_interval, ratio_interval, spread

CLAIM = re.compile(r"^(?P<a>[^/\s>]+?)(?P<op>/|->)(?P<b>[^/\s>]+)$")
UNITS = {"/": "x", "->": "%"}  # a claim's operator -> the unit it is shown in


def is_claim(name: str) -> bool:
    """Whether `name` is a claim id rather than one metric's."""
    return CLAIM.match(name) is not None


def claim_unit(name: str) -> str | None:
    """The unit a claim is shown in: "x" for a ratio, "%" for a change; None for no claim."""
    found = CLAIM.match(name)
    return None if found is None else UNITS[found["op"]]


def claim_problem(name: str, get: Callable[[str], MetricValue | None]) -> str | None:
    """Why the claim `name` has no value; None when it has one (or is no claim)."""
    found = CLAIM.match(name)
    if found is None:
        return None
    a, b = get(found["a"]), get(found["b"])
    for operand, value in (("a", a), ("b", b)):
        if value is None:
            return f"{found[operand]} is no metric of the run files"
    assert a is not None and b is not None
    if unit_factor(b.unit, a.unit) is None:
        return f"{a.id} is in {a.unit} and {b.id} in {b.unit}: a claim compares one quantity"
    base = b.value if found["op"] == "/" else a.value
    if base == 0:
        return f"{b.id if found['op'] == '/' else a.id} is 0: there is nothing to divide by"
    return None


def claim_value(name: str, get: Callable[[str], MetricValue | None]) -> MetricValue | None:
    """The value of the claim `name` (None: no claim, or one without a value)."""
    found = CLAIM.match(name)
    if found is None or claim_problem(name, get) is not None:
        return None
    a, b = get(found["a"]), get(found["b"])
    assert a is not None and b is not None
    other = b.value * (unit_factor(b.unit, a.unit) or 1.0)
    if found["op"] == "/":
        key, value = "claim.ratio", a.value / other
    else:
        key, value = "claim.change", (other - a.value) / a.value * 100.0
    return a.but(
        id=name,
        key=key,
        value=value,
        unit=UNITS[found["op"]],
        stat=None,
        n=None,
        summary=None,
        summary_pointer=None,
        basis=f"{a.id} {found['op']} {b.id}",
    )


def lookup(by_id: dict[str, MetricValue]) -> Callable[[str], MetricValue | None]:
    """A lookup of metric ids that computes claim ids from their operands."""

    def get(name: str) -> MetricValue | None:
        found = by_id.get(name)
        return found if found is not None else claim_value(name, by_id.get)

    return get


@dataclass(frozen=True, kw_only=True)
class ClaimSpread:
    """A claim whose two sides were measured several times: its 95% interval (as the claim is
    shown: "x" for a ratio, "%" for a change), the value that means no change, and each side's
    run-to-run CV in %."""

    name: str
    low: float
    high: float
    neutral: float  # 1 for a ratio, 0 for a change
    shown: float  # the claim's value as computed from the medians
    noise_pct: float  # the larger of the two sides' CV

    @property
    def includes_no_change(self) -> bool:
        return self.low <= self.neutral <= self.high

    @property
    def within_noise(self) -> bool:
        """The claimed change is no larger than the sides' run-to-run variation."""
        change_pct = abs(self.shown - 1.0) * 100.0 if self.neutral == 1.0 else abs(self.shown)
        return change_pct <= self.noise_pct


def claim_spread(name: str, get: Callable[[str], MetricValue | None]) -> ClaimSpread | None:
    """The interval of the claim `name` from its two sides' repetitions; None when it is no
    claim, has no value, or a side was measured once."""
    found = CLAIM.match(name)
    shown = claim_value(name, get)
    if found is None or shown is None:
        return None
    a, b = get(found["a"]), get(found["b"])
    assert a is not None and b is not None
    factor = unit_factor(b.unit, a.unit) or 1.0
    if a.resamples and len(a.resamples) == len(b.resamples):
        return _bootstrapped(name, found["op"] == "/", a, b, factor, shown.value)
    if len(a.repeats) < 2 or len(b.repeats) < 2:
        return None
    xs, ys = [v for _, v in a.repeats], [v * factor for _, v in b.repeats]
    if found["op"] == "/":
        interval, neutral, scale, shift = ratio_interval(xs, ys), 1.0, 1.0, 0.0
    else:  # (B - A) / A x 100: the ratio B/A, less one, in percent
        interval, neutral, scale, shift = ratio_interval(ys, xs), 0.0, 100.0, -1.0
    if interval is None:
        return None
    noise = max(spread(xs).cv_pct or 0.0, spread(ys).cv_pct or 0.0)
    return ClaimSpread(
        name=name,
        low=(interval.lo + shift) * scale,
        high=(interval.hi + shift) * scale,
        neutral=neutral,
        shown=shown.value,
        noise_pct=noise,
    )


def _bootstrapped(
    name: str, ratio: bool, a: MetricValue, b: MetricValue, factor: float, shown: float
) -> ClaimSpread | None:
    """The claim's percentile interval over its sides' bootstrap resamples, paired resample by
    resample (a frontier's values: `reportgen.metrics.frontier`), and its noise the larger of
    the sides' bootstrap CVs."""
    draws = []
    for x, y in zip(a.resamples, b.resamples, strict=True):
        y *= factor
        if math.isnan(x) or math.isnan(y) or (y if ratio else x) <= 0:
            draws.append(math.nan)
        else:
            draws.append(x / y if ratio else (y - x) / x * 100.0)
    interval = percentile_interval(draws)
    sides = [percentile_interval(v.resamples) for v in (a, b)]
    if interval is None or None in sides:
        return None
    return ClaimSpread(
        name=name,
        low=interval.lo,
        high=interval.hi,
        neutral=1.0 if ratio else 0.0,
        shown=shown,
        noise_pct=max(s.cv_pct or 0.0 for s in sides if s is not None),
    )
