"""A unit a copy's column header or table caption names, judged once for all the numbers it
heads (pure).

A copy may convert a column or a whole table to another unit and say so ("TTFT p50 (s)" over the
built "(ms)"): its numbers are then read in that unit and judged at the precision they show.
A unit that does not fit its numbers is one error at the header or caption that names it, not
one per cell:

- a unit of another quantity: a time over a throughput column, "(ms, median)" over tok/s (a
  caption's unit does not speak for a column of ratios or counts beside its quantity's);
- the right quantity, 1000x off: "(s)" over numbers that are the metric in ms, none of them right
  in the unit named and most of them right in the other.

The numbers under such a unit are then judged as the article shows them (another quantity) or
in the unit they are evidently in (1000x off), so a wrong number among them is still an error
at its own line.

Worst case: linear in the reported numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from reportgen.check.readers.reported import Reported
from reportgen.metrics.display import QUANTITIES, unit_factor
from reportgen.metrics.registry import MetricValue

# A caption's unit speaks for the numbers of a quantity (`metrics.display.QUANTITIES`: times,
# rates, throughputs, costs), not for ratios, percentages or counts of requests or tokens.
_OTHER = {"s": "ms", "ms": "s"}


@dataclass(frozen=True, kw_only=True)
class UnitProblem:
    """A header or caption whose unit does not fit the numbers under it."""

    line: int
    col: int
    text: str  # the header or caption
    message: str
    cell: Reported  # the first number it heads that shows the problem
    value: MetricValue


def _close(r: Reported, value: MetricValue, unit: str) -> bool:
    """Whether `r`, read in `unit`, is `value` at the precision it shows."""
    factor = unit_factor(value.unit, unit)
    if factor is None:
        return False
    return abs(value.value * factor - r.value) <= 0.5 * 10.0**-r.decimals * (1 + 1e-9)


def _unfit(r: Reported, value: MetricValue) -> bool:
    """Whether the unit `r` is read in cannot be its metric's: another quantity."""
    assert r.unit is not None
    if unit_factor(value.unit, r.unit) is not None:
        return False
    return not r.unit_soft or value.unit in QUANTITIES


def settle_units(
    reported: Sequence[Reported], value_of: Callable[[str], MetricValue | None]
) -> tuple[list[Reported], list[UnitProblem]]:
    """`reported` with the numbers under an unfitting header or caption unit read as they
    evidently are, and one problem per such header or caption."""
    groups: dict[tuple[int, int, str], list[tuple[int, MetricValue]]] = {}
    for k, r in enumerate(reported):
        value = value_of(r.metric_id) if r.metric_id else None
        if r.unit_from is None or value is None or r.unit is None or math.isnan(r.value):
            continue
        groups.setdefault(r.unit_from, []).append((k, value))
    out = list(reported)
    problems = []
    for (line, col, text), cells in groups.items():
        unit = reported[cells[0][0]].unit
        assert unit is not None
        unfit = [(k, v) for k, v in cells if _unfit(reported[k], v)]
        if unfit:
            k, value = unfit[0]
            said = f"{text!r} names {unit}, but {value.id} is in {value.unit}"
            problems.append(
                UnitProblem(
                    line=line, col=col, text=text, message=said, cell=reported[k], value=value
                )
            )
            for k, _ in unfit:  # judged as the article shows it
                out[k] = replace(reported[k], unit=None, unit_soft=True)
        fit = [(k, v) for k, v in cells if unit_factor(v.unit, unit) is not None]
        other = _OTHER.get(unit)
        if not fit or other is None or any(_close(reported[k], v, unit) for k, v in fit):
            continue
        right = [(k, v) for k, v in fit if _close(reported[k], v, other)]
        if 2 * len(right) < len(fit) or not right:
            continue
        k, value = right[0]
        said = (
            f"{text!r} names {unit}, but its numbers are {value.metric} in {other} "
            f"(1000x off: {reported[k].text} is {value.id} in {other})"
        )
        problems.append(
            UnitProblem(line=line, col=col, text=text, message=said, cell=reported[k], value=value)
        )
        for k, _ in fit:
            out[k] = replace(reported[k], unit=other, unit_soft=False)
    return out, problems
