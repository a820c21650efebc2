"""Render article text (Markdown or one-line captions) with references to data.

A number that comes from data is written as a reference: `{{ metric.id }}` for a metric (shown
through the formatting filter, with its id and value as data attributes), `{{ setup.FIELD }}` for
a fact of the manifest's setup, `{{ version.TOOL }}` for the version of a tool that wrote the run
files, `{{ article.date }}`. An unknown reference is an error located where it was written.

Prose is untrusted: Markdown renders with raw HTML disabled, images shown as their alt text (the
page loads nothing), and only http(s), mailto and in-page links; references are resolved by this
module, never by a template engine.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from markdown_it import MarkdownIt
from markupsafe import Markup, escape

from reportgen.article.manifest import Text
from reportgen.article.numbers import number_html
from reportgen.errors import InputError, Problem
from reportgen.metrics import MetricSet
from reportgen.model import Setup

REFERENCE = re.compile(r"\{\{\s*([^{}\s]*)\s*\}\}")
_OPEN, _CLOSE = "\ue000", "\ue001"  # private-use marks around a placeholder
_SAFE_LINK = re.compile(r"^(https?://|mailto:|#)", re.IGNORECASE)


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})

    def image_as_text(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        # Prose may not load images (the page stays self-contained): show the alt text.
        return str(escape(tokens[idx].content))

    md.add_render_rule("image", image_as_text)

    def validate(url: str) -> bool:
        return bool(_SAFE_LINK.match(url.strip()))

    md.validateLink = validate  # type: ignore[method-assign]
    return md


_MD = _markdown()


@dataclass(frozen=True)
class Resolver:
    """Turns reference names into HTML."""

    metrics: MetricSet
    setup: Setup
    tools: tuple[tuple[str, str], ...]  # (tool name, "tool version")
    date: str

    def resolve(self, name: str) -> Markup | None:
        value = self.metrics.get(name)
        if value is not None:
            return number_html(value, unit=True)
        kind, _, rest = name.partition(".")
        if kind == "setup":
            return self._setup(rest)
        if kind == "version":
            return next((escape(v) for tool, v in self.tools if tool == rest), None)
        if name == "article.date":
            day = dt.date.fromisoformat(self.date)
            return escape(f"{day.day} {day:%B %Y}")
        return None

    def _setup(self, name: str) -> Markup | None:
        for holder in (self.setup.hardware, self.setup):
            if name in {f.name for f in fields(holder)}:
                value = getattr(holder, name)
                if value is None:
                    return None
                if isinstance(value, int | float) and not isinstance(value, bool):
                    return escape(f"{value:,g}" if isinstance(value, float) else f"{value:,}")
                return escape(str(value))
        return None

    def known(self) -> list[str]:
        """A few names that do resolve, for error messages."""
        return [v.id for v in self.metrics.values[:3]] + ["setup.gpu_name", "article.date"]


def _position(text: Text, offset: int) -> tuple[int, int]:
    before = text.text[:offset]
    line = before.count("\n")
    if line == 0:
        return text.line, text.col + offset
    return text.line + line, offset - before.rfind("\n")


def _substitute(text: Text, resolver: Resolver, render: Callable[[str], str]) -> Markup:
    source = text.text.replace(_OPEN, "").replace(_CLOSE, "")
    values: list[Markup] = []
    problems = []

    def placeholder(found: re.Match[str]) -> str:
        html = resolver.resolve(found.group(1))
        if html is None:
            line, col = _position(text, found.start())
            problems.append(
                Problem(
                    text.file,
                    line,
                    col,
                    "",
                    f"unknown reference {{{{ {found.group(1)} }}}}: not a metric id, "
                    "setup field, version.TOOL or article.date",
                )
            )
            html = Markup("")
        values.append(html)
        return f"{_OPEN}{len(values) - 1}{_CLOSE}"

    marked = REFERENCE.sub(placeholder, source)
    if problems:
        raise InputError(problems)
    html = render(marked)
    return Markup(re.sub(f"{_OPEN}(\\d+){_CLOSE}", lambda m: str(values[int(m.group(1))]), html))


def render_block(text: Text, resolver: Resolver) -> Markup:
    """A Markdown document as safe HTML, references resolved."""
    return _substitute(text, resolver, _MD.render)


def render_inline(text: Text, resolver: Resolver) -> Markup:
    """One line of Markdown (a caption or note) as safe inline HTML, references resolved."""
    return _substitute(text, resolver, _MD.renderInline)


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
