"""Claims prose makes about two metrics, computed: a ratio (`A/B`) or a change in percent
(`A->B`), named by the two metric ids (pure).

The article writes `{{ run.cN.output_tok_s/run.c1.output_tok_s }}` and the build
shows "3.4x"; the checker reads the same id back and computes it again. Either operand missing,
a zero denominator, or operands in different units give no value (the reference then does not
resolve, which is an error at the reference).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from reportgen.metrics.display import unit_factor
from reportgen.metrics.registry import MetricValue

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
    return replace(
        a,
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
