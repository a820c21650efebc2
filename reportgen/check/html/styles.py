"""A page's stylesheets found, read and resolved onto its elements (pure, apart from the `fetch`
passed in): the tree in, a `Seen` on every element and the notes of what could not be read out.

The stylesheets are the page's `<style>` elements (in SVG too; not in `<template>`), its
`<link rel=stylesheet>` files and their `@import`s, in document order, and its `style`
attributes. A linked or imported stylesheet is read by `fetch` (readers/sources.py reads files
beside the copy); one that cannot be read means check cannot see what the page shows, so it
fails closed at the `<link>` (or `@import`) with what to do. A `data:` address is read in place.

Worst case: linear in the page and its CSS (capped in css/sheets.py); at most `MAX_SHEETS`
stylesheet files, imports nested at most `MAX_IMPORTS` deep.
"""

from __future__ import annotations

import base64
import binascii
import urllib.parse
from collections.abc import Callable

from reportgen.check.html.css.cascade import Cascade
from reportgen.check.html.css.rules import UNLAYERED, Decl, Import, Note, Source, Styles
from reportgen.check.html.css.scenarios import ALTERNATE, NOSCRIPT
from reportgen.check.html.css.sheets import Reader
from reportgen.check.html.tree import Node, Text, Tree

MAX_SHEETS = 64
MAX_IMPORTS = 8


class Unreadable(Exception):
    """A stylesheet check cannot read: the message says why."""


Fetch = Callable[[str], str]


def no_files(_href: str) -> str:
    """The fetch of a page read as text alone: no stylesheet file can be read."""
    raise Unreadable("check was given the page's text, not its folder")


def _data_url(href: str) -> str | None:
    if not href.lower().startswith("data:"):
        return None
    meta, _, body = href[5:].partition(",")
    try:
        if meta.lower().endswith(";base64"):
            return base64.b64decode(body, validate=False).decode("utf-8", "replace")
        return urllib.parse.unquote(body)
    except (binascii.Error, ValueError):
        return ""


class _Collector:
    def __init__(self, tree: Tree, fetch: Fetch) -> None:
        self.tree, self.fetch = tree, fetch
        self.styles = Styles()
        self.reader = Reader(self.styles)
        self.notes: list[Note] = []
        self.sheets = 0
        self.base: str | None = None
        self.inline: dict[int, tuple[Decl, ...]] = {}
        self.late = False  # a style rule was read: later @imports are ignored, as browsers do

    def run(self) -> None:
        stack: list[tuple[Node, frozenset[str], bool]] = [(self.tree.root, frozenset(), False)]
        while stack:
            el, conds, inert = stack.pop()
            conds = self._visit(el, conds, inert)
            inert = inert or el.tag == "template"
            stack.extend((k, conds, inert) for k in reversed(el.elements))
        self.reader.finish()

    def _visit(self, el: Node, conds: frozenset[str], inert: bool) -> frozenset[str]:
        if "style" in el.attrs and not inert:
            line, col = self.tree.position(el.offset)
            self.inline[id(el)] = self.reader.inline(el.attrs["style"], line, col)
        if inert:
            return conds
        if el.tag == "noscript":
            return conds | {NOSCRIPT}
        if el.tag == "base" and "href" in el.attrs and self.base is None:
            self.base = el.attrs["href"]
        if el.tag not in ("style", "link"):  # most elements: nothing more to find
            return conds
        kind = el.attrs.get("type", "text/css").strip().lower()
        if el.tag == "style" and kind in ("", "text/css"):
            text = "".join(k.raw for k in el.kids if isinstance(k, Text))
            first = next((k for k in el.kids if isinstance(k, Text)), None)
            line, col = self.tree.position(first.start if first is not None else el.offset)
            media = el.attrs.get("media", "")
            self._read(Source(text=text, line=line, col=col, conds=_media(conds, media)))
        elif el.tag == "link" and "stylesheet" in el.attrs.get("rel", "").lower().split():
            rel = el.attrs.get("rel", "").lower().split()
            extra = conds
            if "alternate" in rel or "disabled" in el.attrs:
                extra = conds | {ALTERNATE}
            if kind in ("", "text/css") and el.attrs.get("href"):
                held = _media(extra, el.attrs.get("media", ""))
                line, col = self.tree.position(el.offset)
                self._link(el.attrs["href"], line, col, held, UNLAYERED, 0)
        return conds

    def _read(
        self, source: Source, layer: int = UNLAYERED, depth: int = 0, address: str = ""
    ) -> None:
        """Read a stylesheet, its @imports first (each read where it stands, as browsers do,
        its address relative to the importing stylesheet's)."""

        def imported(found: Import) -> None:
            href = urllib.parse.urljoin(address, found.href) if address else found.href
            self._link(href, found.line, found.col, found.conds, found.layer, depth + 1)

        self.reader.on_import = imported
        self.reader.read(source, layer)

    def _link(
        self, href: str, line: int, col: int, conds: frozenset[str], layer: int, depth: int
    ) -> None:
        href = href.strip()
        if self.base is not None and not href.lower().startswith("data:"):
            href = urllib.parse.urljoin(self.base, href)
        data = _data_url(href)
        text: str | None = data
        why = ""
        if depth > MAX_IMPORTS or self.sheets >= MAX_SHEETS:
            why = f"more than {MAX_SHEETS} stylesheets, or imports over {MAX_IMPORTS} deep"
        elif text is None:
            self.sheets += 1
            try:
                text = self.fetch(href)
            except Unreadable as exc:
                why = str(exc)
        if text is None or why:
            self.notes.append(
                Note(
                    line,
                    col,
                    f"check cannot see what this page shows: its stylesheet {href[:80]!r} "
                    f"cannot be read ({why}); save the stylesheet beside the copy under the "
                    "same relative address, or inline it in a <style> element",
                )
            )
            return
        name = "a data: stylesheet" if data is not None else href[:80]
        source = Source(text=text, line=line, col=col, conds=conds, where=name)
        self._read(source, layer, depth, "" if data is not None else href)


def _media(conds: frozenset[str], media: str) -> frozenset[str]:
    media = " ".join(media.lower().split())
    if media in ("", "all", "screen", "only screen", "only all"):
        return conds
    return conds | {media}


def resolve(tree: Tree, fetch: Fetch = no_files) -> list[Note]:
    """Put a `Seen` on every element of `tree`; the notes of what check could not read."""
    collector = _Collector(tree, fetch)
    collector.run()
    notes = collector.notes + collector.styles.notes
    notes += Cascade(tree, collector.styles, collector.inline).run()
    return notes
