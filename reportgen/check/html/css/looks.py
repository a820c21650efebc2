"""What one element's text looks like under one set of conditions (pure): the declarations that
won the cascade for it, and its parent's `Look`, in; its `Look` out.

A `Look` holds what is inherited (font size, colour, visibility, direction, custom properties,
the background behind the text) and what an ancestor does to everything inside it: the
`doubts` (doubts.py).

Worst case: linear in the declarations; `var()` substitution is bounded (`MAX_VAR` tokens, 8
levels), so a chain of variables that double at each step is not known rather than expanded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from tinycss2 import ast

from reportgen.check.html.css.doubts import Value, box_doubts, ident
from reportgen.check.html.css.look import Look, Scope
from reportgen.check.html.css.rules import Decl
from reportgen.check.html.css.values import (
    Basis,
    gradient_stops,
    length,
    number,
    over,
    paint,
    significant,
)
from reportgen.check.html.tree import Node

MAX_VAR = 2000  # tokens a value may grow to by var() substitution


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


_SIZES = {
    "xx-small": 9.0,
    "x-small": 10.0,
    "small": 13.0,
    "medium": 16.0,
    "large": 18.0,
    "x-large": 24.0,
    "xx-large": 32.0,
    "xxx-large": 48.0,
}
_BLOCK = _names(
    "block flex grid list-item table flow-root table-row table-row-group table-header-group "
    "table-footer-group table-caption table-cell -webkit-box"
)
_WIDE = frozenset({"inherit", "initial", "unset", "revert", "revert-layer"})


class Winner(Protocol):
    """The declaration that wins each property (cascade.py): None when none applies."""

    @property
    def entries(self) -> Mapping[str, object]: ...  # the properties with any declaration

    custom: list[str]  # the custom properties among them

    def __call__(self, prop: str) -> Decl | None: ...


def substitute(
    tokens: Sequence[ast.Node], scope: Scope, depth: int = 0, budget: list[int] | None = None
) -> list[ast.Node] | None:
    """`tokens` with each `var(--x, fallback)` replaced by --x's value; None when a variable
    is missing with no fallback, or the substitution grows past `MAX_VAR` tokens."""
    budget = [MAX_VAR] if budget is None else budget
    out: list[ast.Node] = []
    for t in tokens:
        budget[0] -= 1
        if budget[0] < 0 or depth > 8:
            return None
        if t.type == "function" and t.lower_name == "var":
            args = list(t.arguments)
            name = next((a.value for a in args if a.type == "ident"), "")
            comma = next((i for i, a in enumerate(args) if a == ","), None)
            value = scope.get(name)
            if value is None and comma is not None:
                value = tuple(args[comma + 1 :])
            if value is None:
                return None
            inner = substitute(value, scope, depth + 1, budget)
            if inner is None:
                return None
            out.extend(inner)
        elif t.type == "function" and any(a.type == "function" for a in t.arguments):
            inner = substitute(t.arguments, scope, depth + 1, budget)
            if inner is None:
                return None
            out.append(ast.FunctionBlock(t.source_line, t.source_column, t.name, inner))
        else:
            out.append(t)
    return out


def compute(el: Node, parent: Look, win: Winner, flex_parent: bool) -> Look:
    """The look of `el` given its parent's and the declaration that won each property."""
    look = parent.child()
    declared = win.entries
    if not declared:  # nothing but what it inherits, and what HTML says of it
        look.hidden = look.hidden or ua_hidden(el)
        if el.parent is not None and el.parent.tag == "#document":
            look.root_font = look.font
        if el.attrs.get("dir", "").lower() in ("rtl", "ltr"):
            look.rtl = el.attrs["dir"].lower() == "rtl"
        return look
    own: dict[str, tuple[ast.Node, ...]] = {}

    def value(prop: str) -> tuple[Decl, list[ast.Node]] | None:
        if prop not in declared:
            return None
        decl = win(prop)
        if decl is None:
            return None
        tokens = substitute(decl.value, look.scope)
        return None if tokens is None else (decl, tokens)

    for name in win.custom:
        decl = win(name)
        if decl is not None:
            own[name] = decl.value
    if own:
        look.scope = Scope(own, parent.scope)
    _display(el, look, value)
    _visibility(look, value)
    _font(el, look, value, parent)
    _paint(look, value, parent)
    box_doubts(look, value, flex_parent)
    return look


def _display(el: Node, look: Look, value: Value) -> None:
    found = value("display")
    keyword = ident(found[1]) if found else None
    if keyword == "none" or (keyword is None and ua_hidden(el)):
        look.hidden = True
    look.block = keyword in _BLOCK if keyword else False
    look.flex = found is not None and any(
        t.type == "ident" and t.lower_value in ("flex", "grid", "inline-flex", "inline-grid")
        for t in found[1]
    )
    cv = value("content-visibility")
    if cv and ident(cv[1]) == "hidden":
        look.hidden = True  # its contents are not drawn: all the text in it


_UA_NONE = _names(
    "head script style template meta link base area datalist noembed noframes param rp title"
)


def ua_hidden(el: Node) -> bool:
    """Whether the browser's own stylesheet does not display `el` (`display: none`), which the
    page's CSS may override."""
    if el.ns != "html":
        return False
    if el.tag in _UA_NONE:
        return True
    if "hidden" in el.attrs and el.attrs["hidden"].lower() != "until-found":
        return True
    if el.tag == "dialog" and "open" not in el.attrs:
        return True
    return el.tag == "input" and el.attrs.get("type", "").lower() == "hidden"


def _visibility(look: Look, value: Value) -> None:
    found = value("visibility")
    keyword = ident(found[1]) if found else None
    if keyword in ("hidden", "collapse"):
        look.visible = False
    elif keyword == "visible":
        look.visible = True


def _font(el: Node, look: Look, value: Value, parent: Look) -> None:
    basis = Basis(em=parent.font, rem=parent.root_font, percent=(parent.font, parent.font))
    size = None
    found = value("font-size")
    if found is None:
        shorthand = value("font")
        if shorthand is not None:
            size = _font_size(shorthand[1], basis, parent.font)
            found = shorthand if size is not None else None
    elif ident(found[1]) not in _WIDE:
        size = _font_size(found[1], basis, parent.font)
    if found is not None and size is not None:
        look.font = size
        look.why = {**look.why, "font": found[0]}
    if el.parent is not None and el.parent.tag == "#document":
        look.root_font = look.font
    zoom = value("zoom")
    if zoom is not None:
        factor = number(zoom[1])
        if factor is not None and factor > 0:
            look.scale *= factor
            look.why = {**look.why, "scale": zoom[0]}
    spacing = value("letter-spacing")
    if spacing is not None:
        found_len = length(spacing[1], Basis(em=look.font, rem=look.root_font))
        look.letter = found_len[0] if found_len else 0.0
        look.why = {**look.why, "letter": spacing[0]}
    direction = value("direction")
    if direction is not None and ident(direction[1]) in ("rtl", "ltr"):
        look.rtl = ident(direction[1]) == "rtl"
    elif el.attrs.get("dir", "").lower() in ("rtl", "ltr"):
        look.rtl = el.attrs["dir"].lower() == "rtl"


def _font_size(tokens: Sequence[ast.Node], basis: Basis, parent: float) -> float | None:
    for t in significant(tokens):
        if t == "/":
            break
        if t.type == "ident":
            if t.lower_value in _SIZES:
                return _SIZES[t.lower_value]
            if t.lower_value in ("smaller", "larger"):
                return parent * (0.83 if t.lower_value == "smaller" else 1.2)
            continue
        if t.type == "number" and t.value != 0:
            continue  # a font weight
        found = length([t], basis)
        if found is not None:
            return max(0.0, found[0])
    return None


def _paint(look: Look, value: Value, parent: Look) -> None:
    found = value("color")
    if found is not None and ident(found[1]) not in _WIDE:
        look.color = paint(found[1], parent.color)
        look.why = {**look.why, "color": found[0]}
    fill = value("-webkit-text-fill-color")
    if fill is not None:
        look.fill = paint(fill[1], look.color)
        look.why = {**look.why, "fill": fill[0]}
    opacity = value("opacity")
    if opacity is not None:
        o = number(opacity[1])
        look.opacity *= 1.0 if o is None else max(0.0, min(1.0, o))
        look.why = {**look.why, "opacity": opacity[0]}
    image = value("background-image")
    colour = value("background-color")
    shorthand = value("background")
    base = parent.bg
    known, stops, solid = True, [], None
    for found in (image or shorthand, colour or shorthand):
        if found is None:
            continue
        for t in significant(found[1]):
            if t.type == "url" or (t.type == "function" and t.lower_name in ("url", "image-set")):
                known = False
            elif t.type == "function" and "gradient" in t.lower_name:
                stops += gradient_stops([t]) or []
            elif found[0].prop != "background-image":
                solid = paint([t], look.color) or solid
    clip = value("background-clip") or value("-webkit-background-clip")
    if clip is not None and ident(clip[1]) == "text" and (stops or not known):
        look.fill = "image"  # the text shows the background image
        return
    if solid is not None and solid.alpha > 0 and base:
        base = tuple(over(solid, b) for b in base)
    if not known:
        base = None
    elif stops and base:
        base = tuple(over(s, b) for s in stops for b in base)
    look.bg = base


def hides_contents(look: Look) -> bool:
    """Whether text with this look is not drawn at all."""
    return look.hidden or not look.visible
