"""The two bundled articles, built once per test session, and their tables as a copy shows them:
the article to check copies of, its page and a plain paste of it, and the cell texts to write
copies from (never typed)."""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from reportgen.article.build import Built, build, render_article
from reportgen.article.tables.layout import TableView
from reportgen.check.compare import article_shape, check_published
from reportgen.check.readers.shape import Shape, html_text
from reportgen.check.readers.sources import read_published
from reportgen.check.result import SourceResult, expected_numbers

ROOT = Path(__file__).resolve().parents[1]
PAITON = ROOT / "runs" / "paiton-kimi-k3.1-pro"
MEASURED = ROOT / "runs" / "tiny-llamacpp-two-tools"


@functools.cache
def ids_defined_twice(html: str) -> list[str]:
    """The element ids a page defines more than once: a page (and the PDF laid out from it,
    where each is an anchor) may define each once."""
    seen: dict[str, int] = {}
    for found in re.finditer(r'<[a-zA-Z][^>]*?\sid="([^"]+)"', html):
        seen[found.group(1)] = seen.get(found.group(1), 0) + 1
    return sorted(i for i, n in seen.items() if n > 1)


def built_article(folder: Path) -> tuple[Built, Shape]:
    """The article of `folder` built in memory (no charts), and what copies are matched with:
    built once per process for each state of the folder's files (a test that edits a copy of
    an article gets the edited article's build)."""
    return _built(folder, _fingerprint(folder))


def _fingerprint(folder: Path) -> str:
    """A digest of every file under `folder`, its path and its bytes (a modification time can
    stay the same across an edit made within its clock's tick)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(f"{path.relative_to(folder)}\0{path.stat().st_size}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@functools.lru_cache(maxsize=32)
def _built(folder: Path, fingerprint: str) -> tuple[Built, Shape]:
    del fingerprint  # the cache's key only
    built = render_article(folder, {}, charts=False)
    return built, article_shape(built, built.html)


class Builds:
    """Articles as `reportgen build` writes them into one folder, each built when first asked
    for: a test worker builds only the articles its own tests read."""

    def __init__(self, out: Path, folders: dict[str, Path], environ: dict[str, str]) -> None:
        self.out, self.folders, self.environ = out, folders, environ

    @functools.cache  # noqa: B019 (one instance per session: nothing to free early)
    def __getitem__(self, slug: str) -> Path:
        return build(self.folders[slug], self.out, environ=self.environ)


@functools.cache
def built_page(folder: Path) -> str:
    """The article's page as `reportgen build` writes it (index.html is the rendered `html`, as
    is), dated at SOURCE_DATE_EPOCH 0: rendered without the PDF, which a reader of it needs not."""
    return render_article(folder, {"SOURCE_DATE_EPOCH": "0"}).html


def check_copy(path: Path, built: Built, shape: Shape) -> SourceResult:
    """The published copy at `path` (HTML, Markdown, text or PDF), read as `reportgen check`
    reads it and checked against `built` (and `shape`, what its copies are matched with)."""
    read = read_published(path)
    expected = expected_numbers(built.article, built.metrics, built.tables)
    return check_published(read.lines, read.label, built.metrics, expected, shape, page=read.page)


@functools.cache
def plain_copy(folder: Path) -> str:
    """The article's page as a plain paste gives it (`plain_paste`)."""
    return plain_paste(built_page(folder))


def plain_paste(page: str) -> str:
    """`page` as a plain paste gives it: tags gone, cells tab-separated. (The same paste as
    test_check_mutations.py's own, which issue 23 holds unchanged.)"""
    text = re.sub(r"(?s)<(script|style|svg|head)\b.*?</\1>", "", page)
    text = re.sub(r"<(br|/p|/h\d|/li|/tr|/div|/caption|/figcaption|/dt|/dd)\b[^>]*>", "\n", text)
    text = re.sub(r"</t[dh]>", "\t", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("&amp;", "&").replace("&#39;", "'").replace("&quot;", '"')
    text = text.replace("&lt;", "<").replace("&gt;", ">")
    return "\n".join(line.strip() for line in text.split("\n") if line.strip()) + "\n"


@dataclass(frozen=True)
class Table:
    """A built table as text: its title (and unit words), header and rows of cell texts."""

    id: str
    title: str
    header: tuple[str, ...]  # the corner, then the columns
    rows: tuple[tuple[str, tuple[str, ...]], ...]
    metrics: dict[tuple[str, str], str] = field(hash=False, compare=False)

    @property
    def corner(self) -> str:
        return self.header[0]

    @property
    def columns(self) -> tuple[str, ...]:
        return self.header[1:]

    def column(self, k: int) -> tuple[str, ...]:
        return tuple(cells[k] for _, cells in self.rows)


def table_of(view: TableView) -> Table:
    """`view` as a copy writes it: each cell's text as the page shows it, and its metric."""
    rows = tuple(
        (label, tuple(" ".join(html_text(c.html).split()) for c in cells))
        for label, cells in view.rows
    )
    metrics = {
        (label, col): c.metric
        for label, cells in view.rows
        for col, c in zip(view.columns, cells, strict=True)
        if c.metric
    }
    title = f"{view.title} {view.decl.unit_words}".strip()
    return Table(view.id, title, (view.corner, *view.columns), rows, metrics)


def replace_drafts(folder: Path, engine: str = "the engine") -> None:
    """What an author does to an article `reportgen init` wrote before publishing it: the text
    marked as draft replaced with their own (the engine's name, an intro)."""
    from reportgen.article.source.draft import DRAFT
    from reportgen.init.manifest import NO_ENGINE

    manifest, intro = folder / "article.toml", folder / "intro.md"
    manifest.write_text(manifest.read_text().replace(NO_ENGINE, engine))
    intro.write_text(intro.read_text().replace(DRAFT, "We measured the runs below."))


def acknowledge(folder: Path, lint: str, reason: str) -> None:
    """What an author does with a lint `reportgen init` listed as a commented-out
    acknowledgement, having reviewed its findings: the block uncommented, with a reason."""
    manifest = folder / "article.toml"
    text = manifest.read_text()
    pattern = (
        rf'# \[\[acknowledge\]\]\n# lint = "{re.escape(lint)}"\n'
        r'(?:# cells = .*\n)?# reason = "\.\.\."\n'
    )
    block = re.search(pattern, text)
    assert block is not None, f"init listed no {lint} finding"
    reviewed = re.sub(r"(?m)^# ", "", block.group()).replace('"..."', f'"{reason}"')
    manifest.write_text(text.replace(block.group(), reviewed))
