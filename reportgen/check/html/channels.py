"""The ways a page shows text besides its text (pure): what check reads of each, and where it
fails closed. An element in, `Found` notes out.

- read as text: text, `<textarea>`, `<select>` options, `<noscript>`, closed `<details>`,
  `<title>`, a link preview's `<meta>` description and title (`preview`); CSS
  `::before`/`::after`/`::marker` text where it shows (a digit in it, or a counter: an error,
  css/shows.py); the numbers of `<ol start>`, `<ol reversed>`, `<li value>`;
- an error, not read: an SVG (`<text>`, `<tspan>`, `<title>`) with a digit, unless it is one of
  the charts the build draws, element for element (compare.py); MathML with a digit; an
  `<iframe srcdoc>` with a digit; a form field's `value` or `placeholder`, an option's
  `label`, with a digit; a declarative shadow root; `<meta http-equiv=refresh>`; `<bdo dir=rtl>`
  or a direction override character (the digits show reordered);
- a warning, not read: `<iframe src>`, `<object>`, `<embed>`, `<frame>` (another document);
  `title`, `aria-label`, `aria-description`, `aria-valuetext` stating a number; `<script>`,
  `on...` attributes and `javascript:` links (the page is read without running them);
- not read, a documented limit: `<img>` and its `alt`, CSS background images, and the shapes
  a web font draws (check reads characters, not glyphs).
"""

from __future__ import annotations

import html
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from reportgen.check.html.tree import Node, Text, Tree
from reportgen.check.readers.published import parse_number
from reportgen.errors import Severity

_SCRIPT_TYPES = frozenset(
    {
        "",
        "text/javascript",
        "module",
        "application/javascript",
        "application/ecmascript",
        "text/ecmascript",
        "text/jscript",
        "text/livescript",
        "text/x-javascript",
    }
)
_EMBEDS = {"iframe": "src", "frame": "src", "object": "data", "embed": "src", "portal": "src"}
_FIELDS = frozenset({"input", "textarea", "button", "select", "option", "optgroup", "track"})
_TIPS = ("title", "aria-label", "aria-description", "aria-valuetext", "aria-roledescription")


@dataclass(frozen=True)
class Found:
    """Something to report at an element: the message and how severe."""

    offset: int
    message: str
    severity: Severity = "error"


# What a link preview (a search result, a post's card) shows of a page besides its <title>. The
# built page states its first headline in its description: a copy with that number changed must
# not pass unread.
PREVIEWS = frozenset(
    {"description", "og:description", "og:title", "twitter:description", "twitter:title"}
)


def preview(attrs: Mapping[str, str | None]) -> str | None:
    """The text a `<meta>` element with these attributes shows in link previews, if any."""
    said = (attrs.get("name") or attrs.get("property") or "").strip().lower()
    return (attrs.get("content") or "") if said in PREVIEWS else None


def digits(text: str) -> bool:
    return any(c.isdigit() for c in text)


def quoted(text: str) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= 40 else text[:40] + "...")


def page_wide(tree: Tree) -> list[Found]:
    """What concerns the whole page, wherever it is (hidden elements too): scripts, a refresh
    to another page, a shadow root."""
    out: list[Found] = []
    scripted: Node | None = None
    for el in tree.walk():
        if el.ns == "html" and el.tag == "script":
            kind = el.attrs.get("type", "").strip().lower()
            if kind in _SCRIPT_TYPES and scripted is None:
                scripted = el
        elif scripted is None and _handlers(el):
            scripted = el
        if el.tag == "meta" and el.attrs.get("http-equiv", "").lower() == "refresh":
            out.append(
                Found(
                    el.offset,
                    "readers are sent to another page (<meta http-equiv=refresh>): check reads "
                    "this page, not that one; remove the refresh",
                )
            )
        if el.tag == "template" and ("shadowrootmode" in el.attrs or "shadowroot" in el.attrs):
            out.append(
                Found(
                    el.offset,
                    "the page draws part of itself from a shadow root (<template "
                    "shadowrootmode>), whose text check does not read; write it in the page",
                )
            )
    if scripted is not None:
        out.append(
            Found(
                scripted.offset,
                "the page runs scripts: check reads it as it is, without running them, so "
                "anything a script writes or changes is not checked",
                "warning",
            )
        )
    return out


def _handlers(el: Node) -> bool:
    if any(name.startswith("on") for name in el.attrs):
        return True
    target = el.attrs.get("href", "") + el.attrs.get("src", "") + el.attrs.get("action", "")
    return "javascript:" in "".join(target.lower().split())


def element(el: Node) -> Iterator[Found]:
    """What a shown element shows that check does not read as text."""
    tag = el.tag
    if el.ns == "html" and tag in _EMBEDS:
        srcdoc = el.attrs.get("srcdoc")
        if srcdoc is not None and digits(srcdoc):
            yield Found(
                el.offset,
                f"an <{tag} srcdoc> shows a page of its own with {quoted(srcdoc)}, which check "
                "does not read; write it in the page",
            )
        address = el.attrs.get(_EMBEDS[tag])
        if address:
            yield Found(
                el.offset,
                f"an <{tag}> shows another document ({quoted(address)}), which check does not "
                "read: check that document itself",
                "warning",
            )
    if el.ns == "html" and tag in _FIELDS:
        for name in ("value", "placeholder", "label"):
            shown = el.attrs.get(name)
            if shown and digits(shown) and not (tag == "input" and _unshown(el)):
                yield Found(
                    el.offset,
                    f"a form field shows {quoted(shown)} (its {name} attribute), which check "
                    "does not read; write the number as text",
                )
    for name in _TIPS:
        shown = el.attrs.get(name)
        if shown and _states_a_number(shown):
            yield Found(
                el.offset,
                f"some readers see {quoted(shown)} (its {name} attribute: a tooltip or what a "
                "screen reader says), which check does not read",
                "warning",
            )
    if el.ns == "math" and tag == "math" and digits(all_text(el)):
        yield Found(
            el.offset,
            f"a MathML formula shows {quoted(all_text(el))}, which check does not read; write "
            "the numbers as text",
        )
    reversed_ = el.ns == "html" and tag == "bdo" and el.attrs.get("dir", "").lower() == "rtl"
    if reversed_ and digits(all_text(el)):
        yield Found(
            el.offset,
            f"<bdo dir=rtl> shows {quoted(all_text(el))} with its characters reversed, not "
            "as check reads them",
        )


def _states_a_number(text: str) -> bool:
    """Whether text has a word that reads as a number ('57 tok/s', '1,234'; not 'u8', '1.0.0')."""
    return any(parse_number(w.strip(",.;:()[]'\"")) for w in text.split() if digits(w))


def _unshown(el: Node) -> bool:
    kind = el.attrs.get("type", "text").lower()
    return kind in ("hidden", "checkbox", "radio", "file", "image", "range", "color")


def all_text(el: Node, limit: int = 4000) -> str:
    """The text of an element and everything in it (iteratively, up to `limit` characters)."""
    out: list[str] = []
    size = 0
    stack: list[Node | Text] = [el]
    while stack and size < limit:
        node = stack.pop()
        if isinstance(node, Text):
            piece = html.unescape(node.raw) if node.decode else node.raw
            out.append(piece)
            size += len(piece)
        else:
            stack.extend(reversed(node.kids))
    return " ".join(" ".join(out).split())


def form(svg: Node) -> tuple[str, ...]:
    """An SVG as check compares it with the build's charts: every element's name and attributes
    and every text, in order (iteratively, whitespace collapsed)."""
    out: list[str] = []
    stack: list[Node | Text] = [svg]
    while stack:
        node = stack.pop()
        if isinstance(node, Text):
            text = " ".join((html.unescape(node.raw) if node.decode else node.raw).split())
            if text:
                out.append(text)
        else:
            attrs = " ".join(f"{k}={v}" for k, v in sorted(node.attrs.items()))
            out.append(f"<{node.tag} {attrs}>")
            stack.extend(reversed(node.kids))
    return tuple(out)


def list_markers(ol: Node) -> dict[int, str]:
    """The numbers an ordered list shows before its items (by id of the item) when the page
    sets them (`start`, `reversed`, `value`): read as text. A list numbered 1, 2, 3 says nothing
    and is not read."""
    items = [k for k in ol.elements if k.tag == "li"]
    if not ({"start", "reversed"} & set(ol.attrs) or any("value" in k.attrs for k in items)):
        return {}
    step = -1 if "reversed" in ol.attrs else 1
    first = _int(ol.attrs.get("start"))
    n = first if first is not None else (len(items) if step < 0 else 1)
    out = {}
    for item in items:
        given = _int(item.attrs.get("value"))
        n = given if given is not None else n
        out[id(item)] = f"{n}."
        n += step
    return out


def _int(text: str | None) -> int | None:
    try:
        return None if text is None else int(text.strip())
    except ValueError:
        return None
