"""One element's computed look, as far as what readers see of its text goes (a record): the
`Look`, the custom properties in its `Scope`, and the `Doubt`s it carries.

`looks.compute` makes a `Look`; `doubts` judges one (both import it from here).
"""

from __future__ import annotations

from dataclasses import dataclass

from tinycss2 import ast

from reportgen.check.html.css.rules import Decl
from reportgen.check.html.css.values import Paint

BLACK = Paint(0.0, 1.0)


@dataclass(frozen=True)
class Doubt:
    """A style that may keep readers from seeing text, and where it is."""

    what: str
    line: int
    col: int
    where: str = ""

    def said(self) -> str:
        place = self.where or (f"line {self.line}" if self.line else "")
        return f"{self.what} ({place})" if place else self.what


class Scope:
    """Custom properties: those an element declares, and its parent's scope for the rest."""

    __slots__ = ("cache", "own", "parent")

    def __init__(self, own: dict[str, tuple[ast.Node, ...]], parent: Scope | None) -> None:
        self.own, self.parent = own, parent
        self.cache: dict[str, tuple[ast.Node, ...] | None] = {}

    def get(self, name: str) -> tuple[ast.Node, ...] | None:
        chain: list[Scope] = []
        scope: Scope | None = self
        found: tuple[ast.Node, ...] | None = None
        while scope is not None:
            if name in scope.own:
                found = scope.own[name]
                break
            if name in scope.cache:
                found = scope.cache[name]
                break
            chain.append(scope)
            scope = scope.parent
        for s in chain:
            s.cache[name] = found
        return found


class Look:
    """The computed style of an element, as far as what readers see of its text goes."""

    __slots__ = (
        "bg",
        "block",
        "color",
        "doubts",
        "fill",
        "flex",
        "font",
        "hidden",
        "letter",
        "opacity",
        "root_font",
        "rtl",
        "said",
        "scale",
        "scope",
        "visible",
        "why",
    )

    def __init__(self) -> None:
        self.hidden = False
        self.block = True
        self.flex = False
        self.font = 16.0
        self.root_font = 16.0
        self.scale = 1.0
        self.opacity = 1.0
        self.color: Paint | None = BLACK
        self.fill: Paint | str | None = None  # -webkit-text-fill-color; "image": a gradient
        self.bg: tuple[float, ...] | None = (1.0,)  # the background's luminances; None: unknown
        self.visible = True
        self.rtl = False
        self.letter = 0.0
        self.doubts: tuple[Doubt, ...] = ()
        self.why: dict[str, Decl] = {}  # what set the font size, opacity, colour, scale
        self.scope = Scope({}, None)
        self.said: tuple[Doubt, ...] | None = None  # its text_doubts, once asked

    def child(self) -> Look:
        """The look a child starts from: inherited values kept, the rest initial."""
        out = Look()
        out.hidden, out.font, out.root_font = self.hidden, self.font, self.root_font
        out.scale, out.opacity, out.color, out.fill = (
            self.scale,
            self.opacity,
            self.color,
            self.fill,
        )
        out.bg, out.visible, out.rtl, out.letter = self.bg, self.visible, self.rtl, self.letter
        out.doubts, out.why, out.scope = self.doubts, self.why, self.scope
        out.block = False
        return out
