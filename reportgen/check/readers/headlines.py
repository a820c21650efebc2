"""Headline numbers found by the article's own declarations, in a word stream (pure).

A headline is a declared metric with a caption. Besides a number followed by its caption on the
same line or the next (the published text's own form, read by `published.reported_in_lines`),
a published copy may show it:

- caption first: "One request, output: 57 tok/s";
- as a block, the way a PDF's text gives headline cards set side by side: the numbers of one
  declared group (the key results, or one section's headlines) one after another, each with the
  unit its headline is shown in, their captions after them.

Nothing here knows a caption's wording: the words come from article.toml.

Worst case: linear in the tokens, times the article's headlines (each caption is tried once at
each token; a block looks 60 tokens ahead).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from reportgen.check.readers.protocol import Found, Reading
from reportgen.check.readers.published import alternatives, malformed, parse_number
from reportgen.check.readers.reported import Reported, Token
from reportgen.check.readers.shape import HeadlineShape, Shape, normalize
from reportgen.check.readers.stream import match_template
from reportgen.metrics.display import QUANTITIES

_UNIT = re.compile(rf"^({alternatives(QUANTITIES)})[,.;:]?$")  # a quantity's unit, no count
_DASH = re.compile(r"^[:=\u2013\u2014-]+$")


def _pair(toks: Sequence[Token], i: int) -> tuple[float, int, str] | None:
    """(value, decimals, unit) of a number token followed by a unit token at `i`."""
    if i + 1 >= len(toks):
        return None
    parsed = parse_number(toks[i].text)
    unit = _UNIT.match(toks[i + 1].text)
    if parsed is None or unit is None or parsed[2] is not None:
        return None
    return parsed[0], parsed[1], unit.group(1)


Pair = tuple[float, int, str]  # a headline number's value, decimals and unit


def _loose_pair(toks: Sequence[Token], i: int) -> Pair | str | None:
    """`_pair`, or why the number before a unit token at `i` is not a well-formed one."""
    pair = _pair(toks, i)
    if pair is not None or i + 1 >= len(toks) or not _UNIT.match(toks[i + 1].text):
        return pair
    return malformed(toks[i].text)


def _reported(tok: Token, pair: Pair | str, h: HeadlineShape) -> Reported:
    if isinstance(pair, str):  # a malformed number, wrong where its caption says what it is
        return Reported(
            line=tok.line,
            col=tok.col,
            text=tok.text,
            value=math.nan,
            decimals=0,
            unit=None,
            metric_id=h.metric,
            table=None,
            row=None,
            column=h.caption,
            malformed=pair,
        )
    value, decimals, unit = pair
    shown = f"{tok.text} {unit}"
    return Reported(
        line=tok.line,
        col=tok.col,
        text=shown,
        value=value,
        decimals=decimals,
        unit=unit,
        metric_id=h.metric,
        table=None,
        row=None,
        column=h.caption,
    )


def _parts(h: HeadlineShape) -> list[tuple[str, ...]]:
    return [tuple(normalize(part).split()) for part in h.caption.split("{N}")]


def _caption_then_number(
    toks: Sequence[Token], at: int, parts: list[tuple[str, ...]]
) -> int | None:
    """The token of the number after a caption that starts at `at` ("One request, output: 57
    tok/s"): on the caption's last line, after a colon or a dash, or first on the next line (a
    caption set above its number); None when no number is there."""
    end = match_template(toks, at, parts)
    if end is None or end >= len(toks):
        return None
    last = toks[end - 1].line
    dashed = False
    while end < len(toks) and _DASH.match(toks[end].text):
        end, dashed = end + 1, True
    if _loose_pair(toks, end) is None:
        return None
    first_on_next = toks[end - 1].line < toks[end].line  # nothing between it and the caption
    return end if dashed or toks[end].line == last or first_on_next else None


def _in_order(toks: Sequence[Token], headlines: Sequence[HeadlineShape]) -> dict[str, Reported]:
    """Each headline's number, pairing numbers and captions in text order: where a caption
    comes first, its number is the one after it; where a number comes first, the caption after
    it is its own. A caption or number once paired is not paired again, so in either layout
    each number goes with its own caption, never the next one's. The first pairing of each
    headline counts."""
    parts = [(h, _parts(h)) for h in headlines]
    firsts = {words[0][0] for _, words in parts if words[0]}  # the words a caption starts with
    numbered = any(not words[0] for _, words in parts)  # a caption that starts with a number
    out: dict[str, Reported] = {}
    at = 0
    while at < len(toks):
        best: tuple[int, int, HeadlineShape] | None = None  # (token after, number, headline)
        pair = _loose_pair(toks, at)
        if (
            pair is None
            and not numbered
            and not (toks[at].words[:1] and toks[at].words[0] in firsts)
        ):
            at += 1
            continue
        for h, words in parts:
            number = _caption_then_number(toks, at, words)
            if number is not None:
                hit = (number + 2, number, h)
            elif pair is not None and (end := match_template(toks, at + 2, words)) is not None:
                hit = (end, at, h)
            else:
                continue
            if best is None or hit[0] > best[0]:
                best = hit
        if best is None:
            at += 1
            continue
        after, number, h = best
        found = _loose_pair(toks, number)
        assert found is not None
        out.setdefault(h.metric, _reported(toks[number], found, h))
        at = after
    return out


def _blocks(toks: Sequence[Token], group: Sequence[HeadlineShape]) -> list[Reported]:
    """The group's numbers where they stand one after another with their units, in declared
    order, and the first caption follows within 60 tokens."""
    units = [h.unit for h in group]
    first = _parts(group[0])
    for at in range(len(toks)):
        pairs: list[tuple[Token, tuple[float, int, str]]] = []
        i = at
        while len(pairs) < len(group):
            pair = _pair(toks, i)
            if pair is None or pair[2] != units[len(pairs)]:
                break
            pairs.append((toks[i], pair))
            i += 2
        if len(pairs) < len(group):
            continue
        if not any(match_template(toks, j, first) for j in range(i, min(i + 60, len(toks)))):
            continue
        return [_reported(tok, pair, h) for (tok, pair), h in zip(pairs, group, strict=True)]
    return []


def stream_headlines(toks: Sequence[Token], shape: Shape, found: set[str]) -> list[Reported]:
    """The declared headlines not in `found` (metric ids), read from the token stream."""
    out: list[Reported] = []
    groups: dict[int, list[HeadlineShape]] = {}
    for h in shape.headlines:
        groups.setdefault(h.group, []).append(h)
    singles: list[HeadlineShape] = []
    for group in groups.values():
        left = [h for h in group if h.metric not in found]
        if len(left) == len(group) and len(group) > 1:
            block = _blocks(toks, group)
            if block:
                out += block
                continue
        singles += left
    if not singles:
        return out
    # every caption takes part, found or not, so that none takes another's number
    paired = _in_order(toks, shape.headlines)
    for h in singles:
        one = paired.get(h.metric)
        if one is None and len(groups[h.group]) == 1:
            one = next(iter(_blocks(toks, [h])), None)
        if one is not None:
            out.append(one)
    return out


class HeadlinesReader:
    """The third reader (`pipeline.READERS`): the declared headlines no reader before it found
    (`stream_headlines`), in the tokens no reader read; none at a number's place found before."""

    name = "headlines in a word stream"

    def read(self, reading: Reading) -> Found:
        """The headlines left, each at a place no reader claimed."""
        found = {r.metric_id for r in reading.found if r.metric_id and r.table is None}
        heads = stream_headlines(reading.unread(), reading.shape, found)
        return Found(numbers=tuple(h for h in heads if not reading.is_claimed(h)))


READER = HeadlinesReader()
