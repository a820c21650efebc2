"""HTML copies laid out as authors and site generators lay them out (issue 22, deliver 7):

- each finding at the number's own line (and column) in the HTML source, in a paragraph that
  spans lines and in a table row whose cells are on lines of their own;
- tables found in the layouts HTML pages use: in wrapper `<div>`s under a heading, in a
  `<figure>` with its `<figcaption>` after the table, with a `<caption>`, without `<thead>`
  (a first row of `<th>`), with inline markup in cells, with a unit after a no-break space;
- headings read as `## Title` lines and a table's own caption as `Table: Title` above its rows.

Every copy is the measured two-tool article's built page, its tables rewritten; each must pass
and each changed cell must be caught at its own line. No number is typed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers_articles import built_page

from reportgen.check.compare import check_article
from reportgen.check.html.text import html_lines

ROOT = Path(__file__).resolve().parents[3]
MEASURED = ROOT / "runs" / "tiny-llamacpp-two-tools"
FIGURE = re.compile(
    r'(?s)<figure class="table-figure" id="table-[\w-]+">\s*<figcaption[^>]*>\s*'
    r'<div class="caption-title">(.*?)</div>.*?</figcaption>\s*<div class="table-scroll"[^>]*>'
    r"\s*(<table.*?</table>)\s*</div>.*?</figure>"
)
CELL = re.compile(r'<td>(<span class="num"[^>]*>)(\d+\.\d+)</span></td>')
DECIMAL = re.compile(r"<td>(?:<[^>]+>)*(\d+\.\d+)")  # a decimal cell, in whatever markup


def _page() -> str:
    """The measured article's page as `reportgen build` writes it."""
    return built_page(MEASURED)


def _errors(folder: Path, text: str) -> list[tuple[int, int, str, str]]:
    copy = folder / "copy.html"
    copy.write_text(text, encoding="utf-8")
    result = check_article(MEASURED, [copy], build_dir=folder / "none")
    source = next(s for s in result.sources if s.source == str(copy))
    assert source.matched > 0
    return [(i.line, i.col, i.kind, i.message) for i in source.items if i.severity == "error"]


def _changed(text: str) -> tuple[str, int, int]:
    """`text` with the last digit of its first decimal table cell changed; the line and column
    of that cell's number in the page."""
    found = DECIMAL.search(text)
    assert found is not None
    number = found.group(1)
    digit = "1" if number[-1] != "1" else "2"
    at = found.start(1)
    changed = text[: found.end(1) - 1] + digit + text[found.end(1) :]
    line = text.count("\n", 0, at) + 1
    return changed, line, at - text.rfind("\n", 0, at)


def _strip_head(table: str) -> str:
    return re.sub(r"</?thead>|<tbody>|</tbody>", "", table)


def _cells_inline(table: str) -> str:
    return CELL.sub(r"<td>\1<strong>\2</strong></span> <em></em></td>", table)


def _unit(title: str) -> str:
    """The unit a table's title names: '(output tok/s)' -> 'tok/s', '(ms, median)' -> 'ms'."""
    inside = title.rpartition("(")[2].split(",")[0].rstrip(")")
    return inside.split()[-1] if "(" in title else ""


def _units(table: str, unit: str, space: str) -> str:
    """Each decimal cell of a measured value (not a ratio) with its unit after `space`."""

    def cell(m: re.Match[str]) -> str:
        after = "" if ".ratio" in m.group(1) or not unit else space + unit
        return f"<td>{m.group(1)}{m.group(2)}{after}</span></td>"

    return CELL.sub(cell, table)


LAYOUTS: dict[str, Callable[[str, str], str]] = {
    "wrapper divs under a heading": lambda title, table: (
        f'<h3>{title}</h3>\n<div class="table-wrapper"><div class="scroll">{table}</div></div>'
    ),
    "figure with its figcaption after": lambda title, table: (
        f'<figure><div class="x">{table}</div>\n<figcaption>{title}</figcaption></figure>'
    ),
    "caption element": lambda title, table: table.replace(">", f"><caption>{title}</caption>", 1),
    "no thead, a first row of th": lambda title, table: f"<h2>{title}</h2>{_strip_head(table)}",
    "inline markup in cells": lambda title, table: f"<h3>{title}</h3>{_cells_inline(table)}",
    "units after a no-break space": lambda title, table: (
        f"<h3>{title}</h3>{_units(table, _unit(title), '&nbsp;')}"
    ),
    "units after a narrow no-break space": lambda title, table: (
        f"<h3>{title}</h3>{_units(table, _unit(title), chr(0x202F))}"
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_tables_in_the_layouts_html_pages_use_are_found(
    tmp_path: Path, layout: Callable[[str, str], str]
) -> None:
    page = FIGURE.sub(lambda m: layout(m.group(1), m.group(2)), _page())
    assert page != _page() and 'class="table-figure"' not in page
    assert _errors(tmp_path, page) == []
    changed, line, col = _changed(page)
    found = _errors(tmp_path, changed)
    assert any(e[:3] == (line, col, "mismatch") for e in found), (line, col, found)


def test_headings_and_captions_are_read_as_markdown_lines() -> None:
    lines = [text for _, text in html_lines(_page())]
    titles = [m.group(1) for m in FIGURE.finditer(_page())]
    assert any(t.startswith("## ") for t in lines) and any(t.startswith("### ") for t in lines)
    for title in titles:  # each caption a line of its own, the rows directly after it
        at = [k for k, t in enumerate(lines) if t.startswith(f"Table: {title}")]
        assert len(at) == 1 and lines[at[0] + 1].startswith("| "), title


@pytest.mark.slow
def test_a_number_in_a_row_with_its_cells_on_lines_of_their_own_is_found_at_its_line(
    tmp_path: Path,
) -> None:
    page = re.sub(r"</td><td>", "</td>\n      <td>", _page())
    assert _errors(tmp_path, page) == []
    changed, line, col = _changed(page)
    assert (line, col, "mismatch") in [e[:3] for e in _errors(tmp_path, changed)]


@pytest.mark.slow
def test_a_number_on_the_third_line_of_a_paragraph_is_found_at_its_line(tmp_path: Path) -> None:
    """A version the paragraph states literally (its source writes it), changed."""
    page = _page()
    found = re.search(r"(?s)<p><strong>.*?</p>", page)
    assert found is not None
    paragraph = found.group(0)
    version = re.search(r"\d+\.\d+\.\d+", paragraph)
    assert version is not None and "\n" in paragraph[: version.start()]
    at = found.start() + version.end() - 1
    changed = page[:at] + ("9" if page[at] != "9" else "8") + page[at + 1 :]
    line = page.count("\n", 0, found.start() + version.start()) + 1
    col = found.start() + version.start() - page.rfind("\n", 0, found.start() + version.start())
    errors = _errors(tmp_path, changed)
    assert (line, col, "mismatch") in [e[:3] for e in errors], (line, col, errors)
