"""Word-level alignment of a published copy with the built article's text (pure).

A copy is mostly the article's own words in the article's order, so it is aligned much as
patience diff aligns two versions of a file, one stretch at a time, starting with all of both:

1. the words both ends of the stretch share are taken as they are (a common prefix or suffix is
   always part of some longest common subsequence);
2. between them, each word that occurs once in the copy's stretch and once in the article's,
   inside a shared run of at least `ANCHOR` words, anchors that run; the longest chain of anchored
   runs in the same order in both is kept, and the stretches between them are aligned in turn. A
   lone shared word is weak evidence: a unique "to" may pair two different sentences.
3. a stretch with no anchor takes `difflib.SequenceMatcher`'s longest matching run, and the
   stretches on either side of it are aligned in turn.

Step 3's search scans every occurrence of every word of its stretch, which for words like "the"
and numbers (all one key) is most of the article; anchors keep those stretches short, and an
unedited copy costs one pass. A copy made to have no anchors (the same few words over and over)
would make step 3 quadratic in its length, so its searches share a budget of `DIFF_BUDGET`
steps (one step: one occurrence in the article of one word of the stretch, counted before the
search from prefix sums): a stretch whose search would exceed what is left stays unaligned, and
its numbers are read as numbers the article does not have (claims, quotes, or unverified).

Words shared across the whole text are not yet shared meaning: a sentence the copy adds may
align "with 12 concurrent requests" with the article's "With 4 concurrent requests" in another
paragraph. `in_shared_sentences` cuts the runs where a sentence of either side ends and keeps a
piece only where its two sentences share real content: more than half the words of the shorter
of the two. A sentence that shares less with every sentence of the article is new, and is read
by what it says alone.

Worst case: one pass over the copy and the anchors (n log n in the copy's words), plus at most
`DIFF_BUDGET` steps of `difflib` (a tenth of a second), whatever the copy; the sentence cut is
one pass over the runs.
"""

from __future__ import annotations

import bisect
import difflib
from collections import Counter, OrderedDict
from collections.abc import Sequence

from reportgen.check.readers.memo import ByIdentity

Run = tuple[int, int, int]  # (start in the copy, start in the article, length)
Stretch = tuple[int, int, int, int]  # copy[alo:ahi] against article[blo:bhi]
ANCHOR = 3  # the fewest shared words around a unique one that anchor an alignment
DIFF_BUDGET = 500_000  # difflib steps per copy; the check tests' copies take at most 43,000
# The runs of the last copies aligned, kept by their keys: a copy whose words are those of one
# aligned before (an edit of its digits, which are all one key "#") is aligned once. The check
# tests' 2,570 copies are mostly such edits of a dozen posts; `runs` was half of the prose
# reader's time there. Bounded in copies, and in keys per copy (about 8 bytes a key held).
MEMO_COPIES = 32
MEMO_KEYS = 50_000


class Aligner:
    """The article's keys, indexed once; `runs` aligns a copy's keys with them (the last
    copies' runs kept), and `words_by_sentence` counts its sentences' words once."""

    def __init__(self, article: Sequence[str]) -> None:
        self.article = list(article)
        self._matcher = difflib.SequenceMatcher[str](None, autojunk=False)
        self._matcher.set_seq2(self.article)
        self._at: dict[str, list[int]] = {}  # each key's positions in the article, in order
        for j, key in enumerate(self.article):
            self._at.setdefault(key, []).append(j)
        self._memo: OrderedDict[tuple[str, ...], tuple[Run, ...]] = OrderedDict()
        self._words: ByIdentity[tuple[int, ...], Counter[int]] = ByIdentity(
            lambda numbers: sentence_words(self.article, numbers), size=4
        )

    def words_by_sentence(self, numbers: tuple[int, ...]) -> Counter[int]:
        """`sentence_words` of the article, with `numbers` the sentence of each of its keys:
        counted once for every copy (a tuple is not changed; a Shape's `prose_sentences`)."""
        return self._words(numbers)

    def forget(self) -> None:
        """Drop the copies' runs kept so far (`forget_copies`)."""
        self._memo.clear()

    def runs(self, copy: Sequence[str]) -> list[Run]:
        """The runs of keys the copy and the article share, in order, adjacent runs merged."""
        keys = tuple(copy)
        if len(keys) > MEMO_KEYS:
            return self._aligned(list(keys))
        found = self._memo.get(keys)
        if found is None:
            found = self._memo[keys] = tuple(self._aligned(list(keys)))
            if len(self._memo) > MEMO_COPIES:
                self._memo.popitem(last=False)
        else:
            self._memo.move_to_end(keys)
        return list(found)

    def _aligned(self, a: list[str]) -> list[Run]:
        """`runs`, computed: the copy's keys `a` aligned with the article's."""
        b = self.article
        self._matcher.set_seq1(a)
        found: list[Run] = []
        steps = [0]  # before each copy word: the search steps of the words before it
        for key in a:
            steps.append(steps[-1] + len(self._at.get(key, ())))
        left = [DIFF_BUDGET]
        todo: list[Stretch] = [(0, len(a), 0, len(b))]
        while todo:
            todo.extend(self._split(a, b, *todo.pop(), found, steps, left))
        found = self._moved(a, b, found, steps, left, shortest=1)
        found = self._moved(a, b, found, steps, left, shortest=ANCHOR)
        merged: list[Run] = []
        for i, j, k in sorted(found):
            last = merged[-1] if merged else None
            if last is not None and last[0] + last[2] == i and last[1] + last[2] == j:
                merged[-1] = (last[0], last[1], last[2] + k)
            else:
                merged.append((i, j, k))
        return merged

    def _moved(
        self,
        a: list[str],
        b: list[str],
        found: list[Run],
        steps: list[int],
        left: list[int],
        *,
        shortest: int,
    ) -> list[Run]:
        """`found`, with runs of text the article shows elsewhere than the copy does (a page
        that puts its results first, a copy that kept the old order): each stretch of the copy
        left unaligned, of at least two anchors' length, aligned with the whole article in turn;
        a run is kept where the article's words are not aligned already. Runs shorter than
        `shortest` do not cut a stretch (a second pass: "GuideLLM 4" of a key result, paired in
        order with "GuideLLM 0.8.1" of the story at the page's end); where a run of the stretch
        covers their words on either side, they give way."""
        copied, shown = [False] * len(a), [False] * len(b)
        for i, j, k in found:
            if k >= shortest:
                copied[i : i + k] = [True] * k
                shown[j : j + k] = [True] * k
        gaps, start = [], None
        for i, done in enumerate([*copied, True]):
            if not done and start is None:
                start = i
            elif done and start is not None:
                if i - start >= 2 * ANCHOR:
                    gaps.append((start, i))
                start = None
        out: list[Run] = []
        for lo, hi in gaps:
            runs: list[Run] = []
            todo: list[Stretch] = [(lo, hi, 0, len(b))]
            while todo:
                todo.extend(self._split(a, b, *todo.pop(), runs, steps, left))
            for i, j, k in runs:
                if k >= 2 and not any(shown[j : j + k]):
                    shown[j : j + k] = [True] * k
                    out.append((i, j, k))
        if not out:
            return found
        moved_copy, moved_article = [False] * len(a), [False] * len(b)
        for i, j, k in out:
            moved_copy[i : i + k] = [True] * k
            moved_article[j : j + k] = [True] * k
        kept = [
            (i, j, k)
            for i, j, k in found
            if k >= shortest or not (any(moved_copy[i : i + k]) or any(moved_article[j : j + k]))
        ]
        return kept + out

    def _split(
        self,
        a: list[str],
        b: list[str],
        alo: int,
        ahi: int,
        blo: int,
        bhi: int,
        found: list[Run],
        steps: list[int],
        left: list[int],
    ) -> list[Stretch]:
        """Record what one stretch surely shares; return the stretches left to align (`steps`,
        `left`: the search's cost before each copy word, and the budget left)."""
        head = 0
        while alo + head < ahi and blo + head < bhi and a[alo + head] == b[blo + head]:
            head += 1
        tail = 0
        while (
            alo + head < ahi - tail
            and blo + head < bhi - tail
            and a[ahi - 1 - tail] == b[bhi - 1 - tail]
        ):
            tail += 1
        if head:
            found.append((alo, blo, head))
        if tail:
            found.append((ahi - tail, bhi - tail, tail))
        alo, blo, ahi, bhi = alo + head, blo + head, ahi - tail, bhi - tail
        if alo >= ahi or blo >= bhi:
            return []
        chain = _anchors(a, b, self._at, alo, ahi, blo, bhi)
        if not chain:
            cost = steps[ahi] - steps[alo]
            if cost > left[0]:
                return []  # over budget: left unaligned
            left[0] -= cost
            i, j, k = self._matcher.find_longest_match(alo, ahi, blo, bhi)
            if not k:
                return []
            chain = [(i, j, k)]
        found.extend(chain)
        starts = [(alo, blo), *((i + k, j + k) for i, j, k in chain)]
        stops = [*((i, j) for i, j, _ in chain), (ahi, bhi)]
        return [(s[0], e[0], s[1], e[1]) for s, e in zip(starts, stops, strict=True)]


def _anchors(
    a: list[str],
    b: list[str],
    positions: dict[str, list[int]],
    alo: int,
    ahi: int,
    blo: int,
    bhi: int,
) -> list[Run]:
    """The longest chain, in the same order in both stretches, of the shared runs of at least
    `ANCHOR` words around a word that occurs once in each (`positions`: each word's positions in
    the whole article)."""
    in_a = Counter(a[alo:ahi])
    runs: list[Run] = []
    reach: dict[int, int] = {}  # per diagonal (i - j), where the last run found on it ends
    for i in range(alo, ahi):
        at = positions.get(a[i])  # where the word is in the whole article, in order
        if at is None or in_a[a[i]] != 1:
            continue
        first = bisect.bisect_left(at, blo)
        if first == len(at) or at[first] >= bhi or (first + 1 < len(at) and at[first + 1] < bhi):
            continue  # not once in the article's stretch
        j = at[first]
        if reach.get(i - j, alo) > i:
            continue  # inside a run already found
        back = 0
        while i - back > alo and j - back > blo and a[i - back - 1] == b[j - back - 1]:
            back += 1
        ahead = 1
        while i + ahead < ahi and j + ahead < bhi and a[i + ahead] == b[j + ahead]:
            ahead += 1
        reach[i - j] = i + ahead
        if back + ahead >= ANCHOR:
            runs.append((i - back, j - back, back + ahead))
    ordered = sorted(runs)
    # longest increasing subsequence of the article positions, by patience sorting
    tops: list[int] = []  # the smallest article position ending a chain of each length
    ends: list[int] = []  # which run ends that chain
    back_of: list[int] = []  # each run's predecessor in its chain, -1 for none
    for n, (_, j, _) in enumerate(ordered):
        depth = bisect.bisect_left(tops, j)
        back_of.append(ends[depth - 1] if depth else -1)
        if depth == len(tops):
            tops.append(j)
            ends.append(n)
        else:
            tops[depth], ends[depth] = j, n
    chain: list[Run] = []
    n = ends[-1] if ends else -1
    while n >= 0:
        chain.append(ordered[n])
        n = back_of[n]
    kept: list[Run] = []
    for i, j, k in reversed(chain):  # runs on two diagonals may overlap: the first one stays
        if not kept or (i >= kept[-1][0] + kept[-1][2] and j >= kept[-1][1] + kept[-1][2]):
            kept.append((i, j, k))
    return kept


def sentence_words(keys: Sequence[str], numbers: Sequence[int]) -> Counter[int]:
    """How many words each sentence holds (`keys`: "#" a number and no word; `numbers`: the
    sentence each key is in)."""
    count: Counter[int] = Counter()
    for key, sentence in zip(keys, numbers, strict=True):
        count[sentence] += key != "#"
    return count


def in_shared_sentences(
    runs: Sequence[Run],
    copy: Sequence[str],
    article: Sequence[str],
    copy_sentence: Sequence[int],
    article_sentence: Sequence[int],
    article_words: Counter[int] | None = None,
) -> list[Run]:
    """The pieces of `runs` within one sentence of each side whose two sentences share more than
    half the words of the shorter one (`copy`, `article`: the keys, "#" a number and no word;
    `*_sentence`: the sentence each key is in, numbered in order; `article_words`:
    `sentence_words` of the article's, when counted already)."""
    words = (
        sentence_words(copy, copy_sentence),
        sentence_words(article, article_sentence) if article_words is None else article_words,
    )
    pieces: list[Run] = []
    for i, j, k in runs:
        start = 0
        for d in range(1, k + 1):
            if (
                d == k
                or copy_sentence[i + d] != copy_sentence[i + d - 1]
                or article_sentence[j + d] != article_sentence[j + d - 1]
            ):
                pieces.append((i + start, j + start, d - start))
                start = d
    shared: Counter[tuple[int, int]] = Counter()
    for i, j, k in pieces:
        shared[copy_sentence[i], article_sentence[j]] += sum(key != "#" for key in copy[i : i + k])
    return [
        (i, j, k)
        for i, j, k in pieces
        if 2 * shared[copy_sentence[i], article_sentence[j]]
        > min(words[0][copy_sentence[i]], words[1][article_sentence[j]])
    ]
