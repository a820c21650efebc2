"""Copies an editor would write (issue 22, deliver 7): each bundled article's tables and key
numbers in the layouts Markdown authors, site generators and HTML pages use, with every number
right (they must pass with no error) or one number wrong (an error at its own line, and no
other).

- Tables: a heading one or more blank lines above, a note between heading and table, a bold or
  setext title, Pandoc captions above and below, rows without a leading pipe, alignment colons,
  escaped pipes, columns and rows reordered, a column dropped, a column the article does not
  have.
- A table is named by its own heading, never by a sentence that mentions another table.
- A column or caption converted to another unit is judged in that unit; a unit that does not fit
  its numbers is one error at its header or caption.
- Key numbers written caption first, or under their caption.

Every number is the built article's own (a cell's text as built) or computed from the metrics:
none is typed here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from helpers_articles import MEASURED, PAITON, Table, table_of
from helpers_articles import built_article as _article

from reportgen.article.prose.render import plain
from reportgen.article.prose.resolver import Resolver, tool_versions
from reportgen.check.compare import check_published
from reportgen.check.result import Item, expected_numbers
from reportgen.metrics.display import Display, format_number, shown_text, unit_factor
from reportgen.metrics.slo import verdict_value, verdict_word

ARTICLES = {"paiton": PAITON, "measured": MEASURED}


def _items(
    folder: Path, text: str, *, html: bool = False, omitted: frozenset[str] = frozenset()
) -> list[Item]:
    built, shape = _article(folder)
    expected = expected_numbers(built.article, built.metrics, built.tables)
    return list(
        check_published(
            text, "post", built.metrics, expected, shape, html=html, omitted=omitted
        ).items
    )


def _errors(folder: Path, text: str, *, html: bool = False) -> list[tuple[str, int]]:
    """(kind, line) of each error, in line order."""
    items = _items(folder, text, html=html)
    return sorted((i.kind, i.line) for i in items if i.severity == "error")


# --- the built article's tables and key numbers, as a copy writes them ---------------------


def _tables(folder: Path) -> list[Table]:
    built, _ = _article(folder)
    return [table_of(view) for view in built.tables if view.decl.published]


def _key_numbers(folder: Path) -> list[tuple[str, str]]:
    """(number with its unit, caption) of each headline, as the built article shows them."""
    built, _ = _article(folder)
    by_id = built.metrics.by_id()
    resolver = Resolver(
        metrics=built.metrics,
        setup=built.article.setup,
        tools=tool_versions(built.metrics.runs),
        date=built.article.date,
    )
    return [
        (shown_text(by_id[h.metric], unit=True).replace("\u00a0", " "), plain(h.caption, resolver))
        for h in built.article.headlines
    ]


def _converted(folder: Path, metric: str, unit: str, decimals: int) -> str:
    """The metric's value in `unit` at `decimals`, as a copy that converts it writes it."""
    built, _ = _article(folder)
    value = built.metrics.by_id()[metric]
    factor = unit_factor(value.unit, unit)
    assert factor is not None
    return format_number(value.value * factor, Display(decimals=decimals, unit=unit))


def _digit(text: str) -> bool:
    return any(c.isdigit() for c in text)


def _wrong(text: str) -> str:
    """`text` off by three units of its last digit: outside what it rounds from (an SLO
    verdict's word: the other word)."""
    verdict = verdict_value(text)
    if verdict is not None:
        return verdict_word(1.0 - verdict)
    decimals = len(text.partition(".")[2])
    value = float(text.replace(",", "")) + 3 * 10.0**-decimals
    return f"{value:,.{decimals}f}"


# --- a Markdown post --------------------------------------------------------------------------

Title = Callable[[str], list[str]]  # the lines a layout writes a table's title as
Edit = Callable[[str, str, str], str]  # (row, column, built text) -> the text a copy shows

TITLES: dict[str, Title] = {
    "adjacent": lambda t: [t],  # the title on the line just above, as the bundled text has it
    "heading": lambda t: [f"## {t}", ""],
    "heading-two-blanks": lambda t: [f"### {t}", "", ""],
    "heading-note": lambda t: [f"## {t}", "", "The numbers below are medians, as measured.", ""],
    "heading-paragraph": lambda t: [
        f"# {t}",
        "",
        "We ran each tool in turn against one server.",
        "Read the table row by row: one row per setting.",
        "",
    ],
    "bold": lambda t: [f"**{t}**", ""],
    "setext": lambda t: [t, "-" * len(t), ""],
    "pandoc-above": lambda t: [f"Table: {t}", ""],
    "colon-caption": lambda t: [f": {t}", ""],
}


@dataclass
class Post:
    """A post's lines, and the line each table cell was written on."""

    lines: list[str] = field(default_factory=list)
    cell_line: dict[tuple[str, str, str], int] = field(default_factory=dict)

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


@dataclass(frozen=True)
class Layout:
    """How a post writes a table."""

    title: str = "heading"
    caption_below: bool = False  # Pandoc's `: Title` under the table, not a title above
    leading_pipe: bool = True
    colons: bool = False  # alignment colons in the delimiter row
    reverse_columns: bool = False
    reverse_rows: bool = False
    escaped_pipe: bool = False  # a first column of words with `\|` in them


ADJACENT = Layout(title="adjacent")  # the bundled text's layout: tests of other points use it
USUAL = Layout(title="heading")  # a heading, a blank line, the table
LAYOUTS = {
    **{name: Layout(title=name) for name in TITLES},
    "pandoc-below": Layout(caption_below=True),
    "no-leading-pipe": Layout(leading_pipe=False),
    "alignment-colons": Layout(colons=True, title="bold"),
    "escaped-pipes": Layout(escaped_pipe=True),
    "reordered": Layout(reverse_columns=True, reverse_rows=True, leading_pipe=False),
}


def _row(cells: Iterable[str], leading: bool) -> str:
    inner = " | ".join(cells)
    return f"| {inner} |" if leading else inner


def write_table(
    post: Post,
    table: Table,
    layout: Layout,
    cell: Edit = lambda _row, _col, text: text,
) -> None:
    """`table` in `layout`, each cell's text through `cell(row, column, built text)`."""
    columns = list(range(1, len(table.header)))
    rows = list(table.rows)
    if layout.reverse_columns:
        columns.reverse()
    if layout.reverse_rows:
        rows.reverse()
    if not layout.caption_below:
        post.add(*TITLES[layout.title](table.title))
    header = [table.header[0], *(table.header[k] for k in columns)]
    if layout.escaped_pipe:
        header.insert(1, "tools \\| notes")
    post.add(_row(header, layout.leading_pipe))
    rule = ":---:" if layout.colons else "---"
    post.add(_row([":---", *[rule] * (len(header) - 1)], layout.leading_pipe))
    for label, texts in rows:
        shown = [cell(label, table.header[k], texts[k - 1]) for k in columns]
        words = ["GuideLLM \\| AIPerf"] if layout.escaped_pipe else []
        post.add(_row([label, *words, *shown], layout.leading_pipe))
        for k in columns:
            post.cell_line[(table.id, label, table.header[k])] = len(post.lines)
    if layout.caption_below:
        post.add("", f": {table.title}")
    post.add("")


def write_key_numbers(post: Post, folder: Path, how: str = "number-first") -> dict[str, int]:
    """The key numbers in one of the ways a post writes them; the line of each number."""
    at = {}
    for number, caption in _key_numbers(folder):
        if how == "number-first":
            post.add(f"**{number}** {caption}", "")
        elif how == "caption-colon":
            post.add(f"{caption}: **{number}**", "")
        elif how == "caption-dash-list":
            post.add(f"- {caption} \u2014 {number}")
        elif how == "caption-above":
            post.add(caption, f"**{number}**", "")
        elif how == "caption-above-blank":
            post.add(f"**{caption}**", "", number, "")
        elif how == "number-first-blank":
            post.add(f"**{number}**", "", caption, "")
        else:
            raise AssertionError(how)
        at[number] = len(post.lines) - {"caption-dash-list": 0, "number-first-blank": 3}.get(how, 1)
    post.add("")
    return at


def _post(
    folder: Path,
    layout: Layout,
    cell: Callable[[Table], Edit] | None = None,
    tables: Callable[[Table], Table | None] = lambda t: t,
) -> Post:
    post = Post()
    post.add("# What two weeks of benchmarking taught us", "")
    post.add("An editor's own introduction, in words of the editor's own.", "")
    write_key_numbers(post, folder)
    for table in _tables(folder):
        chosen = tables(table)
        if chosen is not None:
            write_table(post, chosen, layout, *([cell(table)] if cell else []))
    post.add("Thanks for reading.")
    return post


CASES = [(slug, name) for slug in ARTICLES for name in LAYOUTS]


@pytest.mark.parametrize(("slug", "layout"), CASES, ids=[f"{s}-{n}" for s, n in CASES])
def test_a_true_post_in_each_table_layout_passes(slug: str, layout: str) -> None:
    folder = ARTICLES[slug]
    post = _post(folder, LAYOUTS[layout])
    assert [(i.kind, i.line, i.message) for i in _items(folder, post.text())] == []


@pytest.mark.sampled
@pytest.mark.parametrize(("slug", "layout"), CASES, ids=[f"{s}-{n}" for s, n in CASES])
def test_a_wrong_cell_is_an_error_at_its_line_in_each_layout(slug: str, layout: str) -> None:
    """In each table, the last row's last number (or verdict) wrong: one error, at that row's
    line (a gated cell shows no number to change, nor a dash where none can be derived)."""
    folder = ARTICLES[slug]
    for target in _tables(folder):
        label, texts = target.rows[-1]
        shown = [k for k, t in enumerate(texts, 1) if verdict_value(t) is not None or _digit(t)]
        column = target.header[max(shown)]
        where = (target.id, label, column)

        def cell(table: Table, where: tuple[str, str, str] = where) -> Edit:
            return lambda row, col, text: _wrong(text) if (table.id, row, col) == where else text

        post = _post(folder, LAYOUTS[layout], cell)
        line = post.cell_line[(target.id, label, column)]
        assert _errors(folder, post.text()) == [("mismatch", line)], (target.id, layout)


# --- a column dropped, a column added ----------------------------------------------------------


def _without_column(table: Table, k: int) -> Table:
    header = table.header[:k] + table.header[k + 1 :]
    rows = tuple((label, cells[: k - 1] + cells[k:]) for label, cells in table.rows)
    return replace(table, header=header, rows=rows)


def _unique_column(folder: Path) -> tuple[Table, int]:
    """A table and column whose numbers the article shows nowhere else."""
    built, _ = _article(folder)
    shown = [c.metric for view in built.tables for _, cells in view.rows for c in cells]
    shown += [h.metric for h in built.article.headlines]
    for table in _tables(folder):
        for k, head in enumerate(table.header[1:], start=1):
            metrics = [table.metrics[(label, head)] for label, _ in table.rows]
            if all(shown.count(m) == 1 for m in metrics):
                return table, k
    raise AssertionError("every column is shown twice")


@pytest.mark.parametrize("slug", list(ARTICLES))
def test_a_dropped_column_is_missing_unless_the_article_declares_it_omitted(slug: str) -> None:
    folder = ARTICLES[slug]
    first, k = _unique_column(folder)
    dropped = first.header[k]
    post = _post(folder, USUAL, tables=lambda t: _without_column(t, k) if t == first else t)
    gone = {first.metrics[(label, dropped)] for label, _ in first.rows}
    items = _items(folder, post.text())
    assert {(i.kind, i.metric) for i in items} == {("missing", m) for m in gone}
    assert _items(folder, post.text(), omitted=frozenset(gone)) == []


@pytest.mark.parametrize("slug", list(ARTICLES))
def test_a_column_the_article_does_not_have_is_unverified_not_an_error(slug: str) -> None:
    folder = ARTICLES[slug]
    first = _tables(folder)[0]
    numbers = first.column(1)
    extra = replace(
        first,
        header=(*first.header, "our own rerun"),
        rows=tuple(
            (label, (*cells, n)) for (label, cells), n in zip(first.rows, numbers, strict=True)
        ),
    )
    post = _post(folder, USUAL, tables=lambda t: extra if t == first else t)
    items = _items(folder, post.text())
    assert items and {i.kind for i in items} == {"unverified"}
    assert {i.column for i in items} == {"our own rerun"}


# --- a table is named by its own heading -------------------------------------------------------


def _mention_post(folder: Path, style: str) -> tuple[str, bool]:
    """Every table under its own title, with a sentence between title and rows that names the
    table before it (the last table's title is named above the first): the text, and whether
    it is HTML."""
    tables = _tables(folder)
    post = Post()
    write_key_numbers(post, folder)
    html: list[str] = ["<html><head><style>h2{color:red}</style></head><body>"]
    html.append("<nav><a href='/'>Home</a> <a href='/about'>About</a></nav><main>")
    for k, table in enumerate(tables):
        other = tables[k - 1].title.split("(")[0].strip()
        mention = f"{other} is where the tools disagree most, as the next table does not show."
        if style == "markdown":
            write_table(post, table, Layout(title="heading"))
            at = post.lines.index(f"## {table.title}")
            post.lines[at + 1 : at + 2] = ["", mention, ""]
        elif style == "plain":  # a plain text's title line, two lines of note that name another
            at = len(post.lines)
            write_table(post, table, Layout(title="bold"))
            post.lines[at : at + 2] = [table.title, mention, "It is worth a second look."]
        else:
            html.append(f"<h3>{table.title}</h3>")
            html.append("<p>Both tools ran on one server.</p>")
            html.append(f"<p>{mention}</p>")
            html.append("<table><thead>")
            html.append("<tr>" + "".join(f"<th>{h}</th>" for h in table.header) + "</tr>")
            html.append("</thead><tbody>")
            for label, cells in table.rows:
                row = "".join(f"<td>{c}</td>" for c in cells)
                html.append(f"<tr><th>{label}</th>{row}</tr>")
            html.append("</tbody></table>")
    if style == "html":
        for number, caption in _key_numbers(folder):
            html.append(f"<p><strong>{number}</strong> {caption}</p>")
        html.append("</main><footer>3 comments</footer></body></html>")
        return "\n".join(html) + "\n", True
    return post.text(), False


@pytest.mark.parametrize("style", ["markdown", "plain", "html"])
@pytest.mark.parametrize("slug", list(ARTICLES))
def test_a_sentence_that_names_another_table_does_not_take_over(slug: str, style: str) -> None:
    folder = ARTICLES[slug]
    text, html = _mention_post(folder, style)
    assert _errors(folder, text, html=html) == []


def test_a_title_line_names_a_table_and_a_sentence_does_not() -> None:
    """The same title in a short title line and in a sentence without a full stop."""
    from reportgen.check.readers.pipetables import find_tables
    from reportgen.check.readers.published import text_lines

    _, shape = _article(MEASURED)
    first, second = _tables(MEASURED)[:2]
    rows = "\n".join(
        [_row(first.header, True), "|---|---|---|---|"]
        + [_row([label, *cells], True) for label, cells in first.rows]
    )
    said = f"{second.title.split('(')[0].strip()} is where the two tools disagree the most"
    for above, named in (
        (f"## {first.title}\n\n{said}\n\n", first.id),
        (f"Table 1: {first.title}, by tool\n", first.id),
        (
            f"{first.title.split('(')[0].strip()} at each load, by tool, in each tool's unit\n",
            first.id,
        ),
        (f"{said}\n\n", None),
    ):
        (found,) = find_tables(text_lines(above + rows), shape)
        assert (found.shape.id if found.shape else None) == named, above


# --- units: converted, and not fitting ---------------------------------------------------------


def _time_column(folder: Path) -> tuple[Table, int, str]:
    """The first table column whose header names a time unit: table, column, unit."""
    for table in _tables(folder):
        for k, head in enumerate(table.header[1:], start=1):
            found = re.search(r"\((m?s)\)", head)
            if found:
                return table, k, found.group(1)
    raise AssertionError("no column in a unit of time")


@pytest.mark.parametrize("slug", list(ARTICLES))
def test_a_column_converted_to_another_unit_is_judged_in_it(slug: str) -> None:
    """'TTFT p50 (s)' over the built '(ms)', 'TTFT (ms)' over the built '(s)': the header says
    the unit, the numbers are in it at a precision of their own; one wrong is an error there."""
    folder = ARTICLES[slug]
    target, k, built_unit = _time_column(folder)
    unit = "s" if built_unit == "ms" else "ms"
    head = target.header[k]
    new_head = head.replace(f"({built_unit})", f"({unit})")
    decimals = 4 if unit == "s" else 1

    def converted(wrong: str | None) -> Callable[[Table], Edit]:
        def for_table(table: Table) -> Edit:
            def edit(row: str, col: str, text: str) -> str:
                if table.id != target.id or col != new_head:
                    return text
                shown = _converted(folder, table.metrics[(row, head)], unit, decimals)
                return _wrong(shown) if row == wrong else shown

            return edit

        return for_table

    def renamed(t: Table) -> Table:
        if t.id != target.id:
            return t
        return replace(t, header=tuple(new_head if h == head else h for h in t.header))

    true = _post(folder, ADJACENT, converted(None), renamed)
    assert new_head in true.text()
    assert _items(folder, true.text()) == []
    label = target.rows[0][0]
    false = _post(folder, ADJACENT, converted(label), renamed)
    wrong_line = false.cell_line[(target.id, label, new_head)]
    assert _errors(folder, false.text()) == [("mismatch", wrong_line)]


@pytest.mark.parametrize("slug", list(ARTICLES))
def test_a_header_naming_the_wrong_time_unit_is_one_error_at_the_header(slug: str) -> None:
    """'(s)' over numbers that are the metric in ms (or the other way): one error, at the
    header; a number also wrong among them is an error at its own line besides."""
    folder = ARTICLES[slug]
    target, k, built_unit = _time_column(folder)
    head = target.header[k]
    wrong_head = head.replace(f"({built_unit})", "(s)" if built_unit == "ms" else "(ms)")

    def renamed(t: Table) -> Table:
        if t.id != target.id:
            return t
        return replace(t, header=tuple(wrong_head if h == head else h for h in t.header))

    post = _post(folder, ADJACENT, tables=renamed)
    header_line = next(n for n, x in enumerate(post.lines, 1) if f"| {wrong_head} |" in x)
    assert _errors(folder, post.text()) == [("mismatch", header_line)]
    label = target.rows[-1][0]

    def one_wrong(table: Table) -> Edit:
        hit = table.id == target.id
        where = (label, wrong_head)
        return lambda row, col, text: _wrong(text) if hit and (row, col) == where else text

    post = _post(folder, ADJACENT, one_wrong, renamed)
    row_line = post.cell_line[(target.id, label, wrong_head)]
    assert _errors(folder, post.text()) == [("mismatch", header_line), ("mismatch", row_line)]


def _rate_table(folder: Path) -> Table:
    """A table of throughputs whose caption names its unit."""
    return next(t for t in _tables(folder) if "(" in t.title and "tok/s" in t.title)


@pytest.mark.parametrize("slug", list(ARTICLES))
def test_a_caption_naming_a_time_over_throughputs_is_one_error_at_the_caption(slug: str) -> None:
    folder = ARTICLES[slug]
    target = _rate_table(folder)
    unit_words = target.title[target.title.index("(") :]
    wrong_title = target.title.replace(unit_words, "(ms, median)")
    post = _post(
        folder,
        ADJACENT,
        tables=lambda t: replace(t, title=wrong_title) if t.id == target.id else t,
    )
    caption_line = post.lines.index(wrong_title) + 1
    assert _errors(folder, post.text()) == [("mismatch", caption_line)]


@pytest.mark.parametrize("slug", list(ARTICLES))
def test_a_time_unit_over_a_throughput_column_is_one_error_at_the_header(slug: str) -> None:
    folder = ARTICLES[slug]
    target = _rate_table(folder)
    head = target.header[1]
    post = _post(
        folder,
        ADJACENT,
        tables=lambda t: (
            replace(t, header=(t.header[0], f"{head} (ms)", *t.header[2:]))
            if t.id == target.id
            else t
        ),
    )
    header_line = next(n for n, x in enumerate(post.lines, 1) if f"| {head} (ms) |" in x)
    assert _errors(folder, post.text()) == [("mismatch", header_line)]


# --- key numbers, caption first ---------------------------------------------------------------

KEY_LAYOUTS = [
    "caption-colon",
    "caption-dash-list",
    "caption-above",
    "caption-above-blank",
    "number-first-blank",
]


def _key_post(
    folder: Path, how: str, wrong: int | None = None, edit: Callable[[str], str] = _wrong
) -> tuple[str, dict[str, int]]:
    post = Post()
    post.add("# Key numbers", "")
    at = write_key_numbers(post, folder, how)
    if wrong is not None:
        number = list(at)[wrong]
        digits = number.split(" ")[0]
        line = at[number] - 1
        post.lines[line] = post.lines[line].replace(number, number.replace(digits, edit(digits)))
    for table in _tables(folder):
        write_table(post, table, ADJACENT)
    return post.text(), at


@pytest.mark.sampled
@pytest.mark.parametrize("how", KEY_LAYOUTS)
@pytest.mark.parametrize("slug", list(ARTICLES))
def test_key_numbers_caption_first_are_paired_with_their_own_caption(slug: str, how: str) -> None:
    folder = ARTICLES[slug]
    text, at = _key_post(folder, how)
    assert _items(folder, text) == []
    for k, number in enumerate(at):
        text, _ = _key_post(folder, how, wrong=k)
        assert _errors(folder, text) == [("mismatch", at[number])], (how, number)


@pytest.mark.parametrize("slug", list(ARTICLES))
def test_key_numbers_in_an_html_definition_list(slug: str) -> None:
    folder = ARTICLES[slug]
    numbers = _key_numbers(folder)
    page = ["<html><body><main>", "<dl class='stats'>"]
    for number, caption in numbers:
        page += [f"<dt>{caption}</dt>", f"<dd>{number}</dd>"]
    page.append("</dl>")
    for table in _tables(folder):
        page.append(f"<h2>{table.title}</h2><table>")
        page.append("<tr>" + "".join(f"<th>{h}</th>" for h in table.header) + "</tr>")
        for label, cells in table.rows:
            page.append(f"<tr><td>{label}</td>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
        page.append("</table>")
    page.append("</main></body></html>")
    assert _errors(folder, "\n".join(page), html=True) == []
    first = page.index(f"<dd>{numbers[0][0]}</dd>")
    digits = numbers[0][0].split(" ")[0]
    page[first] = page[first].replace(digits, _wrong(digits))
    assert _errors(folder, "\n".join(page), html=True) == [("mismatch", first + 1)]


def _tabbed(folder: Path, retitle: Callable[[Table], Table]) -> list[str]:
    """The article's key numbers and tables as a paste of the page gives them: each table's
    title on its line, its cells separated by tabs (read from the word stream, not as pipes)."""
    post = Post()
    write_key_numbers(post, folder)
    for table in map(retitle, _tables(folder)):
        post.add(table.title, "\t".join(table.header))
        post.add(*("\t".join((label, *cells)) for label, cells in table.rows))
    return post.lines


@pytest.mark.parametrize("slug", list(ARTICLES))
def test_a_wrong_unit_in_a_pasted_table_is_one_error_where_it_is_written(slug: str) -> None:
    folder = ARTICLES[slug]
    target, k, built_unit = _time_column(folder)
    head = target.header[k]
    other = "(s)" if built_unit == "ms" else "(ms)"
    wrong_head = head.replace(f"({built_unit})", other)
    renamed = tuple(wrong_head if h == head else h for h in target.header)
    lines = _tabbed(folder, lambda t: replace(t, header=renamed) if t == target else t)
    header_line = next(n for n, x in enumerate(lines, 1) if wrong_head in x.split("\t"))
    assert _errors(folder, "\n".join(lines)) == [("mismatch", header_line)]
    rate = _rate_table(folder)
    wrong_title = rate.title[: rate.title.index("(")] + "(ms, median)"
    lines = _tabbed(folder, lambda t: replace(t, title=wrong_title) if t == rate else t)
    assert _errors(folder, "\n".join(lines)) == [("mismatch", lines.index(wrong_title) + 1)]


def _misgrouped(digits: str) -> str:
    """A thousands separator where none can be: '127.9' -> '1,27.9'."""
    return digits[0] + "," + digits[1:]


@pytest.mark.parametrize("how", ["number-first-blank", "caption-above-blank", "caption-colon"])
@pytest.mark.parametrize("slug", list(ARTICLES))
def test_a_malformed_key_number_keeps_its_caption(slug: str, how: str) -> None:
    """A key number that cannot be read is an error at its line, and the next number still
    goes with its own caption, not the unread one's."""
    folder = ARTICLES[slug]
    text, at = _key_post(folder, how)
    assert _items(folder, text) == []
    first = next(iter(at))
    text, _ = _key_post(folder, how, wrong=0, edit=_misgrouped)
    assert _errors(folder, text) == [("mismatch", at[first])], how
