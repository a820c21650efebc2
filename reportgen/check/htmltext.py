"""Turn an HTML article into text lines the published-text reader understands (pure).

Block elements become lines, table rows become `| a | b |` lines with the table's caption above
them, and every line remembers the source line it came from, so numbers found in the text are
reported at their place in the HTML file.

Worst case: linear in the page: it is defused first (`htmlinput.defused`), so `html.parser`
never searches to the end of the page from an unterminated opener.
"""

from __future__ import annotations

from html.parser import HTMLParser

from reportgen.check.htmlinput import defused

BLOCKS = frozenset(
    {
        "p",
        "div",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "li",
        "dt",
        "dd",
        "figcaption",
        "caption",
        "section",
        "article",
        "header",
        "footer",
        "aside",
        "blockquote",
        "pre",
        "ul",
        "ol",
        "dl",
        "figure",
        "br",
        "hr",
        "tr",
        "table",
        "thead",
        "tbody",
        "title",
    }
)
SKIP = frozenset({"script", "style", "svg", "head", "noscript", "template"})


class _Lines(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[tuple[int, str]] = []
        self._text: list[str] = []
        self._line = 1
        self._skip = 0
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._row_line = 1

    def _flush(self) -> None:
        text = " ".join("".join(self._text).split())
        if text:
            self.lines.append((self._line, text))
        self._text = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in SKIP:
            self._skip += 1
            return
        if self._skip:
            return
        if tag == "tr":
            self._flush()
            self._row, self._row_line = [], self.getpos()[0]
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag in BLOCKS and self._cell is None:
            self._flush()
            self._line = self.getpos()[0]

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIP:
            self._skip = max(0, self._skip - 1)
            return
        if self._skip:
            return
        if tag in ("td", "th") and self._row is not None and self._cell is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.lines.append((self._row_line, "| " + " | ".join(self._row) + " |"))
            self._row = None
        elif tag == "thead" and self.lines and self.lines[-1][1].startswith("|"):
            cols = self.lines[-1][1].count("|") - 1
            self.lines.append((self.lines[-1][0], "|" + "---|" * cols))
        elif tag in BLOCKS and self._cell is None:
            self._flush()
            if tag == "table":
                self.lines.append((self.getpos()[0], ""))

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._cell is not None:
            self._cell.append(data)
            return
        if not self._text:
            self._line = self.getpos()[0]
        self._text.append(data)

    def close(self) -> None:
        super().close()
        self._flush()


def html_lines(html: str) -> list[tuple[int, str]]:
    """(source line, text) for each text line of the page, tables as pipe rows."""
    parser = _Lines()
    parser.feed(defused(html))
    parser.close()
    return parser.lines
