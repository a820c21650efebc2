"""`FrozenDict`, the records' immutable mapping: read like a dict, in the order it was built,
hashable, and compared as a dict is."""

from __future__ import annotations

import copy
import pickle
import random
from dataclasses import FrozenInstanceError, dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reportgen.frozendict import FrozenDict

_PAIRS = st.lists(st.tuples(st.text(max_size=3), st.integers() | st.none() | st.text(max_size=3)))


@dataclass(frozen=True)
class _Holder:
    name: str
    settings: FrozenDict[str, int | None]


def test_it_reads_like_a_dict_in_the_order_it_was_built() -> None:
    settings = FrozenDict([("b", 2), ("a", 1), ("c", None)])
    assert settings["b"] == 2 and settings.get("c") is None and settings.get("z", 0) == 0
    assert "a" in settings and "z" not in settings and len(settings) == 3
    assert list(settings) == ["b", "a", "c"] == list(settings.keys())
    assert list(settings.items()) == [("b", 2), ("a", 1), ("c", None)]
    assert list(settings.values()) == [2, 1, None]
    assert dict(settings) == {"b": 2, "a": 1, "c": None}
    with pytest.raises(KeyError):
        settings["z"]


def test_a_later_pair_of_the_same_key_wins_as_in_a_dict() -> None:
    settings = FrozenDict([("a", 1), ("b", 2), ("a", 3)])
    assert list(settings.items()) == [("a", 3), ("b", 2)]


def test_it_cannot_be_changed() -> None:
    source = {"a": 1}
    settings = FrozenDict(source)
    source["a"] = 2  # its own copy: the dict it was built from may change
    assert settings["a"] == 1
    with pytest.raises(TypeError):
        settings["a"] = 2  # type: ignore[index]
    with pytest.raises(TypeError):
        del settings["a"]  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        settings.extra = 1  # type: ignore[attr-defined]
    assert not hasattr(settings, "update") and not hasattr(settings, "pop")


def test_it_compares_as_a_dict_does_whatever_the_order() -> None:
    ab, ba = FrozenDict([("a", 1), ("b", 2)]), FrozenDict([("b", 2), ("a", 1)])
    assert ab == ba and hash(ab) == hash(ba)
    assert ab == {"b": 2, "a": 1}
    assert ab != FrozenDict([("a", 1)]) and ab != FrozenDict([("a", 1), ("b", 3)])
    assert ab != (("a", 1), ("b", 2))  # not the pairs it was built from: a mapping
    assert FrozenDict() == {} and not FrozenDict()


def test_the_record_that_holds_it_stays_hashable() -> None:
    one = _Holder("run", FrozenDict({"n": 1, "m": None}))
    same = _Holder("run", FrozenDict({"m": None, "n": 1}))
    other = _Holder("run", FrozenDict({"n": 2, "m": None}))
    assert len({one, same, other}) == 2
    assert {one: "x"}[same] == "x"
    with pytest.raises(FrozenInstanceError):
        one.settings = FrozenDict()  # type: ignore[misc]


def test_its_values_must_be_hashable_to_hash_it() -> None:
    settings: FrozenDict[str, list[int]] = FrozenDict({"a": [1]})
    assert settings["a"] == [1]
    with pytest.raises(TypeError):
        hash(settings)


def test_or_merges_the_other_mapping_over_it() -> None:
    run = FrozenDict([("meta.engine", "vllm"), ("meta.tp", 8)])
    cell = FrozenDict([("meta.n_gen", 128), ("meta.tp", 4)])
    merged = cell | run
    assert list(merged.items()) == [("meta.n_gen", 128), ("meta.tp", 8), ("meta.engine", "vllm")]
    assert list(cell.items()) == [("meta.n_gen", 128), ("meta.tp", 4)]  # neither changes
    empty: FrozenDict[str, object] = FrozenDict()
    assert cell | empty is cell and empty | run is run
    assert (empty | {"a": 1}) == {"a": 1}


def test_it_pickles_and_copies_with_its_order() -> None:
    settings = FrozenDict([("z", 1), ("a", (2, 3))])
    for again in (
        pickle.loads(pickle.dumps(settings)),
        copy.copy(settings),
        copy.deepcopy(settings),
    ):
        assert isinstance(again, FrozenDict)
        assert list(again.items()) == [("z", 1), ("a", (2, 3))]
        assert hash(again) == hash(settings)
    assert repr(settings) == "FrozenDict({'z': 1, 'a': (2, 3)})"


@given(_PAIRS, st.randoms(use_true_random=False))
def test_it_is_the_dict_of_its_pairs(
    pairs: list[tuple[str, int | str | None]], rnd: random.Random
) -> None:
    expected = dict(pairs)
    frozen = FrozenDict(pairs)
    assert list(frozen.items()) == list(expected.items())
    assert frozen == expected and len(frozen) == len(expected)
    shuffled = list(expected.items())
    rnd.shuffle(shuffled)
    assert FrozenDict(shuffled) == frozen and hash(FrozenDict(shuffled)) == hash(frozen)
