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

import re
from collections.abc import Sequence

from reportgen.check.published import Reported, parse_number
from reportgen.check.shape import HeadlineShape, Shape, normalize
from reportgen.check.stream import Token, match_template

_UNIT = re.compile(r"^(tok/s|ms|s)[,.;:]?$")
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


def _reported(tok: Token, pair: tuple[float, int, str], h: HeadlineShape) -> Reported:
    value, decimals, unit = pair
    shown = f"{tok.text} {unit}"
    return Reported(
        tok.line, tok.col, shown, value, decimals, unit, h.metric, None, None, h.caption
    )


def _parts(h: HeadlineShape) -> list[tuple[str, ...]]:
    return [tuple(normalize(part).split()) for part in h.caption.split("{N}")]


def _number_first(toks: Sequence[Token], h: HeadlineShape) -> Reported | None:
    """ "57 tok/s one request, output": a number and unit, then the whole caption."""
    parts = _parts(h)
    for at in range(len(toks) - 1):
        pair = _pair(toks, at)
        if pair is not None and match_template(toks, at + 2, parts) is not None:
            return _reported(toks[at], pair, h)
    return None


def _caption_first(toks: Sequence[Token], h: HeadlineShape) -> Reported | None:
    """ "One request, output: 57 tok/s": the caption, then on its line (or after a colon or a
    dash) the number and unit."""
    parts = _parts(h)
    for at in range(len(toks)):
        end = match_template(toks, at, parts)
        if end is None or end >= len(toks):
            continue
        last = toks[end - 1].line
        dashed = False
        while end < len(toks) and _DASH.match(toks[end].text):
            end, dashed = end + 1, True
        pair = _pair(toks, end)
        if pair is not None and (dashed or toks[end].line == last):
            return _reported(toks[end], pair, h)
    return None


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
    for group in groups.values():
        left = [h for h in group if h.metric not in found]
        if not left:
            continue
        if len(left) == len(group) and len(group) > 1:
            block = _blocks(toks, group)
            if block:
                out += block
                continue
        for h in left:
            one = _number_first(toks, h) or _caption_first(toks, h)
            if one is None and len(group) == 1:
                one = next(iter(_blocks(toks, [h])), None)
            if one is not None:
                out.append(one)
    return out
