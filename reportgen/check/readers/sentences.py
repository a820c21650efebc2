"""A copy's running text as sentences and words (pure): where a sentence ends, a token
without the punctuation around it, and the words before a number that a finding shows.

The prose reader pairs a copy's sentences with the article's, and the claims reader reads a
claim within its sentence: both divide the text here, so they agree on where a sentence ends.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from reportgen.check.readers.reported import Token

_END = re.compile(r"[.!?;][)\]\"'\u201d\u2019]*$")
_PUNCTUATION = "()[]{},;:!?\"'\u201c\u201d\u2018\u2019"


@lru_cache(maxsize=1 << 14)  # a copy says the same words over and over
def unwrapped(text: str) -> str:
    """A token without the punctuation around it, a full stop included, but not a number's
    decimal point: "(420" -> "420", "120)." -> "120", "tok/s)." -> "tok/s", "2026." -> "2026"."""
    text = text.strip(_PUNCTUATION)
    if text.endswith(".") and not text[:-1].endswith("."):
        text = text[:-1].strip(_PUNCTUATION)
    return text


def near(toks: Sequence[Token], i: int, start: int = 0) -> str:
    """The words before token `i` (from `start` on), as a finding shows where a number is."""
    return " ".join(t.text for t in toks[max(start, i - 5) : i])[-60:]


@lru_cache(maxsize=1 << 14)  # a check reads the same words in every copy it is given
def ends(text: str) -> bool:
    """Whether a token ends its sentence: . ! ? or ; at its end, not a number's decimal point."""
    return bool(_END.search(text)) and not re.search(r"\d\.$", text[:-1] or "")


def sentences(toks: Sequence[Token]) -> list[range]:
    """The sentences of a token stream: ended by . ! ? ; or by a blank line."""
    out, start = [], 0
    last = len(toks) - 1
    for k, tok in enumerate(toks):
        # the last token, one before a blank line, or one that ends its sentence
        if k == last or toks[k + 1].line - tok.line > 1 or ends(tok.text):
            out.append(range(start, k + 1))
            start = k + 1
    return out


def sentence_starts(
    toks: Sequence[Token], spans: Sequence[range] | None = None
) -> dict[tuple[int, int], tuple[int, int]]:
    """Each token's place (line, column) -> the place of the first token of its sentence
    (`spans`: `sentences(toks)`, when the caller has them already)."""
    out = {}
    for span in sentences(toks) if spans is None else spans:
        first = (toks[span.start].line, toks[span.start].col)
        out.update({(toks[k].line, toks[k].col): first for k in span})
    return out


def sentence_numbers(texts: Iterable[str]) -> tuple[int, ...]:
    """Each token's sentence, numbered in order, for text with no blank lines (the built page's
    prose), whose sentences end at their stops alone."""
    out, n = [], 0
    for text in texts:
        out.append(n)
        n += ends(text)
    return tuple(out)
