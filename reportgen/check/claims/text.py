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

How each is worded is `claims.words`'s. A ratio or change said "up to" ("up to 1.4x vLLM's")
is tied to every pair of cells its subject ranges over and its object moves to
(`_Sentence._ranged_claim`); check takes the best pair (`claims.upto`).

The subject (the words before the claim and up to "than") and the object (after it) are each
tied to the one metric they name best (`labels.best`); the object shares the subject's
quantity and axes unless it names others ("than at 1K" keeps the concurrency). The claim is
then the reference the article could have written, judged at the precision the copy shows.
A sentence that names no single metric leaves its number unverified: the checker does not
guess. Numbers that named an axis value the tied metrics have ("12 concurrent requests") are
labels, not statements, and are dropped.

A sentence may state several values. Each quote reads its own words first: from where the
words after the value before it end (a comma, "to", "against") up to where its own end ("rose
from 120 tok/s with one request to 420 tok/s with 12 concurrent requests"), in the metric of
the value before it unless they name another, and with that value's axes where they leave one
open. A ratio's operands written beside it ("3.5x the output of one request (420 vs 120
tok/s)") are tied to the claim's two metrics, first to its subject's, as are a change's values
after its "from" and its "to"; where a ratio's words name no metric, it is read as the ratio
of its operands (`Reported.operands`). Which metric each value means is then still a reader's
reading: such a number is marked `Reported.several`, and is judged only when every other
number of its sentence checks out (`together.py`); two values read as one metric are both
tentative. For a number said as a bound or an estimate ("within 0.5 s", "about 3x") a match is
a match and a difference is unverified (`Reported.tentative`), never a mismatch.

Worst case: linear in the copy's tokens. A number reads the tokens between it and its
neighbouring numbers (a ratio: at most `words.REACH` more for its operands), and at most
its whole sentence's words (read once per sentence); in a sentence of more than `LONG` tokens,
at most `WINDOW` tokens either side (24 s per MB of one endless sentence of claims on the
2-core VM).
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from reportgen.article.claims import COMPARATIVE
from reportgen.check.claims import labels
from reportgen.check.claims.labels import Said, best, said, score
from reportgen.check.claims.words import (
    OBJECT,
    QUOTED,
    Claim,
    claim_at,
    counted,
    cut,
    hedged,
    operands,
    says_bigger,
    up_to,
    word,
)
from reportgen.check.readers.published import parse_number
from reportgen.check.readers.reported import Reported, Token
from reportgen.check.readers.sentences import near, sentences, unwrapped
from reportgen.check.readers.shape import Metric
from reportgen.metrics.display import unit_factor

# A sentence longer than `LONG` tokens is no sentence anyone writes: each of its numbers reads
# only the `WINDOW` tokens either side of it, so reading one costs at most a window, not the
# sentence, and a copy of one endless "sentence" of numbers is read in linear time.
LONG = 200
WINDOW = 40
# the statistics that are a cell's value as a table shows it: its median (p50), or the mean of
# its repetitions
_VALUE_STATS = (None, "p50", "rep_mean")


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
        self.pair: tuple[Metric, Metric] | None = None  # the last claim's subject and object
        self.ends: tuple[int, int] | None = None  # where its "from" and "to" are, if said
        self.last: tuple[int, Metric] | None = None  # the last quote tied, in sentence order
        self.operands: list[tuple[int, Metric]] = []  # operands tied, in sentence order

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
            if (like is None or (m.id != like.id and unit_factor(m.unit, like.unit) is not None))
            and (m.better is not None if unit is None else unit_factor(m.unit, unit) is not None)
        ]
        found = best(pool, s, like)
        if found is None or (like is None and not s.words & found.words):
            return None  # a subject must name its quantity
        if like is not None and not s.axes and not s.words & found.words:
            return None  # an object must name something of its own
        for (axis, value), at in s.at.items():
            if found.axes.get(axis) == value:
                self.used.update(dict.fromkeys(at))
        return found

    def find(self, word_set: frozenset[str], after: int, stop: int | None = None) -> int | None:
        end = self.span.stop if stop is None else stop
        return next((k for k in range(after, end) if word(self.toks, k) in word_set), None)

    def claim(self, i: int, c: Claim, group: tuple[int, int] | None = None) -> Reported | None:
        """The claim at `i`, tied to the metrics its subject and object name (`self.pair`);
        `group`: its operands, whose words ("vs") are neither subject nor object."""
        self.pair, self.ends = None, None
        start, stop = self.span.start, self.span.stop
        skip = range(0) if group is None else range(group[0], group[1] + 1)
        if group is not None and group[0] > i:
            stop = group[0]  # "the output of one request (420 vs 120 tok/s)": its words end
        head = [k for k in range(start, i) if word(self.toks, k) not in ("by",) and k not in skip]
        frm = self.find(frozenset(("from",)), start)
        to = None if frm is None else self.find(frozenset(("to",)), frm + 1)
        if up_to(self.toks, i):  # "up to 1.4x faster than vLLM's": over every pair of cells
            return None if frm is not None else self._ranged_claim(i, c, head, stop)
        if c.kind == "change" and frm is not None and to is not None and c.sign:
            first = self.name(self.said([*head, *range(frm + 1, to)]))
            second = None if first is None else self.name(self.said(range(to + 1, stop)), first)
            if first is None or second is None:
                return None
            self.pair, self.ends = (first, second), (frm, to)
            return self._reported(i, c, f"{first.id}->{second.id}", c.sign * c.value)
        if c.kind == "ratio" and frm is not None and to == frm + 2:
            across = self._across(i, c, [*head, *range(c.end, stop)], frm)
            if across is not None:
                return across
        marker = self.find(OBJECT, c.end, stop)
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
        self.pair = (subject, other)
        a, b = (subject, other) if bigger else (other, subject)
        return self._reported(i, c, f"{a.id}/{b.id}", c.value)

    def _ranged_claim(self, i: int, c: Claim, head: list[int], stop: int) -> Reported | None:
        """A ratio or change said "up to" ("up to 1.4x faster than vLLM's"): its subject's
        words range over cells (`ranged`: the axes they leave open), each paired with the cell
        of the same quantity that the object's words move it to ("vLLM's": the other run, the
        rest the same). Tied to every pair both of whose cells the article shows
        (`Reported.up_to`), the first as its metric until check takes the best of them."""
        marker = self.find(OBJECT, c.end, stop)
        subject_said = self.said([*head, *range(c.end, marker if marker is not None else c.end)])
        obj_said = self.said(range((marker + 1) if marker is not None else c.end, stop))
        subjects = self.ranged(subject_said)
        moved = {axis: next(iter(v)) for axis, v in obj_said.axes.items() if len(v) == 1}
        if not subjects or not moved or len(moved) != len(obj_said.axes):
            return None  # the object must name where its cells are, one value an axis
        by_place = {(m.key, tuple(sorted(m.axes.items()))): m for m in self.shown}
        pairs = []
        for subject in subjects:
            place = tuple(sorted({**subject.axes, **moved}.items()))
            other = by_place.get((subject.key, place))
            if other is not None and other.id != subject.id:
                pairs.append((subject, other))
        bigger = says_bigger(c.relation, subjects[0])
        if not pairs or bigger is None:
            return None
        for at in obj_said.at.values():
            self.used.update(dict.fromkeys(at))
        if c.kind == "change":
            sign = c.sign if c.relation is None else 1 if bigger else -1
            ids = tuple(f"{other.id}->{subject.id}" for subject, other in pairs)
            value = sign * c.value
        else:
            ids = tuple(f"{a.id}/{b.id}" for a, b in (p if bigger else p[::-1] for p in pairs))
            value = c.value
        return replace(self._reported(i, c, ids[0], value), up_to=ids)

    def _across(self, i: int, c: Claim, words: list[int], frm: int) -> Reported | None:
        """A ratio across an axis: "going from 1 to 12 concurrent requests at 2K context raised
        total decode throughput 3.5x": the metric its other `words` name at the "to" value over
        the same metric at the "from" value (the other way round for a fall or a "smaller"
        ratio). `self.pair` is then the two in the order written, as operands written beside
        ("(120 to 420 tok/s)") are."""
        ends = labels.across(self.texts, frm + 1, frm + 3, self.runs)
        if ends is None:
            return None
        axis, values = ends
        rest = self.said([k for k in words if k not in range(frm, frm + 4)])
        if axis in rest.axes:
            return None
        sides = []
        for k, value in zip((frm + 1, frm + 3), values, strict=True):
            at = {**rest.at, (axis, value): [k]}
            sides.append(self.name(Said(set(rest.words), {**rest.axes, axis: {value}}, at)))
        first, second = sides
        if first is None or second is None or first.key != second.key:
            return None
        bigger = says_bigger(c.relation, second)
        if bigger is None:
            return None
        self.pair = (first, second)
        a, b = (second, first) if bigger and c.sign >= 0 else (first, second)
        return self._reported(i, c, f"{a.id}/{b.id}", c.value)

    def derived(
        self, i: int, c: Claim, group: tuple[int, int], units: tuple[str | None, str | None]
    ) -> Reported:
        """A ratio whose metrics its words do not name, read as the ratio of its operands (each
        with the unit it is shown in: "0.50 s", "120 ms")."""
        a, b = (
            f"{_plain(self.texts[k])} {unit or ''}".strip()
            for k, unit in zip(group, units, strict=True)
        )
        found = self._reported(i, c, "", c.value)
        return replace(found, metric_id=None, operands=(a, b))

    def _reported(self, i: int, c: Claim, claim: str, value: float) -> Reported:
        tok = self.toks[i]
        unit = "x" if c.kind == "ratio" else "%"
        where = near(self.toks, i, self.span.start)
        shown = c.words
        sentence = " ".join(self.texts[k] for k in self.span)
        return Reported(
            line=tok.line,
            col=tok.col,
            text=shown,
            value=value,
            decimals=c.decimals,
            unit=unit,
            metric_id=claim,
            table=None,
            row=None,
            column=where,
            in_prose=True,
            compares=COMPARATIVE.search(sentence) is not None,
        )

    def ranged(self, s: Said, unit: str | None = None) -> list[Metric]:
        """The metrics shown in `unit` that fit `s` best, all of one key and statistic: what
        an "up to" ranges over (the axes its words leave open). Empty when none fits, or when
        the best fits are of two quantities. Without `unit`: the measurements (a metric with a
        better direction) a claim's subject ranges over."""
        pool = [
            m
            for m in self.shown
            if (m.better is not None if unit is None else unit_factor(m.unit, unit) is not None)
        ]
        scored = [(score(m, s), m) for m in pool]
        top = max((x for x, m in scored if s.words & m.words), default=0)
        if top <= 0:
            return []
        found = [m for x, m in scored if x == top and s.words & m.words]
        if "stat" not in s.axes:  # the value itself, not an end of its interval
            found = [m for m in found if m.axes.get("stat") in _VALUE_STATS]
        kinds = {(m.key, m.axes.get("stat")) for m in found}
        if len(kinds) != 1:
            return []
        for (axis, value), at in s.at.items():
            if all(m.axes.get(axis) == value for m in found):
                self.used.update(dict.fromkeys(at))
        return found

    def quote_up_to(self, i: int, unit: str, values: Sequence[int]) -> Reported | None:
        """A quote said "up to": tied to every cell its sentence's words range over."""
        at = bisect.bisect_left(values, i)
        before = max(values[at - 1] if at else -1, self.span.start - 1)
        after = min(values[at + 1] if at + 1 < len(values) else self.span.stop, self.span.stop)
        s = self.said(range(before + 1, after))
        s.words |= self.words()
        found = self.ranged(s, unit)
        tied = self.tied(i, unit, found[0]) if found else None
        if tied is None:
            return None
        self.last = (i, found[0])
        return replace(tied, up_to=tuple(m.id for m in found))

    def quote(self, i: int, unit: str, values: Sequence[int]) -> Reported | None:
        """`values`: the sentence's claims and quotes, in order."""
        if up_to(self.toks, i):
            return self.quote_up_to(i, unit, values)
        at = bisect.bisect_left(values, i)
        before = max(values[at - 1] if at else -1, self.span.start - 1)
        after = min(values[at + 1] if at + 1 < len(values) else self.span.stop, self.span.stop)
        like = self._before(i)
        found = None
        if len(values) > 1:
            # among several values, first its own words ("rose from 120 tok/s with one
            # request to 420 tok/s with 12 concurrent requests"), in the metric of the value
            # before it unless they name another: the sentence's axes are all its values'
            s = self.said(self._own(i, before, after))
            found = like and (self.name(s, like, unit) or self.name(_borrow(s, like), unit=unit))
            found = found or self.name(s, unit=unit)
        # alone, the axes and words between the number and the value before it (its own words
        # when it has neighbours); then, when they name no metric, up to the next value too: in
        # the metric of the value quoted before it unless they name another ("2.10 s, against
        # 0.50 s for one request"), else with the whole sentence's words
        if found is None and len(values) == 1:
            s = self.said(range(before + 1, min(after, i + 3)))  # "2,048 output tokens"
            found = self.name(s, unit=unit)
        if found is None and like is not None:
            found = self.name(self.said(range(before + 1, after)), like, unit)
        if found is None:
            s = self.said(range(before + 1, after))
            s.words |= self.words()
            found = self.name(s, unit=unit)
        if found is None:
            return None
        self.last = (i, found)
        return self.tied(i, unit, found)

    def _own(self, i: int, before: int, after: int) -> list[int]:
        """The words of the value at `i` among several (`before`, `after`: the values either
        side, or past the sentence's ends): from where the words after the value before end
        (a comma, "to", "against"...) up to where its own words after it end."""
        split = cut(self.toks, before + 1, i) if before >= self.span.start else None
        start = before + 1 if split is None else split[1]
        split = cut(self.toks, i + 1, after)
        stop = split[0] if split is not None else after if after == self.span.stop else i + 3
        return [*range(start, i), *range(i + 1, min(stop, after))]

    def _before(self, i: int) -> Metric | None:
        """The metric of the nearest number before `i` quoted or tied as an operand."""
        at = bisect.bisect_left(self.operands, i, key=lambda p: p[0])
        near = [p for p in (self.last, self.operands[at - 1] if at else None) if p is not None]
        found = max((p for p in near if self.span.start <= p[0] < i), default=None)
        return None if found is None else found[1]

    def tied(self, i: int, unit: str | None, metric: Metric) -> Reported | None:
        """The number at `i`, shown in `unit`, as a quote of `metric`."""
        text = _plain(self.texts[i])
        parsed = parse_number(text.replace("\u00a0", ""))
        if parsed is None:
            return None
        tok, where = self.toks[i], near(self.toks, i, self.span.start)
        return Reported(
            line=tok.line,
            col=tok.col,
            text=text,
            value=parsed[0],
            decimals=parsed[1],
            unit=unit,
            metric_id=metric.id,
            table=None,
            row=None,
            column=where,
            in_prose=True,
        )


def _borrow(s: Said, like: Metric) -> Said:
    """`s` with the axes it leaves open taken from `like` ("3,900 tokens at 4K took 0.31 s":
    the 4K is the time's too)."""
    axes = {axis: {value} for axis, value in like.axes.items() if axis not in s.axes}
    return Said(set(s.words), {**s.axes, **axes}, dict(s.at))


def _plain(text: str) -> str:
    return unwrapped(text)


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
        groups = _groups(toks, sentence, claims, wanted)
        in_groups = {k: group for group in groups.values() for k in group}
        for a, b in groups.values():  # "420 vs 120 tok/s": a unit written once is both's
            unit_of[a], unit_of[b] = unit_of[a] or unit_of[b], unit_of[b] or unit_of[a]
        quoted = [
            k for k in mine if k not in claims and k not in in_groups and unit_of[k] in QUOTED
        ]
        values = sorted([*claims, *in_groups, *quoted])
        _tie_claims(sentence, claims, groups, wanted, unit_of, out)
        sentence.operands.sort()
        # operands no claim tied are quoted as any number with a unit is
        quoted = sorted([*quoted, *(k for k in in_groups if k not in out)])
        _tie_quotes(sentence, quoted, unit_of, values, out)
        if any(k in out for k in values):
            said = set(values)
            out.update({k: None for k in sentence.used if k in wanted and k not in said})
        _qualify(toks, values, out)
    return out


def _tie_claims(
    sentence: _Sentence,
    claims: dict[int, Claim],
    groups: dict[int, tuple[int, int]],
    wanted: set[int],
    unit_of: dict[int, str | None],
    out: dict[int, Reported | None],
) -> None:
    """Each claim of a sentence tied to its metric, with the two values it compares, into `out`."""
    for k, c in claims.items():
        pair = groups.get(k)
        found = sentence.around(k).claim(k, c, pair)
        if pair is None and found is not None and sentence.ends is not None:
            # "fell by 12% from 420 tok/s at 1K to 370 tok/s at 4K": its two sides' values
            pair = _from_to(sentence, sentence.ends, wanted, unit_of)
        if pair is not None:
            shown_in = (unit_of[pair[0]], unit_of[pair[1]])
            found = _operands(sentence, k, c, pair, shown_in, found, out)
        if found is not None:
            out[k] = found


def _tie_quotes(
    sentence: _Sentence,
    quoted: list[int],
    unit_of: dict[int, str | None],
    values: list[int],
    out: dict[int, Reported | None],
) -> None:
    """Each number of a sentence quoted with a unit, and tied to nothing yet, into `out`."""
    for k in quoted:
        unit = unit_of[k]
        if unit not in QUOTED or k in out:
            continue
        found = sentence.around(k).quote(k, unit, values)
        if found is not None:
            out[k] = found


def _qualify(toks: Sequence[Token], values: list[int], out: dict[int, Reported | None]) -> None:
    """A sentence's tied numbers marked: tentative when hedged or when two read as one metric,
    else one of several."""
    read_as = Counter(r.metric_id for k in values if (r := out.get(k)) and r.metric_id)
    for k in values:
        found = out.get(k)
        if found is None:
            continue
        if hedged(toks, k):
            out[k] = replace(found, tentative="it is said as an estimate or a bound")
        elif (
            found.metric_id and read_as[found.metric_id] > 1
        ):  # two numbers of one metric: one is misread
            out[k] = replace(
                found,
                tentative=f"another number of its sentence reads as {found.metric_id} too",
            )
        elif len(values) > 1:
            out[k] = replace(found, several=True)


def _groups(
    toks: Sequence[Token], sentence: _Sentence, claims: dict[int, Claim], wanted: set[int]
) -> dict[int, tuple[int, int]]:
    """Each ratio's operands written beside it, when both are numbers no other reading took."""
    out: dict[int, tuple[int, int]] = {}
    taken: set[int] = set()
    for k, c in claims.items():
        group = operands(toks, k, c, sentence.around(k).span)
        if group is None or any(g in claims or g in taken or g not in wanted for g in group):
            continue
        out[k] = group
        taken.update(group)
    return out


def _from_to(
    sentence: _Sentence, ends: tuple[int, int], wanted: set[int], unit_of: dict[int, str | None]
) -> tuple[int, int] | None:
    """The first number after a change's "from" and the first after its "to", when each is a
    value shown with a unit, not an axis value ("from 1K to 4K")."""
    frm, to = ends
    first = next((k for k in range(frm + 1, to) if k in wanted), None)
    second = next((k for k in range(to + 1, sentence.span.stop) if k in wanted), None)
    if first is None or second is None or unit_of[first] not in QUOTED:
        return None
    return (first, second) if unit_of[second] in QUOTED else None


def _operands(
    sentence: _Sentence,
    k: int,
    c: Claim,
    group: tuple[int, int],
    units: tuple[str | None, str | None],
    found: Reported | None,
    out: dict[int, Reported | None],
) -> Reported | None:
    """A ratio written with its operands (`units`: the unit each is shown in): each operand
    tied to the metric of its side of the claim (the first the subject's, the second the
    object's) when the claim is tied; else the ratio is read as the ratio of its operands
    (`Reported.operands`)."""
    if found is None:
        return sentence.derived(k, c, group, units)
    pair = sentence.pair
    if pair is None or any(
        unit is not None and unit_factor(metric.unit, unit) is None
        for metric, unit in zip(pair, units, strict=True)
    ):
        return found
    for at, metric, unit in zip(group, pair, units, strict=True):
        tied = sentence.tied(at, unit, metric)
        if tied is not None:
            out[at] = tied
            sentence.operands.append((at, metric))
    return found
