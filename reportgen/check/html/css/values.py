"""CSS values evaluated as far as `check` needs them (pure): lengths as ranges of pixels,
colours as luminance and opacity, transforms as the scale, mirroring and shift they give.

A length may depend on what check does not know (the window's width, a container's): it is
evaluated as the range (least, most) it can take, with the window from 320 to 2560 pixels wide
and 480 to 1440 high. `calc()`, `min()`, `max()` and `clamp()` are evaluated over ranges.
Anything else (an unknown unit or function) is None: not known.

Worst case: linear in the value's tokens; nesting deeper than `DEPTH` is not known.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from tinycss2 import ast
from tinycss2.color4 import Color
from tinycss2.color4 import parse_color as parse_color4

Range = tuple[float, float]
DEPTH = 16
WIDTH: Range = (320.0, 2560.0)
HEIGHT: Range = (480.0, 1440.0)
_ABSOLUTE = {"px": 1.0, "pt": 4 / 3, "pc": 16.0, "in": 96.0, "cm": 96 / 2.54, "mm": 9.6 / 2.54}
_ABSOLUTE["q"] = _ABSOLUTE["mm"] / 4
OFF = 1000.0  # px: a box moved this far is off the page (left: -9999px)


@dataclass(frozen=True)
class Basis:
    """What relative lengths are relative to: the font size (px) of the element (or its parent,
    for `font-size`) and of the root, and what a percentage is of (None: not known)."""

    em: float = 16.0
    rem: float = 16.0
    percent: Range | None = None


def significant(tokens: Sequence[ast.Node]) -> list[ast.Node]:
    """The tokens without whitespace and comments."""
    return [t for t in tokens if t.type not in ("whitespace", "comment")]


def _unit(value: float, unit: str, basis: Basis) -> Range | None:
    if unit in _ABSOLUTE:
        v = value * _ABSOLUTE[unit]
        return v, v
    scale: Range | None = {
        "em": (basis.em, basis.em),
        "rem": (basis.rem, basis.rem),
        "ex": (basis.em / 2, basis.em / 2),
        "ch": (basis.em / 2, basis.em / 2),
        "cap": (basis.em * 0.7, basis.em * 0.7),
        "ic": (basis.em, basis.em),
        "lh": (basis.em * 1.2, basis.em * 1.2),
        "rlh": (basis.rem * 1.2, basis.rem * 1.2),
    }.get(unit)
    if scale is None:
        viewport = {"vw": WIDTH, "vi": WIDTH, "vh": HEIGHT, "vb": HEIGHT}
        viewport["vmin"] = (WIDTH[0], min(WIDTH[1], HEIGHT[1]))
        viewport["vmax"] = (HEIGHT[0], max(WIDTH[1], HEIGHT[1]))
        base = unit.lstrip("sld") if unit[:1] in "sld" and unit[1:2] == "v" else unit
        if base in viewport:
            scale = (viewport[base][0] / 100, viewport[base][1] / 100)
        elif unit in ("cqw", "cqi", "cqmin", "cqh", "cqb", "cqmax"):
            scale = (0.0, WIDTH[1] / 100)
    if scale is None:
        return None
    return _times((value, value), scale)


def _times(a: Range, b: Range) -> Range:
    products = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
    return min(products), max(products)


def length(tokens: Sequence[ast.Node], basis: Basis, depth: int = 0) -> Range | None:
    """The range of pixels a length (one token, or a math function) can be."""
    found = _term(tokens, basis, depth)
    if found is None or (not found[1] and found[0] != (0.0, 0.0)):
        return None
    return found[0]


Quantity = tuple[Range, bool]  # a range, and whether it is a length (else a plain number)


def _term(tokens: Sequence[ast.Node], basis: Basis, depth: int) -> Quantity | None:
    parts = significant(tokens)
    if len(parts) != 1 or depth > DEPTH:
        return None
    token = parts[0]
    if token.type == "number":
        return (token.value, token.value), False
    if token.type == "dimension":
        found = _unit(token.value, token.lower_unit, basis)
        return None if found is None else (found, True)
    if token.type == "percentage":
        p = basis.percent
        return None if p is None else (_times((token.value / 100,) * 2, p), True)
    if token.type == "() block":
        return _sum(token.content, basis, depth + 1)
    if token.type == "function" and token.lower_name in ("calc", "min", "max", "clamp"):
        args = [_sum(a, basis, depth + 1) for a in _split(token.arguments)]
        known = [a for a in args if a is not None]
        if len(known) != len(args) or not known:
            return None
        ranges = [r for r, _ in known]
        is_length = any(k for _, k in known)
        if token.lower_name == "calc":
            return known[0] if len(known) == 1 else None
        if token.lower_name == "min":
            return (min(r[0] for r in ranges), min(r[1] for r in ranges)), is_length
        if token.lower_name == "max":
            return (max(r[0] for r in ranges), max(r[1] for r in ranges)), is_length
        if len(ranges) == 3:
            lo, val, hi = ranges
            return (max(lo[0], min(val[0], hi[0])), max(lo[1], min(val[1], hi[1]))), is_length
    return None


def _split(tokens: Sequence[ast.Node]) -> list[list[ast.Node]]:
    out: list[list[ast.Node]] = [[]]
    for t in tokens:
        if t == ",":
            out.append([])
        else:
            out[-1].append(t)
    return out


def _sum(tokens: Sequence[ast.Node], basis: Basis, depth: int) -> Quantity | None:
    """A calc() sum: terms joined by + and -, each a product of factors joined by * and /."""
    total: Quantity | None = None
    sign = 1.0
    term: list[ast.Node] = []
    for t in [*significant(tokens), None]:
        if t is not None and not (t in ("+", "-") and term):
            term.append(t)
            continue
        value = _product(term, basis, depth)
        if value is None:
            return None
        (lo, hi), is_length = value
        lo, hi = (lo, hi) if sign > 0 else (-hi, -lo)
        if total is not None:
            if total[1] != is_length and (lo, hi) != (0.0, 0.0) and total[0] != (0.0, 0.0):
                return None
            lo, hi, is_length = total[0][0] + lo, total[0][1] + hi, total[1] or is_length
        total = (lo, hi), is_length
        sign = -1.0 if t == "-" else 1.0
        term = []
    return total


def _product(tokens: list[ast.Node], basis: Basis, depth: int) -> Quantity | None:
    """A calc() product: factors joined by * and /, at most one of them a length."""
    result: Quantity | None = None
    op = "*"
    for t in tokens:
        if t in ("*", "/"):
            op = t.value
            continue
        factor = _term([t], basis, depth + 1)
        if factor is None:
            return None
        if result is None:
            result = factor
        elif op == "/":
            (lo, hi), is_length = factor
            if is_length or lo <= 0 <= hi:
                return None
            result = _times(result[0], (1 / hi, 1 / lo)), result[1]
        else:
            if result[1] and factor[1]:
                return None
            result = _times(result[0], factor[0]), result[1] or factor[1]
    return result


def number(tokens: Sequence[ast.Node]) -> float | None:
    """A plain number or percentage (as a fraction), e.g. an opacity."""
    parts = significant(tokens)
    if len(parts) != 1:
        return None
    t = parts[0]
    if t.type == "number":
        return float(t.value)
    if t.type == "percentage":
        return float(t.value) / 100
    if t.type == "function" and t.lower_name in ("calc", "min", "max", "clamp"):
        found = _term([t], Basis(), 0)
        if found is not None and not found[1] and found[0][0] == found[0][1]:
            return found[0][0]
    return None


@dataclass(frozen=True)
class Paint:
    """A colour as contrast needs it: relative luminance (0 black .. 1 white) and opacity."""

    luminance: float
    alpha: float


def _luminance(color: Color) -> float | None:
    space = color.space
    try:
        if space in ("hsl", "hwb"):
            color, space = color.to("srgb"), "srgb"
        if space in ("lab", "lch"):
            return max(0.0, min(1.0, color.to("xyz-d50").coordinates[1] or 0.0))
        if space in ("oklab", "oklch"):
            return max(0.0, min(1.0, color.to("xyz-d65").coordinates[1] or 0.0))
    except NotImplementedError:
        return None
    if space in ("xyz", "xyz-d50", "xyz-d65"):
        return max(0.0, min(1.0, color.coordinates[1] or 0.0))
    channels = [max(0.0, min(1.0, c or 0.0)) for c in color.coordinates]
    if space == "srgb-linear":
        linear = channels
    else:  # srgb, and wide gamuts read as if sRGB (near enough for contrast)
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def paint(tokens: Sequence[ast.Node], current: Paint | None) -> Paint | None:
    """A colour value (`currentcolor`: `current`); None when not known."""
    parts = significant(tokens)
    if len(parts) != 1:
        return None
    token = parts[0]
    if token.type == "function" and token.lower_name == "light-dark":
        halves = _split(token.arguments)
        return paint(halves[0], current) if len(halves) == 2 else None
    if token.type == "function" and token.lower_name == "color-mix":
        return _mix(token.arguments, current)
    found = parse_color4(token)
    if found == "currentcolor":
        return current
    if not isinstance(found, Color):
        return None
    lum = _luminance(found)
    return None if lum is None else Paint(lum, found.alpha)


def _mix(arguments: Sequence[ast.Node], current: Paint | None) -> Paint | None:
    parts = _split(arguments)[1:]  # after "in <space>"
    mixed: list[tuple[Paint, float | None]] = []
    for part in parts:
        toks = significant(part)
        share = next((t.value / 100 for t in toks if t.type == "percentage"), None)
        colour = paint([t for t in toks if t.type != "percentage"], current)
        if colour is None:
            return None
        mixed.append((colour, share))
    if len(mixed) != 2:
        return None
    (a, pa), (b, pb) = mixed
    pa = pa if pa is not None else 1 - pb if pb is not None else 0.5
    pb = 1 - pa if pb is None else pb
    total = pa + pb
    if total <= 0:
        return None
    alpha = (a.alpha * pa + b.alpha * pb) / total
    lum = (a.luminance * pa + b.luminance * pb) / total
    return Paint(lum, alpha * min(1.0, total))


def over(top: Paint, below: float) -> float:
    """The luminance seen where `top` is laid over an opaque luminance `below`."""
    return top.luminance * top.alpha + below * (1 - top.alpha)


def contrast(a: float, b: float) -> float:
    """WCAG's contrast ratio of two luminances: 1 (none) to 21."""
    hi, lo = max(a, b), min(a, b)
    return (hi + 0.05) / (lo + 0.05)


def gradient_stops(tokens: Sequence[ast.Node]) -> list[Paint] | None:
    """The colours of a `*-gradient()` background image; None when not a gradient."""
    parts = significant(tokens)
    if len(parts) != 1 or parts[0].type != "function" or "gradient" not in parts[0].lower_name:
        return None
    stops = []
    for part in _split(parts[0].arguments):
        for t in significant(part):
            colour = paint([t], None)
            if colour is not None:
                stops.append(colour)
    return stops or None


@dataclass(frozen=True)
class Transform:
    """What a transform does to text: its smallest scale, whether it mirrors or turns it upside
    down, and the most it moves it (px; None: not known)."""

    scale: float
    mirrored: bool
    upside_down: bool
    shift: float | None


def _angle(token: ast.Node) -> float | None:
    if token.type == "dimension":
        per = {"deg": 1.0, "rad": 180 / math.pi, "grad": 0.9, "turn": 360.0}.get(token.lower_unit)
        return None if per is None else token.value * per
    if token.type == "number" and token.value == 0:
        return 0.0
    return None


_Matrix = tuple[float, float, float, float]  # a, b, c, d of [[a, c], [b, d]]


def _scale(name: str, flat: list[ast.Node]) -> _Matrix | None:
    values = [number([t]) for t in flat]
    if any(v is None for v in values) or not values:
        return None
    sx = values[0] if name != "scaley" else 1.0
    sy = values[1] if name in ("scale", "scale3d") and len(values) > 1 else values[0]
    sy = sy if name != "scalex" else 1.0
    return (sx or 0.0, 0.0, 0.0, sy or 0.0)


def _rotate(name: str, flat: list[ast.Node]) -> _Matrix | None:
    angle = _angle(flat[-1]) if flat else None
    if angle is None:
        return None
    cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    if name == "rotatex":
        return (1.0, 0.0, 0.0, cos)
    if name == "rotatey":
        return (cos, 0.0, 0.0, 1.0)
    if name == "rotate3d":
        return None
    return (cos, sin, -sin, cos)


def _skew(name: str, flat: list[ast.Node]) -> _Matrix | None:
    angles = [_angle(t) for t in flat]
    if any(x is None for x in angles) or not angles:
        return None
    tx = math.tan(math.radians(angles[0] or 0.0)) if name != "skewy" else 0.0
    ty = math.tan(math.radians(angles[-1] or 0.0)) if name != "skewx" else 0.0
    if name == "skew":
        ty = math.tan(math.radians(angles[1] or 0.0)) if len(angles) > 1 else 0.0
    return (1.0, ty, tx, 1.0)


def _matrix(name: str, flat: list[ast.Node]) -> tuple[_Matrix, float] | None:
    """A `matrix()` or `matrix3d()` as its 2x2 part and the most it moves."""
    values = [number([t]) for t in flat]
    if any(v is None for v in values) or len(values) not in (6, 16):
        return None
    v = [x or 0.0 for x in values]
    m = (v[0], v[1], v[2], v[3]) if name == "matrix" else (v[0], v[1], v[4], v[5])
    far = max(abs(v[4]), abs(v[5])) if name == "matrix" else max(abs(v[12]), abs(v[13]))
    return m, far


def _translate(flat: list[ast.Node], basis: Basis) -> float | None:
    """The most a `translate*()` moves (px); None when not known."""
    shift = 0.0
    for t in flat:
        moved = length([t], basis)
        if moved is None and t.type == "percentage":  # of its own size: off at 100%
            moved = (OFF, OFF) if abs(t.value) >= 100 else (0.0, 0.0)
        if moved is None:
            return None
        shift = max(shift, abs(moved[0]), abs(moved[1]))
    return shift


_LINEAR = {
    **dict.fromkeys(("scale", "scalex", "scaley", "scale3d"), _scale),
    **dict.fromkeys(("rotate", "rotatez", "rotatex", "rotatey", "rotate3d"), _rotate),
    **dict.fromkeys(("skew", "skewx", "skewy"), _skew),
}


def transform(tokens: Sequence[ast.Node], basis: Basis) -> Transform | None:
    """A `transform` value as a 2x2 matrix and a shift; None when not known."""
    a, b, c, d = 1.0, 0.0, 0.0, 1.0
    shift = 0.0
    for fn in significant(tokens):
        if fn.type == "ident" and fn.lower_value == "none":
            continue
        if fn.type != "function":
            return None
        args = [significant(p) for p in _split(fn.arguments)]
        flat = [t for p in args for t in p]
        name = fn.lower_name
        m: _Matrix | None = None
        if name in _LINEAR:
            m = _LINEAR[name](name, flat)
        elif name in ("matrix", "matrix3d"):
            found = _matrix(name, flat)
            if found is not None:
                m, far = found
                shift = max(shift, far)
        elif name.startswith("translate"):
            moved = _translate(flat, basis)
            if moved is None:
                return None
            shift = max(shift, moved)
            continue
        elif name == "perspective":
            continue
        if m is None:
            return None
        a, b, c, d = (
            a * m[0] + c * m[1],
            b * m[0] + d * m[1],
            a * m[2] + c * m[3],
            b * m[2] + d * m[3],
        )
    # the smallest singular value of [[a, c], [b, d]]: how small the text can be drawn
    p, q = a * a + b * b + c * c + d * d, abs(a * d - b * c)
    smallest = math.sqrt(max(0.0, (p - math.sqrt(max(0.0, p * p - 4 * q * q))) / 2))
    angle = math.degrees(math.atan2(b, a)) % 360
    return Transform(smallest, a * d - b * c < 0, 135 < angle < 225 and a * d - b * c > 0, shift)
