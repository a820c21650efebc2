"""How a copy words a claim (pure): the ratio or change a number states, which way it goes,
where its sentence ends, and whether it is said as a bound or an estimate.

- a ratio: a number with "x", "×" or "times", then maybe a comparative ("faster", "longer",
  "lower", "as fast as");
- a change in percent: a number with "%" after a verb ("rose by", "fell by") or before a
  comparative ("20% faster"); a percentage with neither compares nothing and is no claim;
- a count's unit may follow one word ("2,048 output tokens"), but "12 concurrent requests" says
  where a number was measured, not how many were counted;
- a ratio's operands may be written beside it, in the same clause: "3.5x the output of one
  request (420 vs 120 tok/s)", "420 vs 120 tok/s, a 3.5x gain".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from reportgen.check.readers.published import parse_number
from reportgen.check.readers.reported import Token
from reportgen.check.readers.sentences import unwrapped
from reportgen.check.readers.shape import Metric
from reportgen.metrics.display import QUANTITIES, UNITS

_BIGGER = frozenset(["higher", "more", "larger", "greater", "bigger", "longer"])
_SMALLER = frozenset(["lower", "less", "smaller", "fewer", "shorter"])
_FASTER = frozenset(("faster", "quicker"))
_SLOWER = frozenset(("slower",))
_AS = {"fast": "faster", "quick": "faster", "high": "higher", "much": "more", "large": "larger"}
_AS |= {"long": "longer", "big": "bigger", "many": "more", "slow": "slower"}
_RISE = frozenset(
    ["rose", "risen", "increased", "grew", "grown", "climbed", "gained", "jumped", "up"]
)
_FALL = frozenset(
    ["fell", "fallen", "dropped", "decreased", "declined", "shrank", "sank", "down", "lost"]
)
OBJECT = frozenset(["than", "vs", "vs.", "versus", "compared", "relative", "against"])
_HEDGES = frozenset(
    ["about", "around", "near", "nearly", "roughly", "approximately", "almost", "within", "under"]  # noqa: RUF005 -- a list wrapped by hand; one literal would take a line an item
    + ["over", "below", "above", "least", "most", "than", "some", "circa", "only", "just"]
)
# the units a quote's number is written with: every unit a display rule shows
QUOTED = tuple(sorted(UNITS))
# "420 vs 120 tok/s", "(120 to 420 tok/s)"
_BETWEEN = frozenset(["vs", "vs.", "versus", "against", "and", "/", "to"])
_CLAUSE = frozenset(["and", "but", "while", "whereas", "so", "which", "where"])
_MEASURES = (*sorted(QUANTITIES), "tokens")  # a measure's units: no count of requests
# words that end the words of one value and begin the next's: "120 tok/s with one request to
# 420 tok/s with 12" ("time to first token" says no "to")
_SEPARATE = frozenset(
    ["to", "against", "vs", "versus", "and", "but", "while", "whereas", "than", "compared"]
)
REACH = 16  # the most tokens between a ratio's words and the operands written beside them


def word(toks: Sequence[Token], k: int) -> str:
    """Token `k` in lower case, without the punctuation around it ("" past either end)."""
    return unwrapped(toks[k].text).lower() if 0 <= k < len(toks) else ""


@dataclass(frozen=True, kw_only=True)
class Claim:
    kind: str  # "ratio" or "change"
    value: float
    decimals: int
    text: str
    end: int  # the first token after the claim's words
    relation: str | None  # "bigger", "smaller", "faster", "slower"; None: plain
    sign: int  # for a change: +1 rose, -1 fell, 0 none said
    words: str  # the claim as the copy words it: "fell by 12%", "2.0x longer"


def claim_at(toks: Sequence[Token], i: int) -> Claim | None:
    text = unwrapped(toks[i].text)
    parsed = parse_number(text.replace("\u00a0", ""))
    if parsed is None:
        return None
    value, decimals, unit = parsed
    j = i + 1
    if unit is None and word(toks, j) in ("x", "\u00d7", "times", "%", "percent"):
        unit, j = (
            {"times": "x", "\u00d7": "x", "percent": "%"}.get(word(toks, j), word(toks, j)),
            j + 1,
        )
    if unit not in ("x", "\u00d7", "%"):
        return None
    relation, w = None, word(toks, j)
    if w == "as" and word(toks, j + 1) in _AS and word(toks, j + 2) == "as":
        w, j = _AS[word(toks, j + 1)], j + 2
    for group, name in ((_BIGGER, "bigger"), (_SMALLER, "smaller"), (_FASTER, "faster")):
        if w in group:
            relation, j = name, j + 1
    if w in _SLOWER:
        relation, j = "slower", j + 1
    # "rose by up to 20%": the verb before the "up to"; "up to 1.4x faster": words from "up"
    ahead = 2 if up_to(toks, i) else 0
    sign, first = 0, i - ahead
    for k in (i - 1 - ahead, i - 2 - ahead):
        verb = word(toks, k)
        if verb in _RISE or verb in _FALL:
            sign, first = (1 if verb in _RISE else -1), k
            break
        if verb != "by":
            break
    kind = "change" if unit == "%" else "ratio"
    if kind == "change" and not sign and relation is None:
        return None  # a percentage that compares nothing
    words = " ".join(
        [
            *(word(toks, k) for k in range(first, i)),
            text,
            *(word(toks, k) for k in range(i + 1, j)),
        ]
    )
    return Claim(
        kind=kind,
        value=value,
        decimals=decimals,
        text=text,
        end=j,
        relation=relation,
        sign=sign,
        words=words,
    )


def says_bigger(relation: str | None, subject: Metric) -> bool | None:
    """Whether the claim says the subject is the bigger number (None: it cannot say)."""
    if relation in (None, "bigger"):
        return True
    if relation == "smaller":
        return False
    if subject.better is None:
        return None
    return (relation == "faster") == (subject.better == "higher")


def counted(toks: Sequence[Token], k: int) -> str | None:
    """The unit of a count written with a word between ("2,048 output tokens"); none for a
    concurrency ("12 concurrent requests" says where, not how many were counted)."""
    unit, between = word(toks, k + 2), word(toks, k + 1)
    if unit not in ("tokens", "requests") or not between.isalpha():
        return None
    return None if between.startswith(("concurr", "parall", "simult")) else unit


def up_to(toks: Sequence[Token], k: int) -> bool:
    """Whether the number at `k` is said as the most it reaches ("up to 2,000 tok/s", "up to
    1.4x faster"): the highest of the cells its words range over."""
    return word(toks, k - 1) == "to" and word(toks, k - 2) == "up"


def hedged(toks: Sequence[Token], k: int) -> bool:
    """Whether the number at `k` is said as a bound or an estimate ("about 3x", "within 0.5 s",
    "under 2 s"): not a value to judge at the precision shown."""
    return bool({word(toks, k - 1), word(toks, k - 2)} & _HEDGES) or toks[k].text[:1] in "~\u2248<>"


def _number(toks: Sequence[Token], k: int) -> bool:
    return _is_number(toks[k].text)


@lru_cache(maxsize=1 << 14)
def _is_number(text: str) -> bool:
    return parse_number(unwrapped(text).replace("\u00a0", "")) is not None


def _measured(toks: Sequence[Token], b: int) -> bool:
    """Whether the number at `b` ends a pair of measurements, not of axis values ("16 and 1
    requests"): a unit of measure after it, or the parenthesis it closes."""
    parsed = parse_number(unwrapped(toks[b].text).replace("\u00a0", ""))
    unit = parsed[2] if parsed else None
    if unit is None and b + 1 < len(toks):
        unit = toks[b + 1].text.strip("()[]{},;:.!?")
    return unit in _MEASURES or toks[b].text.rstrip(".,;:").endswith(")")


def _pair_ending(toks: Sequence[Token], b: int, start: int) -> tuple[int, int] | None:
    """The operands "A vs B" whose second number is at `b` ("A tok/s vs B" too)."""
    sep = b - 1
    if sep <= start or word(toks, sep) not in _BETWEEN or not _measured(toks, b):
        return None
    if _number(toks, sep - 1):
        return sep - 1, b
    if sep - 2 >= start and word(toks, sep - 1) in QUOTED and _number(toks, sep - 2):
        return sep - 2, b
    return None


def operands(toks: Sequence[Token], i: int, c: Claim, span: range) -> tuple[int, int] | None:
    """The two numbers the ratio at `i` is the ratio of, when the copy writes them beside it in
    the same clause, at most `REACH` tokens away: the first pair after its words ("(420 vs 120
    tok/s)"), else the last one before it ("420 vs 120 tok/s: 12 requests give 3.5x"). None
    when they are not written."""
    if c.kind != "ratio":
        return None
    for k in range(c.end, min(span.stop, c.end + REACH)):
        if _number(toks, k):  # "420 vs 120", "420 tok/s vs 120"; "at 2K context" is no pair
            for b in (k + 2, k + 3):
                if b < span.stop and _number(toks, b) and _pair_ending(toks, b, k) == (k, b):
                    return k, b
        if word(toks, k) in _CLAUSE:
            return None
        if toks[k].text[-1:] in ",;:" and not (k + 1 < span.stop and _number(toks, k + 1)):
            return None
    for b in range(i - 1, max(span.start, i - REACH) - 1, -1):
        if word(toks, b) in _CLAUSE:
            return None
        if _number(toks, b) and (found := _pair_ending(toks, b, span.start)) is not None:
            return found
    return None


def cut(toks: Sequence[Token], lo: int, hi: int) -> tuple[int, int] | None:
    """Where, between `lo` and `hi`, the words of one value end and the next one's begin:
    (end, start) at the first comma or separating word; None when there is none."""
    for k in range(lo, hi):
        if word(toks, k) in _SEPARATE and (word(toks, k), word(toks, k + 1)) != ("to", "first"):
            return k, k + 1
        if toks[k].text[-1:] in ",;:":
            return k + 1, k + 1
    return None
