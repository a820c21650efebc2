"""A published HTML page as an element tree (pure): the nodes `parse.py` builds and the
names HTML gives its elements' roles.

`Node` is an element with its attributes, namespace, children and its place among its
siblings (what selectors ask); `Text` a run of text as the page writes it; `Tree` the whole page
with a way from an offset in it to a line and column.
"""

from __future__ import annotations

import bisect
import re


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


HEADINGS = _names("h1 h2 h3 h4 h5 h6")


class Text:
    """A run of text in the page: `raw` as the source writes it, from offset `start` of the
    (defused) page; `decode`: whether its character references are references."""

    __slots__ = ("decode", "raw", "start")

    def __init__(self, raw: str, start: int, decode: bool) -> None:
        self.raw, self.start, self.decode = raw, start, decode


class Node:
    """An element: its name (lower case), attributes (the first of each name), namespace
    ("html", "svg" or "math"), where its start tag is, and its children in order."""

    __slots__ = (
        "attrs",
        "classes",
        "elements",
        "index",
        "kids",
        "look",
        "memo",
        "ns",
        "offset",
        "parent",
        "tag",
        "type_count",
        "type_index",
    )

    def __init__(self, tag: str, attrs: dict[str, str], ns: str, offset: int) -> None:
        self.tag, self.attrs, self.ns, self.offset = tag, attrs, ns, offset
        self.parent: Node | None = None
        self.kids: list[Node | Text] = []
        self.elements: list[Node] = []  # the element children, foster-parented ones in place
        self.index = 0  # among the parent's element children
        self.type_index = 0  # among those of its name
        self.type_count = 1
        self.classes = frozenset(attrs.get("class", "").split())
        self.look: object = None  # the computed style (check/html/css/cascade.py)
        self.memo: dict[object, int] | None = None  # selector matches (check/html/css/match.py)

    @property
    def previous(self) -> Node | None:
        """The element sibling before this one."""
        parent = self.parent
        return parent.elements[self.index - 1] if parent is not None and self.index else None


def line_starts(text: str) -> tuple[int, ...]:
    """The offset each line of `text` starts at."""
    return tuple([0] + [m.end() for m in re.finditer("\n", text)])


class Tree:
    """The parsed page: its elements from the root, the page text it was read from, and a way
    from an offset in that text to a (line, column)."""

    def __init__(self, root: Node, text: str, starts: tuple[int, ...] | None = None) -> None:
        self.root = root
        self.text = text
        # the offset each line starts at (`starts`: already found by the parser)
        self.starts = starts or line_starts(text)
        self._order: list[Node] | None = None  # the elements in document order, once walked

    def position(self, offset: int) -> tuple[int, int]:
        """(line, column), both from 1, of an offset in the page."""
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def walk(self) -> list[Node]:
        """Every element, in document order (iteratively: a page may nest deeper than Python's
        recursion). The tree is not changed once parsed, so its order is found once and
        copied: check walks a page six times as it reads it (3 ms for the built page of
        runs/paiton-kimi-k3.1-pro, 0.5 ms walked once)."""
        if self._order is None:
            out: list[Node] = []
            stack = [self.root]
            while stack:
                node = stack.pop()
                out.append(node)
                stack.extend(reversed(node.elements))
            self._order = out
        return list(self._order)
