"""The styles that may keep readers from seeing text (pure): a `Look` and the values that won
the cascade in, `Doubt`s out, each naming the style and where it is.

`box_doubts` judges what an element does to everything inside it (a clip, a mask or filter, a
transform that shrinks, mirrors or turns it, a box moved off the page, a zero-size box that
hides what overflows it, lines clamped, parts shown out of order, characters overridden right
to left); `text_doubts` what is judged on the text itself (its size after every scale on the
way, opacity, colour against the background, letter spacing).

Thresholds: text under 4 px, opacity under 0.2, contrast under 1.25 (WCAG's ratio; 1 is none)
or a colour under 0.2 opaque, a box or offset 1000 px off the page, a clipping box at most 2 px
wide or high.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tinycss2 import ast

from reportgen.check.html.css.look import Doubt, Look
from reportgen.check.html.css.rules import Decl
from reportgen.check.html.css.values import (
    OFF,
    Basis,
    Paint,
    contrast,
    gradient_stops,
    length,
    number,
    over,
    paint,
    significant,
    transform,
)

SMALL_PX, FAINT, LOW_CONTRAST, TINY_BOX = 4.0, 0.2, 1.25, 2.0
# a property's winning declaration and its value with variables substituted, or None
Value = Callable[[str], tuple[Decl, list[ast.Node]] | None]


def ident(tokens: Sequence[ast.Node]) -> str | None:
    """The first word of a value, lower case (None: it does not start with one)."""
    parts = significant(tokens)
    return parts[0].lower_value if parts and parts[0].type == "ident" else None


def doubt(decl: Decl, what: str | None = None) -> Doubt:
    return Doubt(what or decl.text(), decl.line, decl.col, decl.where)


def box_doubts(look: Look, value: Value, flex_parent: bool) -> None:
    """What the element does to everything in it, added to the look's doubts."""
    basis = Basis(em=look.font, rem=look.root_font)
    doubts = list(look.doubts)

    def note(decl: Decl, what: str | None = None) -> None:
        doubts.append(doubt(decl, what))

    for prop in (
        "clip",
        "clip-path",
        "mask",
        "mask-image",
        "-webkit-mask",
        "-webkit-mask-image",
        "mask-border",
        "-webkit-mask-box-image",
        "filter",
    ):
        found = value(prop)
        if found is not None and _clips(prop, found[1], basis):
            note(found[0])
    _transformed(look, value, note, basis)
    _moved_off(look, value, note)
    _overflow(value, note, basis)
    _reordered(look, value, note, flex_parent)
    content = value("content")
    if content is not None and any(
        t.type == "url" or (t.type == "function" and t.lower_name == "url") for t in content[1]
    ):
        note(content[0], f"{content[0].text()}, an image in place of its text")
    look.doubts = tuple(doubts)


def _transformed(look: Look, value: Value, note: Callable[..., None], basis: Basis) -> None:
    """A transform that shrinks the text (its scale kept in `look`), mirrors it, turns it upside
    down or moves it off the page."""
    found = value("transform")
    if found is not None:
        t = transform(found[1], basis)
        if t is None:
            note(found[0], f"{found[0].text()}, which check cannot evaluate")
        else:
            look.scale *= max(0.0, t.scale)
            if t.scale < 1:
                look.why = {**look.why, "scale": found[0]}
            if t.mirrored or t.upside_down or (t.shift or 0) >= OFF:
                note(found[0])
    for prop in ("scale", "rotate", "translate"):
        found = value(prop)
        if found is not None and ident(found[1]) != "none":
            name = {"scale": "scale", "rotate": "rotate", "translate": "translate"}[prop]
            t = transform([ast.FunctionBlock(0, 0, name, list(found[1]))], basis)
            if t is None or t.scale < 0.3 or t.mirrored or t.upside_down or (t.shift or 0) >= OFF:
                note(found[0])


def _moved_off(look: Look, value: Value, note: Callable[..., None]) -> None:
    """An offset, margin or indent that moves the element off the page."""
    position = value("position")
    moved = position is not None and ident(position[1]) in ("absolute", "fixed", "relative")
    offsets = [
        "left",
        "top",
        "right",
        "bottom",
        "inset",
        "inset-inline",
        "inset-block",
        "inset-inline-start",
        "inset-inline-end",
        "inset-block-start",
        "inset-block-end",
    ]
    for prop in [
        *offsets,
        "margin-left",
        "margin-top",
        "margin",
        "margin-inline-start",
        "margin-block-start",
        "text-indent",
    ]:
        found = value(prop)
        if found is None or (prop in offsets and not moved):
            continue
        for t in significant(found[1]):
            far = length([t], Basis(em=look.font, rem=look.root_font, percent=(0.0, 2560.0)))
            if far is not None and (
                far[0] <= -OFF or (prop in [*offsets, "text-indent"] and far[1] >= OFF * 10)
            ):
                note(found[0])
                break


def _reordered(look: Look, value: Value, note: Callable[..., None], flex_parent: bool) -> None:
    """A flex order, reversed direction or bidi override that shows its parts out of order."""
    order = value("order")
    if flex_parent and order is not None and number(order[1]) not in (None, 0.0):
        note(order[0], f"{order[0].text()}, which shows it out of the page's order")
    for prop in ("flex-direction", "flex-flow"):
        found = value(prop)
        if found is not None and any(
            t.type == "ident" and "reverse" in t.lower_value for t in found[1]
        ):
            note(found[0], f"{found[0].text()}, which shows its parts in reverse order")
    bidi = value("unicode-bidi")
    if bidi is not None and ident(bidi[1]) in ("bidi-override", "isolate-override") and look.rtl:
        note(bidi[0], f"{bidi[0].text()} right to left, which shows its characters reversed")


def _clips(prop: str, tokens: Sequence[ast.Node], basis: Basis) -> bool:
    parts = significant(tokens)
    keyword = ident(parts)
    if (
        keyword in ("none", "auto", "initial", "unset", "inherit", "revert", "revert-layer")
        and len(parts) == 1
    ):
        return False
    if prop == "filter":
        for fn in parts:
            if fn.type != "function":
                continue
            amount = number(significant(fn.arguments)[:1]) if fn.arguments else None
            name = fn.lower_name
            if name == "url" or fn.type == "url":
                return True
            if name in ("opacity", "contrast") and amount is not None and amount < FAINT:
                return True
            if name == "brightness" and amount is not None and not FAINT <= amount <= 5:
                return True
            if name == "blur":
                radius = length(fn.arguments, basis)
                if radius is None or radius[1] >= 0.15 * basis.em:
                    return True
        return any(t.type == "url" for t in parts)
    if (
        prop == "clip-path"
        and parts
        and parts[0].type == "function"
        and parts[0].lower_name == "inset"
    ):
        inset = Basis(em=basis.em, rem=basis.rem, percent=(1.0, 1.0))
        for t in significant(parts[0].arguments):
            if t.type == "ident":  # `round`: the corners' radii follow
                return False
            found = length([t], inset)
            if found is None or found[1] > 0:
                return True
        return False
    return True


def _overflow(value: Value, note: Callable[..., None], basis: Basis) -> None:
    clipped = None
    for prop in ("overflow", "overflow-x", "overflow-y", "overflow-inline", "overflow-block"):
        found = value(prop)
        if found is not None and any(
            t.type == "ident" and t.lower_value in ("hidden", "clip", "scroll", "auto")
            for t in found[1]
        ):
            clipped = found
    if clipped is None:
        return
    for prop in (
        "width",
        "height",
        "max-width",
        "max-height",
        "inline-size",
        "block-size",
        "max-inline-size",
        "max-block-size",
    ):
        found = value(prop)
        if found is None:
            continue
        size = length(found[1], basis)
        if size is not None and size[1] <= TINY_BOX:
            note(found[0], f"{found[0].text()} with {clipped[0].text()}")
            return
    for prop in ("-webkit-line-clamp", "line-clamp"):
        found = value(prop)
        if found is not None and number(found[1]) is not None:
            note(found[0], f"{found[0].text()}, which shows only its first lines")
            return


def text_doubts(look: Look) -> list[Doubt]:
    """Every style that may keep readers from seeing text with this look."""
    out = list(look.doubts)
    why = look.why
    size = look.font * look.scale
    if size < SMALL_PX:
        culprit = why.get("scale") if look.scale < 1 and look.font >= SMALL_PX else why.get("font")
        out.append(_named(culprit, f"text {size:.3g} px high"))
    if look.opacity < FAINT:
        out.append(_named(why.get("opacity"), f"opacity {look.opacity:.3g}"))
    if look.letter <= -0.3 * look.font and look.font > 0:
        out.append(_named(why.get("letter"), "letters drawn over each other"))
    ink = look.fill if look.fill is not None else look.color
    if ink == "image":
        return out
    source = why.get("fill") if look.fill is not None else why.get("color")
    if ink is None or not isinstance(ink, Paint):
        out.append(_named(source, "a colour check cannot evaluate"))
    elif ink.alpha < FAINT:
        out.append(_named(source, "a transparent colour"))
    elif look.bg is not None and look.bg:
        seen = [contrast(over(ink, b), b) for b in look.bg]
        if max(seen) < LOW_CONTRAST:
            out.append(_named(source, "a colour that does not stand out from its background"))
    return out


def cover(name: str, win: Callable[[str], Decl | None]) -> Doubt | None:
    """A `::before` or `::after` box laid over its element's text: positioned, opaque and as
    large as the element (`inset: 0`, or 100% wide and high). None when it is not one."""
    position = win("position")
    if position is None or ident(position.value) not in ("absolute", "fixed"):
        return None
    opaque = False
    for prop in ("background", "background-color", "background-image"):
        found = win(prop)
        for t in significant(found.value) if found else ():
            if t.type == "url" or (t.type == "function" and t.lower_name == "url"):
                opaque = True
            elif t.type == "function" and "gradient" in t.lower_name:
                stops = gradient_stops([t]) or []
                opaque = opaque or (bool(stops) and all(s.alpha >= 0.9 for s in stops))
            else:
                colour = paint([t], None)
                opaque = opaque or (colour is not None and colour.alpha >= 0.9)
    if not opaque:
        return None
    whole = Basis(percent=(100.0, 100.0))

    def zero(prop: str) -> bool:
        found = win(prop)
        sizes = [length([t], whole) for t in significant(found.value)] if found else [None]
        return bool(sizes) and all(s is not None and s[1] <= 0 for s in sizes)

    def full(prop: str) -> bool:
        found = win(prop)
        size = length(found.value, whole) if found else None
        return size is not None and size[0] >= 100

    if zero("inset") or ((zero("top") or zero("bottom")) and full("width") and full("height")):
        what = f"{position.text()} with an opaque background, laid over its text"
        return Doubt(f"its ::{name} box: {what}", position.line, position.col, position.where)
    return None


def _named(culprit: Decl | None, what: str) -> Doubt:
    if culprit is None:
        return Doubt(what, 0, 0)
    return Doubt(f"{culprit.text()}: {what}", culprit.line, culprit.col, culprit.where)
