"""The stack of open elements of an HTML parse, and its scopes (pure).

HTML closes an element only within a *scope*: `</p>` ends a `<p>` unless a `<table>`, a `<td>`,
a `<button>` ... was opened after it. The positions of the open elements of each name, and of
the elements that bound each kind of scope, are kept as stacks, so "is a `<p>` open in button
scope?" is one comparison, not a walk down the stack: a page of thousands of unclosed elements
and end tags is read in linear time.
"""

from __future__ import annotations

from reportgen.check.html.tree import Node


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


SPECIAL = _names(
    "address applet area article aside base basefont bgsound blockquote body br button caption "
    "center col colgroup dd details dir div dl dt embed fieldset figcaption figure footer form "
    "frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html iframe img input keygen li "
    "link listing main marquee menu meta nav noembed noframes noscript object ol p param "
    "plaintext pre script search section select source style summary table tbody td template "
    "textarea tfoot th thead title tr track ul wbr xmp"
)
FOREIGN_SPECIAL = frozenset(
    {("math", t) for t in ("mi", "mo", "mn", "ms", "mtext", "annotation-xml")}
    | {("svg", t) for t in ("foreignobject", "desc", "title")}
)
_SCOPE = _names("applet caption html table td th marquee object template")
# The scopes an open element's position is kept for: (name, the elements that bound it)
_KINDS: dict[str, frozenset[str]] = {
    "scope": _SCOPE,
    "button": _SCOPE | {"button"},
    "list": _SCOPE | {"ol", "ul"},
    "table": frozenset({"html", "table", "template"}),
    "special": SPECIAL,
    "item": SPECIAL - {"address", "div", "p"},
}


class OpenElements:
    """The elements open at a point of the parse, innermost last."""

    def __init__(self, root: Node) -> None:
        self.stack: list[Node] = [root]
        self.open: dict[tuple[str, str], list[int]] = {}  # (ns, tag) -> stack positions
        self.bounds: dict[str, list[int]] = {k: [0] for k in _KINDS}
        self.last_html = [0]  # positions of open HTML elements (for foreign end tags)

    def push(self, node: Node) -> None:
        i = len(self.stack)
        self.stack.append(node)
        self.open.setdefault((node.ns, node.tag), []).append(i)
        html = node.ns == "html"
        foreign_bound = (node.ns, node.tag) in FOREIGN_SPECIAL
        for kind, names in _KINDS.items():
            if node.tag in names if html else foreign_bound and kind != "table":
                self.bounds[kind].append(i)
        if html:
            self.last_html.append(i)

    def last(self, key: tuple[str, str]) -> int:
        """The stack position of the innermost open (namespace, name) element, or -1."""
        found = self.open.get(key)
        return found[-1] if found else -1

    def pop(self) -> Node:
        i = len(self.stack) - 1
        node = self.stack.pop()
        self.open[(node.ns, node.tag)].pop()
        for marks in (*self.bounds.values(), self.last_html):
            if marks[-1] == i:
                marks.pop()
        return node

    def pop_to(self, i: int) -> None:
        """Close every element from the innermost down to stack position `i`."""
        while len(self.stack) > i:
            self.pop()

    def scoped(self, tag: str, kind: str) -> int | None:
        """The stack position of the innermost open HTML `tag` within scope `kind`, or None."""
        found = self.open.get(("html", tag))
        if found and self.bounds[kind][-1] <= found[-1]:  # no boundary above it (it may be one)
            return found[-1]
        return None

    def close(self, tag: str, kind: str = "scope") -> bool:
        """Close the innermost `tag` open in scope `kind`; False when there is none."""
        at = self.scoped(tag, kind)
        if at is None:
            return False
        self.pop_to(at)
        return True
