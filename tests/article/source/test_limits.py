"""An article's declarations are bounded so its build is (reportgen/article/source/limits.py), and
Markdown nested past what a page lays out renders flat (reportgen/article/prose/render.py).

The worst case the limits allow is built and timed by `make limits`
(benchmarks/worst_case.py), on its own rather than among these parallel tests.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from reportgen.article.build import build
from reportgen.article.prose.render import MAX_INLINE_DEPTH, parse_markdown
from reportgen.article.source.limits import LIMITS, over_limits, prose_layout
from reportgen.article.source.manifest import load_article
from reportgen.errors import InputError

ARTICLE = Path(__file__).resolve().parents[3] / "runs" / "tiny-llamacpp-two-tools"


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "article"
    shutil.copytree(ARTICLE, folder)
    return folder


def _tables(n: int) -> str:
    return '\n[[sections]]\nid = "more"\ntitle = "More"\n' + "".join(
        f'\n[[sections.table]]\nid = "more-{i}"\ntitle = "More {i}"\nmetric = "load.ttft_s"\n'
        'rows = "concurrency"\ncolumns = "run"\n'
        for i in range(n)
    )


def test_the_bundled_articles_are_far_inside_the_limits() -> None:
    for folder in sorted((ARTICLE.parent).iterdir()):
        assert over_limits(load_article(folder)) == [], folder.name


def test_one_table_past_the_limit_is_an_error_at_that_table(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    sections = load_article(folder).sections
    own = sum(len(s.tables) for s in sections)
    manifest = folder / "article.toml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text + _tables(LIMITS.tables - own), encoding="utf-8")
    assert len([t for s in load_article(folder).sections for t in s.tables]) == LIMITS.tables
    manifest.write_text(text + _tables(LIMITS.tables - own + 1), encoding="utf-8")
    with pytest.raises(InputError) as raised:
        load_article(folder)
    (problem,) = raised.value.problems
    assert problem.pointer == f"/sections/{len(sections)}/table/{LIMITS.tables - own}"
    assert problem.message == (
        f"the article declares {LIMITS.tables + 1} tables; an article may declare at most "
        f"{LIMITS.tables}, which keeps its build bounded: split it into several articles"
    )


@pytest.mark.parametrize(
    ("limit", "prose"),
    [
        ("headings", "## a\n\n" * 3),
        ("prose_lines", "x\n\n" * 3 + "```\n1\n2\n```\n\ny  \nz\n"),
        ("prose_bytes", "x" * 50),
    ],
)
def test_prose_past_a_limit_is_an_error_at_the_file_that_crosses_it(
    tmp_path: Path, limit: str, prose: str
) -> None:
    folder = _copy(tmp_path)
    (folder / "status.md").write_text(prose, encoding="utf-8")
    article = load_article(folder)  # status.md is the first prose file
    texts = [article.status, *(s.prose for s in article.sections if s.prose)]
    count: Callable[[str], int] = {
        "headings": lambda t: prose_layout(t)[0],
        "prose_lines": lambda t: prose_layout(t)[1],
        "prose_bytes": lambda t: len(t.encode()),
    }[limit]
    own, total = count(prose), sum(count(t.text) for t in texts if t)
    (problem,) = over_limits(article, replace(LIMITS, **{limit: own - 1}))
    assert problem.path == str(folder / "status.md")
    assert f"has {own:,} " in problem.message and f"at most {own - 1:,}" in problem.message
    assert over_limits(article, replace(LIMITS, **{limit: total})) == []
    crossing = over_limits(article, replace(LIMITS, **{limit: total - 1}))
    sums = [sum(count(t.text) for t in texts[: i + 1] if t) for i in range(len(texts))]
    first = next(t for t, n in zip(texts, sums, strict=True) if t and n > total - 1)
    assert [p.path for p in crossing] == [first.file]


def test_every_kind_of_line_is_counted() -> None:
    text = "# h\n\npara\none\n\n- a\n- b\n\n> q\n\n---\n\n```\n1\n2\n```\n\nx  \ny\n"
    # heading, paragraph, list, 2 items (each with its paragraph), quote and its paragraph,
    # rule, 3 code lines, a paragraph and its hard break
    assert prose_layout(text) == (1, 15)


@pytest.mark.pdf
def test_emphasis_nested_a_thousand_deep_builds_flat(tmp_path: Path) -> None:
    """`*` x 1000 around a word made 500 nested elements, and WeasyPrint's layout ended in a
    RecursionError; markup past MAX_INLINE_DEPTH is now shown as its text."""
    folder = _copy(tmp_path)
    nested = "*" * 1000 + "deep" + "*" * 1000 + " and **bold** *kept*"
    (folder / "status.md").write_text(nested + "\n", encoding="utf-8")
    tokens = parse_markdown(nested)
    depth = deepest = 0
    for child in tokens[1].children or ():
        depth += child.nesting
        deepest = max(deepest, depth)
    assert deepest == MAX_INLINE_DEPTH
    build(folder, tmp_path / "out")
    page = (tmp_path / "out" / "article" / "index.html").read_text(encoding="utf-8")
    assert "deep" in page and "<strong>bold</strong>" in page and "<em>kept</em>" in page
    paragraph = page[
        page.rindex("<p", 0, page.index("deep")) : page.index("</p>", page.index("deep"))
    ]
    assert len(re.findall(r"<(?:em|strong)>", paragraph)) == MAX_INLINE_DEPTH + 2
