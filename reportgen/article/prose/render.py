"""Render article text (Markdown or one-line captions) with references to data.

A number that comes from data is written as a reference: `{{ metric.id }}` for a metric (shown
through the formatting filter, with its id and value as data attributes), `{{ setup.FIELD }}` for
a fact of the manifest's setup, `{{ version.TOOL }}` for the version of a tool that wrote the run
files, `{{ article.date }}`; `article/prose/resolver.py` says what each names. An unknown reference
is an error located where it was written, and so are braces in running text that make no reference
(`{{ x }`, `{ x }}`, `{{{ x }}}`, an unclosed `{{`): braces meant as text are written `\\{\\{`.

Prose is untrusted: Markdown renders with raw HTML disabled, images shown as their alt text (the
page loads nothing), and only http(s), mailto and in-page links; references are resolved by this
module, never by a template engine.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup, escape

from reportgen.article.prose.resolver import (
    FILTERS,
    REFERENCE,
    Resolver,
    Unresolved,
)
from reportgen.article.source.declarations import Text
from reportgen.errors import InputError, Problem

_SAFE_LINK = re.compile(r"^(https?://|mailto:|#)", re.IGNORECASE)
# Two or more braces in a row: each run in running text belongs to a reference or is a mistake.
_BRACES = re.compile(r"\{\{+|\}\}+")
_FORM = "a reference is {{ name }}, two braces each side; braces meant as text are written \\{\\{"


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    # Keep entities and backslash escapes as tokens of their own: `&#123;&#123; x }}` is text
    # that looks like a reference, not one.
    md.disable("text_join")

    def image_as_text(_renderer: Any, tokens: Any, idx: int, _options: Any, _env: Any) -> str:
        # Prose may not load images (the page stays self-contained): show the alt text.
        return str(escape(tokens[idx].content))

    md.add_render_rule("image", image_as_text)

    def validate(url: str) -> bool:
        return bool(_SAFE_LINK.match(url.strip()))

    md.validateLink = validate  # type: ignore[method-assign]
    md.core.ruler.push("flatten_deep_inline", _flatten_deep_inline)
    return md


# Inline markup (emphasis, strong, links, strike-through) nested deeper than this is shown as its
# text alone. markdown-it bounds the nesting of blocks (`maxNesting`) but not of emphasis:
# `*` x 1000 around a word made 500 nested elements, past the recursion WeasyPrint lays out.
MAX_INLINE_DEPTH = 16


def _flatten_deep_inline(state: Any) -> None:
    """Each inline token's open and close markup beyond `MAX_INLINE_DEPTH`, made empty text."""
    for block in state.tokens:
        kept: list[bool] = []  # per open element: whether its markup is kept
        depth = 0  # how many of them are
        for child in block.children or ():
            if child.nesting == 1:
                keep = depth < MAX_INLINE_DEPTH
                kept.append(keep)
                depth += keep
            elif child.nesting == -1 and kept:
                keep = kept.pop()
                depth -= keep
            else:
                continue
            if not keep:
                child.type, child.tag, child.nesting, child.content = "text", "", 0, ""


_MD = _markdown()


def parse_markdown(text: str) -> list[Token]:
    """The block tokens (with their inline children) prose renders from."""
    return list(_MD.parse(text, {}))


def _position(text: Text, offset: int) -> tuple[int, int]:
    before = text.text[:offset]
    line = before.count("\n")
    if line == 0:
        return text.line, text.col + offset
    return text.line + line, offset - before.rfind("\n")


class _References:
    """The references written in a text, consumed as the Markdown tokens that hold them are met.

    Each reference is resolved only where it stands in running text; one left unconsumed stood
    in code, a link or an image, where it could land in an attribute: it is refused.
    """

    def __init__(self, text: Text, resolver: Resolver | None) -> None:
        self.text, self.resolver = text, resolver
        self.open = list(REFERENCE.finditer(text.text))
        self.problems: list[Problem] = []
        line_starts = [0] + [m.end() for m in re.finditer("\n", text.text)]
        self.line_of = [sum(1 for s in line_starts if s <= m.start()) - 1 for m in self.open]

    def take(self, raw: str, lines: tuple[int, int] | None) -> re.Match[str] | None:
        """The first open occurrence of `raw` within `lines` (0-based, end excluded)."""
        for i, found in enumerate(self.open):
            inside = lines is None or lines[0] <= self.line_of[i] < lines[1]
            if found.group(0) == raw and inside:
                del self.open[i], self.line_of[i]
                return found
        return None

    def html(self, found: re.Match[str]) -> Markup:
        name, flt = found.group(1), found.group(2)
        line, col = _position(self.text, found.start())

        def problem(message: str) -> Markup:
            self.problems.append(
                Problem(path=self.text.file, line=line, col=col, pointer="", message=message)
            )
            return Markup("")

        assert self.resolver is not None, "references resolve only with a resolver"
        if flt is not None and flt not in FILTERS:
            return problem(f"unknown filter | {flt} in {found.group(0)}: the filter is | number")
        try:
            value = self.resolver.resolve(name, flt)
        except Unresolved as exc:
            return problem(str(exc))
        if value is None:
            near = difflib.get_close_matches(name, self.resolver.known(), n=3, cutoff=0.8)
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            return problem(
                f"unknown reference {{{{ {name} }}}}: not a metric id, setup field, version.TOOL "
                f"or article.date{hint}"
            )
        return value

    def malformed(self, content: str, lines: tuple[int, int] | None) -> set[int]:
        """Record each run of braces in a piece of running text that makes no reference; the
        offsets of the problems, so a reference inside one is not also resolved."""
        found = malformed_braces(content)
        for offset, message in found:
            line, col = _locate(self.text, content, offset, lines)
            self.problems.append(
                Problem(path=self.text.file, line=line, col=col, pointer="", message=message)
            )
        return {offset for offset, _ in found}

    def leftovers(self) -> None:
        for found in self.open:
            line, col = _position(self.text, found.start())
            self.problems.append(
                Problem(
                    path=self.text.file,
                    line=line,
                    col=col,
                    pointer="",
                    message=f"reference {found.group(0)} stands in code, a link or an image, where "
                    "it is not resolved: write it in running text",
                )
            )


def _locate(
    text: Text, content: str, offset: int, lines: tuple[int, int] | None
) -> tuple[int, int]:
    """Where `offset` into a piece of `text` stands in its source (the piece is written verbatim
    there; within `lines`, 0-based, when they are known)."""
    source = text.text
    start = 0
    if lines is not None:
        starts = [0] + [m.end() for m in re.finditer("\n", source)]
        start = starts[min(lines[0], len(starts) - 1)]
    at = source.find(content, start)
    if at < 0:
        at = max(source.find(content), 0)
    return _position(text, at + offset)


def _snippet(content: str, start: int) -> str:
    """The malformed reference that starts at `start`: up to its last closing brace, or
    a few words."""
    close = re.compile(r"\}+").search(content, start)
    end = close.end() if close is not None and close.end() - start <= 80 else start + 40
    return content[start:end].rstrip()


def malformed_braces(content: str) -> list[tuple[int, str]]:
    """(offset, message) for each run of two or more braces in a piece of running text that
    belongs to no well-formed reference: `{{ x }`, `{ x }}`, `{{{ x }}}`, `{{ }}`, a `{{` never
    closed."""
    found: list[tuple[int, str]] = []
    spans: list[tuple[int, int]] = []
    for ref in REFERENCE.finditer(content):
        spans.append((ref.start(), ref.end()))
        if not ref.group(1):
            found.append((ref.start(), f"empty reference {ref.group(0)}: name what it shows"))
        elif content[ref.start() - 1 : ref.start()] == "{" or content[ref.end() :][:1] == "}":
            start = ref.start() - (content[ref.start() - 1 : ref.start()] == "{")
            found.append(
                (start, f"malformed reference {_snippet(content, start)}: too many braces; {_FORM}")
            )
    after = 0  # where text not yet part of a reference or a reported mistake starts
    for run in _BRACES.finditer(content):
        if any(s < run.end() and run.start() < e for s, e in spans):
            after = max(after, run.end())
            continue
        if run.group(0)[0] == "{":
            message = f"malformed reference {_snippet(content, run.start())}: {_FORM}"
            if "}" not in content[run.end() :]:
                message = f"{run.group(0)} opens a reference that is never closed: {_FORM}"
            found.append((run.start(), message))
        else:
            opener = content.rfind("{", after, run.start())
            between = content[after : run.end()]
            if opener >= 0 and between.count("{") < between.count("}"):  # `{ x }}`, not `{a {b}}`
                found.append(
                    (opener, f"malformed reference {content[opener : run.end()]}: {_FORM}")
                )
        after = run.end()
    return sorted(found)


def _resolve_text(token: Token, refs: _References, lines: tuple[int, int] | None) -> list[Token]:
    """A text token split into text and resolved numbers (as inline HTML tokens)."""
    out: list[Token] = []
    at = 0
    bad = refs.malformed(token.content, lines)
    for found in REFERENCE.finditer(token.content):
        taken = refs.take(found.group(0), lines)
        if taken is None:  # not written literally (an entity or escape made it): text
            continue
        if bad & {found.start(), found.start() - 1}:  # reported as malformed: not resolved
            continue
        if found.start() > at:
            out.append(Token("text", "", 0, content=token.content[at : found.start()]))
        out.append(Token("html_inline", "", 0, content=str(refs.html(taken))))
        at = found.end()
    if at < len(token.content):
        out.append(Token("text", "", 0, content=token.content[at:]))
    return out or [token]


def _resolve(tokens: list[Token], refs: _References) -> None:
    for token in tokens:
        if token.type != "inline" or not token.children:
            continue
        lines = (token.map[0], token.map[1]) if token.map else None
        children: list[Token] = []
        for child in token.children:
            if child.type == "text":
                children += _resolve_text(child, refs, lines)
            else:
                if child.type == "text_special":  # an entity or escape, shown as the text it is
                    child = Token("text", "", 0, content=child.content)
                children.append(child)
        token.children = children


def _demote(tokens: list[Token], level: int) -> None:
    """Headings in prose go below the heading of the section they stand in: # becomes
    h(level + 1)."""
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(6, int(token.tag[1:]) + level)}"


def _render(text: Text, resolver: Resolver, *, inline: bool, heading_level: int = 0) -> Markup:
    refs = _References(text, resolver)
    env: dict[str, Any] = {}
    tokens = _MD.parseInline(text.text, env) if inline else _MD.parse(text.text, env)
    _demote(tokens, heading_level)
    _resolve(tokens, refs)
    refs.leftovers()
    if refs.problems:
        raise InputError(sorted(refs.problems))
    return Markup(_MD.renderer.render(tokens, _MD.options, env))


def malformed_references(text: Text) -> list[Problem]:
    """Each run of braces in `text`'s running text that makes no reference, located: found
    without the run data, so an article's source reports all of them at once."""
    refs = _References(text, None)
    tokens = _MD.parseInline(text.text, {}) if not text.markdown else _MD.parse(text.text, {})
    for token in tokens:
        lines = (token.map[0], token.map[1]) if token.map else None
        for child in token.children or ():
            if child.type == "text":
                refs.malformed(child.content, lines)
    return refs.problems


def render_block(text: Text, resolver: Resolver, *, heading_level: int = 0) -> Markup:
    """A Markdown document as safe HTML, references resolved; its headings start below
    `heading_level` (the level of the heading the prose stands under)."""
    return _render(text, resolver, inline=False, heading_level=heading_level)


def render_inline(text: Text, resolver: Resolver) -> Markup:
    """One line of Markdown (a caption or note) as safe inline HTML, references resolved."""
    return _render(text, resolver, inline=True)


def plain(text: Text, resolver: Resolver) -> str:
    """A line with references resolved, as plain text (for <title> and PDF metadata)."""
    html = render_inline(text, resolver)
    return (
        re.sub(r"<[^>]+>", "", str(html))
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#39;", "'")
        .replace("&quot;", '"')
    )
