"""The numbers of one sentence, judged together (pure).

A sentence that states several claims or quotes ties each to a metric by its words, and which
number goes with which metric is a reader's reading. The reading is trusted when it accounts
for the whole sentence: every other number in it checks out, as a metric's value, a setting or
an axis value ("4K", "12 concurrent requests": labels, dropped before this), or a ratio of
two numbers written beside it ("3.5x ... (420 vs 120 tok/s)"). Then a number that differs
from its metric is a mismatch like any other; while some other number checks out against
nothing, the difference is unverified, and the finding names that number.

The reading is taken from the words alone, never chosen by which one the numbers fit. When a
sentence's words fit two readings ("12 concurrent requests together produced 3.5x the output of
a single request": the canonical runs, or the decode matrix at every context), the numbers
jointly fitting one of them is strong evidence of what the writer measured, but not of what the
sentence tells its reader: a reader takes the article's headline runs, for which it is wrong.
Choosing by the values would also let a sentence whose loose words name one place and whose
numbers come from another pass. So the words must say it ("with no context" names the context
of 0), as they must for a reader; while they do not, the numbers stay unverified.

Worst case: linear in the numbers: one pass groups them by sentence, keeping at most two per
sentence that do not check out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from reportgen.check.readers.published import parse_number
from reportgen.check.readers.reported import Reported
from reportgen.metrics.display import Display, format_number, unit_factor


def derived_problem(r: Reported) -> str | None:
    """None when the ratio `r` is the ratio of its operands at the precision each is shown
    (the larger over the smaller for a ratio of 1 or more); else what they give."""
    assert r.operands is not None
    a, b = (parse_number(t.replace("\u00a0", "")) for t in r.operands)
    if a is None or b is None:
        return f"shows {r.text} beside {r.operands[0]} and {r.operands[1]}, not both numbers"
    first, second = (a[0], 0.5 * 10.0 ** -a[1]), (b[0], 0.5 * 10.0 ** -b[1])
    if a[2] and b[2]:  # "0.50 s vs 120 ms": the second in the first's unit
        factor = unit_factor(b[2], a[2])
        if factor is None:
            return (
                f"shows {r.text} beside {r.operands[0]} and {r.operands[1]}, units no ratio joins"
            )
        second = (second[0] * factor, second[1] * factor)
    (top, top_half), (bottom, bottom_half) = sorted((first, second), key=lambda n: -n[0])
    if r.value < 1:
        (top, top_half), (bottom, bottom_half) = (bottom, bottom_half), (top, top_half)
    low = (top - top_half) / (bottom + bottom_half) if bottom + bottom_half > 0 else math.inf
    high = (top + top_half) / (bottom - bottom_half) if bottom - bottom_half > 0 else math.inf
    half = 0.5 * 10.0**-r.decimals * (1 + 1e-9)
    if low <= r.value + half and r.value - half <= high:
        return None
    given = (
        format_number(top / bottom, Display(decimals=max(0, r.decimals), unit="")) + "x"
        if bottom
        else "no ratio"
    )
    return f"shows {r.text} but its operands {r.operands[0]} and {r.operands[1]} give {given}"


def unsettled(
    reported: Sequence[Reported], settled: Sequence[bool]
) -> dict[tuple[int, int], list[Reported]]:
    """Per sentence, the first two of its numbers that do not check out (`settled`: whether
    each number checks out)."""
    out: dict[tuple[int, int], list[Reported]] = {}
    for r, ok in zip(reported, settled, strict=True):
        if r.sentence is not None and not ok:
            found = out.setdefault(r.sentence, [])
            if len(found) < 2:
                found.append(r)
    return out


def holding(r: Reported, open_numbers: dict[tuple[int, int], list[Reported]]) -> Reported | None:
    """The other number of `r`'s sentence that does not check out, if any: while there is one,
    a difference of `r` is not judged."""
    if r.sentence is None:
        return None
    return next((o for o in open_numbers.get(r.sentence, ()) if o is not r), None)


def unjudged(other: Reported) -> str:
    """Why a number among several is not judged: `other` does not check out."""
    return (
        f"; its sentence also states {other.text} (line {other.line}, col {other.col}), which "
        "does not check out, so this number may state something else: not judged (state it "
        "alone in its sentence, or as a reference)"
    )
