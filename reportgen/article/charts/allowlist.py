"""Chart SVG allow-list: an SVG taken from outside this process (the chart cache) in, whether it
holds only what the chart writer (article/charts/draw.py) emits out.

The chart cache is a folder anyone with the user's rights can write, and a shared CI cache or one
restored from another run is written by someone else. Its entries' hashes prove that they are
whole, not who wrote them. So before an entry reaches the page it is parsed with a real XML
parser and checked against what the writer emits, and anything else makes it a damaged entry
(drawn again):

- the text as a whole: one `<svg>` element and nothing around it; no DTD or entity declaration,
  comment, processing instruction or CDATA section (`<!` and `<?` appear nowhere), where an HTML
  parser and an XML parser would read the same bytes differently;
- namespaces: SVG as the default and `xlink`, declared once, on the root; nothing else;
- elements: the SVG shapes, groups and text matplotlib writes (no `<script>`, `<foreignObject>`,
  `<a>`, `<image>`, `<style>`, animation or any HTML element); text only where text is drawn;
- attributes: the presentation attributes the writer sets, each with a value of its own shape
  (numbers, colours, path data, keywords); links only `#id` or `url(#id)`, to ids that carry the
  chart's own prefix. No `on*` handler, no `style`, no `href` to anything but an id in the chart;
- the chart it belongs to: the root's label and `<title>` are the plot's title, and every id
  carries the plot's `svg_id` prefix, so an entry cannot take another chart's place unnoticed.

The SVG is checked, never rewritten: what passes goes into the page byte for byte as it was
drawn, so a build from the cache and one without it stay identical.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

_SVG = "http://www.w3.org/2000/svg"
_XLINK = "http://www.w3.org/1999/xlink"
_NAMESPACES = [("", _SVG), ("xlink", _XLINK)]

# Elements that may hold text (drawn or read aloud); every other element holds whitespace only.
_TEXT = frozenset({"text", "tspan", "title"})
_SHAPES = frozenset(
    {"svg", "g", "defs", "clipPath", "path", "use", "rect", "circle", "ellipse", "line"}
    | {"polyline", "polygon"}
)
ELEMENTS = _SHAPES | _TEXT

_ID = r"[A-Za-z0-9_.:-]+"
_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_LENGTH = _NUM + r"(?:px|pt|%)?"
_KEYWORD = r"[a-z][a-z0-9-]*"
_COLOR = r"#[0-9a-fA-F]{3,8}|none|[a-zA-Z]+|url\(#" + _ID + r"\)"
_NUMBERS = _NUM + r"(?:[ ,]+" + _NUM + r")*"
_TRANSFORM = r"(?:(?:matrix|translate|rotate|scale|skewX|skewY)\( *" + _NUMBERS + r" *\) *)+"

_VALUES: dict[str, str] = {
    "version": r"1\.1",
    "role": "img",
    "aria-label": r"[^\x00-\x1f]*",  # the title: plain text, checked against the plot's below
    "viewBox": _NUMBERS,
    "id": _ID,
    "d": r"[MmLlHhVvCcSsQqTtAaZz0-9eE.,+\- ]*",
    "transform": _TRANSFORM,
    "clip-path": r"url\(#" + _ID + r"\)",
    "fill": _COLOR,
    "stroke": _COLOR,
    "stroke-dasharray": "none|" + _NUMBERS,
    "font-family": r"[A-Za-z0-9 ,'\"-]+",
    "points": _NUMBERS,
    "{" + _XLINK + "}href": "#" + _ID,
}
for _name in ("x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "dx", "dy"):
    _VALUES[_name] = _LENGTH
for _name in ("width", "height", "stroke-width", "stroke-dashoffset", "stroke-miterlimit"):
    _VALUES[_name] = _LENGTH
for _name in ("opacity", "fill-opacity", "stroke-opacity", "font-size"):
    _VALUES[_name] = _LENGTH
for _name in ("stroke-linejoin", "stroke-linecap", "text-anchor", "font-style", "font-weight"):
    _VALUES[_name] = _KEYWORD
for _name in ("font-stretch", "font-variant", "fill-rule", "clip-rule", "dominant-baseline"):
    _VALUES[_name] = _KEYWORD
_PATTERNS = {name: re.compile(value) for name, value in _VALUES.items()}
# Attributes whose value names an id of the chart: that id must carry the chart's prefix.
_LINKS = {"id": "", "clip-path": "url(#", "fill": "url(#", "stroke": "url(#"}
_LINKS["{" + _XLINK + "}href"] = "#"


class _Unsafe(Exception):
    """The SVG holds something the chart writer does not emit."""


def _element(tag: str) -> str:
    namespace, _, name = tag[1:].partition("}")
    if not tag.startswith("{") or namespace != _SVG or name not in ELEMENTS:
        raise _Unsafe(tag)
    return name


def _check_attributes(name: str, attrib: dict[str, str], prefix: str) -> None:
    for key, value in attrib.items():
        pattern = _PATTERNS.get(key)
        if pattern is None or not pattern.fullmatch(value):
            raise _Unsafe(f"{name} {key}")
        link = _LINKS.get(key)
        linked = link is not None and (link == "" or value.startswith(link))
        if linked and not value[len(link or "") :].startswith(prefix):
            raise _Unsafe(f"{name} {key}: {value!r} is not an id of this chart")


def _check(svg: str, svg_id: str, title: str) -> None:
    if "<!" in svg or "<?" in svg or not svg.startswith("<svg ") or svg != svg.strip() + "\n":
        raise _Unsafe("not one bare <svg> element")
    parser = ET.XMLPullParser(events=("start-ns", "start"))  # type: ignore[var-annotated]
    try:
        parser.feed(svg)
        parser.close()
    except ET.ParseError as exc:
        raise _Unsafe(str(exc)) from None
    declared: list[object] = []
    root: ET.Element | None = None
    for found in parser.read_events():
        event, item = found[0], found[-1]
        if event == "start-ns":
            if root is not None:
                raise _Unsafe("a namespace declared below the root")
            declared.append(item)
        elif root is None and isinstance(item, ET.Element):
            root = item
    if root is None or declared != _NAMESPACES or _element(root.tag) != "svg":
        raise _Unsafe("not the chart writer's <svg> root")
    prefix = svg_id + "-"
    for element in root.iter():
        name = _element(element.tag)
        _check_attributes(name, dict(element.attrib), prefix)
        if name not in _TEXT and (element.text or "").strip():
            raise _Unsafe(f"text in <{name}>")
        if (element.tail or "").strip():
            raise _Unsafe(f"text after <{name}>")
    first = root[0] if len(root) else None
    if root.get("aria-label") != title or first is None or _element(first.tag) != "title":
        raise _Unsafe("not labelled with the chart's title")
    if first.get("id") != prefix + "title" or first.text != title or len(first):
        raise _Unsafe("not titled with the chart's title")


def safe_svg(svg: str, svg_id: str, title: str) -> bool:
    """True when `svg` holds only what the chart writer emits for the chart `svg_id` titled
    `title` (see the module docstring); False for anything else."""
    try:
        _check(svg, svg_id, title)
    except _Unsafe:
        return False
    return True
