"""A number said "up to" ("up to 2,000 tok/s", "up to 1.4x faster than vLLM's"), judged
against the highest of what its sentence's words range over (pure).

The claims reader ties a quote to every cell its words range over, and a ratio or change to
every pair of cells (`Reported.up_to`): the subject's cells along the axes its words leave
open, each with the cell its object names ("vLLM's": the other run, at the same place). Here
the one with the highest value is taken (of a change said as a fall, the deepest fall), which
check names in its report: a cell with its value and, where the cell was measured several
times, the 95% interval of its repetitions' mean; a pair with both cells, their values and,
where both were measured several times, the ratio's 95% interval (Welch's, as
`reportgen.metrics.claims.claim_spread` computes it for the article's own claims). "Up to X"
where the data reaches more than X, or never reaches X, is then a mismatch like any other
number's; a best pair whose interval includes no change, or sits inside the run-to-run noise,
is the finding the article's own claim would get (`claim_findings`), as is any ratio or change
a copy says in its own words (`claim_finding`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from reportgen.article.claims import spread_finding, spread_verdict
from reportgen.check.readers.reported import Reported
from reportgen.metrics.claims import CLAIM, ClaimSpread, claim_spread, is_claim
from reportgen.metrics.display import shown_text
from reportgen.metrics.lints.findings import Finding
from reportgen.metrics.registry import MetricValue

Lookup = Callable[[str], MetricValue | None]


def at_best(r: Reported, value_of: Lookup) -> Reported:
    """`r` tied to the highest of the cells (or pairs) it ranges over, the lowest when it
    states a fall; as it is when it says no "up to" or none of them has a value."""
    if not r.up_to:
        return r
    sign = -1.0 if r.value < 0 else 1.0
    found = [(v.value, i) for i, metric in enumerate(r.up_to) if (v := value_of(metric))]
    if not found:
        return r
    _, best = max(found, key=lambda f: sign * f[0])  # of equal values the first, as shown
    return replace(r, metric_id=r.up_to[best])


def what_ranged(r: Reported) -> str:
    """What an "up to" is the highest of, in words: "of the 4 cells", "ratio of the 4 pairs
    of cells"."""
    assert r.metric_id is not None
    n = len(r.up_to)
    if not is_claim(r.metric_id):
        return f"of the {n} cells"
    kind = "ratio" if "/" in r.metric_id else "change"
    return f"{kind} of the {n} pair{'s' if n > 1 else ''} of cells"


def _cell(metric: str, value_of: Lookup) -> str:
    value = value_of(metric)
    return f"{metric} = {'no value' if value is None else shown_text(value, unit=True)}"


def _cell_interval(metric: str, value_of: Lookup) -> str:
    cell = metric.removesuffix(".rep_mean")  # the mean's interval is the cell's
    lo, hi = (value_of(f"{cell}.{stat}") for stat in ("rep_ci_lo", "rep_ci_hi"))
    reps = value_of(f"{cell}.reps")
    if lo is None or hi is None or reps is None:
        return ""
    return (
        f", 95% interval of the mean of {reps.value:.0f} repetitions "
        f"{shown_text(lo, unit=False)} to {shown_text(hi, unit=True)}"
    )


def _shown(x: float, ratio: bool) -> str:
    return f"{x:.2f}x" if ratio else f"{x:+.1f}%"


def _pair(metric: str, value_of: Lookup) -> str:
    """A pair of cells, their values and, with repetitions, the 95% interval of their ratio."""
    found = CLAIM.match(metric)
    assert found is not None
    value = value_of(metric)
    ratio = found["op"] == "/"
    said = "no value" if value is None else _shown(value.value, ratio)
    cells = f"{_cell(found['a'], value_of)}, {_cell(found['b'], value_of)}"
    spread = claim_spread(metric, value_of)
    interval = (
        ""
        if spread is None
        else f", 95% interval {_shown(spread.low, ratio)} to {_shown(spread.high, ratio)} "
        f"(Welch, from each cell's repetitions)"
    )
    return f"{metric} = {said} ({cells}){interval}"


def up_to_note(r: Reported, value_of: Lookup) -> str:
    """What check says of an "up to": the cell or pair it is judged against, the values and
    interval."""
    assert r.metric_id is not None
    judged = (
        _pair(r.metric_id, value_of)
        if is_claim(r.metric_id)
        else _cell(r.metric_id, value_of) + _cell_interval(r.metric_id, value_of)
    )
    said = r.text if r.text.startswith("up to") else f"up to {r.text}"
    return (
        f"line {r.line}, col {r.col}: {said} is judged against the highest "
        f"{what_ranged(r)} its words range over, {judged}"
    )


def claim_finding(r: Reported, source: str, value_of: Lookup) -> Finding | None:
    """The claim finding of a ratio or change a copy says in its own words (of its best pair,
    said "up to") whose 95% interval includes no change while its sentence says one side
    differs, or that sits inside the run-to-run noise; None otherwise, or when a side was
    measured once. The same finding the article's own claim would get (`claim_findings`)."""
    if r.metric_id is None or not is_claim(r.metric_id):
        return None
    spread: ClaimSpread | None = claim_spread(r.metric_id, value_of)
    if spread is None:
        return None
    supported = spread_verdict(spread, compares=r.compares)
    if supported is None:
        return None
    return spread_finding(source, r.line, spread, supported=supported, said=r.text)
