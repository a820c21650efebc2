"""Which elements a CSS selector matches, in three values (pure): yes, no, or maybe.

A selector that depends on what a reader does (`:hover`, `:focus`, `:checked`, `:target`,
`:visited`) or on what check does not evaluate (`:has()`, `:lang()`, `:nth-child(... of S)`, an
unknown pseudo-class) matches "maybe": its styles apply for some readers, so check neither takes
them as certain (to hide text) nor ignores them (a style that may keep a reader from seeing a
number). Selectors are parsed by cssselect2; the matching is this module's.

Worst case: each (part of a selector, element) pair is decided once and kept (`Node.memo`): a
descendant or sibling combinator asks its neighbour's kept answer instead of walking every
ancestor, so `a b c d` costs O(parts) per element, not O(depth^parts). The pairs decided are
counted against `BUDGET`; past it, `TooComplex` is raised and the caller fails closed.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from cssselect2 import parser as sel

from reportgen.check.html.tree import Node, Text

NO, YES, MAYBE = 0, 1, 2
BUDGET = 1_000_000  # compound tests per page: a few seconds

_ids = itertools.count(1)


class TooComplex(Exception):
    """The page's CSS and markup need more selector tests than `BUDGET`."""


def and3(a: int, b: int) -> int:
    return NO if NO in (a, b) else YES if a == b == YES else MAYBE


def or3(a: int, b: int) -> int:
    return YES if YES in (a, b) else NO if a == b == NO else MAYBE


def not3(a: int) -> int:
    return MAYBE if a == MAYBE else YES - a


Test = Callable[[Node], int]


@dataclass(eq=False)
class Complex:
    """A selector without its pseudo-element: compounds left to right, each with the combinator
    before it, and one memo key per part."""

    parts: list[tuple[str, list[Part]]]
    keys: list[int] = field(default_factory=list)
    index_key: str = "*"  # the rightmost compound's id, class or name: where to look it up
    needs: frozenset[str] = frozenset()  # keys some ancestor of a match must have

    def __post_init__(self) -> None:
        self.keys = [next(_ids) * 4 for _ in self.parts]

    def fresh(self) -> Complex:
        """A copy with memo keys of its own, and its nested selectors' (its tests are pure and
        shared): matched, and its tests counted, as the selector compiled anew."""
        parts = [
            (combinator, [t.fresh() if isinstance(t, _Nested) else t for t in tests])
            for combinator, tests in self.parts
        ]
        return Complex(parts, index_key=self.index_key, needs=self.needs)


class Matcher:
    """Matches compiled selectors against elements, keeping every answer on the element."""

    def __init__(self, budget: int = BUDGET) -> None:
        self.left = budget

    def match(self, selector: Complex, el: Node) -> int:
        return self._m(selector, len(selector.parts) - 1, el)

    def _m(self, s: Complex, i: int, el: Node) -> int:
        memo = el.memo if el.memo is not None else _memo(el)
        key = s.keys[i]
        found = memo.get(key)
        if found is not None:
            return found
        self.left -= 1
        if self.left < 0:
            raise TooComplex
        combinator, tests = s.parts[i]
        value = YES
        for test in tests:
            found = test.run(self, el) if isinstance(test, _Nested) else test(el)
            if found == NO:
                value = NO
                break
            if found == MAYBE:
                value = MAYBE
        if value != NO and i:
            value = and3(value, self._relation(s, i, combinator, el))
        memo[key] = value
        return value

    def _relation(self, s: Complex, i: int, combinator: str, el: Node) -> int:
        if combinator == ">":
            parent = _parent(el)
            return NO if parent is None else self._m(s, i - 1, parent)
        if combinator == "+":
            prev = el.previous
            return NO if prev is None else self._m(s, i - 1, prev)
        step = _parent if combinator == " " else _previous
        return self._some(s, i - 1, step(el), step, 1 if combinator == " " else 2)

    def _some(
        self, s: Complex, j: int, start: Node | None, step: Callable[[Node], Node | None], k: int
    ) -> int:
        """Whether part `j` matches `start` or any element before it along `step` (its
        ancestors, or its earlier siblings), filling in the answer for each on the way."""
        key = s.keys[j] + k
        chain: list[Node] = []
        x = start
        value = NO
        while x is not None:
            memo = x.memo if x.memo is not None else _memo(x)
            found = memo.get(key)
            if found is not None:
                value = found
                break
            chain.append(x)
            x = step(x)
        for y in reversed(chain):
            if value != YES:
                value = or3(self._m(s, j, y), value)
            memo = y.memo if y.memo is not None else _memo(y)
            memo[key] = value
        return value


def _memo(el: Node) -> dict[object, int]:
    el.memo = {}
    return el.memo


def _parent(el: Node) -> Node | None:
    parent = el.parent
    return None if parent is None or parent.tag == "#document" else parent


def _previous(el: Node) -> Node | None:
    return el.previous


class _Nested:
    """:not(), :is(), :where(): selectors matched against the element itself."""

    def __init__(self, selectors: list[Complex], negate: bool) -> None:
        self.selectors, self.negate = selectors, negate

    def fresh(self) -> _Nested:
        """A copy whose selectors have memo keys of their own (`Complex.fresh`)."""
        return _Nested([s.fresh() for s in self.selectors], self.negate)

    def run(self, matcher: Matcher, el: Node) -> int:
        value = NO
        for s in self.selectors:
            value = or3(value, matcher.match(s, el))
            if value == YES:
                break
        return not3(value) if self.negate else value


Part = Test | _Nested  # a nested selector list is matched by the matcher itself


def _attribute(a: sel.AttributeSelector) -> Test:
    name, op, value = a.lower_name, a.operator, a.value or ""
    fold = a.case_sensitive is False

    def test(el: Node) -> int:
        got = el.attrs.get(name)
        if got is None:
            return NO
        if op is None:
            return YES
        have, want = (got.lower(), value.lower()) if fold else (got, value)
        ok = {
            "=": have == want,
            "~=": want in have.split() and bool(want) and " " not in want,
            "|=": have == want or have.startswith(want + "-"),
            "^=": bool(want) and have.startswith(want),
            "$=": bool(want) and have.endswith(want),
            "*=": bool(want) and want in have,
        }.get(op, False)
        return YES if ok else NO

    return test


def _nth(name: str, a: int, b: int) -> Test:
    def position(el: Node) -> int | None:
        parent = el.parent
        if parent is None or parent.tag == "#document":
            return None
        if name == "nth-child":
            return el.index
        if name == "nth-last-child":
            return len(parent.elements) - el.index - 1
        if name == "nth-of-type":
            return el.type_index
        return el.type_count - el.type_index - 1

    def test(el: Node) -> int:
        x = position(el)
        if x is None:
            return NO
        n, r = divmod(x - (b - 1), a) if a else (0, x - (b - 1))
        return YES if r == 0 and n >= 0 else NO

    return test


def _pseudo(name: str) -> Test:
    simple: dict[str, Test] = {
        "root": lambda el: YES if el.parent is not None and el.parent.tag == "#document" else NO,
        "empty": lambda el: (
            NO if el.elements or any(isinstance(k, Text) and k.raw for k in el.kids) else YES
        ),
        "first-child": _nth("nth-child", 0, 1),
        "last-child": _nth("nth-last-child", 0, 1),
        "first-of-type": _nth("nth-of-type", 0, 1),
        "last-of-type": _nth("nth-last-of-type", 0, 1),
        "only-child": lambda el: (
            YES if el.parent is not None and len(el.parent.elements) == 1 else NO
        ),
        "only-of-type": lambda el: YES if el.type_count == 1 else NO,
        "any-link": lambda el: YES if el.tag in ("a", "area") and "href" in el.attrs else NO,
    }
    if name in simple:
        return simple[name]
    if name in ("link", "visited"):
        return lambda el: MAYBE if el.tag in ("a", "area") and "href" in el.attrs else NO
    return lambda _el: MAYBE  # a reader's state, or a pseudo-class check does not evaluate


def _named(name: str) -> Test:
    return lambda el: YES if el.tag == name else NO


def _ident(value: str) -> Test:
    return lambda el: YES if el.attrs.get("id") == value else NO


def _class(value: str) -> Test:
    return lambda el: YES if value in el.classes else NO


def _compound(compound: sel.CompoundSelector) -> list[Part]:
    tests: list[Part] = []
    for s in compound.simple_selectors:
        if isinstance(s, sel.LocalNameSelector):
            tests.append(_named(str(s.lower_local_name)))
        elif isinstance(s, sel.IDSelector):
            tests.append(_ident(str(s.ident)))
        elif isinstance(s, sel.ClassSelector):
            tests.append(_class(str(s.class_name)))
        elif isinstance(s, sel.AttributeSelector):
            tests.append(_attribute(s))
        elif isinstance(s, sel.PseudoClassSelector):
            tests.append(_pseudo(s.name))
        elif isinstance(s, sel.FunctionalPseudoClassSelector):
            tests.append(_functional(s))
        elif isinstance(s, sel.NegationSelector | sel.MatchesAnySelector):
            inner = [complex_selector(x.parsed_tree) for x in s.selector_list]
            tests.append(_Nested(inner, isinstance(s, sel.NegationSelector)))
        elif isinstance(s, sel.SpecificityAdjustmentSelector):
            inner = [complex_selector(x.parsed_tree) for x in s.selector_list]
            tests.append(_Nested(inner, False))
        else:  # :has(), a namespace
            tests.append(lambda _el: MAYBE)
    return tests


def _functional(s: sel.FunctionalPseudoClassSelector) -> Test:
    from tinycss2.nth import parse_nth

    if s.name in ("nth-child", "nth-last-child", "nth-of-type", "nth-last-of-type"):
        if any(t.type == "ident" and t.lower_value == "of" for t in s.arguments):
            return lambda _el: MAYBE
        found = parse_nth(s.arguments)
        if found is not None:
            return _nth(s.name, *found)
    return lambda _el: MAYBE


def complex_selector(tree: object) -> Complex:
    """A parsed cssselect2 selector tree as compounds with combinators."""
    parts: list[tuple[str, list[Part]]] = []
    compounds: list[sel.CompoundSelector] = []
    node = tree
    while isinstance(node, sel.CombinedSelector):
        parts.append((node.combinator, _compound(node.right)))
        compounds.append(node.right)
        node = node.left
    assert isinstance(node, sel.CompoundSelector)
    parts.append(("", _compound(node)))
    compounds.append(node)
    parts.reverse()  # left to right, each part with the combinator before it
    compounds.reverse()
    out = Complex(parts)
    out.index_key = next(iter(sorted(_keys(compounds[-1]), key=_rank)), "*")
    # an ancestor of the subject must hold each compound before a descendant or child
    # combinator: the keys that some ancestor must have, for a quick "no" (`ancestry`)
    out.needs = frozenset(
        key
        for k in range(1, len(parts))
        if parts[k][0] in (" ", ">")
        for key in _keys(compounds[k - 1])
    )
    return out


def _keys(compound: sel.CompoundSelector) -> list[str]:
    """What an element must have to match a compound, as lookup keys: its id, classes,
    attributes' names, tag name (`:root`: the root)."""
    out = []
    for s in compound.simple_selectors:
        if isinstance(s, sel.IDSelector):
            out.append("#" + str(s.ident))
        elif isinstance(s, sel.ClassSelector):
            out.append("." + str(s.class_name))
        elif isinstance(s, sel.AttributeSelector):
            out.append("[" + str(s.lower_name))
        elif isinstance(s, sel.LocalNameSelector):
            out.append(str(s.lower_local_name))
        elif isinstance(s, sel.PseudoClassSelector) and s.name == "root":
            out.append(":root")
    return out


def _rank(key: str) -> int:
    """Which key of a compound to look it up by: the rarest kind first."""
    return {"#": 0, ".": 1, "[": 2, ":": 3}.get(key[0], 4)


def element_keys(el: Node) -> list[str]:
    """The lookup keys an element has (see `_keys`)."""
    keys = [el.tag, *("." + c for c in el.classes), *("[" + a for a in el.attrs)]
    ident = el.attrs.get("id")
    if ident is not None:
        keys.append("#" + ident)
    if el.parent is not None and el.parent.tag == "#document":
        keys.append(":root")
    return keys


def candidates(index: Mapping[str, Sequence[int]], keys: Sequence[str]) -> list[int]:
    """The rules (their numbers in `index`) that may match an element, in order, each once: those
    whose rightmost compound's key it has (`keys`, see `element_keys`), and those with none."""
    found: list[int] = list(index.get("*", ()))
    for key in keys:
        found.extend(index.get(key, ()))
    return sorted(set(found))
