"""The identity memo: made once per key object, bounded, and never shared by equal keys."""

from __future__ import annotations

from reportgen.check.readers.memo import ByIdentity


def test_a_key_is_made_once_and_an_equal_key_again() -> None:
    made: list[tuple[int, ...]] = []

    def make(key: tuple[int, ...]) -> int:
        made.append(key)
        return sum(key)

    memo = ByIdentity(make, size=2)
    first, equal = (1, 2, 3), tuple([1, 2, 3])
    assert memo(first) == memo(first) == 6
    assert memo(equal) == 6
    assert len(made) == 2  # the equal tuple is another object: made again


def test_the_oldest_key_goes_past_the_size() -> None:
    made: list[str] = []

    def make(key: str) -> int:
        made.append(key)
        return len(made)

    memo = ByIdentity(make, size=2)
    a, b, c = "a" * 40, "b" * 40, "c" * 40
    memo(a), memo(b), memo(a), memo(c)  # b is the oldest when c comes
    assert (memo(a), len(made)) == (1, 3)
    assert (memo(b), len(made)) == (4, 4)
