"""The word alignment of a copy with the built article (reportgen/check/readers/align.py), against
difflib's, which it replaced for speed. Which copies it must read right end to end is in
test_check_readers.py and test_check_mutations.py; these pin its own promises."""

from __future__ import annotations

import difflib
import random

import pytest

from reportgen.check.readers.align import MEMO_COPIES, Aligner, Run

WORDS = ["the", "a", "of", "to", "#", "and", "tok", "ms", "s", "x"] + [f"w{i}" for i in range(300)]


def _difflib(copy: list[str], article: list[str]) -> list[Run]:
    blocks = difflib.SequenceMatcher(None, copy, article, autojunk=False).get_matching_blocks()
    return [(m.a, m.b, m.size) for m in blocks if m.size]


def _edited(article: list[str], rng: random.Random) -> list[str]:
    copy = article[rng.randrange(0, 200) : rng.randrange(1500, len(article))]
    for _ in range(rng.randint(1, 20)):
        at = rng.randrange(len(copy))
        what = rng.random()
        if what < 1 / 3:
            copy[at] = rng.choice(["zz", "#", "the", "new"])
        elif what < 2 / 3:
            del copy[at]
        else:
            copy.insert(at, rng.choice(["zz", "#", "the"]))
    return copy


def _valid(runs: list[Run], copy: list[str], article: list[str]) -> None:
    end_a = end_b = 0
    for i, j, k in runs:
        assert k > 0 and i >= end_a and j >= end_b, runs
        assert copy[i : i + k] == article[j : j + k]
        end_a, end_b = i + k, j + k


def test_an_unedited_copy_is_one_run() -> None:
    article = random.Random(0).choices(WORDS, k=1800)
    assert Aligner(article).runs(article) == [(0, 0, 1800)] == _difflib(article, article)


@pytest.mark.sampled
@pytest.mark.parametrize("seed", range(40))
def test_an_edited_copy_aligns_as_much_as_difflib_does(seed: int) -> None:
    rng = random.Random(seed)
    article = rng.choices(WORDS, k=1800)
    aligner = Aligner(article)
    for _ in range(5):
        copy = _edited(article, rng)
        runs = aligner.runs(copy)
        _valid(runs, copy, article)
        assert sum(k for *_, k in runs) >= sum(k for *_, k in _difflib(copy, article))


def test_one_aligner_serves_many_copies() -> None:
    rng = random.Random(7)
    article = rng.choices(WORDS, k=1800)
    aligner = Aligner(article)
    copies = [_edited(article, rng) for _ in range(3)]
    assert [aligner.runs(c) for c in copies] == [Aligner(article).runs(c) for c in copies]


def test_nothing_shared_and_empty_sides() -> None:
    assert Aligner(["a", "b"]).runs(["c", "d"]) == []
    assert Aligner([]).runs(["a"]) == [] == Aligner(["a"]).runs([])


def test_a_copy_aligned_again_gives_its_runs_without_aligning_it_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(11)
    article = rng.choices(WORDS, k=1800)
    aligner = Aligner(article)
    copies = [_edited(article, rng) for _ in range(MEMO_COPIES + 1)]
    first = [aligner.runs(c) for c in copies]  # the first copy's runs are no longer kept
    aligned: list[int] = []
    compute = aligner._aligned

    def counted(a: list[str]) -> list[Run]:
        aligned.append(len(a))
        return compute(a)

    monkeypatch.setattr(aligner, "_aligned", counted)
    assert [aligner.runs(c) for c in copies[1:]] == first[1:]
    assert aligned == []
    assert aligner.runs(copies[0]) == first[0] == Aligner(article).runs(copies[0])
    assert aligned == [len(copies[0])]
