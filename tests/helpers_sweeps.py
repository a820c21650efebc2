"""A generated sweep as one test: every case judged in a loop, every wrong one reported together.

A sweep parametrized into hundreds of tests (one per number of an example, per form of a key)
pays each case a test's set-up, fixtures and report; a loop pays it one call. `make test` judges
every case. In the fast lane (`pytest --fast`, conftest.py) a sweep whose cases cost seconds in
all judges a sample of them, seeded by the test's name: the same cases on every run, so a failure
there is one `make test` shows too.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import pytest

T = TypeVar("T")

FAST_SHARE = 1 / 8  # of a sweep's cases, in the fast lane
FAST_LEAST = 8  # cases, however short the sweep


@dataclass(frozen=True)
class Sweep:
    """The cases of one test's sweep: all of them, or the fast lane's sample."""

    test: str  # the test's node id: the sample's seed
    fast: bool

    def cases(self, every: Sequence[T], *, sample: bool = True) -> list[T]:
        """`every` case, in order; in the fast lane (when `sample`), a seeded sample of them."""
        want = max(FAST_LEAST, math.ceil(len(every) * FAST_SHARE))
        if not (self.fast and sample) or len(every) <= want:
            return list(every)
        chosen = random.Random(zlib.crc32(self.test.encode())).sample(range(len(every)), want)
        return [every[i] for i in sorted(chosen)]

    def judge(
        self,
        every: Sequence[T],
        wrong: Callable[[T], str | None],
        name: Callable[[T], str] = str,
        *,
        sample: bool = False,
    ) -> None:
        """Judge each case (`wrong`: what is wrong with it, or None), then fail once, naming
        every case judged wrong and why. A case that raises is wrong, and the others still run.
        `sample`: the fast lane judges a sample (for sweeps that cost seconds)."""
        cases = self.cases(every, sample=sample)
        found = []
        for case in cases:
            try:
                problem = wrong(case)
            except Exception as exc:  # one case's error must not hide the others
                problem = f"{type(exc).__name__}: {exc}"
            if problem is not None:
                found.append(f"- {name(case)}: {problem}")
        if found:
            of = f" (the fast lane's sample of {len(every)})" if len(cases) < len(every) else ""
            pytest.fail(
                f"{len(found)} of {len(cases)} cases{of} are wrong:\n" + "\n".join(found),
                pytrace=False,
            )
