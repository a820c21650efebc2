"""The published-text readers on real renderings: each article is built (HTML and PDF), and its
text as people copy it is checked against its run files:

- the PDF directly, and `pdftotext` of it with and without `-layout`;
- a plain copy of the HTML page's text (tags stripped, as a paste into a text box gives);
- the article's HTML inlined in a blog template with numbers of its own around it.

Four articles of different shapes: the bundled one (context x concurrency tables, headlines),
the measured two-tool article (load-point tables, key results, ratio columns), a two-engine
comparison (verdict cells, missing cells with marks) and the synthetic frontier article (units
tok/s/GPU and USD/Mtok in captions, headers and prose, "unreachable" cells, a footnote letter
beside every cost)."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers_articles import Builds

from reportgen.check.compare import check_article

pytestmark = pytest.mark.pdf  # each article built, PDF included, and its PDF read

ROOT = Path(__file__).resolve().parents[2]
ARTICLES = {
    "paiton-kimi-k3.1-pro": ROOT / "runs" / "paiton-kimi-k3.1-pro",
    "tiny-llamacpp-two-tools": ROOT / "runs" / "tiny-llamacpp-two-tools",
    "two-engines": ROOT / "tests" / "articles" / "two-engines",
    "three-configs": ROOT / "tests" / "articles" / "three-configs",
}
BLOG = """<!doctype html><html><head><title>Blog: 3 posts</title></head><body>
<nav><a href="/">Home</a> <a href="/archive/2026">2026</a> 14 comments</nav>
<aside>Popular: 10 tips, 25 minutes read</aside>
<main class="post">{body}</main>
<footer>(c) 2026 Example blog, 1,200 subscribers</footer></body></html>
"""


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Builds:
    return Builds(tmp_path_factory.mktemp("readers"), ARTICLES, {"SOURCE_DATE_EPOCH": "0"})


def _pdftotext(pdf: Path, out: Path, *args: str) -> Path:
    tool = shutil.which("pdftotext")
    assert tool is not None, "pdftotext (poppler-utils) is installed by `make test-packages`"
    subprocess.run([tool, *args, str(pdf), str(out)], check=True)
    return out


def _html_copy(page: Path, out: Path) -> Path:
    """The page's text as a naive copy gives it: tags gone, cells separated by tabs."""
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"(?s)<(script|style|svg|head)\b.*?</\1>", "", text)
    text = re.sub(r"<(br|/p|/h\d|/li|/tr|/div|/caption|/figcaption|/dt|/dd)\b[^>]*>", "\n", text)
    text = re.sub(r"</t[dh]>", "\t", text)
    out.write_text(html.unescape(re.sub(r"<[^>]+>", "", text)), encoding="utf-8")
    return out


def _in_blog(page: Path, out: Path) -> Path:
    text = page.read_text(encoding="utf-8")
    body = re.search(r"(?s)<body[^>]*>(.*)</body>", text)
    assert body is not None
    out.write_text(BLOG.format(body=body.group(1)), encoding="utf-8")
    return out


def _copies(folder: Path, tmp_path: Path) -> dict[str, Path]:
    pdf, page = folder / "article.pdf", folder / "index.html"
    return {
        "pdf": pdf,
        "pdftotext -layout": _pdftotext(pdf, tmp_path / "layout.txt", "-layout"),
        "pdftotext": _pdftotext(pdf, tmp_path / "raw.txt"),
        "html text copy": _html_copy(page, tmp_path / "copy.txt"),
        "html in a blog": _in_blog(page, tmp_path / "blog.html"),
    }


def _errors(slug: str, copies: dict[str, Path], tmp_path: Path) -> dict[str, list[str]]:
    """Each copy's errors, from one check of them all (copies checked together are judged as
    each alone: tests/check/test_check.py)."""
    result = check_article(ARTICLES[slug], list(copies.values()), build_dir=tmp_path / "none")
    errors = {}
    for how, copy in copies.items():
        source = [s for s in result.sources if s.source == str(copy)]
        assert len(source) == 1, how
        assert source[0].matched > 0, how
        errors[how] = [
            f"{i.line}:{i.col} {i.kind} {i.message}"
            for i in source[0].items
            if i.severity == "error"
        ]
    return errors


# In plain pdftotext (no -layout) of the two-tool article, pdftotext's reading order scrambles
# two tables: the inter-token latency table's body comes before its title, after the table above
# it, with a header of its own; the AIPerf load-point table's header is split around its title;
# the GuideLLM SLO table (eight columns, headers wrapped over three lines) comes out in blocks:
# part of its header with part of its cells, then the rest of the header, then the rest of the
# cells.
# Which cell is which cannot be told, so the reader leaves them, and check fails closed: each of
# their cells it cannot read is missing, never a mismatch, and no other table loses a cell.
# The frontier article's fixed-interactivity table was unreadable here while it held eight narrow
# columns (costs beside throughputs): pdftotext gave it in blocks of columns, not rows. With its
# costs in a table of their own (`cost = "only"`) both tables come out a row at a time.
UNREADABLE = {
    ("tiny-llamacpp-two-tools", "pdftotext"): (
        "Inter-token latency",
        "AIPerf, one row per load point",
        "GuideLLM: each load point against the objectives",
    ),
}


@pytest.mark.parametrize("slug", list(ARTICLES))
def test_every_copy_of_the_article_checks_clean(built: Builds, slug: str, tmp_path: Path) -> None:
    for how, errors in _errors(slug, _copies(built[slug], tmp_path), tmp_path).items():
        if (slug, how) in UNREADABLE:
            tables = tuple(f"(table '{t}', " for t in UNREADABLE[slug, how])
            assert errors, how
            assert all(" missing " in e and any(t in e for t in tables) for e in errors), errors
        else:
            assert errors == [], (how, errors)


@pytest.mark.parametrize("slug", list(ARTICLES))
def test_a_changed_cell_is_caught_in_every_copy(built: Builds, slug: str, tmp_path: Path) -> None:
    """The first table cell with decimals changed in each text copy: a mismatch at its place."""
    copies = {h: c for h, c in _copies(built[slug], tmp_path).items() if c.suffix != ".pdf"}
    lines = {}
    for how, copy in copies.items():
        text = copy.read_text(encoding="utf-8")
        shown = (
            r"(?<=>)(\d+)\.(\d\d)(?=<)" if copy.suffix == ".html" else r"(?<=\s)(\d+)\.(\d\d)(?=\s)"
        )
        found = re.search(shown, text)
        assert found is not None, how
        digit = "1" if found.group(2)[-1] != "1" else "2"
        changed = text[: found.end() - 1] + digit + text[found.end() :]
        copy.write_text(changed, encoding="utf-8")
        lines[how] = text.count("\n", 0, found.start()) + 1
    for how, errors in _errors(slug, copies, tmp_path).items():
        line = lines[how]
        assert any(e.startswith(f"{line}:") and " mismatch " in e for e in errors), (how, errors)
