"""A number said "up to" ("up to 2,000 tok/s"), judged against the highest of the cells its
sentence's words range over (pure): the claims reader ties it to every such cell
(`Reported.up_to`), and here it takes the one with the highest value, which check names in
its report with that value and, where the cell was measured several times, the 95% interval
of its repetitions' mean. "Up to X" where the data reaches more than X, or never reaches X, is
then a mismatch like any other number's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from reportgen.check.readers.reported import Reported
from reportgen.metrics.display import shown_text
from reportgen.metrics.registry import MetricValue

Lookup = Callable[[str], MetricValue | None]


def at_best(r: Reported, value_of: Lookup) -> Reported:
    """`r` tied to the highest of the cells it ranges over; as it is when it says no "up to"
    or none of them has a value."""
    if not r.up_to:
        return r
    found = [(v.value, i) for i, metric in enumerate(r.up_to) if (v := value_of(metric))]
    if not found:
        return r
    _, best = max(found, key=lambda f: f[0])  # of equal values the first, as the article shows
    return replace(r, metric_id=r.up_to[best])


def up_to_note(r: Reported, value_of: Lookup) -> str:
    """What check says of an "up to": the cell it is judged against, its value and interval."""
    assert r.metric_id is not None
    value = value_of(r.metric_id)
    shown = "no value" if value is None else shown_text(value, unit=True)
    cell = r.metric_id.removesuffix(".rep_mean")  # the mean's interval is the cell's
    lo, hi = (value_of(f"{cell}.{stat}") for stat in ("rep_ci_lo", "rep_ci_hi"))
    reps = value_of(f"{cell}.reps")
    interval = (
        f", 95% interval of the mean of {reps.value:.0f} repetitions "
        f"{shown_text(lo, unit=False)} to {shown_text(hi, unit=True)}"
        if lo is not None and hi is not None and reps is not None
        else ""
    )
    return (
        f"line {r.line}, col {r.col}: up to {r.text} is judged against the highest of the "
        f"{len(r.up_to)} cells its words range over, {r.metric_id} = {shown}{interval}"
    )
