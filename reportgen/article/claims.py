"""The article's prose claims judged with their uncertainty (pure): each `{{ A/B }}` or
`{{ A->B }}` whose two sides were measured several times gets a 95% interval
(`reportgen.metrics.claims.claim_spread`). A sentence that says the one is faster, more or
higher, while that interval includes no change, is not supported by the data (an error); a
claim no larger than the sides' run-to-run variation is a warning that names the interval.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from reportgen.article.prose.resolver import REFERENCE
from reportgen.article.source.declarations import ArticleSource, Text
from reportgen.metrics.claims import ClaimSpread, claim_spread, is_claim, lookup
from reportgen.metrics.lints.findings import Finding, define_lint
from reportgen.metrics.registry import MetricSet, MetricValue

NOT_SUPPORTED = define_lint(
    "claim-not-supported",
    severity="error",
    rule="a sentence claims a difference (faster, more, higher, ...) whose 95% interval from "
    "the repetitions includes no change",
    title="Claims the repetitions do not support",
    why="Measured again, the difference could as well be none: the sentence says more than "
    "the data shows.",
)
WITHIN_NOISE = define_lint(
    "claim-within-noise",
    severity="warning",
    rule="a claimed ratio or change is no larger than the run-to-run variation (CV) of its sides",
    title="Claims inside the run-to-run noise",
    why="Identical runs differ by this much: a reader should see the interval beside the claim.",
)
# Words by which a sentence says that one side differs from the other.
COMPARATIVE = re.compile(
    r"\b(faster|slower|quicker|more|less|fewer|higher|lower|greater|smaller|larger|better|"
    r"worse|increase[sd]?|decrease[sd]?|improve[sd]?|improvement|gains?|drops?|ahead|beats?|"
    r"outperforms?)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")


def _sentence(text: str, start: int, end: int) -> str:
    """The sentence of `text` around [start, end)."""
    before = [m.end() for m in _SENTENCE_END.finditer(text, 0, start)]
    after = _SENTENCE_END.search(text, end)
    return text[before[-1] if before else 0 : after.end() if after else len(text)]


def _shown(x: float, unit: str) -> str:
    return f"{x:.2f}x" if unit == "x" else f"{x:+.1f}%"


def spread_finding(
    file: str, line: int, spread: ClaimSpread, *, supported: bool, said: str | None = None
) -> Finding:
    """The finding of a claim at `line` of `file` whose interval is `spread`: inside the noise
    (`supported`) or not supported by the data; `said`: the claim as a copy words it."""
    lint = WITHIN_NOISE if supported else NOT_SUPPORTED
    unit = "x" if spread.neutral == 1.0 else "%"
    interval = f"{_shown(spread.low, unit)} to {_shown(spread.high, unit)}"
    evidence = (
        f"line {line}: {spread.name} = {_shown(spread.shown, unit)}; 95% interval {interval}; "
        f"run-to-run CV up to {spread.noise_pct:.1f}%"
    )
    shown = _shown(spread.shown, unit)
    claim = f"The claim '{said}' (its best pair: {shown})" if said else f"The claim {shown}"
    if supported:
        message = (
            f"{claim} is inside the run-to-run noise of its sides "
            f"(CV up to {spread.noise_pct:.1f}%); its 95% interval is {interval}."
        )
    else:
        of = f"'{said}' (its best pair: {shown})" if said else shown
        message = (
            f"The sentence claims a difference, but the 95% interval of {of} is {interval}, "
            "which includes no change."
        )
    return Finding(
        id=lint.id,
        severity=lint.severity,
        file=file,
        pointer="",
        cell=None,
        metrics=tuple(re.split(r"/|->", spread.name)),
        evidence=evidence,
        message=message,
    )


def spread_verdict(spread: ClaimSpread, *, compares: bool) -> bool | None:
    """Which finding a claim with the interval `spread` gets: False, not supported (its sentence
    says one side differs, `compares`, and the interval includes no change); True, inside the
    noise; None, neither."""
    if compares and spread.includes_no_change:
        return False
    if spread.within_noise or spread.includes_no_change:
        return True
    return None


def _judged(text: Text, get: Callable[[str], MetricValue | None]) -> Iterator[Finding]:
    for found in REFERENCE.finditer(text.text):
        name = found.group(1)
        if not is_claim(name):
            continue
        spread = claim_spread(name, get)
        if spread is None:
            continue
        line = text.line + text.text.count("\n", 0, found.start())
        claims = COMPARATIVE.search(_sentence(text.text, found.start(), found.end()))
        supported = spread_verdict(spread, compares=claims is not None)
        if supported is not None:
            yield spread_finding(text.file, line, spread, supported=supported)


def claim_findings(article: ArticleSource, metrics: MetricSet) -> tuple[Finding, ...]:
    """A finding for each claim in the article's text that its repetitions do not support or
    that sits inside their run-to-run noise."""
    get = lookup(metrics.by_id())
    return tuple(f for text in article.texts() for f in _judged(text, get))
