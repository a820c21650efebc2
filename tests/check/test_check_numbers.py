"""Malformed numbers and impossible signs in a published text are errors at their cell, never
skipped and never mistaken for a number that is merely missing. Each case edits one cell of the
bundled article's own published text; nothing is typed in."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reportgen.check.compare import check_article

ROOT = Path(__file__).resolve().parents[2]
ARTICLE = ROOT / "runs" / "paiton-kimi-k3.1-pro"
PUBLISHED = next((ARTICLE / "published").glob("*.txt"))
# a table cell holding a number with a thousands separator, and one with decimals
GROUPED = re.compile(r"\| (\d{1,3}),(\d{3}) \|")
DECIMAL = re.compile(r"\| (\d+\.\d+) \|")


def mutated(tmp_path: Path, pattern: re.Pattern[str], replace: str) -> tuple[Path, int, int]:
    """A copy of the published text with the first cell `pattern` finds rewritten; the file,
    and the line and column of the cell."""
    text = PUBLISHED.read_text(encoding="utf-8")
    found = pattern.search(text)
    assert found is not None
    line = text.count("\n", 0, found.start()) + 1
    col = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 3  # after "| "
    path = tmp_path / "published.txt"
    path.write_text(text[: found.start()] + found.expand(replace) + text[found.end() :])
    return path, line, col


def errors(path: Path, tmp_path: Path) -> list[tuple[int, int, str]]:
    result = check_article(ARTICLE, [path], build_dir=tmp_path / "build")
    return [
        (i.line, i.col, i.message)
        for i in result.items
        if i.severity == "error" and i.source == str(path)
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("replace", "why"),
    [
        (r"| \1\2, |", "a separator with no digit after it"),  # "8198,"
        (r"| \1\2,0 |", "its thousands separators do not group three digits"),  # "8198,0"
        (r"| \1.\2. |", "a separator with no digit after it"),  # "8.198."
        (r"| - \1,\2 |", "a sign set apart from its digits"),  # "- 1,234"
    ],
)
def test_a_malformed_number_is_an_error_at_its_cell(tmp_path: Path, replace: str, why: str) -> None:
    path, line, col = mutated(tmp_path, GROUPED, replace)
    ((at_line, at_col, message),) = errors(path, tmp_path)
    assert (at_line, at_col) == (line, col)
    assert "malformed number" in message and why in message
    assert "does not show" not in message  # wrong, not missing


def test_a_well_formed_wrong_number_is_a_mismatch_not_malformed(tmp_path: Path) -> None:
    path, line, col = mutated(tmp_path, GROUPED, r"| \g<1>0,\2 |")  # one more digit
    ((at_line, at_col, message),) = errors(path, tmp_path)
    assert (at_line, at_col) == (line, col)
    assert message.startswith("shows ") and "malformed" not in message


@pytest.mark.parametrize("sign", ["-", "\u2212"])
def test_a_sign_where_none_can_be_is_an_error_at_its_cell(tmp_path: Path, sign: str) -> None:
    path, line, col = mutated(tmp_path, DECIMAL, rf"| {sign}\1 |")
    ((at_line, at_col, message),) = errors(path, tmp_path)
    assert (at_line, at_col) == (line, col)
    assert "a sign where none can be" in message


def test_the_published_text_itself_has_no_malformed_number(tmp_path: Path) -> None:
    assert errors(PUBLISHED, tmp_path) == []
