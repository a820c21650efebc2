"""The cascade over a parsed page (pure): its tree and stylesheets in, on every element a `Seen`
saying whether readers see its text, what may keep them from seeing it, and the text its
`::before`, `::after` and `::marker` show.

Rules held under conditions (`@media (max-width: 40em)`, `@media print`, `:hover`, a selector
check cannot fully evaluate) apply to some readers only. The cascade is resolved once per
*scenario* (scenarios.py: each screen and paper, at rest and with the conditions check cannot
evaluate taken each way). Text is hidden only when it is hidden in every scenario (a number
shown at some widths is seen by readers at those widths); a style that may keep readers from
seeing it is a doubt when it does so on every screen that shows the text at rest. An element's
animations count as their last keyframe, above its normal declarations.

Worst case: matching is rules x elements, which is not linear: the (rule, element) pairs
looked at are counted against `MAX_PAIRS`, the selector tests against match.py's `BUDGET`, the
declarations that apply against `MAX_ENTRIES`; past any of them check fails closed ("too
complex"), after at most a few seconds. Scenarios are at most `MAX_SCENARIOS`, and an element
whose conditions and parent look are another's in a scenario is computed once (`_looks`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import tinycss2
from tinycss2 import ast

from reportgen.check.html.css.doubts import cover, text_doubts
from reportgen.check.html.css.look import Doubt, Look
from reportgen.check.html.css.looks import compute, hides_contents, ua_hidden
from reportgen.check.html.css.match import MAYBE, NO, Matcher, TooComplex, candidates, element_keys
from reportgen.check.html.css.rules import UNLAYERED, Decl, Note, Rule, Styles
from reportgen.check.html.css.scenarios import STATE, Scenario, scenarios
from reportgen.check.html.css.shows import digits
from reportgen.check.html.tree import Node, Tree

# attributes that hold an address: shown by a print stylesheet's `attr(href)`, read as text
_ADDRESSES = frozenset({"href", "src", "cite", "action", "data", "poster"})
MAX_ENTRIES = 4_000_000
MAX_PAIRS = 4_000_000  # (rule, element) pairs looked at: rules x elements, whatever they need


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


TRACKED = _names(
    "display visibility content-visibility font-size font zoom letter-spacing direction "
    "unicode-bidi color -webkit-text-fill-color opacity background background-color "
    "background-image background-clip -webkit-background-clip clip clip-path mask mask-image "
    "-webkit-mask -webkit-mask-image mask-border -webkit-mask-box-image filter transform "
    "scale rotate translate position left top right bottom inset inset-inline inset-block "
    "inset-inline-start inset-inline-end inset-block-start inset-block-end margin margin-left "
    "margin-top margin-inline-start margin-block-start text-indent overflow overflow-x "
    "overflow-y overflow-inline overflow-block width height max-width max-height inline-size "
    "block-size max-inline-size max-block-size -webkit-line-clamp line-clamp order "
    "flex-direction flex-flow content animation animation-name"
)
_HIDING = frozenset({"display", "visibility", "content-visibility"})
Key = tuple[float, float, int, tuple[int, int, int], int]
Entry = tuple[Key, Decl, frozenset[str]]
Table = tuple[dict[str, list[Entry]], dict[str, dict[str, list[Entry]]]]


@dataclass(kw_only=True)
class Seen:
    """What the cascade gives one element: a look per scenario (`rest`: which scenarios read the
    page at rest), and what its pseudo-elements show (text of `::before`, `::after`,
    `::marker`, each as readers may see it)."""

    looks: tuple[Look, ...]
    rest: tuple[bool, ...]
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    letter: tuple[Doubt, ...] = ()  # styles of ::first-letter and ::first-line
    notes: list[Note] = field(default_factory=list)
    _doubts: list[Doubt] | None = None

    @property
    def hidden(self) -> bool:
        """Hidden from every reader (in every scenario)."""
        return all(hides_contents(look) for look in self.looks)

    def doubts(self) -> list[Doubt]:
        """The styles that keep readers from seeing this element's text on every screen on
        which it shows at rest (none when some reader sees it plainly)."""
        if self._doubts is not None:
            return self._doubts
        shown = [
            look
            for look, rest in zip(self.looks, self.rest, strict=True)
            if rest and not hides_contents(look)
        ]
        said = []
        for look in dict.fromkeys(shown):
            if look.said is None:
                look.said = tuple(text_doubts(look))
            said.append(look.said)
        plain = not said or not all(said)
        self._doubts = list(self.letter) + ([] if plain else list(said[0]))
        return self._doubts


class _Winner:
    """The declaration that wins each property for one element in one scenario."""

    def __init__(self, entries: dict[str, list[Entry]], scenario: Scenario | None) -> None:
        self.entries, self.scenario = entries, scenario
        self.custom = [p for p in entries if p.startswith("--")]
        self._signature: tuple[int, ...] | None = None

    def __call__(self, prop: str) -> Decl | None:
        for _, decl, conds in self.entries.get(prop, ()):
            if not conds or (self.scenario is not None and self.scenario.holds(conds)):
                return decl
        return None

    def signature(self) -> tuple[int, ...]:
        if self._signature is None:
            self._signature = tuple([id(self(p)) for p in self.entries])
        return self._signature


def _key(rule: Rule | None, decl: Decl, inline: bool = False, tier: float = 0) -> Key:
    important = 2.0 if decl.important else tier
    layer = UNLAYERED if rule is None else rule.layer
    rank = -layer if decl.important else layer
    if rule is None:
        return important, rank, 1 if inline else 0, (0, 0, 0), 0
    return important, rank, 0, rule.specificity, rule.order


def _presentational(el: Node) -> list[Decl]:
    """HTML attributes that style text: `<font color>`, `bgcolor`, `<body text>`."""
    pairs = []
    if el.tag == "font" and "color" in el.attrs:
        pairs.append(("color", el.attrs["color"]))
    if "bgcolor" in el.attrs:
        pairs.append(("background-color", el.attrs["bgcolor"]))
    if el.tag == "body" and "text" in el.attrs:
        pairs.append(("color", el.attrs["text"]))
    out = []
    for prop, value in pairs:
        tokens = tuple(tinycss2.parse_component_value_list(value[:100]))
        out.append(
            Decl(
                prop=prop,
                value=tokens,
                important=False,
                line=0,
                col=0,
                where=f"its {prop.split('-')[-1]} attribute",
            )
        )
    return out


class Cascade:
    """Resolves a page's styles onto its elements."""

    def __init__(self, tree: Tree, styles: Styles, inline: dict[int, tuple[Decl, ...]]) -> None:
        self.tree, self.styles, self.inline = tree, styles, inline
        self.matcher = Matcher()
        self.index: dict[str, list[int]] = {}
        self.pseudo_index: dict[str, list[int]] = {}
        # each rule's declarations that the cascade tracks, with their keys: the same for
        # every element it matches
        self.tracked: list[tuple[tuple[Key, Decl], ...]] = []
        for n, rule in enumerate(styles.rules):
            target = self.pseudo_index if rule.pseudo else self.index
            key = rule.selector.index_key if rule.selector is not None else "*"
            target.setdefault(key, []).append(n)
            self.tracked.append(tuple((_key(rule, d), d) for d in rule.decls if _tracked(d.prop)))
        # `_by_parent`'s looks, by the parent's looks (a tuple of looks compared by identity)
        self.by_parents: dict[tuple[object, ...], tuple[Look, ...]] = {}
        # `candidates` by an element's keys: the elements of a page share a few sets of keys
        self.candidates: dict[tuple[str, ...], tuple[list[int], list[int]]] = {}
        self.entries_left = MAX_ENTRIES
        self.pairs_left = MAX_PAIRS

    def run(self) -> list[Note]:
        """Put a `Seen` on every element; the notes of what could not be resolved."""
        elements = self.tree.walk()[1:]  # the document itself has no style
        try:
            tables = self._all_entries(elements)
        except TooComplex:
            return [Note(1, 1, _too_complex("selector tests"))]
        conds: set[frozenset[str]] = set()
        for entries, pseudo in tables:
            for group in (entries, *pseudo.values()):
                for listed in group.values():
                    conds.update(c for _, _, c in listed if c)
        found, more = scenarios(conds)
        notes = [Note(1, 1, _too_complex("too many @media and other conditions"))] if more else []
        rest = tuple(sc.rest for sc in found)
        root = Look()
        self.tree.root.look = Seen(looks=(root,) * len(found), rest=rest)
        memo: dict[tuple[object, ...], Look] = {}
        for el, (entries, pseudo) in zip(elements, tables, strict=True):
            parent = el.parent.look if el.parent is not None else None
            parents = parent.looks if isinstance(parent, Seen) else (root,) * len(found)
            if not entries and not pseudo:  # it inherits all it has: one look per parent look
                el.look = Seen(looks=self._by_parent(el, _NOTHING, parents, memo), rest=rest)
                continue
            seen = Seen(looks=self._looks(el, entries, parents, found, memo), rest=rest)
            if pseudo:
                self._generated(el, seen, pseudo, found)
            el.look = seen
            notes.extend(seen.notes)
        return notes

    def _looks(
        self,
        el: Node,
        entries: dict[str, list[Entry]],
        parents: tuple[Look, ...],
        found: Sequence[Scenario],
        memo: dict[tuple[object, ...], Look],
    ) -> tuple[Look, ...]:
        """The element's look in each scenario: computed once for each parent look and set of
        its own conditions that hold (and shared with any element that has the same)."""
        held = list({c for group in entries.values() for _, _, c in group if c})
        if not held:  # the same declarations win everywhere: a look per parent look
            return self._by_parent(el, _Winner(entries, None), parents, memo)
        own = self._own(el)
        groups: dict[tuple[object, ...], Look] = {}
        looks: list[Look] = []
        # A scenario that differs from its screen's at rest only in maybe labels gives the same
        # look, as far as it is read there, when the parent's is the same and no declaration
        # under such a label can hide text: only whether text is hidden is read in it (doubts
        # are judged at rest).
        maybe = found[0].maybe if found else frozenset()
        plain = not any(
            prop in _HIDING or prop.startswith("--")
            for prop, group in entries.items()
            for _, _, c in group
            if c & maybe
        )
        for sc, parent in zip(found, parents, strict=True):
            if plain and sc.base < len(looks) and parents[sc.base] is parent:
                looks.append(looks[sc.base])
                continue
            group = (id(parent), *(sc.holds(c) for c in held))
            look = groups.get(group)
            if look is None:
                winner = _Winner(entries, sc)
                key = (id(parent), winner.signature(), own)
                look = memo.get(key)
                if look is None:
                    look = memo[key] = compute(el, parent, winner, parent.flex)
                groups[group] = look
            looks.append(look)
        return tuple(looks)

    def _own(self, el: Node) -> tuple[object, ...]:
        """What `compute` reads of the element itself, besides its declarations."""
        return ua_hidden(el), el.attrs.get("dir"), el.parent is self.tree.root

    def _by_parent(
        self,
        el: Node,
        winner: _Winner,
        parents: tuple[Look, ...],
        memo: dict[tuple[object, ...], Look],
    ) -> tuple[Look, ...]:
        """The element's looks when the same declarations win in every scenario: one per parent
        look, shared with any element that has the same (a look is not changed once computed,
        so sharing it is the same as computing it again)."""
        own = self._own(el)
        # siblings share their parent's looks (the same tuple): most find theirs here
        key = (parents, winner.signature(), own)
        looks = self.by_parents.get(key)
        if looks is None:
            by_parent = {
                id(p): self._shared(el, p, winner, own, memo) for p in dict.fromkeys(parents)
            }
            looks = self.by_parents[key] = tuple([by_parent[id(p)] for p in parents])
        return looks

    def _shared(
        self,
        el: Node,
        parent: Look,
        winner: _Winner,
        own: tuple[object, ...],
        memo: dict[tuple[object, ...], Look],
    ) -> Look:
        """The element's look under `parent`, or that of an element with the same parent look,
        declarations and `own`."""
        key = (id(parent), winner.signature(), own)
        look = memo.get(key)
        if look is None:
            look = memo[key] = compute(el, parent, winner, parent.flex)
        return look

    def _all_entries(self, elements: list[Node]) -> list[Table]:
        """`_entries` of every element, in the order of `elements` (the tree's), each asked
        with the keys its ancestors have, counted on the way down and back up."""
        counts: dict[str, int] = {}
        out: dict[int, Table] = {}
        root = self.tree.root
        # an element with its keys is one being left; with None, one being entered
        stack: list[tuple[Node, list[str] | None]] = [(root, None)]
        while stack:
            el, leaving = stack.pop()
            if leaving is not None:
                for key in leaving:
                    counts[key] -= 1
                    if not counts[key]:
                        del counts[key]
                continue
            if el is not root:
                keys = element_keys(el)
                out[id(el)] = self._entries(el, keys, counts)
                for key in keys:
                    counts[key] = counts.get(key, 0) + 1
                stack.append((el, keys))
            stack.extend((kid, None) for kid in reversed(el.elements))
        return [out[id(el)] for el in elements]

    def _candidates(self, keys: list[str]) -> tuple[list[int], list[int]]:
        """The rules, and the pseudo-element rules, an element with these keys may match."""
        known = self.candidates.get(tuple(keys))
        if known is None:
            known = candidates(self.index, keys), candidates(self.pseudo_index, keys)
            self.candidates[tuple(keys)] = known
        return known

    def _entries(self, el: Node, keys: list[str], ancestry: Mapping[str, int]) -> Table:
        """The declarations that may apply to `el` and to each of its pseudo-elements, by
        property, best first (`keys`: its own, see `element_keys`; `ancestry`: the keys `el`'s
        ancestors have, so that a rule that needs an ancestor none has is passed over without
        a test)."""
        rules = self.styles.rules
        found, kinds = self._candidates(keys)
        self.pairs_left -= len(found) + len(kinds)
        if self.pairs_left < 0:
            raise TooComplex
        entries: dict[str, list[Entry]] = {}
        pseudo: dict[str, dict[str, list[Entry]]] = {}
        for decl in _presentational(el):
            entries.setdefault(decl.prop, []).append(
                ((-1.0, 0, 0, (0, 0, 0), 0), decl, frozenset())
            )
        for n in found:
            if _possible(rules[n], ancestry):
                self._add(n, el, entries)
        for n in kinds:
            rule = rules[n]
            if _possible(rule, ancestry):
                self._add(n, el, pseudo.setdefault(rule.pseudo or "", {}))
        for decl in self.inline.get(id(el), ()):
            if _tracked(decl.prop):
                entries.setdefault(decl.prop, []).append(
                    (_key(None, decl, True), decl, frozenset())
                )
        self._animations(entries)
        for group in (entries, *pseudo.values()):
            for listed in group.values():
                if len(listed) > 1:  # most properties have one declaration: nothing to sort
                    listed.sort(key=lambda e: e[0], reverse=True)
        return entries, pseudo

    def _add(self, n: int, el: Node, entries: dict[str, list[Entry]]) -> None:
        """Rule `n`'s declarations that the cascade tracks, if it may match `el`."""
        rule = self.styles.rules[n]
        if rule.selector is None:
            matched = MAYBE
        else:
            matched = self.matcher.match(rule.selector, el)
            if matched == NO:
                return
        conds = rule.conds | {STATE} if matched == MAYBE else rule.conds
        tracked = self.tracked[n]
        self.entries_left -= len(tracked)
        if self.entries_left < 0:
            raise TooComplex
        for key, decl in tracked:
            entries.setdefault(decl.prop, []).append((key, decl, conds))

    def _animations(self, entries: dict[str, list[Entry]]) -> None:
        """The declarations of the keyframes an element's animations name, as if they applied
        (above its normal declarations, below its important ones), under "animation"."""
        keyframes = self.styles.keyframes
        if not keyframes or ("animation" not in entries and "animation-name" not in entries):
            return
        for prop in ("animation", "animation-name"):
            for _, decl, conds in list(entries.get(prop, ())):
                for t in decl.value:
                    frames = keyframes.get(getattr(t, "value", ""), ())
                    for n, frame in enumerate(frames):
                        if frame.prop in TRACKED:
                            key: Key = (1.0, 0, 0, (0, 0, 0), n)
                            found = (key, frame, conds)
                            entries.setdefault(frame.prop, []).append(found)

    def _generated(
        self,
        el: Node,
        seen: Seen,
        pseudo: dict[str, dict[str, list[Entry]]],
        found: Sequence[Scenario],
    ) -> None:
        """What `el`'s pseudo-elements show, in the scenarios in which `el` is shown (and the
        doubts of its first letter or line, on every screen it shows on at rest)."""
        texts: dict[str, list[str]] = {"before": [], "after": [], "marker": []}
        letters: list[list[Doubt]] = []
        covers: dict[int, list[Doubt]] = {}
        shown_at_rest = 0
        for look, scenario in zip(seen.looks, found, strict=True):
            if hides_contents(look):
                continue
            shown_at_rest += scenario.rest
            for name, entries in pseudo.items():
                winner = _Winner(entries, scenario)
                if name in ("first-letter", "first-line"):
                    if scenario.rest:
                        own = text_doubts(look)
                        child = text_doubts(compute(el, look, winner, False))
                        letters.append([d for d in child if d not in own])
                    continue
                content = winner("content")
                display = winner("display")
                if content is None or name not in texts:
                    continue
                if display is not None and _words(display.value) == ["none"]:
                    continue
                laid = cover(name, winner) if scenario.rest else None
                if laid is not None:
                    covers.setdefault(id(scenario), []).append(laid)
                text = self._content(el, content, seen)
                if text and text not in texts[name]:
                    texts[name].append(text)
        seen.before = tuple(texts["marker"] + texts["before"])
        seen.after = tuple(texts["after"])
        seen.letter = tuple(letters[0]) if letters and all(letters) else ()
        if covers and len(covers) == shown_at_rest:  # covered on every screen it shows on
            seen.letter += tuple(next(iter(covers.values())))

    def _content(self, el: Node, decl: Decl, seen: Seen) -> str:
        """The text a `content` value shows (strings, attributes, quotes; counters and images
        show nothing here: counters are failed closed by sheets.py)."""
        out = []
        for t in decl.value:
            if t.type == "string":
                out.append(t.value)
            elif t.type == "ident" and t.lower_value in ("open-quote", "close-quote"):
                out.append("\u201c" if t.lower_value == "open-quote" else "\u201d")
            elif t.type == "function" and t.lower_name in ("counter", "counters"):
                seen.notes.append(
                    Note(
                        *self.tree.position(el.offset),
                        "readers see generated text check cannot read: it is numbered with a CSS "
                        f"counter, which check does not compute ({decl.text()}, "
                        f"{decl.where or f'line {decl.line}'}); write the numbers in the page",
                    )
                )
            elif t.type == "function" and t.lower_name == "attr":
                name = next((a.lower_value for a in t.arguments if a.type == "ident"), "")
                value = el.attrs.get(name, "")
                if digits(value) and name not in _ADDRESSES:
                    seen.notes.append(
                        Note(
                            *self.tree.position(el.offset),
                            "readers see generated text check cannot read: it shows its "
                            f"{name} attribute {value[:40]!r} through CSS ({decl.text()}); write "
                            "the text in the page instead",
                        )
                    )
                out.append(value)
        return " ".join("".join(out).split())


_NOTHING = _Winner({}, None)


def _tracked(prop: str) -> bool:
    """Whether the cascade keeps a property's declarations (the rest cannot hide text)."""
    return prop in TRACKED or prop.startswith("--")


def _possible(rule: Rule, ancestry: Mapping[str, int]) -> bool:
    """Whether the element's ancestors have every key the rule needs some ancestor to have."""
    return rule.selector is None or rule.selector.needs <= ancestry.keys()


def _words(tokens: Iterable[ast.Node]) -> list[str]:
    return [t.lower_value for t in tokens if t.type == "ident"]


def _too_complex(what: str) -> str:
    return (
        f"check cannot see what this page shows: its CSS is too complex to resolve ({what}); "
        "simplify the page's CSS or check its text as Markdown"
    )
