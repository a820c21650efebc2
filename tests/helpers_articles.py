"""The two bundled articles, built once per test session, and their tables as a copy shows them:
the article to check copies of, and the cell texts to write those copies from (never typed)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

from reportgen.article.build import Built, render_article
from reportgen.article.tables.layout import TableView
from reportgen.check.compare import article_shape
from reportgen.check.readers.shape import Shape, html_text

ROOT = Path(__file__).resolve().parents[1]
PAITON = ROOT / "runs" / "paiton-kimi-k3.1-pro"
MEASURED = ROOT / "runs" / "tiny-llamacpp-two-tools"


@functools.cache
def built_article(folder: Path) -> tuple[Built, Shape]:
    """The article of `folder` built in memory (no charts), and what copies are matched with."""
    built = render_article(folder, {}, charts=False)
    return built, article_shape(built, built.html)


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
