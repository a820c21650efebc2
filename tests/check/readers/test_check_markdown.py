"""Markdown as articles are pasted into blogs: inline emphasis, code spans and links around
numbers, and grid tables. Each case rewrites the bundled article's own published text; no
number is typed in."""

from __future__ import annotations

import re
from pathlib import Path

from reportgen.check.compare import check_article
from reportgen.check.readers.markdown import plain_line

ROOT = Path(__file__).resolve().parents[3]
ARTICLE = ROOT / "runs" / "paiton-kimi-k3.1-pro"
PUBLISHED = next((ARTICLE / "published").glob("*.txt"))
HEADLINE = re.compile(r"(?m)^(\d[\d,.]*) (tok/s|ms)")  # a headline line: number and unit first


def _check(tmp_path: Path, text: str) -> list[tuple[int, int, str, str]]:
    path = tmp_path / "post.md"
    path.write_text(text, encoding="utf-8")
    result = check_article(ARTICLE, [path], build_dir=tmp_path / "none")
    (source,) = [s for s in result.sources if s.source == str(path)]
    return [(i.line, i.col, i.kind, i.message) for i in source.items if i.severity == "error"]


def _emphasised(text: str) -> str:
    """Headline numbers in bold, table cells in italics or code, a link on the first one."""
    text = HEADLINE.sub(r"**\1 \2** ", text)
    text = re.sub(r"\| (\d[\d,.]*) \|", r"| *\1* |", text, count=3)
    return re.sub(r"\| (\d[\d,.]*) \|", r"| `\1` |", text, count=2)


def test_markup_is_blanked_in_place() -> None:
    line = "**57 tok/s** one request, [410 tok/s](https://x.example/a/1234) and `240 ms`"
    plain = plain_line(line)
    assert len(plain) == len(line)
    assert "1234" not in plain and not set("*`[]()") & set(plain)
    for number in ("57 tok/s", "410 tok/s", "240 ms"):
        assert plain.index(number) == line.index(number)


def test_emphasised_markdown_checks_clean(tmp_path: Path) -> None:
    text = _emphasised(PUBLISHED.read_text(encoding="utf-8"))
    assert "**" in text and "`" in text
    linked = text.replace("Source:", "Source ([raw files](https://example.com/run/2048/8198)):")
    assert _check(tmp_path, linked) == []


def test_a_changed_number_in_bold_is_caught_at_its_place(tmp_path: Path) -> None:
    text = _emphasised(PUBLISHED.read_text(encoding="utf-8"))
    found = re.search(r"\*\*(\d+)", text)
    assert found is not None
    number = found.group(1)
    wrong = str(int(number) + 7)
    changed = text[: found.start(1)] + wrong + text[found.end(1) :]
    line = changed.count("\n", 0, found.start()) + 1
    col = found.start(1) - (changed.rfind("\n", 0, found.start()) + 1) + 1
    errors = _check(tmp_path, changed)
    assert [(e[0], e[1], e[2]) for e in errors] == [(line, col, "mismatch")], errors
    assert f"shows {wrong}" in errors[0][3]


def _grid(text: str) -> str:
    """Every pipe table rewritten as a grid table (+---+ borders, +===+ under the header)."""
    out, block = [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            block.append(line)
            continue
        if block:
            rows = [r for r in block if not re.fullmatch(r"[|\-: ]+", r)]
            cells = [[c.strip() for c in r.strip("|").split("|")] for r in rows]
            widths = [max(len(r[k]) for r in cells) + 2 for k in range(len(cells[0]))]
            border = "+" + "+".join("-" * w for w in widths) + "+"
            out.append(border)
            for n, row in enumerate(cells):
                out.append(
                    "|"
                    + "|".join(f" {c:<{w - 2}} " for c, w in zip(row, widths, strict=True))
                    + "|"
                )
                out.append(border.replace("-", "=") if n == 0 else border)
            block = []
        out.append(line)
    return "\n".join(out)


def test_grid_tables_check_clean_and_a_changed_cell_is_caught(tmp_path: Path) -> None:
    text = _grid(PUBLISHED.read_text(encoding="utf-8"))
    assert "+===" in text and "\n| 8K " in text
    assert _check(tmp_path, text) == []
    found = re.search(r"\| (\d+\.\d\d) ", text)
    assert found is not None
    changed = text[: found.start(1)] + "9" + text[found.start(1) + 1 :]
    line = text.count("\n", 0, found.start()) + 1
    errors = _check(tmp_path, changed)
    assert [(e[0], e[2]) for e in errors] == [(line, "mismatch")], errors
