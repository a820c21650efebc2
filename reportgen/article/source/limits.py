"""How much an article may declare, so that building it takes bounded time and memory: part of
the load stage for an article's source (`ArticleSource` in, located problems out).

A byte cap alone does not bound a build: 95 KB of `article.toml` declared 800 small tables (42 s,
1.1 GB), and 80 KB of prose held 20,000 one-word headings (past 30 s), because the PDF's layout
costs by what is laid out, not by bytes. So an article may declare at most `LIMITS` of each
thing that costs: tables, charts, Markdown headings and prose. Each is far above what a
published benchmark article uses (the bundled ones: 4 tables, 4 charts, 10 KB of prose), and
together, all at their limit, they build in about 7 s on a 2-core machine
(`benchmarks/worst_case.py`, run by `make limits`, holds the worst case under 10 s and 1 GB).
How much data a run file holds is bounded by its own size cap, not here.
"""

from __future__ import annotations

from dataclasses import dataclass

from reportgen.article.prose.render import parse_markdown
from reportgen.article.source.declarations import ArticleSource, Text
from reportgen.errors import Problem, whole_file


@dataclass(frozen=True, kw_only=True)
class Limits:
    """The most an article may declare of each thing a build's time grows with."""

    tables: int = 64
    charts: int = 16
    headings: int = 128  # Markdown headings over all prose files
    prose_bytes: int = 64 * 1024  # the prose files together, in UTF-8
    # Lines the prose starts on the page whatever their length: each block (paragraph, list
    # item, heading, quote, rule), each hard line break and each line of a code block. 20,000
    # one-letter paragraphs in 60 KB of prose laid out 696 PDF pages in 39 s.
    prose_lines: int = 1500


LIMITS = Limits()


def _prose(article: ArticleSource) -> list[Text]:
    texts = [article.status] if article.status else []
    return texts + [s.prose for s in article.sections if s.prose is not None]


def prose_layout(text: str) -> tuple[int, int]:
    """(headings, lines) of a prose text as Markdown lays it out: `Limits.prose_lines`."""
    headings = lines = 0
    for token in parse_markdown(text):
        if token.nesting == 1 and token.block:
            lines += 1
            headings += token.type == "heading_open"
        elif token.type in ("fence", "code_block"):
            lines += token.content.count("\n") + 1
        elif token.type == "hr":
            lines += 1
        for child in token.children or ():
            lines += child.type == "hardbreak"
    return headings, lines


def over_limits(article: ArticleSource, limits: Limits = LIMITS) -> list[Problem]:
    """A problem for each limit the article declares past, located at the first declaration or
    prose file beyond it."""
    problems = []
    tables = [t for s in article.sections for t in s.tables]
    charts = [c for s in article.sections for c in s.charts]
    for kind, items, most in (("tables", tables, limits.tables), ("charts", charts, limits.charts)):
        if len(items) > most:
            problems.append(
                items[most].place.problem(
                    f"the article declares {len(items)} {kind}; an article may declare at most "
                    f"{most}, which keeps its build bounded: split it into several articles"
                )
            )
    total = headings = lines = 0
    for text in _prose(article):
        size = len(text.text.encode("utf-8"))
        if total + size > limits.prose_bytes:  # not parsed: past the cap, it may be huge
            problems.append(_over(text, "bytes of prose", total + size, limits.prose_bytes))
            break
        found, laid = prose_layout(text.text)
        if headings <= limits.headings < headings + found:  # said once, where it is crossed
            problems.append(_over(text, "headings", headings + found, limits.headings))
        if lines <= limits.prose_lines < lines + laid:
            problems.append(_over(text, "lines of prose", lines + laid, limits.prose_lines))
        total, headings, lines = total + size, headings + found, lines + laid
    return problems


def _over(text: Text, what: str, count: int, most: int) -> Problem:
    """The problem of a prose file that takes the article past a limit."""
    return whole_file(
        text.file,
        f"with this file the article's prose has {count:,} {what}; an article may have at "
        f"most {most:,}, which keeps its build bounded: shorten it, or split the article",
    )
