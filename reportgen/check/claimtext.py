"""Claims and quotes a copy writes in its own words, tied to the metrics its sentence names (pure).

The built article states a comparison only as a reference (`{{ A/B }}`, `{{ A->B }}`). A copy may
add its own: "3.4x the output of one request", "fell by 12% from 1K to 4K", "2x longer than at
1K", "20% faster than GuideLLM's". A number aligned with nothing in the built article is read
here, in its sentence:

- a ratio: a number with "x", "×" or "times", then maybe a comparative ("faster", "longer",
  "lower", "as fast as"). Plain or bigger ("longer", "higher", "more") is A/B, smaller is B/A;
  "faster" is bigger for a metric where higher is better and smaller for one where lower is
  (a time), "slower" the other way.
- a change in percent: a number with "%" after a verb ("rose by", "fell by") or before a
  comparative ("20% faster"). "from X to Y" gives its two sides; otherwise the subject is the
  new value and what follows "than" ("compared with", "vs") the base.
- a quote: a number with a unit (s, ms, tok/s, req/s, or a count's "output tokens") that
  states one metric or setting.

How each is worded is `claimwords`'s.

The subject (the words before the claim and up to "than") and the object (after it) are each
tied to the one metric they name best (`labels.best`); the object shares the subject's
quantity and axes unless it names others ("than at 1K" keeps the concurrency). The claim is
then the reference the article could have written, judged at the precision the copy shows.
A sentence that names no single metric leaves its number unverified: the checker does not
guess. Numbers that named an axis value the tied metrics have ("12 concurrent requests") are
labels, not statements, and are dropped. In a sentence that states several numbers, or for a
number said as a bound or an estimate ("within 0.5 s", "about 3x"), which metric is meant is a
reader's guess: a match is a match, a difference is unverified (`Reported.tentative`), never a
mismatch.

Worst case: linear in the copy's tokens. A number reads the tokens between it and its
neighbouring numbers, and at most its whole sentence's words (read once per sentence); in a
sentence of more than `LONG` tokens, at most `WINDOW` tokens either side (24 s per MB of one
endless sentence of claims on the 2-core VM).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import replace

from reportgen.check import labels
from reportgen.check.claimwords import (
    OBJECT,
    QUOTED,
    Claim,
    claim_at,
    counted,
    hedged,
    near,
    says_bigger,
    sentences,
    word,
)
from reportgen.check.labels import Metric, Said, best, said
from reportgen.check.published import Reported, parse_number
from reportgen.check.stream import Token
from reportgen.metrics.display import unit_factor

# A sentence longer than `LONG` tokens is no sentence anyone writes: each of its numbers reads
# only the `WINDOW` tokens either side of it, so reading one costs at most a window, not the
# sentence, and a copy of one endless "sentence" of numbers is read in linear time.
LONG = 200
WINDOW = 40


class _Sentence:
    """One sentence's tokens (`texts`: every token's text, shared by all sentences) and the
    metrics it can name."""

    def __init__(
        self,
        toks: Sequence[Token],
        texts: Sequence[str],
        sentence: range,
        shown: Sequence[Metric],
        runs: frozenset[str],
    ) -> None:
        self.toks, self.texts, self.sentence, self.shown, self.runs = (
            toks,
            texts,
            sentence,
            shown,
            runs,
        )
        self.span = sentence
        self.used: dict[int, None] = {}
        self._words: set[str] | None = None

    def words(self) -> set[str]:
        """The quantity words of the whole sentence, read once."""
        if self._words is None:
            self._words = self.said(self.sentence).words
        return self._words

    def around(self, i: int) -> _Sentence:
        """This sentence as the number at `i` reads it: whole, or its window when it is long."""
        if len(self.sentence) <= LONG:
            self.span = self.sentence
        else:
            start = max(self.sentence.start, i - WINDOW)
            self.span = range(start, min(self.sentence.stop, i + WINDOW + 1))
        return self

    def said(self, picks: range | list[int]) -> Said:
        return said(self.texts, picks, self.runs)

    def name(self, s: Said, like: Metric | None = None, unit: str | None = None) -> Metric | None:
        """The metric `s` names: with `unit`, one shown in it (a quote); else one with a better
        direction (a claim compares measurements, not settings), in `like`'s unit if given."""
        pool = [
            m
            for m in self.shown
            if (like is None or m.id != like.id and unit_factor(m.unit, like.unit) is not None)
            and (m.better is not None if unit is None else unit_factor(m.unit, unit) is not None)
        ]
        found = best(pool, s, like)
        if found is None or like is None and not s.words & found.words:
            return None  # a subject must name its quantity
        if like is not None and not s.axes and not s.words & found.words:
            return None  # an object must name something of its own
        for (axis, value), at in s.at.items():
            if found.axes.get(axis) == value:
                self.used.update(dict.fromkeys(at))
        return found

    def find(self, word_set: frozenset[str], after: int) -> int | None:
        return next(
            (k for k in range(after, self.span.stop) if word(self.toks, k) in word_set), None
        )

    def claim(self, i: int, c: Claim) -> Reported | None:
        start, stop = self.span.start, self.span.stop
        head = [k for k in range(start, i) if word(self.toks, k) not in ("by",)]
        frm = self.find(frozenset(("from",)), start)
        to = None if frm is None else self.find(frozenset(("to",)), frm + 1)
        if c.kind == "change" and frm is not None and to is not None and c.sign:
            first = self.name(self.said([*head, *range(frm + 1, to)]))
            second = None if first is None else self.name(self.said(range(to + 1, stop)), first)
            if first is None or second is None:
                return None
            return self._reported(i, c, f"{first.id}->{second.id}", c.sign * c.value)
        marker = self.find(OBJECT, c.end)
        subject_at = [*head, *range(c.end, marker if marker is not None else c.end)]
        obj_said = self.said(range((marker + 1) if marker is not None else c.end, stop))
        subject = self.name(self.said(subject_at))
        if subject is None:  # "at 12 requests ... that of one request at 1K": the 1K is both's
            borrowed = self.said(subject_at)
            for axis, values in obj_said.axes.items():
                if axis not in borrowed.axes:
                    borrowed.axes[axis] = set(values)
            subject = self.name(borrowed)
        other = None if subject is None else self.name(obj_said, subject)
        if subject is None or other is None:
            return None
        if c.kind == "change":
            sign = c.sign
            if c.relation is not None:
                bigger = says_bigger(c.relation, subject)
                if bigger is None:
                    return None
                sign = 1 if bigger else -1
            return self._reported(i, c, f"{other.id}->{subject.id}", sign * c.value)
        bigger = says_bigger(c.relation, subject)
        if bigger is None:
            return None
        a, b = (subject, other) if bigger else (other, subject)
        return self._reported(i, c, f"{a.id}/{b.id}", c.value)

    def _reported(self, i: int, c: Claim, claim: str, value: float) -> Reported:
        tok = self.toks[i]
        unit = "x" if c.kind == "ratio" else "%"
        where = near(self.toks, i, self.span.start)
        shown = c.words
        return Reported(
            tok.line,
            tok.col,
            shown,
            value,
            c.decimals,
            unit,
            claim,
            None,
            None,
            where,
            in_prose=True,
        )

    def quote(self, i: int, unit: str, values: Sequence[int]) -> Reported | None:
        """`values`: the sentence's claims and quotes, in order."""
        at = bisect.bisect_left(values, i)
        before = max(values[at - 1] if at else -1, self.span.start - 1)
        after = min(values[at + 1] if at + 1 < len(values) else self.span.stop, self.span.stop)
        # the axes and words between the number and the value before it; then, when they name
        # no metric, up to the next value too and the whole sentence's words
        s = self.said(range(before + 1, min(after, i + 3)))  # "2,048 output tokens": its words
        found = self.name(s, unit=unit)
        if found is None:
            s = self.said(range(before + 1, after))
            s.words |= self.words()
            found = self.name(s, unit=unit)
        if found is None:
            return None
        parsed = parse_number(self.texts[i].strip("(),;:").removesuffix(".").replace("\u00a0", ""))
        if parsed is None:
            return None
        tok, where = self.toks[i], near(self.toks, i, self.span.start)
        text = self.texts[i].strip("(),;:").removesuffix(".")
        return Reported(
            tok.line,
            tok.col,
            text,
            parsed[0],
            parsed[1],
            unit,
            found.id,
            None,
            None,
            where,
            in_prose=True,
        )


def tie(
    toks: Sequence[Token],
    loose: Sequence[int],
    units: dict[int, str | None],
    shown: Sequence[Metric],
) -> dict[int, Reported | None]:
    """For numbers of `toks` aligned with nothing (`loose`, with the unit written after each):
    the claim or quote each states, tied to its metrics; None for a number that only labels an
    axis value of a metric tied in its sentence. A number left out stays unverified."""
    out: dict[int, Reported | None] = {}
    if not shown:
        return out
    wanted = set(loose)
    texts = [t.text for t in toks]
    runs = labels.runs_of(shown)
    for span in sentences(toks):
        mine = [k for k in span if k in wanted]
        if not mine:
            continue
        sentence = _Sentence(toks, texts, span, shown, runs)
        claims = {k: c for k in mine if (c := claim_at(toks, k)) is not None}
        # a count's unit may follow a word: "2,048 output tokens", "12 timed requests"
        # "N requests" says where (a concurrency), "N completed requests" how many were counted
        unit_of = {
            k: counted(toks, k) if units.get(k) == "requests" else units.get(k) or counted(toks, k)
            for k in mine
        }
        quoted = [k for k in mine if k not in claims and unit_of[k] in QUOTED]
        values = [*claims, *quoted]
        ordered = sorted(values)
        for k, c in claims.items():
            found = sentence.around(k).claim(k, c)
            if found is not None:
                out[k] = found
        for k in quoted:
            unit = unit_of[k]
            assert unit is not None
            found = sentence.around(k).quote(k, unit, ordered)
            if found is not None:
                out[k] = found
        if any(k in out for k in values):
            said = set(values)
            out.update({k: None for k in sentence.used if k in wanted and k not in said})
        for k in values:
            found = out.get(k)
            if found is None:
                continue
            if hedged(toks, k):
                out[k] = replace(found, tentative="it is said as an estimate or a bound")
            elif len(values) > 1:
                out[k] = replace(found, tentative="its sentence states other numbers too")
    return out
