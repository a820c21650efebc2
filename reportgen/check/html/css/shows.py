"""What a stylesheet shows by itself, whatever it matches (pure): generated content (`content`,
`quotes`, a list marker's string) holding a digit, a list's numbers changed by `counter-reset:
list-item`, a page box numbered by a counter. Each is failed closed where it is written. (A CSS
counter an element's `::before` shows is failed closed at the element: css/cascade.py.)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from tinycss2 import ast

from reportgen.check.html.css.rules import Decl, Note, Styles


def digits(text: str) -> bool:
    return any(c.isdigit() for c in text)


def flat(tokens: Sequence[ast.Node]) -> Iterator[ast.Node]:
    stack = list(reversed(tokens))
    while stack:
        t = stack.pop()
        yield t
        inner = t.arguments if t.type == "function" else getattr(t, "content", None)
        if isinstance(inner, list):
            stack.extend(reversed(inner))


def _strings(tokens: Sequence[ast.Node]) -> Iterator[ast.Node]:
    """The tokens of a value that may show as text: all but the address of an image."""
    stack = list(reversed(tokens))
    while stack:
        t = stack.pop()
        if t.type == "function" and t.lower_name in _IMAGES:
            continue
        yield t
        inner = t.arguments if t.type == "function" else getattr(t, "content", None)
        if isinstance(inner, list):
            stack.extend(reversed(inner))


_IMAGES = frozenset({"url", "image", "image-set", "-webkit-image-set", "cross-fade", "element"})


def shown_by(decl: Decl, page_box: bool = False, counted: bool = False) -> str | None:
    """What a declaration shows by itself that check cannot read, or None: generated content
    with a digit, list numbers changed, and (`counted`) a CSS counter (`page_box`: in a @page
    margin box, where `counter(page)` and `counter(pages)` number the printed pages)."""
    prop = decl.prop
    if prop in ("content", "quotes", "list-style", "list-style-type"):
        for t in _strings(decl.value):
            if t.type == "string" and digits(t.value):
                return f"it shows {t.value[:40]!r} through CSS ({decl.text()})"
            if (
                counted
                and prop == "content"
                and t.type == "function"
                and t.lower_name in ("counter", "counters")
            ):
                name = next((a for a in t.arguments if a.type == "ident"), None)
                if page_box and name is not None and name.lower_value in ("page", "pages"):
                    continue
                return (
                    f"it numbers with a CSS counter, which check does not compute ({decl.text()})"
                )
    counters = ("counter-reset", "counter-set", "counter-increment")
    if prop in counters and any(
        t.type == "ident" and t.lower_value == "list-item" for t in decl.value
    ):
        return f"it changes a list's numbers ({decl.text()})"
    return None


def shown(why: str, decl: Decl | None) -> str:
    where = f" ({decl.where})" if decl is not None and decl.where else ""
    return (
        f"readers see generated text check cannot read: {why}{where}; write the text in the "
        "page instead"
    )


def var_shown(styles: Styles) -> list[Note]:
    """Generated content taken from custom properties (`content: var(--x)`): failed closed
    where any value of the property shows a digit or a counter."""
    out: list[Note] = []
    for rule in {id(r.decls): r for r in styles.rules}.values():
        for decl in rule.decls:
            if decl.prop not in ("content", "quotes", "list-style", "list-style-type"):
                continue
            for t in flat(decl.value):
                if t.type != "function" or t.lower_name != "var":
                    continue
                name = next((a.value for a in t.arguments if a.type == "ident"), "")
                for value in styles.custom.get(name, []):
                    why = shown_by(
                        Decl(prop=decl.prop, value=value.value, important=False, line=0, col=0),
                        counted=True,
                    )
                    if why is not None:
                        out.append(Note(decl.line, decl.col, shown(why, decl)))
                        break
    return out
