"""A bounded memo keyed by the identity of an immutable object (pure).

Some of what check reads in every copy depends only on the built article: the literals of its
prose, the braces it shows. A `Shape` holds that article once for every copy checked against it,
so what is derived from one of its tuples is derived once per tuple, not once per copy. Keyed
by identity, not equality: hashing a tuple of the article's tokens costs as much as deriving
from it. Each entry holds its key, so that no other object takes the key's id while the entry
lives; the oldest entry goes first past `size`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ByIdentity(Generic[K, V]):
    """`make(key)`, made once for each of the last `size` keys (never mutated) it was asked of."""

    def __init__(self, make: Callable[[K], V], size: int) -> None:
        self._make = make
        self._size = size
        self._entries: OrderedDict[int, tuple[K, V]] = OrderedDict()

    def __call__(self, key: K) -> V:
        entry = self._entries.get(id(key))
        if entry is not None and entry[0] is key:
            self._entries.move_to_end(id(key))
            return entry[1]
        value = self._make(key)
        self._entries[id(key)] = (key, value)
        if len(self._entries) > self._size:
            self._entries.popitem(last=False)
        return value
