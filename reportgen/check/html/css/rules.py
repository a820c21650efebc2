"""A page's stylesheets as check holds them (pure): the declarations, rules and notes read out of
them by sheets.py, and the `Styles` that gathers them for the cascade."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tinycss2 import ast

from reportgen.check.html.css.match import Complex
from reportgen.errors import Severity

UNLAYERED = 1 << 20  # the layer of rules in no @layer: after every named one


@dataclass(frozen=True, kw_only=True)
class Source:
    """CSS text and where it is: its first character's line and column in the page, the
    conditions it holds under (a `<style media>`), and the file it is from ("": the page)."""

    text: str
    line: int
    col: int
    conds: frozenset[str] = frozenset()
    where: str = ""


@dataclass(frozen=True)
class Note:
    """Something about a page's CSS that check cannot read past, at its place in the page."""

    line: int
    col: int
    message: str
    severity: Severity = "error"


@dataclass(frozen=True, kw_only=True)
class Decl:
    """A declaration: its property (lower case, custom properties as written), value tokens,
    whether `!important`, and where it is (`where`: "file.css line N" outside the page)."""

    prop: str
    value: tuple[ast.Node, ...]
    important: bool
    line: int
    col: int
    where: str = ""

    def text(self) -> str:
        """`prop: value`, shortened for a message."""
        return f"{self.prop}: {brief(self.value)}"


@dataclass(frozen=True, kw_only=True)
class Rule:
    """One selector of a style rule with the rule's declarations. `selector` None: one check
    cannot read, which may match any element."""

    selector: Complex | None
    pseudo: str | None
    specificity: tuple[int, int, int]
    decls: tuple[Decl, ...]
    conds: frozenset[str]
    layer: int
    order: int


@dataclass(frozen=True, kw_only=True)
class Import:
    """An `@import` to read: its address, where it is, and the conditions and layer it is in."""

    href: str
    line: int
    col: int
    conds: frozenset[str]
    layer: int


@dataclass(kw_only=True)
class Styles:
    """Everything read from a page's stylesheets so far."""

    rules: list[Rule] = field(default_factory=list)
    keyframes: dict[str, list[Decl]] = field(default_factory=dict)
    custom: dict[str, list[Decl]] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)
    layers: dict[str, int] = field(default_factory=dict)
    size: int = 0
    full: bool = False  # a cap was reached: nothing more is read

    def layer(self, name: str) -> int:
        return self.layers.setdefault(name, len(self.layers))


def brief(tokens: Sequence[ast.Node], limit: int = 60) -> str:
    """Tokens as CSS text, cut at `limit` characters (iteratively: values may nest deeply)."""
    out: list[str] = []
    size = 0
    stack: list[ast.Node | str] = list(reversed(tokens))
    while stack and size <= limit:
        t = stack.pop()
        if isinstance(t, str):
            piece = t
        elif t.type in ("() block", "[] block", "{} block"):
            piece = t.type[0]
            stack.append(t.type[1])
            stack.extend(reversed(t.content))
        elif t.type == "function":
            piece = t.name + "("
            stack.append(")")
            stack.extend(reversed(t.arguments))
        else:
            piece = t.serialize()
        out.append(piece)
        size += len(piece)
    text = " ".join("".join(out).split())
    return text if size <= limit else text[:limit] + "..."
