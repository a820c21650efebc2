"""Read a published HTML page as its readers see it (pure, apart from the `fetch` passed in):
HTML in, a `Page` out: its text as numbered lines for the published-text readers, where each of
their words is in the page, and what check cannot see there.

1. `tree.py` builds the element tree as a browser does;
2. `styles.py` resolves the page's CSS onto it (css/), so each element knows whether readers
   see its text and which styles may keep them from seeing it;
3. the tree is read into lines (`lines.py`): hidden text left out, generated text read where
   it shows, a table as pipe rows under its caption;
4. what shows text besides the text (`channels.py`) is read, compared with the build's charts,
   or failed closed; a number (or a unit) that a style may hide is an error at its place.

Worst case: linear in the page and its CSS (see each module).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from reportgen.check.html.channels import (
    Found,
    all_text,
    digits,
    element,
    form,
    list_markers,
    page_wide,
    preview,
    quoted,
)
from reportgen.check.html.css.cascade import Seen
from reportgen.check.html.lines import (
    BLOCKS,
    Placed,
    Reader,
    Word,
    doubts_of,
    heading_prefix,
    placed,
)
from reportgen.check.html.parse import parse_tree
from reportgen.check.html.styles import Fetch, no_files, resolve
from reportgen.check.html.tree import HEADINGS, Node, Text, Tree
from reportgen.errors import Severity

# The elements whose text the built page's prose reader (readers/prose.py) leaves out.
SKIP = frozenset({"script", "style", "svg", "head", "noscript", "template"})


@dataclass(frozen=True)
class Unseen:
    """A place where readers may see something other than what check reads."""

    line: int
    col: int
    message: str
    severity: Severity = "error"


@dataclass(frozen=True)
class Chart:
    """An SVG the page shows with a digit in its text: to be one the build draws."""

    line: int
    col: int
    form: tuple[str, ...]
    shown: str


@dataclass(frozen=True, kw_only=True)
class Page:
    """A published HTML page as check reads it."""

    lines: list[tuple[int, str]]
    placed: Placed
    starts: tuple[int, ...]  # the offset each line of the page starts at
    unseen: tuple[Unseen, ...]
    charts: tuple[Chart, ...]

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def place(self, line: int, col: int) -> tuple[int, int]:
        """Where in the page column `col` of line `line` of `lines` is: (line, column)."""
        offset = self.placed.offset(line, col)
        return (line, col) if offset is None else self.position(offset)


class _Walk:
    """Reads the tree's visible text into lines, iteratively."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.found: list[Found] = []
        self.reader = Reader(tree, lambda at, message: self.found.append(Found(at, message)))
        self.captions: set[int] = set()  # figcaptions read as their table's caption
        self.caption_of: dict[int, Node] = {}
        self.markers: dict[int, str] = {}
        self.charts: list[Chart] = []
        self.tables = _single_tables(tree)

    def run(self) -> None:
        title = next((e for e in self.tree.walk() if e.tag == "title" and e.ns == "html"), None)
        if title is not None:
            for kid in title.kids:
                if isinstance(kid, Text):
                    self.reader.text(kid, title)
            self.reader.flush()
        for meta, content in previews(self.tree):
            self.reader.text(content, meta)
            self.reader.flush()
        self.walk(self.tree.root, inline=False)
        self.reader.flush()
        flagged: Word | None = None
        for word in self.reader.number_words:
            doubts = doubts_of(word)
            if not doubts:
                flagged = None
                continue
            if flagged is not None and not digits(word.text):
                continue  # the unit of a number already flagged for the same reason
            flagged = word
            styles = "; ".join(d.said() for d in doubts[:2])
            self.found.append(
                Found(word.offset, f"readers may not see {quoted(word.text)}: {styles}")
            )

    def walk(self, root: Node, inline: bool) -> None:
        stack: list[tuple[str, Node | Text, Node]] = [("enter", root, root)]
        reader = self.reader
        while stack:
            what, node, owner = stack.pop()
            if isinstance(node, Text):
                reader.text(node, owner)
                continue
            el = node
            seen = el.look if isinstance(el.look, Seen) else None
            if what == "exit":
                for text in seen.after if seen else ():
                    reader.generated(text, el)
                self._end(el, inline)
                continue
            if seen is None or seen.hidden or id(el) in self.captions or el.tag == "title":
                continue
            self.found.extend(element(el))
            if el.ns == "svg" and el.tag == "svg":
                self._svg(el)
                continue
            if el.ns == "math" or el.tag == "iframe":  # its text is not shown
                continue
            if el.tag == "table" and el.ns == "html" and not inline:
                self._table(el)
                continue
            self._start(el, seen, inline)
            stack.append(("exit", el, el))
            stack.extend(
                ("text", k, el) if isinstance(k, Text) else ("enter", k, el)
                for k in reversed(el.kids)
            )

    def _block(self, el: Node) -> bool:
        seen = el.look
        css = isinstance(seen, Seen) and seen.looks[0].block
        flex = (
            el.parent is not None
            and isinstance(el.parent.look, Seen)
            and el.parent.look.looks[0].flex
        )
        return el.tag in BLOCKS or css or flex or el.tag in HEADINGS

    def _start(self, el: Node, seen: Seen, inline: bool) -> None:
        reader = self.reader
        if self._block(el):
            if inline:
                reader.space = True
            else:
                reader.flush()
        if el.tag == "figure" and id(el) in self.tables:
            table, caption = self.tables[id(el)]
            self.caption_of[id(table)] = caption
            self.captions.add(id(caption))
        if el.tag == "ol":
            self.markers.update(list_markers(el))
        marker = self.markers.get(id(el))
        if marker is not None:
            reader.generated(marker, el)
            reader.space = True
        for text in seen.before:
            reader.generated(text, el)

    def _end(self, el: Node, inline: bool) -> None:
        if not self._block(el):
            return
        if inline:
            self.reader.space = True
        elif el.tag in HEADINGS:
            self.reader.flush(heading_prefix(el), "heading")
        else:
            self.reader.flush()

    def _svg(self, el: Node) -> None:
        text = all_text(el)
        if digits(text):
            shown = next((w for w in text.split() if digits(w)), text)
            self.charts.append(Chart(*self.tree.position(el.offset), form(el), shown))

    def _inline(self, el: Node) -> list[Word]:
        self.walk(el, inline=True)
        return self.reader.cut()

    def _table(self, table: Node) -> None:
        reader, lines = self.reader, self.reader.lines
        reader.flush()
        if lines.kinds and lines.kinds[-1] not in ("heading", "blank"):
            lines.blank()
        caption = next((k for k in table.elements if k.tag == "caption"), None)
        caption = caption or self.caption_of.get(id(table))
        if caption is not None and isinstance(caption.look, Seen) and not caption.look.hidden:
            self.captions.discard(id(caption))
            lines.add(self._inline(caption), "Table: ", "caption")
        parts: dict[str, list[Node]] = {"thead": [], "tbody": [], "tfoot": []}
        for part in table.elements:
            if part.tag == "tr":
                parts["tbody"].append(part)
            elif part.tag in parts and not _hidden(part):
                parts[part.tag].extend(r for r in part.elements if r.tag == "tr")
        head = parts["thead"]
        first = True
        for row in head + parts["tbody"] + parts["tfoot"]:
            if _hidden(row):
                continue
            cells = []
            for cell in row.elements:
                if cell.tag not in ("td", "th") or _hidden(cell):
                    continue
                cells.append(self._inline(cell))
                cells.extend([] for _ in range(_span(cell) - 1))
            if not cells:
                continue
            lines.row(cells)
            if first and (row in head or all(c.tag == "th" for c in row.elements)):
                lines.add([], "|" + "---|" * len(cells), "separator")
            first = False
        lines.blank()


def _hidden(el: Node) -> bool:
    return not isinstance(el.look, Seen) or el.look.hidden


def _span(cell: Node) -> int:
    found = re.match(r"\s*(\d{1,3})", cell.attrs.get("colspan", ""))
    return max(1, min(int(found.group(1)), 100)) if found else 1


def _single_tables(tree: Tree) -> dict[int, tuple[Node, Node]]:
    """Each <figure> that holds exactly one table and a <figcaption>: (the table, the caption)."""
    count: dict[int, int] = {}
    first: dict[int, Node] = {}
    for el in reversed(tree.walk()):
        n = 1 if el.tag == "table" else 0
        for kid in el.elements:
            n += count.get(id(kid), 0)
            if id(kid) in first and id(el) not in first:
                first[id(el)] = first[id(kid)]
        if el.tag == "table":
            first[id(el)] = el
        count[id(el)] = n
    out = {}
    for el in tree.walk():
        if el.tag == "figure" and count.get(id(el)) == 1:
            caption = next((k for k in el.elements if k.tag == "figcaption"), None)
            if caption is not None:
                out[id(el)] = (first[id(el)], caption)
    return out


def read_html(html: str, fetch: Fetch = no_files) -> Page:
    """A published HTML page as check reads it (`fetch`: reads its linked stylesheets)."""
    tree = parse_tree(html)
    notes = resolve(tree, fetch)
    walk = _Walk(tree)
    walk.run()
    unseen = [Unseen(n.line, n.col, n.message, n.severity) for n in notes]
    for found in [*page_wide(tree), *walk.found]:
        unseen.append(Unseen(*tree.position(found.offset), found.message, found.severity))
    unseen = sorted(set(unseen), key=lambda u: (u.line, u.col, u.message))
    at = placed(walk.reader.lines)
    return Page(
        lines=at.lines,
        placed=at,
        starts=tree.starts,
        unseen=tuple(unseen),
        charts=tuple(walk.charts),
    )


def previews(tree: Tree) -> list[tuple[Node, Text]]:
    """The page's preview texts (`channels.preview`) that state a number, each as a text run at
    its `content`: read as a line of its own, where it stands."""
    found = []
    for el in tree.walk():
        if el.tag != "meta" or el.ns != "html":
            continue
        content = preview(el.attrs)
        if content is not None and digits(content):
            start = tree.text.find(content, el.offset)
            tag_end = tree.text.find(">", el.offset)
            at = start if 0 <= start < tag_end else el.offset
            found.append((el, Text(content, at, decode=False)))
    return found


def chart_forms(html: str) -> frozenset[tuple[str, ...]]:
    """The SVG drawings of a page (the built article's charts), as `Chart.form` compares them."""
    return built_page(html)[0]


def built_page(html: str) -> tuple[frozenset[tuple[str, ...]], tuple[tuple[str, str], ...]]:
    """What a copy is matched against of the built page, from one reading of it: its SVG
    drawings (`chart_forms`), and each of its link previews that states a number, as (its text,
    its `data-metrics`: the metrics the build names for its numbers)."""
    tree = parse_tree(html)
    forms = frozenset(form(el) for el in tree.walk() if el.ns == "svg" and el.tag == "svg")
    shown = tuple(
        (content.raw, meta.attrs.get("data-metrics") or "") for meta, content in previews(tree)
    )
    return forms, shown


def html_lines(html: str) -> list[tuple[int, str]]:
    """The lines of a page as check reads them (tables as pipe rows, headings as `## Title`)."""
    return read_html(html).lines
