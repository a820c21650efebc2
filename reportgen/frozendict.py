"""`FrozenDict`, the one immutable mapping of the records (ground floor).

A record that holds names and their values (a run's settings, a tool's definitions, the axes of a
metric value) holds them as a `FrozenDict`: read by key like a dict, in the order it was built,
and hashable, so the frozen dataclass around it stays hashable. It compares as a dict does: equal
to any mapping of the same pairs, whatever their order. Built from pairs, a later pair of the same
key wins, as in `dict`.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from typing import Any, TypeVar, overload

K = TypeVar("K")
V = TypeVar("V", covariant=True)
W = TypeVar("W")
T = TypeVar("T")


class FrozenDict(Mapping[K, V]):
    """An immutable, hashable dict that keeps insertion order."""

    __slots__ = ("_hash", "_items")

    def __init__(self, items: Mapping[K, V] | Iterable[tuple[K, V]] = (), /) -> None:
        self._items: dict[K, V] = dict(items)
        self._hash: int | None = None

    def __getitem__(self, key: K) -> V:
        return self._items[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    @overload
    def get(self, key: K, /) -> V | None: ...

    @overload
    def get(self, key: K, /, default: V | T) -> V | T: ...

    def get(self, key: K, /, default: object = None) -> object:
        return self._items.get(key, default)

    def keys(self) -> KeysView[K]:
        return self._items.keys()

    def values(self) -> ValuesView[V]:
        return self._items.values()

    def items(self) -> ItemsView[K, V]:
        return self._items.items()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenDict):
            return self._items == other._items
        if isinstance(other, Mapping):
            return self._items == dict(other.items())
        return NotImplemented

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._items.items()))
        return self._hash

    def __or__(self, other: Mapping[K, W]) -> FrozenDict[K, V | W]:
        """The pairs of both, `other`'s value where a key is in both."""
        if not other:
            return self
        if not self and isinstance(other, FrozenDict):
            return other
        merged: dict[K, V | W] = dict(self._items)
        merged.update(other)
        return FrozenDict(merged)

    def __repr__(self) -> str:
        return f"FrozenDict({self._items!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (self._items,))
