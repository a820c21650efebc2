"""Stylesheets read into rules (pure): CSS text in, `Styles` out.

Each selector of a rule becomes one `Rule` with the rule's declarations, the conditions it
holds under (its `@media`, `@supports`, `@container`, ... preludes: each a label) and its cascade
layer. Nested rules (CSS Nesting) are flattened (`&` is `:is(parent)`).

What a stylesheet can show by itself is judged here, whatever it matches: generated content
(`content`, `quotes`, a list marker's string) holding a digit, a CSS counter, a list's numbers
changed by `counter-reset: list-item`, a `@counter-style` or `@page` box that draws digits.
Each is a `Note`: check cannot read what it shows (a counter's value is not computed), so it
fails closed there.

Worst case: linear in the CSS read, which is capped (`MAX_CSS` characters, `MAX_RULES` selectors,
`MAX_NESTING` levels of nested blocks); past a cap a `Note` says what was left unread.

The same stylesheet comes back with every copy of a page that check reads: its text and its
selector lists are parsed once per process (`_sheet`, `_compiled`), in bounded caches.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import tinycss2
from cssselect2 import parser as sel
from tinycss2 import ast

from reportgen.check.html.css.match import Complex, complex_selector
from reportgen.check.html.css.rules import (
    UNLAYERED,
    Decl,
    Import,
    Note,
    Rule,
    Source,
    Styles,
    brief,
)
from reportgen.check.html.css.shows import digits, flat, shown, shown_by, var_shown

MAX_CSS = 4 * 1024 * 1024  # characters of CSS read per page (stylesheets and style attributes)
MAX_RULES = 20_000  # selectors
MAX_NESTING = 16  # levels of nested rules, and of blocks in a selector
_ALWAYS = frozenset({"", "all", "screen", "only screen", "only all", "not print"})
_CONDITIONAL = frozenset(
    ["media", "supports", "container", "scope", "document", "-moz-document", "starting-style"]
)
# A parse takes about 35 bytes per character of CSS (and its rules' blocks as much again), and
# a compiled selector list about 120 per character: the caches below hold at most 16 x 64 KiB of
# stylesheets (about 75 MB at worst) and 1024 x 256 characters of selectors (about 30 MB).
# Anything longer is parsed every time it is read.
CACHED_CSS = 64 * 1024
CACHED_SELECTOR = 256


@dataclass(eq=False, kw_only=True)
class _Sheet:
    """A parsed stylesheet: its top-level rules, and what its rules' blocks and selectors parse
    to, kept by rule as they are first read. Each rule is held by the sheet (as one of its nodes,
    or in a block kept here), and parsing is a pure function of a rule that nothing here changes
    the result of, so a kept stylesheet reads as a fresh one."""

    nodes: tuple[ast.Node, ...]
    blocks: dict[ast.Node, list[ast.Node]] = field(default_factory=dict)  # parse_blocks_contents
    rule_lists: dict[ast.Node, list[ast.Node]] = field(default_factory=dict)  # parse_rule_list
    selectors: dict[tuple[ast.Node, str | None], str | None] = field(default_factory=dict)
    kept: bool = False  # kept for the next reading: its selector lists are worth keeping too


def _sheet(text: str) -> _Sheet:
    """A stylesheet, parsed once per text when it is not large."""
    return _cached_sheet(text) if len(text) <= CACHED_CSS else _parse_sheet(text)


# Parsing the built page's stylesheet, its rules' blocks and their selectors is about half of
# reading it (6 of 13 ms for runs/tiny-llamacpp-two-tools).
@functools.lru_cache(maxsize=16)
def _cached_sheet(text: str) -> _Sheet:
    return replace(_parse_sheet(text), kept=True)


def _parse_sheet(text: str) -> _Sheet:
    nodes = tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True)
    return _Sheet(nodes=tuple(nodes))


def _kept(
    parsed: dict[ast.Node, list[ast.Node]],
    node: ast.QualifiedRule | ast.AtRule,
    parse: Callable[..., list[ast.Node]],
) -> list[ast.Node]:
    """`parse` of the rule's block, kept in `parsed` (one of a `_Sheet`'s tables)."""
    found = parsed.get(node)
    if found is None:
        found = parsed[node] = parse(node.content or [], skip_comments=True, skip_whitespace=True)
    return found


Compiled = tuple[Complex | None, str | None, tuple[int, int, int]]


def _compiled(text: str, keep: bool) -> list[Compiled]:
    """A selector list compiled (`_compile`), once per text when it is short and its stylesheet
    is kept (`keep`): each use of a kept one gets its own copy (`Complex.fresh`), so match.py
    counts its tests as it would for a new one. A stylesheet too long to keep is read once, and
    its selectors with it: keeping them would only push the kept ones out (a page of 3,000
    distinct selectors took 4.5 s against 3.8 s with them kept)."""
    if not keep or len(text) > CACHED_SELECTOR:
        return list(_compiled_anew(text))
    return [
        (s and s.fresh(), pseudo, specificity) for s, pseudo, specificity in _cached_compiled(text)
    ]


# Compiling the built page's 140 selector lists takes 2.9 ms, their copies 0.26 ms
# (runs/tiny-llamacpp-two-tools).
@functools.lru_cache(maxsize=1024)
def _cached_compiled(text: str) -> tuple[Compiled, ...]:
    return _compiled_anew(text)


def _compiled_anew(text: str) -> tuple[Compiled, ...]:
    parsed = sel.parse(text)
    return tuple((complex_selector(p.parsed_tree), p.pseudo_element, p.specificity) for p in parsed)


def _depth(tokens: Sequence[ast.Node]) -> int:
    deepest = 0
    stack = [(t, 1) for t in tokens]
    while stack:
        t, d = stack.pop()
        inner = getattr(t, "content", None) if t.type != "function" else t.arguments
        if isinstance(inner, list):
            deepest = max(deepest, d)
            if d <= MAX_NESTING:
                stack.extend((x, d + 1) for x in inner)
            else:
                return d
    return deepest


def _where(source: Source, node: ast.Node) -> tuple[int, int, str]:
    """A node's place in the page (a linked stylesheet: the <link>'s), and its place in its
    file for the message."""
    if source.where:
        return source.line, source.col, f"{source.where} line {node.source_line}"
    line = source.line + node.source_line - 1
    col = source.col + node.source_column - 1 if node.source_line == 1 else node.source_column
    return line, col, ""


class Reader:
    """Reads stylesheets into a `Styles`; `on_import` is called with each `@import` where it
    stands (before the rules after it, as browsers read it)."""

    def __init__(self, styles: Styles) -> None:
        self.styles = styles
        self.on_import: Callable[[Import], None] | None = None
        self._late = False  # a rule was read: an @import after it is ignored, as browsers do
        self._inline: dict[str, tuple[Decl, ...]] = {}
        self._sheet = _Sheet(nodes=())  # the stylesheet being read

    def read(self, source: Source, layer: int = UNLAYERED) -> None:
        """Read one stylesheet (a <style>, a linked file) into the styles."""
        styles = self.styles
        if styles.full:
            return
        if styles.size + len(source.text) > MAX_CSS:
            self._cap(source.line, source.col, f"over {MAX_CSS // (1024 * 1024)} MiB of CSS")
            return
        styles.size += len(source.text)
        sheet = _sheet(source.text)
        late, on_import, outer, self._late = self._late, self.on_import, self._sheet, False
        self._sheet = sheet
        try:
            self._nodes(sheet.nodes, source, source.conds, layer, None, 0)
        finally:
            self._late, self.on_import, self._sheet = late, on_import, outer

    def inline(self, text: str, line: int, col: int) -> tuple[Decl, ...]:
        """The declarations of a style attribute (each text read once: the same declarations
        for every element written with it, which the cascade then computes once)."""
        known = self._inline.get(text)
        if known is not None:
            return known
        styles = self.styles
        if styles.full or styles.size + len(text) > MAX_CSS:
            if not styles.full:
                self._cap(line, col, f"over {MAX_CSS // (1024 * 1024)} MiB of CSS")
            return ()
        styles.size += len(text)
        out = []
        for d in tinycss2.parse_blocks_contents(text, skip_comments=True, skip_whitespace=True):
            if isinstance(d, ast.Declaration):
                decl = self._decl(d, Source(text="", line=line, col=col), at=(line, col))
                out.append(replace(decl, where=f"a style attribute, first at line {line}"))
        self._check(out, page_box=False)
        self._inline[text] = tuple(out)
        return self._inline[text]

    def _cap(self, line: int, col: int, what: str) -> None:
        self.styles.full = True
        self.styles.notes.append(
            Note(
                line,
                col,
                f"check cannot see what this page shows: its CSS is larger than check reads "
                f"({what}; at most {MAX_RULES} selectors): the rest is unread",
            )
        )

    def _decl(self, d: ast.Declaration, source: Source, at: tuple[int, int] | None = None) -> Decl:
        line, col, where = (*at, "") if at else _where(source, d)
        name = d.name if d.name.startswith("--") else d.lower_name
        value = tuple(t for t in d.value if t.type != "comment")
        while value and value[0].type == "whitespace":
            value = value[1:]
        while value and value[-1].type == "whitespace":
            value = value[:-1]
        decl = Decl(
            prop=name, value=value, important=bool(d.important), line=line, col=col, where=where
        )
        if name.startswith("--"):
            self.styles.custom.setdefault(name, []).append(decl)
        return decl

    def _nodes(
        self,
        nodes: Sequence[ast.Node],
        source: Source,
        conds: frozenset[str],
        layer: int,
        parent: str | None,
        depth: int,
    ) -> None:
        styles = self.styles
        for node in nodes:
            if styles.full:
                return
            if isinstance(node, ast.QualifiedRule):
                self._style_rule(node, source, conds, layer, parent, depth)
            elif isinstance(node, ast.AtRule):
                self._at_rule(node, source, conds, layer, parent, depth)

    def _style_rule(
        self,
        node: ast.QualifiedRule,
        source: Source,
        conds: frozenset[str],
        layer: int,
        parent: str | None,
        depth: int,
    ) -> None:
        self._late = True
        if depth > MAX_NESTING:
            line, col, _ = _where(source, node)
            self._cap(line, col, f"rules nested over {MAX_NESTING} deep")
            return
        content = self._contents(node)
        decls = tuple(self._decl(d, source) for d in content if isinstance(d, ast.Declaration))
        selector = self._selector(node, parent)
        self._check(decls, page_box=False)
        if decls:
            self._add(selector, decls, conds, layer)
        nested = [n for n in content if isinstance(n, ast.QualifiedRule | ast.AtRule)]
        if nested:
            self._nodes(nested, source, conds, layer, selector or ":not(*)", depth + 1)

    def _contents(self, node: ast.QualifiedRule | ast.AtRule) -> list[ast.Node]:
        """The declarations and rules in a rule's block (parsed once per kept stylesheet)."""
        return _kept(self._sheet.blocks, node, tinycss2.parse_blocks_contents)

    def _rules(self, node: ast.AtRule) -> list[ast.Node]:
        """The rules in an at-rule's block (parsed once per kept stylesheet)."""
        return _kept(self._sheet.rule_lists, node, tinycss2.parse_rule_list)

    def _selector(self, node: ast.QualifiedRule, parent: str | None) -> str | None:
        """`_selector_text` of a rule (found once per kept stylesheet and parent)."""
        key = (node, parent)
        if key not in self._sheet.selectors:
            self._sheet.selectors[key] = _selector_text(node.prelude, parent)
        return self._sheet.selectors[key]

    def _add(
        self, selector: str | None, decls: tuple[Decl, ...], conds: frozenset[str], layer: int
    ) -> None:
        styles = self.styles
        parsed = _compile(selector, self._sheet.kept)
        for complex_, pseudo, specificity in parsed:
            if len(styles.rules) >= MAX_RULES:
                self._cap(decls[0].line, decls[0].col, f"over {MAX_RULES} selectors")
                return
            styles.rules.append(
                Rule(
                    selector=complex_,
                    pseudo=pseudo,
                    specificity=specificity,
                    decls=decls,
                    conds=conds,
                    layer=layer,
                    order=len(styles.rules),
                )
            )

    def _check(self, decls: Sequence[Decl], page_box: bool) -> None:
        for decl in decls:
            why = shown_by(decl, page_box, counted=page_box)
            if why is not None:
                self.styles.notes.append(Note(decl.line, decl.col, shown(why, decl)))

    def _at_rule(
        self,
        node: ast.AtRule,
        source: Source,
        conds: frozenset[str],
        layer: int,
        parent: str | None,
        depth: int,
    ) -> None:
        styles = self.styles
        name = node.lower_at_keyword
        prelude = " ".join(brief(node.prelude, 400).lower().split())
        line, col, _ = _where(source, node)
        if name == "import":
            self._import(node, conds, layer, depth == 0, (line, col))
            return
        if name not in ("charset", "layer") or node.content is not None:
            self._late = True
        if name == "layer":
            names = [n.strip() for n in brief(node.prelude, 400).split(",") if n.strip()]
            if node.content is None:
                for n in names:
                    styles.layer(n)
                return
            layer = styles.layer(names[0] if names else f"#anonymous{line}:{col}")
        elif name in _CONDITIONAL:
            conds = _cond(conds, f"@{name} {prelude}" if name != "media" else prelude)
        elif name in ("keyframes", "-webkit-keyframes", "-moz-keyframes"):
            self._keyframes(node, source, prelude)
            return
        elif name == "page":
            self._page(node, source)
            return
        elif name == "counter-style":
            self._counter_style(node, (line, col))
            return
        elif name == "property":
            self._property(node, source)
            return
        elif node.content is None or name in ("font-face", "font-feature-values", "namespace"):
            return
        elif name not in ("layer",):
            conds = _cond(conds, f"@{name} {prelude}")
        if node.content is not None:
            self._block(node, source, conds, layer, parent, depth)

    def _block(
        self,
        node: ast.AtRule,
        source: Source,
        conds: frozenset[str],
        layer: int,
        parent: str | None,
        depth: int,
    ) -> None:
        """The rules inside a conditional or layer at-rule, under its conditions and layer."""
        if parent is not None:  # nested in a style rule: its declarations are the parent's
            content = self._contents(node)
            decls = tuple(self._decl(d, source) for d in content if isinstance(d, ast.Declaration))
            self._check(decls, page_box=False)
            if decls:
                self._add(parent, decls, conds, layer)
            nested = [n for n in content if isinstance(n, ast.QualifiedRule | ast.AtRule)]
            self._nodes(nested, source, conds, layer, parent, depth + 1)
            return
        self._nodes(self._rules(node), source, conds, layer, None, depth + 1)

    def _import(
        self, node: ast.AtRule, conds: frozenset[str], layer: int, top: bool, at: tuple[int, int]
    ) -> None:
        """An `@import` before any other rule, at the top of its sheet, handed to `on_import`
        with its media and layer; a later one is not applied and is not read."""
        line, col = at
        href = next((t for t in flat(node.prelude) if t.type in ("url", "string")), None)
        if href is not None and not self._late and top and self.on_import:
            media = _import_media(node.prelude)
            named = next(
                (t for t in node.prelude if t.type == "function" and t.lower_name == "layer"),
                None,
            )
            if named is not None:
                layer = self.styles.layer(brief(named.arguments, 200) or f"#import{line}:{col}")
            self.on_import(
                Import(href=href.value, line=line, col=col, conds=_cond(conds, media), layer=layer)
            )

    def _counter_style(self, node: ast.AtRule, at: tuple[int, int]) -> None:
        """A note when a `@counter-style` draws digits or words as list markers."""
        drawn = [
            t
            for t in flat(node.content or [])
            if (t.type == "string" and digits(t.value))
            or (t.type == "ident" and t.lower_value in ("extends", "numeric", "additive"))
        ]
        if drawn:
            why = "a @counter-style draws list markers, which check does not read"
            self.styles.notes.append(Note(at[0], at[1], shown(why, None)))

    def _property(self, node: ast.AtRule, source: Source) -> None:
        """A registered custom property's `initial-value`, kept as a declaration of it."""
        for d in tinycss2.parse_blocks_contents(node.content or [], skip_comments=True):
            if isinstance(d, ast.Declaration) and d.lower_name == "initial-value":
                custom = brief(node.prelude, 200).strip()
                decl = self._decl(d, source)
                self.styles.custom.setdefault(custom, []).append(decl)

    def finish(self) -> None:
        """Generated content taken from custom properties (`content: var(--x)`)."""
        self.styles.notes.extend(var_shown(self.styles))

    def _keyframes(self, node: ast.AtRule, source: Source, name: str) -> None:
        """An animation's keyframes, the last (100%, `to`) last: the cascade lets the last
        declaration of a property win, which is where the animation ends."""
        frames: list[tuple[float, list[Decl]]] = []
        for frame in tinycss2.parse_rule_list(node.content or [], skip_comments=True):
            if isinstance(frame, ast.QualifiedRule):
                content = tinycss2.parse_blocks_contents(frame.content, skip_comments=True)
                decls = [self._decl(d, source) for d in content if isinstance(d, ast.Declaration)]
                self._check(decls, page_box=False)
                frames.append((_offset(frame.prelude), decls))
        frames.sort(key=lambda f: f[0])
        out = self.styles.keyframes.setdefault(name.strip("\"'"), [])
        out.extend(d for _, decls in frames for d in decls)

    def _page(self, node: ast.AtRule, source: Source) -> None:
        content = tinycss2.parse_blocks_contents(node.content or [], skip_comments=True)
        decls = [self._decl(d, source) for d in content if isinstance(d, ast.Declaration)]
        for box in content:
            if isinstance(box, ast.AtRule) and box.content is not None:
                inner = tinycss2.parse_blocks_contents(box.content, skip_comments=True)
                decls += [self._decl(d, source) for d in inner if isinstance(d, ast.Declaration)]
        self._check(decls, page_box=True)


def _offset(prelude: Sequence[ast.Node]) -> float:
    """Where a keyframe is in its animation (0 to 100; the last of a list)."""
    offsets = [
        0.0 if t.type == "ident" and t.lower_value == "from" else 100.0
        for t in prelude
        if t.type == "ident"
    ] + [float(t.value) for t in prelude if t.type == "percentage"]
    return max(offsets, default=100.0)


def _cond(conds: frozenset[str], label: str) -> frozenset[str]:
    label = " ".join(label.split())
    return conds if label in _ALWAYS else conds | {label}


def _import_media(prelude: Sequence[ast.Node]) -> str:
    parts = [t for t in prelude if t.type not in ("url", "string", "whitespace", "comment")]
    parts = [t for t in parts if not (t.type == "function" and t.lower_name in ("url", "layer"))]
    return " ".join(brief(parts, 200).lower().split())


def _selector_text(prelude: Sequence[ast.Node], parent: str | None) -> str | None:
    """A rule's selector list as text, nesting resolved; None when too deep or long to read."""
    if _depth(prelude) > MAX_NESTING:
        return None
    text = str(tinycss2.serialize(prelude)).strip()
    if parent is None:
        return text
    parts = []
    for part in _split_list(text):
        if "&" in part:
            parts.append(part.replace("&", f":is({parent})"))
        else:
            parts.append(f":is({parent}) {part}")
    out = ", ".join(parts)
    return out if len(out) <= 4096 else None


def _split_list(text: str) -> list[str]:
    """A selector list split at its top-level commas."""
    out, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    out.append(text[start:].strip())
    return [p for p in out if p]


def _compile(text: str | None, keep: bool) -> list[Compiled]:
    """Each selector of a list as (selector, pseudo-element, specificity); a list check cannot
    parse is one selector that may match anything (or, naming a pseudo-element check does not
    know, nothing it reads). `keep`: its stylesheet is kept for the next reading (`_compiled`)."""
    if text is None:
        return [(None, None, (0, 0, 0))]
    try:
        return _compiled(text, keep)
    except (
        ValueError,
        LookupError,
        TypeError,
        AttributeError,
        NotImplementedError,
        AssertionError,
    ):
        if "::" in text:
            return []
        return [(None, None, (0, 1, 0))]
