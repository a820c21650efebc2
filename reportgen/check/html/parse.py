"""A published HTML page as the element tree a browser builds from it (pure): text in, `Tree`
out.

`html.parser` only tokenizes. Where an element ends decides which styles reach its text (a
`display: none` on a `<p>` hides what the `<p>` holds), so the tree follows HTML's own rules where
they move text out of an element a naive reading would leave it in:

- a `<p>` ends at the next block (`<p style="display:none">1<div>2</div>` shows 2), list items
  and definition terms end at the next, headings at the next heading;
- text and elements misplaced in a table are put before the table ("foster parenting");
- an end tag closes what it names only within its scope and is otherwise ignored, and an
  element that is not a container (`<img>`, `<br>`, ...) has no children;
- content that cannot go in `<head>` opens `<body>`; a second `<html>` or `<body>` tag adds its
  attributes to the first;
- raw text (`<script>`, `<style>`, `<textarea>`, `<title>`, `<iframe>`, `<xmp>`, ...) ends only at
  its own end tag, in any of the spellings a browser accepts (`</script >`, `</style foo>`);
- inside `<svg>` and `<math>`, `<x/>` closes itself and `<style>` is not raw text, and an HTML
  element such as `<p>` or `<div>` leaves the drawing.

Where it still differs from a browser (misnested formatting elements, quirks mode), it leaves
text outside an element a browser would put it in, never inside one: text is read more often
than a browser shows it, not less.

Worst case: linear in the page. Scope checks are O(1) (the open elements of each name and the
scope boundaries are kept as stacks of positions), foster-parented content is appended to a
holder placed before its table, and nothing is recursive.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from reportgen.check.html.prepare import defused
from reportgen.check.html.scope import FOREIGN_SPECIAL, SPECIAL, OpenElements
from reportgen.check.html.tree import HEADINGS, Node, Text, Tree, line_starts


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


VOID = _names(
    "area base basefont bgsound br col embed frame hr image img input keygen link meta param "
    "source track wbr"
)
RAW = _names("script style xmp iframe noembed noframes textarea title plaintext")
RCDATA = frozenset({"textarea", "title"})  # raw text whose character references are decoded
HEAD = _names("base basefont bgsound link meta noframes script style template title noscript")
_CLOSES_P = _names(
    "address article aside blockquote center details dialog dir div dl fieldset figcaption "
    "figure footer header hgroup main menu nav ol p search section summary ul h1 h2 h3 h4 h5 "
    "h6 pre listing form plaintext table hr xmp li dd dt"
)
_FORMATTING = _names("a b big code em font i nobr s small strike strong tt u")
# HTML elements that end the SVG or MathML they appear in
_BREAKOUT = _names(
    "b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i "
    "img li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u "
    "ul var"
)
_TABLE_CONTEXT = _names("table tbody thead tfoot tr")
_IN_TABLE = _names("caption colgroup col tbody thead tfoot tr td th script style template form")
_COMMENT_END = re.compile(r"--!?>")
_END_NAME = re.compile(r"</([a-zA-Z][^\t\n\f\r />]*+)")


class _Holder(Node):
    """What is put before a table: content misplaced in it (foster-parented)."""


class _Builder(HTMLParser):
    CDATA_CONTENT_ELEMENTS = tuple(RAW)  # type: ignore[misc]

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.text = text
        self.starts = line_starts(text)
        self.root = Node("#document", {}, "html", 0)
        self.html: Node | None = None
        self.head: Node | None = None
        self.body: Node | None = None
        self.open = OpenElements(self.root)
        self.stack = self.open.stack
        self.pending: tuple[int, bool] | None = None  # a text run begun at this offset
        self.holders: dict[int, Node] = {}  # id of each table -> the holder before it

    # --- positions and text ---------------------------------------------------------------

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.starts[line - 1] + col

    def _flush(self) -> None:
        """End the pending text run at the current position and put it in the tree."""
        if self.pending is None:
            return
        start, decode = self.pending
        self.pending = None
        raw = self.text[start : self._offset()]
        if raw:
            self._insert_text(Text(raw, start, decode))

    def handle_data(self, data: str) -> None:
        if self.pending is None:
            top = self.stack[-1]
            self.pending = (self._offset(), not self.cdata_elem or top.tag in RCDATA)

    # --- inserting ----------------------------------------------------------------------

    def _ensure_body(self) -> None:
        if self.body is not None:
            return
        html = self._ensure_html()
        if self.head is None:
            self.head = self._element("head", {}, "html", self._offset(), html)
        while self.stack[-1] is not html:
            self.open.pop()
        self.body = self._element("body", {}, "html", self._offset(), html)
        self.open.push(self.body)

    def _ensure_html(self) -> Node:
        if self.html is None:
            self.html = self._element("html", {}, "html", self._offset(), self.root)
            self.open.push(self.html)
        return self.html

    def _ensure_head(self) -> Node:
        html = self._ensure_html()
        if self.head is None:
            self.head = self._element("head", {}, "html", self._offset(), html)
            self.open.push(self.head)
        return self.head

    def _element(self, tag: str, attrs: dict[str, str], ns: str, at: int, parent: Node) -> Node:
        node = Node(tag, attrs, ns, at)
        node.parent = parent
        parent.kids.append(node)
        return node

    def _foster(self) -> Node | None:
        """Where content misplaced in a table goes: the holder before the innermost table."""
        top = self.stack[-1]
        if top.ns != "html" or top.tag not in _TABLE_CONTEXT:
            return None
        return self.holders[id(self.stack[self.open.last(("html", "table"))])]

    def _insert_text(self, text: Text) -> None:
        if self.body is None:
            top = self.stack[-1]
            if top.tag in RAW or top.tag == "template":
                top.kids.append(text)
                return
            if not text.raw.strip():
                return
            self._ensure_body()
        holder = self._foster() if text.raw.strip() else None
        (holder or self.stack[-1]).kids.append(text)

    # --- tags -----------------------------------------------------------------------------

    def set_cdata_mode(self, elem: str, *, escapable: bool = False) -> None:
        top = self.stack[-1]
        if top.ns != "html" or top.tag != elem:
            return  # inside SVG or MathML, or the element was not opened (a misplaced <title>)
        self.cdata_elem = elem
        never = r"(?!)" if elem == "plaintext" else rf"</{elem}(?=[\t\n\f\r />])"
        self.interesting = re.compile(never, re.I)

    def parse_endtag(self, i: int) -> int:
        if self.cdata_elem is not None:
            rawdata = self.rawdata
            name = _END_NAME.match(rawdata, i)
            if name and name.group(1).lower() == self.cdata_elem:
                end = rawdata.find(">", i)
                if end < 0:
                    return -1
                self.handle_endtag(self.cdata_elem)
                self.clear_cdata_mode()
                return end + 1
        return super().parse_endtag(i)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs, closed=True)

    def handle_starttag(
        self, tag: str, attrs: list[tuple[str, str | None]], closed: bool = False
    ) -> None:
        self._flush()
        at = self._offset()
        first: dict[str, str] = {}
        for name, value in attrs:
            first.setdefault(name, value or "")
        if tag == "image":
            tag = "img"
        top = self.stack[-1]
        foreign = top.ns != "html" and (top.ns, top.tag) not in FOREIGN_SPECIAL
        if foreign and (
            tag in _BREAKOUT or (tag == "font" and {"color", "face", "size"} & set(first))
        ):
            while self.stack[-1].ns != "html" and (
                (self.stack[-1].ns, self.stack[-1].tag) not in FOREIGN_SPECIAL
            ):
                self.open.pop()
            foreign = False
        if foreign or tag in ("svg", "math"):
            ns = tag if tag in ("svg", "math") else top.ns
            self._ensure_body()
            node = self._element(tag, first, ns, at, self._foster() or self.stack[-1])
            if not closed:
                self.open.push(node)
            return
        self._html_start(tag, first, at, closed)

    def _html_start(self, tag: str, attrs: dict[str, str], at: int, closed: bool) -> None:
        if tag == "html":
            html = self._ensure_html()
            for k, v in attrs.items():
                html.attrs.setdefault(k, v)
            return
        if self.body is None:
            if tag == "head":
                self._ensure_head()
                return
            top = self.stack[-1]
            if top.tag == "noscript" and tag not in ("link", "meta", "style", "noframes"):
                self.open.pop()  # <noscript> in <head> holds only these
            if tag in HEAD:
                inside = self.stack[-1] if self.stack[-1].tag == "noscript" else self._ensure_head()
                self._open(tag, attrs, at, inside, closed)
                return
            if tag == "body":
                self._ensure_body()
                assert self.body is not None
                self.body.attrs.update(attrs)
                return
            self._ensure_body()
        elif tag == "body":
            for k, v in attrs.items():
                self.body.attrs.setdefault(k, v)
            return
        elif tag == "head":
            return
        self._body_start(tag, attrs, at, closed)

    def _open(self, tag: str, attrs: dict[str, str], at: int, parent: Node, closed: bool) -> None:
        """Put an HTML element in the tree under `parent` and, unless void, open it (a raw-text
        element written `<style/>` is open too: HTML ignores the slash)."""
        node = self._element(tag, attrs, "html", at, parent)
        if tag == "table":
            self._table(node)
        if tag in VOID:
            return
        self.open.push(node)
        if closed and tag in RAW:
            self.set_cdata_mode(tag)

    def _body_start(self, tag: str, attrs: dict[str, str], at: int, closed: bool) -> None:
        holder = self._foster() if tag not in _IN_TABLE and tag != "table" else None
        if tag in _CLOSES_P:
            self.open.close("p", "button")
        if tag in HEADINGS and self.stack[-1].tag in HEADINGS and self.stack[-1].ns == "html":
            self.open.pop()
        if tag in ("li", "dd", "dt"):
            names = ("li",) if tag == "li" else ("dd", "dt")
            for name in names:
                if self.open.scoped(name, "item") is not None:
                    self.open.close(name, "item")
        if tag == "button":
            self.open.close("button")
        if tag in ("option", "optgroup") and self.stack[-1].tag == "option":
            self.open.pop()
        if tag in ("caption", "colgroup", "col", "tbody", "thead", "tfoot", "tr", "td", "th"):
            if self._table_start(tag, attrs, at):
                return
            if tag != "caption":
                return  # a table part outside a table: ignored, as browsers do
        if tag == "table" and self.open.scoped("table", "table") is not None:
            top = self.stack[-1].tag
            if top in _TABLE_CONTEXT:  # a table directly in a table ends the first
                self.open.close("table", "table")
        self._open(tag, attrs, at, holder or self.stack[-1], closed)

    def _table(self, table: Node) -> None:
        """Put a holder for misplaced content before `table` (kept on the table meanwhile)."""
        parent = table.parent
        assert parent is not None
        holder = _Holder("#foster", {}, "html", table.offset)
        holder.parent = parent
        parent.kids.insert(len(parent.kids) - 1, holder)
        self.holders[id(table)] = holder

    def _table_start(self, tag: str, attrs: dict[str, str], at: int) -> bool:
        """Open a table part where HTML puts it; False when no table is open."""
        t = self.open.scoped("table", "table")
        if t is None:
            return False
        if tag == "caption" or tag in ("colgroup", "col"):
            self.open.pop_to(t + 1)
            if tag == "caption":
                self.open.push(self._element(tag, attrs, "html", at, self.stack[-1]))
            return True
        if tag in ("tbody", "thead", "tfoot"):
            self.open.pop_to(t + 1)
            self.open.push(self._element(tag, attrs, "html", at, self.stack[-1]))
            return True
        if tag == "tr":
            self._to_section(t, at)
            self.open.push(self._element(tag, attrs, "html", at, self.stack[-1]))
            return True
        row = self.open.scoped("tr", "table")
        if row is None or row < t:
            self._to_section(t, at)
            self.open.push(self._element("tr", {}, "html", at, self.stack[-1]))
            row = len(self.stack) - 1
        self.open.pop_to(row + 1)
        self.open.push(self._element(tag, attrs, "html", at, self.stack[-1]))
        return True

    def _to_section(self, t: int, at: int) -> None:
        """Close down to the table's open body section, opening a <tbody> if there is none."""
        for i in range(len(self.stack) - 1, t, -1):
            if self.stack[i].tag in ("tbody", "thead", "tfoot") and self.stack[i].ns == "html":
                self.open.pop_to(i + 1)
                return
        self.open.pop_to(t + 1)
        self.open.push(self._element("tbody", {}, "html", at, self.stack[-1]))

    def handle_endtag(self, tag: str) -> None:
        self._flush()
        if self.stack[-1].ns != "html":
            at = max(self.open.last(("svg", tag)), self.open.last(("math", tag)))
            if at > self.open.last_html[-1]:
                self.open.pop_to(at)
                return
        if tag in ("html", "body"):
            return
        if tag == "head":
            if self.head is not None and self.body is None:
                while len(self.stack) > 1 and self.stack[-1] is not self.html:
                    self.open.pop()
            return
        if tag == "br":
            self.handle_starttag("br", [])
            return
        if tag == "p":
            self.open.close("p", "button")
        elif tag in ("li", "dd", "dt"):
            self.open.close(tag, "list" if tag == "li" else "scope")
        elif tag in HEADINGS:
            found = [self.open.scoped(h, "scope") for h in HEADINGS]
            inner = max((f for f in found if f is not None), default=None)
            if inner is not None:
                self.open.pop_to(inner)
        elif tag in ("table", "tbody", "thead", "tfoot", "tr", "td", "th", "caption"):
            self.open.close(tag, "table")
        elif tag in _FORMATTING or tag in SPECIAL:
            self.open.close(tag)
        else:
            at = self.open.last(("html", tag))
            if at > self.open.bounds["special"][-1]:  # no special element opened after it
                self.open.pop_to(at)

    def parse_comment(self, i: int, report: int = 1) -> int:
        """A comment as browsers end it: `<!-->` and `<!--->` are empty, and `--!>` closes one
        as `-->` does (html.parser would read on to the next `-->`, over text a browser shows).
        Every `<!--` left by `defused` has a `-->` after it: one search, to there at most."""
        rawdata = self.rawdata
        self._flush()
        for opener in ("<!-->", "<!--->"):
            if rawdata.startswith(opener, i):
                return i + len(opener)
        found = _COMMENT_END.search(rawdata, i + 4)
        return -1 if found is None else found.end()

    def handle_comment(self, data: str) -> None:
        self._flush()

    def handle_decl(self, decl: str) -> None:
        self._flush()

    def handle_pi(self, data: str) -> None:
        self._flush()

    def unknown_decl(self, data: str) -> None:
        self._flush()

    def close(self) -> None:
        super().close()
        if self.cdata_elem is not None and self.rawdata:  # an unclosed <textarea>, <plaintext>
            self.handle_data(self.rawdata)
            self.rawdata = ""
        self._flush_at_end()

    def _flush_at_end(self) -> None:
        if self.pending is None:
            return
        start, decode = self.pending
        self.pending = None
        raw = self.text[start:]
        if raw:
            self._insert_text(Text(raw, start, decode))


def _link(root: Node) -> None:
    """Each element's element children, with foster-parented ones in place of their holder,
    and its place among them."""
    stack = [root]
    while stack:
        node = stack.pop()
        kids: list[Node | Text] = []
        for kid in node.kids:
            if isinstance(kid, _Holder):
                for moved in kid.kids:
                    if isinstance(moved, Node):
                        moved.parent = node
                    kids.append(moved)
            else:
                kids.append(kid)
        node.kids = kids
        node.memo = None
        elements = [k for k in kids if isinstance(k, Node)]
        node.elements = elements
        counts: dict[str, int] = {}
        for i, child in enumerate(elements):
            child.index = i
            child.type_index = counts.get(child.tag, 0)
            counts[child.tag] = child.type_index + 1
        for child in elements:
            child.type_count = counts[child.tag]
        stack.extend(elements)


def parse_tree(html: str) -> Tree:
    """The element tree of a page (defused first: see prepare.py)."""
    text = defused(html)
    builder = _Builder(text)
    builder.feed(text)
    builder.close()
    _link(builder.root)
    return Tree(builder.root, text, builder.starts)
