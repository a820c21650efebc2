"""An article folder whose published copy shows one wrong number, for the tests of the
pre-commit hook (tests/cli/test_changed.py, tests/ci/hooks_e2e.py): the bundled article copied,
and in its published text the first prefill row's last cell changed by one in its last digit,
the value taken from the built table, never typed."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers_articles import PAITON, built_article, table_of

PUBLISHED = Path("published") / f"{PAITON.name}.txt"


def copy_article(into: Path) -> Path:
    """The bundled article copied to `into`/<its name>."""
    target = into / PAITON.name
    shutil.copytree(PAITON, target)
    return target


def break_published(article: Path) -> int:
    """Change one number of the article's published text; the line it is on."""
    built, _ = built_article(PAITON)
    label, cells = table_of(built.tables[0]).rows[0]
    right = f"| {label} | {' | '.join(cells)} |"
    last = cells[-1]
    wrong = f"| {label} | {' | '.join(cells[:-1])} | {last[:-1]}{(int(last[-1]) + 1) % 10} |"
    path = article / PUBLISHED
    lines = path.read_text(encoding="utf-8").split("\n")
    at = lines.index(right)
    lines[at] = wrong
    path.write_text("\n".join(lines), encoding="utf-8")
    return at + 1
