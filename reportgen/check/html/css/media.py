"""Media queries evaluated for the screens and printers readers use (pure): a query's text in,
for each `Environment`, whether it holds (True, False) or check cannot tell (None).

A page is read as it shows on a small and a large phone, a tablet upright and on its side, three
desktop widths (each in a light and a dark colour scheme) and on paper: `ENVIRONMENTS`. A query
check cannot evaluate (an unknown feature) is None: the cascade then takes the rules under it as
holding for some readers only.

Worst case: linear in the query's tokens; nesting deeper than `DEPTH` is not evaluated (None).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

import tinycss2
from tinycss2 import ast

DEPTH = 16


@dataclass(frozen=True, kw_only=True)
class Environment:
    """What a media query can ask about a reader's screen or paper."""

    name: str
    kind: str  # "screen" or "print"
    width: float  # CSS px
    height: float
    dark: bool = False
    hover: bool = False  # a mouse: hovers, points finely
    dppx: float = 1.0


def _screens() -> list[Environment]:
    sizes = [
        ("a small phone", 320, 568, False, 2.0),
        ("a phone", 390, 844, False, 3.0),
        ("a tablet", 768, 1024, False, 2.0),
        ("a tablet on its side", 1024, 768, False, 2.0),
        ("a laptop", 1280, 800, True, 1.0),
        ("a desktop", 1920, 1080, True, 1.0),
        ("a wide desktop", 2560, 1440, True, 1.0),
    ]
    out = []
    for dark in (False, True):
        for name, w, h, hover, dppx in sizes:
            label = f"{name}{' in dark mode' if dark else ''}"
            out.append(
                Environment(
                    name=label, kind="screen", width=w, height=h, dark=dark, hover=hover, dppx=dppx
                )
            )
    return out


# the laptop first: the environment findings are named by when one must be chosen
ENVIRONMENTS = tuple(
    sorted(
        [*_screens(), Environment(name="paper", kind="print", width=718, height=1047)],
        key=lambda e: (e.name != "a laptop", e.dark),
    )
)
_LENGTH = {"px": 1.0, "em": 16.0, "rem": 16.0, "pt": 4 / 3, "pc": 16.0, "in": 96.0}
_LENGTH |= {"cm": 96 / 2.54, "mm": 9.6 / 2.54, "q": 2.4 / 2.54, "ex": 8.0, "ch": 8.0}
_CONSTANT = {
    "prefers-reduced-motion": "no-preference",
    "prefers-contrast": "no-preference",
    "prefers-reduced-transparency": "no-preference",
    "prefers-reduced-data": "no-preference",
    "forced-colors": "none",
    "inverted-colors": "none",
    "scripting": "enabled",
    "display-mode": "browser",
    "dynamic-range": "standard",
    "video-dynamic-range": "standard",
    "color-gamut": "srgb",
}
Truth = bool | None


def _not(a: Truth) -> Truth:
    return None if a is None else not a


def _and(values: Sequence[Truth]) -> Truth:
    return False if False in values else None if None in values else True


def _or(values: Sequence[Truth]) -> Truth:
    return True if True in values else None if None in values else False


def _sig(tokens: Sequence[ast.Node]) -> list[ast.Node]:
    return [t for t in tokens if t.type not in ("whitespace", "comment")]


@lru_cache(maxsize=4096)
def holds(query: str, env: Environment) -> Truth:
    """Whether the media query list `query` holds in `env` (None: not known)."""
    tokens = tinycss2.parse_component_value_list(query, skip_comments=True)
    parts: list[list[ast.Node]] = [[]]
    for t in tokens:
        if t == ",":
            parts.append([])
        else:
            parts[-1].append(t)
    return _or([_query(_sig(p), env) for p in parts if _sig(p)])


def _query(tokens: list[ast.Node], env: Environment) -> Truth:
    """`[not|only] type [and condition]` or a condition."""
    if not tokens:
        return True
    negate = False
    head = tokens[0]
    prefix = head.type == "ident" and head.lower_value in ("not", "only")
    if prefix and len(tokens) > 1 and tokens[1].type == "ident":
        negate = head.lower_value == "not"
        tokens = tokens[1:]
        head = tokens[0]
    if head.type == "ident" and head.lower_value not in ("not",):
        kind = head.lower_value
        matched: Truth = kind == "all" or kind == env.kind
        rest = tokens[1:]
        if rest and rest[0].type == "ident" and rest[0].lower_value == "and":
            matched = _and([matched, _condition(rest[1:], env, 0)])
        elif rest:
            matched = None
        return _not(matched) if negate else matched
    found = _condition(tokens, env, 0)
    return _not(found) if negate else found


def _condition(tokens: list[ast.Node], env: Environment, depth: int) -> Truth:
    """`not (a)`, `(a) and (b) ...`, `(a) or (b) ...`."""
    if depth > DEPTH or not tokens:
        return None
    head = tokens[0]
    if head.type == "ident" and head.lower_value == "not":
        return _not(_condition(tokens[1:], env, depth + 1))
    values: list[Truth] = []
    joiner = None
    for k, t in enumerate(tokens):
        if k % 2:
            if t.type != "ident" or t.lower_value not in ("and", "or"):
                return None
            if joiner not in (None, t.lower_value):
                return None
            joiner = t.lower_value
        elif t.type == "() block":
            values.append(_in_parens(_sig(t.content), env, depth + 1))
        else:
            return None
    return _or(values) if joiner == "or" else _and(values)


def _in_parens(tokens: list[ast.Node], env: Environment, depth: int) -> Truth:
    if not tokens:
        return None
    if tokens[0].type == "() block" or (
        tokens[0].type == "ident" and tokens[0].lower_value == "not"
    ):
        return _condition(tokens, env, depth)
    if len(tokens) == 1 and tokens[0].type == "ident":
        return _boolean(tokens[0].lower_value, env)
    if len(tokens) >= 3 and tokens[0].type == "ident" and tokens[1] == ":":
        return _feature(tokens[0].lower_value, tokens[2:], env)
    return _range(tokens, env)


def _number(tokens: list[ast.Node]) -> float | None:
    if len(tokens) == 3 and tokens[1] == "/":  # a ratio
        a, b = _number(tokens[:1]), _number(tokens[2:])
        return None if a is None or not b else a / b
    if len(tokens) != 1:
        return None
    t = tokens[0]
    if t.type == "number":
        return float(t.value)
    if t.type == "dimension":
        unit = t.lower_unit
        if unit in _LENGTH:
            return float(t.value) * _LENGTH[unit]
        scale = {"dppx": 1.0, "x": 1.0, "dpi": 1 / 96, "dpcm": 2.54 / 96}.get(unit)
        return None if scale is None else float(t.value) * scale
    return None


def _value(name: str, env: Environment) -> float | str | None:
    base = name.removeprefix("device-")
    numbers = {
        "width": float(env.width),
        "height": float(env.height),
        "aspect-ratio": env.width / env.height,
        "resolution": env.dppx,
        "color": 8.0,
        "monochrome": 0.0,
        "color-index": 0.0,
        "grid": 0.0,
    }
    if base in numbers:
        return numbers[base]
    if name == "orientation":
        return "portrait" if env.height >= env.width else "landscape"
    if name == "prefers-color-scheme":
        return "dark" if env.dark else "light"
    if name in ("hover", "any-hover"):
        return "hover" if env.hover else "none"
    if name in ("pointer", "any-pointer"):
        return "none" if env.kind == "print" else "fine" if env.hover else "coarse"
    if name == "update":
        return "none" if env.kind == "print" else "fast"
    if name == "scan":
        return "progressive"
    return _CONSTANT.get(name)


def _boolean(name: str, env: Environment) -> Truth:
    value = _value(name, env)
    if value is None:
        return None
    return value not in (0.0, "none", "no-preference")


def _feature(name: str, tokens: list[ast.Node], env: Environment) -> Truth:
    prefix = name[:4] if name.startswith(("min-", "max-")) else ""
    value = _value(name.removeprefix(prefix), env)
    if value is None:
        return None
    if isinstance(value, str):
        want = tokens[0].lower_value if len(tokens) == 1 and tokens[0].type == "ident" else None
        return None if want is None or prefix else value == want
    wanted = _number(tokens)
    if wanted is None:
        return None
    if prefix == "min-":
        return value >= wanted
    if prefix == "max-":
        return value <= wanted
    return abs(value - wanted) < 1e-9


def _range(tokens: list[ast.Node], env: Environment) -> Truth:
    """`(width >= 40em)`, `(400px < width <= 700px)`."""
    ops = [k for k, t in enumerate(tokens) if t in ("<", ">", "=")]
    pieces: list[list[ast.Node]] = []
    relations: list[str] = []
    start = 0
    k = 0
    while k < len(tokens):
        if k in ops:
            pieces.append(tokens[start:k])
            op = tokens[k].value
            if k + 1 < len(tokens) and tokens[k + 1] == "=":
                op += "="
                k += 1
            relations.append(op)
            start = k + 1
        k += 1
    pieces.append(tokens[start:])
    if len(pieces) not in (2, 3) or len(relations) != len(pieces) - 1:
        return None
    values: list[float | None] = []
    for piece in pieces:
        if len(piece) == 1 and piece[0].type == "ident":
            found = _value(piece[0].lower_value, env)
            values.append(found if isinstance(found, float) else None)
        else:
            values.append(_number(piece))
    results: list[Truth] = []
    for (a, b), op in zip(pairwise(values), relations, strict=True):
        if a is None or b is None:
            return None
        results.append(
            {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "=": abs(a - b) < 1e-9}.get(op)
        )
    return _and(results)
