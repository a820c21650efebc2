"""Numbers in running prose, matched to what the built article says there (pure).

The built page is the article's own text: every number in it is either a span that names its
metric (a reference: a duration, max tokens, a concurrency, a claim computed from two metrics)
or a number its source writes literally (a date, a version, a GPU's watts). A published copy is
aligned with that text word by word (numbers compared as numbers, whatever their digits), so
reflowed lines, changed line endings, Markdown and a blog's page around it align the same; a
copy's sentence aligns only with a sentence of the article that shares more than half the words
of the shorter of the two (`align.in_shared_sentences`), so a sentence the copy adds is read for
what it says, not paired with other prose by a few common words. Each number the copy shows in
the prose is then judged:

- against its metric, at the precision shown, when the built text has a reference there;
- against the built text's own digits when the source wrote it literally (a changed version or
  date is a change to the article, not to its data).

A unit spelled out after a number ("1.46 USD per million output tokens", "$1.46 per million
tokens", "477 tok/s per GPU") is one token on both sides, aligned as its symbol (`spelled_unit`).

A number that aligns with nothing in the article is offered as unverified, with the words
before it and the running text around it, to the claims reader (`claims/reader.py`), the next
and last reader.

Worst case: the alignment's (`align.py`: n log n in the copy's words plus a bounded `difflib`
budget), each number judged in constant time.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from html.parser import HTMLParser

from reportgen.check.html.prepare import defused
from reportgen.check.html.text import SKIP
from reportgen.check.readers.align import Aligner, in_shared_sentences
from reportgen.check.readers.memo import ByIdentity
from reportgen.check.readers.protocol import Found, Reading
from reportgen.check.readers.published import UNITS, malformed, parse_number
from reportgen.check.readers.reported import Reported, Token
from reportgen.check.readers.sentences import (
    near,
    sentence_numbers,
    sentence_starts,
    sentences,
    unwrapped,
)
from reportgen.check.readers.shape import (
    BLOCK_NUMBERS,
    NO_CHARTS,
    RUN,
    ChartText,
    Expected,
    normalize,
)
from reportgen.metrics.display import SPELLED

VERSION = re.compile(r"^v?\d+(?:\.\d+){2,}(?:[-+.]\w+)?$")  # 0.7.7, 0.1.60, 1.2.3-rc1
_UNIT = re.compile(rf"^({UNITS})[,.;:)]*$")
# units written in words ("477 tok/s per GPU", "1.46 USD per million output tokens"), each read
# in at most `_SPELLED_TOKENS` tokens after its number
_SPELLED = tuple((re.compile(said, re.IGNORECASE), unit) for said, unit in SPELLED)
_SPELLED_TOKENS = 6
# a cost per million tokens in another currency than the article's USD: read in a unit no
# metric has ("EUR/Mtok"), so the number is a mismatch that names it, never judged as USD
_MONEY = r"(EUR|GBP|JPY|CNY|CHF|CAD|AUD|INR|KRW|\u20ac|\u00a3|\u00a5|euros?|pounds?|yen)"
_OTHER_MONEY = re.compile(
    rf"{_MONEY}(?: per (?:million|M) (?:\w+ )?tok(?:en)?s\b|/M (?:\w+ )?tok(?:en)?s\b|/Mtok\b)",
    re.IGNORECASE,
)
_DOLLARS = re.compile(r"^\$(\d[\d,]*(?:\.\d+)?)$")  # "$1.46", its unit spelled after it
_CURRENCY = {"\u20ac": "EUR", "euro": "EUR", "\u00a3": "GBP", "pound": "GBP", "\u00a5": "JPY"}
_CURRENCY |= {"yen": "JPY"}
_TRAILING = "()[]{},;:.!?\"'\u201d\u2019"


def spelled_unit(texts: Sequence[str]) -> tuple[str, int] | None:
    """The unit that the words `texts` (the tokens after a number) open with, spelled out
    ("USD per million output tokens", "$ per million tokens", "tok/s per GPU"), and how many of
    them it takes; None when they open with none. The last of them ends with the unit's last
    word (punctuation after it aside)."""
    words = " ".join(texts[:_SPELLED_TOKENS])
    for said, unit in (*_SPELLED, (_OTHER_MONEY, "")):
        found = said.match(words)
        if found is None:
            continue
        n = words.count(" ", 0, found.end()) + 1
        last = texts[n - 1]
        said_last = words[words.rfind(" ", 0, found.end()) + 1 : found.end()]
        tail = last[len(said_last) :]
        if tail.strip(_TRAILING):
            return None  # "tokens/s": the words go on
        if not unit:
            money = found.group(1).lower().removesuffix("s")
            unit = f"{_CURRENCY.get(money, money.upper())}/Mtok"
        return unit, n
    return None


def _units_joined(toks: Sequence[Token]) -> list[Token]:
    """`toks` with each unit spelled out after a number made one token ("1.46 USD per million
    output tokens": "1.46" and "USD per million output tokens"), at its last word's place: a
    copy aligns with the article's "1.46 USD/Mtok" word for word, and the words of a unit never
    align with a caption elsewhere that says them too."""
    out: list[Token] = []
    k = 0
    while k < len(toks):
        tok = toks[k]
        k += 1
        ahead: Sequence[Token] | None = None  # the tokens after it, sliced for a number only
        dollars = _DOLLARS.match(tok.text)
        lead = 0  # 1: the "$" before the number is the first word of its unit
        if dollars:
            ahead = toks[k : k + _SPELLED_TOKENS]
            if spelled_unit(["$", *(t.text for t in ahead)]):
                # "$1.46 per million output tokens": the number, then "$ per million output
                # tokens"
                lead = 1
                ahead = [Token(tok.line, tok.col, "$", ()), *ahead[: _SPELLED_TOKENS - 1]]
                number = dollars.group(1)
                tok = Token(tok.line, tok.col + 1, number, tuple(normalize(number).split()))
        out.append(tok)
        if not is_number(tok.text):
            continue
        if ahead is None:
            ahead = toks[k : k + _SPELLED_TOKENS]
        found = spelled_unit([t.text for t in ahead])
        if found is None or found[1] < 2 or ahead[found[1] - 1].line - ahead[0].line > 1:
            continue
        joined = " ".join(t.text for t in ahead[: found[1]])
        last = ahead[found[1] - 1]
        out.append(Token(last.line, last.col, joined, tuple(normalize(joined).split())))
        k += found[1] - lead
    return out


def core(text: str) -> str:
    """A token without the punctuation around it ('(lmx' -> 'lmx', '2026.' -> '2026')."""
    return unwrapped(text)


@lru_cache(maxsize=1 << 14)
def is_number(text: str) -> bool:
    """Whether a token shows a number (well formed or not) or a version."""
    c = core(text).replace("\u00a0", "")
    if not c or (not c[0].isdigit() and c[0] not in "-+\u2212v"):
        return False
    return bool(parse_number(c) or VERSION.match(c) or malformed(c))


@lru_cache(maxsize=1 << 14)
def _key(text: str) -> str:
    """What a token is aligned by: "#" for a number, a unit spelled out as its symbol's words
    ("USD per million tokens" as "USD/Mtok"), else its words."""
    if is_number(text):
        return "#"
    if " " in text:
        parts = text.split()
        found = spelled_unit(parts)
        if found is not None and found[1] == len(parts):
            return normalize(found[0])
    return " ".join(normalize(text).split())


class _Prose(HTMLParser):
    """The page's text outside declared tables, headline numbers and scripts (the provenance
    table's versions are prose to a copy), with each number span's metric id on its characters."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chars: list[str] = []
        self.owner: list[str | None] = []
        self._skip = 0
        self._spans: list[tuple[str | None, bool]] = []  # (metric, whether it is skipped)
        self.chart_text: set[str] = set()  # the words of the charts' titles, ticks and legends
        self.chart_words: list[list[str]] = []  # each chart's words, in the order it draws them
        self._svg_text = False
        self._tables: list[bool] = []  # whether each open table is a declared one (skipped)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "text":
            self._svg_text = True
        elif tag == "svg":
            self.chart_words.append([])
        if tag == "span":
            skipped = "headline-number" in (a.get("class") or "")
            gate = a.get("data-gate")  # a gated reference's words: their metric, marked
            self._spans.append((GATED + gate if gate else a.get("data-metric"), skipped))
            self._skip += skipped
        elif tag == "table":
            self._tables.append(bool(a.get("data-table")))
            self._skip += self._tables[-1]
        elif tag in SKIP:
            self._skip += 1
        self._text(" ")

    def handle_endtag(self, tag: str) -> None:
        self._svg_text = self._svg_text and tag != "text"
        if tag == "span" and self._spans:
            self._skip -= self._spans.pop()[1]
        elif tag in SKIP or (tag == "table" and self._tables.pop()):
            self._skip = max(0, self._skip - 1)
        self._text(" ")

    def handle_data(self, data: str) -> None:
        if self._svg_text:
            self.chart_text.update(core(word) for word in data.split())
            if self.chart_words:
                self.chart_words[-1].extend(core(word) for word in data.split())
        self._text(data)

    def _text(self, data: str) -> None:
        if self._skip:
            return
        metric = next((m for m, _ in reversed(self._spans) if m), None)
        self.chars.extend(data)
        self.owner.extend([metric] * len(data))


# The mark of the built prose's tokens that a gated reference writes ("not measurable (6
# requests, p99 needs 100)"), before the metric's id: a copy that writes the same words matches
# them, and a number in their place is the metric's, shown where the article says not measurable.
GATED = "gate:"


def _gated_at(i: int, pairs: dict[int, int], exp: Sequence[Expected]) -> str | None:
    """The metric of the gated reference whose place the number at `i` takes: the built
    tokens right after the copy's last aligned word (within three tokens) are its words."""
    for k in range(i - 1, max(-1, i - 4), -1):
        j = pairs.get(k)
        if j is not None:
            after = exp[j + 1].metric if j + 1 < len(exp) else None
            return after.removeprefix(GATED) if after and after.startswith(GATED) else None
    return None


def _through_gates(
    tok: Token, i: int, partner: Expected | None, pairs: dict[int, int], exp: Sequence[Expected]
) -> Expected | None:
    """The partner of the number at `i` where a gated reference stands: its own words are
    literals; another number there is the gated metric's (check warns that the article says
    not measurable)."""
    gated = partner.metric if partner is not None else None
    if partner is not None and gated is not None and gated.startswith(GATED):
        if core(tok.text) == core(partner.text):
            return replace(partner, metric=None)  # the gate's own words, as the article has them
        return replace(partner, metric=gated.removeprefix(GATED))
    if partner is None and (gate := _gated_at(i, pairs, exp)) is not None:
        return Expected(tok.text, gate, "#")
    return partner


def expected_prose(html: str) -> tuple[list[Expected], ChartText]:
    """The built page's prose as tokens, and the words its charts show."""
    parser = _Prose()
    parser.feed(defused(html))
    parser.close()
    text = "".join(parser.chars)
    every = [Expected(f.group(0), parser.owner[f.start()], "") for f in re.finditer(r"\S+", text)]
    tokens = [
        replace(e, key=_key(e.text))
        for e in _expected_units_joined(every)
        if normalize(e.text) or is_number(e.text)
    ]
    runs = frozenset(
        tuple(words[k : k + RUN])
        for words in parser.chart_words
        for k in range(len(words) - RUN + 1)
    )
    charts = tuple(frozenset(words) for words in parser.chart_words)
    return tokens, ChartText(frozenset(parser.chart_text), runs, charts)


def _expected_units_joined(tokens: Sequence[Expected]) -> list[Expected]:
    """The built prose's tokens with each unit spelled out after a number made one token, as a
    copy's are (`_units_joined`)."""
    out: list[Expected] = []
    k = 0
    while k < len(tokens):
        out.append(tokens[k])
        k += 1
        if not is_number(tokens[k - 1].text):
            continue
        ahead = tokens[k : k + _SPELLED_TOKENS]
        found = spelled_unit([e.text for e in ahead])
        if found is not None and found[1] > 1:
            joined = " ".join(e.text for e in ahead[: found[1]])
            out.append(Expected(joined, ahead[0].metric, ""))
            k += found[1]
    return out


def _numbered(spans: Sequence[range], size: int) -> list[int]:
    """Each of `size` tokens' sentence, numbered in order, from the sentences' spans."""
    out = [0] * size
    for n, span in enumerate(spans):
        out[span.start : span.stop] = [n] * len(span)
    return out


def _digits(text: str) -> int:
    return sum(c.isdigit() for c in text)


def _page_footer(pub: Sequence[Token], i: int) -> bool:
    """Whether the number at `i` is one of a PDF page footer's: "Page 2 of 10"."""

    def word(k: int) -> str:
        return core(pub[k].text).lower() if 0 <= k < len(pub) else ""

    return (word(i - 1), word(i + 1)) == ("page", "of") or (word(i - 1), word(i - 3)) == (
        "of",
        "page",
    )


def _literals(exp: Sequence[Expected]) -> frozenset[tuple[str, str]]:
    """(the word before, the number) of each number the article's source writes literally (a
    version, a setting): what a copy must show the same, digit for digit."""
    return frozenset(
        (exp[j - 1].key, core(e.text))
        for j, e in enumerate(exp)
        if j > 0 and e.metric is None and is_number(e.text) and exp[j - 1].key != "#"
    )


# The literals of a `Shape`'s prose, found once for all the copies checked against it (a tenth
# of a millisecond each, about 4% of a check of one post).
_SHAPE_LITERALS = ByIdentity(_literals, size=8)


def _anchored(pub: Sequence[Token], i: int, literals: frozenset[tuple[str, str]]) -> bool:
    """Whether the number at `i`, which no run of words aligned and no claim tied, is a literal
    of the article: the same digits after the same word ("llm-inference-bench 0.7.7"), that
    word read whole where a PDF broke it at its hyphen across lines or pages. Only an identical
    pair is taken, so this verifies what the article says and judges nothing else."""
    if i == 0:
        return False
    word = pub[i - 1].text
    if i > 1 and pub[i - 2].text.endswith("-") and pub[i - 2].line != pub[i - 1].line:
        word = pub[i - 2].text + word
    text = core(pub[i].text)
    return (_key(word), text) in literals


def _drawn(pub: Sequence[Token], i: int, runs: frozenset[tuple[str, ...]]) -> bool:
    """Whether the number at `i` stands among `RUN` words in a row that a chart of the build
    draws in that order, one of them another number: its ticks and the axis label after them
    ("100 125 tok/s"). A number alone before the label's words is a sentence's ("reached 125
    tok/s per request")."""
    for k in range(max(0, i - RUN + 1), i + 1):
        window = pub[k : k + RUN]
        numbers = sum(is_number(t.text) for t in window)
        if len(window) == RUN and numbers >= 2 and tuple(core(t.text) for t in window) in runs:
            return True
    return False


def chart_blocks(pub: Sequence[Token], chart_text: ChartText) -> frozenset[int]:
    """The numbers of `pub` that stand in a block of words one chart of the build draws, in any
    order: at least `BLOCK_NUMBERS` numbers, and every token between them a word of that chart
    (its ticks, axis labels, legend and mark), none ending a sentence. A PDF's text gives a
    chart's words in its own order, a line at a time or mixed with the table's beside it; a
    sentence of the author's has words of its own between its numbers ("from 1 to 16 concurrent
    requests" holds "from"), so its numbers are still judged."""
    if not chart_text.charts:  # a page built without charts: no word of the copy is read
        return frozenset()
    found: set[int] = set()
    words = [core(t.text) for t in pub]
    stops = [bool(re.search(r"[.;:!?]$", t.text)) and not is_number(t.text) for t in pub]
    for drawn in chart_text.charts:
        start = 0
        for i in range(len(pub) + 1):
            if i < len(pub) and words[i] in drawn and not stops[i]:
                continue
            numbers = [k for k in range(start, i) if is_number(pub[k].text)]
            if len(numbers) >= BLOCK_NUMBERS:
                found.update(numbers)
            start = i + 1
    return frozenset(found)


def _furniture(pub: Sequence[Token], i: int, chart_text: ChartText) -> bool:
    """Whether the number at `i` is furniture of a PDF's text, not a statement: words a chart of
    the build draws, in its order (a tick beside the axis label, whose unit it is not); a chart's
    label (the charts drawn: their words), or one of a run of bare numbers with no unit and no
    words between them (a chart's axis ticks). Page footers are skipped before this is asked."""
    if _drawn(pub, i, chart_text.runs):
        return True
    if unit_after(pub, i, pub[i].text) is not None:
        return False
    if core(pub[i].text) in chart_text.words:
        return True
    return any(
        0 <= k < len(pub)
        and is_number(pub[k].text)
        and unit_after(pub, k, pub[k].text) is None
        and not re.search(r"[,.;:]$", pub[min(i, k)].text)  # "1, 2" is a list in a sentence
        for k in (i - 1, i + 1)
    )


def unit_after(toks: Sequence[Token], i: int, number: str) -> str | None:
    """The unit written with number `number` (token `i` of `toks`): attached ("120ms") or the
    next token ("120 ms"); None when there is none."""
    attached = parse_number(core(number))
    if attached and attached[2]:
        return attached[2]
    if i + 1 < len(toks):
        after = [w for t in toks[i + 1 : i + 1 + _SPELLED_TOKENS] for w in t.text.split()]
        spelled = spelled_unit(after)  # a unit spelled out is one token of words (`_units_joined`)
        found = _UNIT.match(toks[i + 1].text)
        return spelled[0] if spelled else found.group(1) if found else None
    return None


def _reported(tok: Token, near: str, unit: str | None, metric: str) -> Reported | None:
    text = core(tok.text).replace("\u00a0", "")
    parsed = parse_number(text)
    if parsed is None:
        why = malformed(text)
        if why is None:
            return None
        return Reported(
            line=tok.line,
            col=tok.col,
            text=text,
            value=math.nan,
            decimals=0,
            unit=None,
            metric_id=metric,
            table=None,
            row=None,
            column=near,
            malformed=why,
            in_prose=True,
        )
    value, decimals, written = parsed
    return Reported(
        line=tok.line,
        col=tok.col,
        text=text,
        value=value,
        decimals=decimals,
        unit=written or unit,
        metric_id=metric,
        table=None,
        row=None,
        column=near,
        in_prose=True,
    )


def prose_numbers(
    toks: Sequence[Token],
    expected: Iterable[Expected],
    chart_text: ChartText = NO_CHARTS,
    aligner: Aligner | None = None,
    article_sentences: Sequence[int] | None = None,
) -> tuple[list[Token], list[Reported], list[Reported]]:
    """The running text read (`toks` without punctuation alone, the copy's tables and headlines
    taken out already), the numbers in it that align with the built article (each judged
    against its metric, or the article's literal digits), and the ones that align with nothing
    (unverified, for the claims reader to try). Each number knows its sentence."""
    exp = list(expected)
    pub = [t for t in _units_joined(toks) if t.words or is_number(t.text)]
    keys = [_key(t.text) for t in pub]
    # `aligner`: one holding `expected`'s keys already (`Shape.aligner`)
    pairs: dict[int, int] = {}
    edges: set[int] = set()  # the first and last token of each aligned piece
    runs = (aligner or Aligner([e.key for e in exp])).runs(keys)
    # numbers align where words around them do: a run of numbers alone is no evidence
    runs = [(a, b, n) for a, b, n in runs if sum(k != "#" for k in keys[a : a + n]) >= 2]
    # and only within sentences that share what they say
    spans = sentences(pub)
    copy_sentence = _numbered(spans, len(pub))
    # `article_sentences`: the sentence of each of `expected`, numbered (`Shape.prose_sentences`)
    article_sentence = article_sentences or sentence_numbers(e.text for e in exp)
    article_keys = [e.key for e in exp]
    # the article's words per sentence, counted once for a Shape's prose (its aligner's keys
    # and its `prose_sentences`, which do not change)
    article_words = None
    if aligner is not None and isinstance(article_sentence, tuple):
        article_words = aligner.words_by_sentence(article_sentence)
    for a0, b0, size in in_shared_sentences(
        runs, keys, article_keys, copy_sentence, article_sentence, article_words
    ):
        pairs.update(zip(range(a0, a0 + size), range(b0, b0 + size), strict=True))
        edges.update((a0, a0 + size - 1))
    # a tuple is the prose of a `Shape`, which does not change: its literals are found once
    literals = _SHAPE_LITERALS(expected) if isinstance(expected, tuple) else _literals(exp)
    drawn = chart_blocks(pub, chart_text)
    out: list[Reported] = []
    loose: list[Reported] = []
    for i, tok in enumerate(pub):
        if not is_number(tok.text) or i in drawn:  # a chart's ticks and legend: not statements
            continue
        before = near(pub, i)
        j = pairs.get(i)
        partner = exp[j] if j is not None and is_number(exp[j].text) else None
        # aligned by the words on one side only, a literal of another length is another
        # statement ("capped at N output tokens" is not an appendix's "- 2 output tokens")
        if (
            partner is not None
            and partner.metric is None
            and i in edges
            and _digits(tok.text) != _digits(partner.text)
        ):
            partner = None
        # a literal aligned with another of the article's literals after the same word: the
        # two met in another order (a PDF's text gives a table's notes after all their marks,
        # "a b Not measurable: 6 ... Not measurable: 12 ..."); the identical pair is taken
        if (
            partner is not None
            and partner.metric is None
            and core(tok.text) != core(partner.text)
            and _anchored(pub, i, literals)
        ):
            partner = None
        if _page_footer(pub, i):
            continue
        partner = _through_gates(tok, i, partner, pairs, exp)
        if partner is not None and partner.metric is not None:
            found = _reported(tok, before, unit_after(pub, i, tok.text), partner.metric)
            if found is not None:
                out.append(found)
                continue
        if partner is None and _furniture(pub, i, chart_text):
            continue
        # a number the article's source writes literally, or one the article does not have
        literal = None if partner is None else core(partner.text)
        found = Reported(
            line=tok.line,
            col=tok.col,
            text=core(tok.text),
            value=math.nan,
            decimals=0,
            unit=None,
            metric_id=None,
            table=None,
            row=None,
            column=before,
            expected_text=literal,
            in_prose=True,
        )
        if partner is None and _anchored(pub, i, literals):  # the article's literal
            found = replace(found, expected_text=found.text)
        (loose if partner is None else out).append(found)
    # each number knows its sentence: the numbers of one sentence are judged together
    at = sentence_starts(pub, spans)
    out = [replace(r, sentence=at.get((r.line, r.col))) for r in out]
    loose = [replace(r, sentence=at.get((r.line, r.col))) for r in loose]
    return pub, out, loose


class ProseReader:
    """The fourth reader (`pipeline.READERS`), when the article's prose is known: every number
    in the tokens no reader read or claimed (`prose_numbers`), the ones offered included. It
    offers the numbers that align with nothing to the claims reader, with the running text
    they sit in."""

    name = "prose"

    def read(self, reading: Reading) -> Found:
        """Every number left, judged against the built article's prose where it aligns."""
        shape = reading.shape
        if not shape.prose:
            return Found()
        toks = reading.unclaimed()
        text, aligned, loose = prose_numbers(
            toks, shape.prose, shape.chart_text, shape.aligner, shape.prose_sentences
        )
        return Found(
            numbers=tuple(aligned), offered=tuple(loose), reads_rest=True, context=tuple(text)
        )


READER = ProseReader()
