"""`reportgen check --summary FILE` (reportgen/cli/summary.py): the Markdown table of what a check
read, one row per text and one for the data lints, appended so that several checks make one
table, and every name from a file shown as text, never as markup."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from reportgen.check.result import CheckResult, Item, Kind, SourceResult
from reportgen.cli import summary
from reportgen.errors import InputError
from reportgen.metrics.lints.findings import Finding


def _item(kind: Kind, source: str = "post.md") -> Item:
    return Item(kind=kind, source=source, line=3, col=5, message=f"a {kind} number")


def _finding(severity: str, acknowledged: str | None = None) -> Finding:
    return Finding(
        id="few-samples",
        severity=severity,  # type: ignore[arg-type]
        file="run.json",
        pointer="/a",
        cell=None,
        metrics=(),
        evidence="e",
        message="m",
        acknowledged=acknowledged,
    )


def _result(*sources: SourceResult, findings: tuple[Finding, ...] = (), strict: bool = False):  # type: ignore[no-untyped-def]
    return CheckResult(article="my-article", sources=sources, findings=findings, strict=strict)


BUILT = SourceResult(source="my-article (built in memory)", kind="built", matched=12, items=())


def _cells(row: str) -> list[str]:
    assert row.startswith("| ") and row.endswith(" |")
    return [c.strip() for c in re.split(r"(?<!\\)\|", row[1:-1])]


def test_a_row_per_text_and_one_for_the_lints() -> None:
    copy = SourceResult(
        source="post.md",
        kind="published",
        matched=9,
        items=(_item("mismatch"), _item("unverified"), _item("unverified"), _item("missing")),
    )
    rows = summary.rows(_result(BUILT, copy, findings=(_finding("warning", "known"),)))
    assert len(rows) == 3
    assert _cells(rows[0]) == [
        "my-article",
        "build: my-article (built in memory)",
        "12",
        "12",
        "0 / 0",
        "pass",
    ]
    # checked = matched + mismatched + unverified; a missing number fails the text
    assert _cells(rows[1]) == [
        "my-article",
        "post.md",
        "12",
        "9",
        "1 / 2",
        "FAIL: 1 mismatched, 1 missing, 2 unverified",
    ]
    assert _cells(rows[2])[1] == "data lints of the run files"
    assert _cells(rows[2])[-1] == "pass: 0 error(s), 1 warning(s) (1 acknowledged)"


def test_warnings_pass_unless_strict() -> None:
    copy = SourceResult(source="post.md", kind="published", matched=4, items=(_item("unverified"),))
    lax = summary.rows(_result(BUILT, copy, findings=(_finding("warning"),)))
    strict = summary.rows(_result(BUILT, copy, findings=(_finding("warning"),), strict=True))
    assert _cells(lax[1])[-1] == "pass: 1 unverified"
    assert _cells(lax[2])[-1].startswith("pass:")
    assert _cells(strict[1])[-1] == "FAIL: 1 unverified"
    assert _cells(strict[2])[-1].startswith("FAIL:")


def test_a_lint_error_fails_the_lint_row() -> None:
    rows = summary.rows(_result(BUILT, findings=(_finding("error"),)))
    assert _cells(rows[-1])[-1] == "FAIL: 1 error(s), 0 warning(s)"


def test_names_from_files_are_shown_as_text() -> None:
    copy = SourceResult(source="a|b <img src=x> `c`\n.md", kind="published", matched=1, items=())
    row = summary.rows(_result(BUILT, copy))[1]
    assert "a\\|b &lt;img src=x&gt; &#96;c&#96;\\n.md" in row
    assert "<img" not in row and "\n" not in row


def test_several_checks_append_to_one_table(tmp_path: Path) -> None:
    out = tmp_path / "summary.md"
    out.write_text("## Build\n\nbuilt 2 articles\n")
    summary.append(out, ["| a | x | 1 | 1 | 0 / 0 | pass |"])
    summary.append(out, ["| b | y | 2 | 2 | 0 / 0 | pass |"])
    assert out.read_text() == (
        "## Build\n\nbuilt 2 articles\n\n"
        f"{summary.HEADER}\n{summary.RULE}\n"
        "| a | x | 1 | 1 | 0 / 0 | pass |\n| b | y | 2 | 2 | 0 / 0 | pass |\n"
    )


@pytest.mark.parametrize(
    ("before", "lead"),
    [("", ""), ("text", "\n\n"), ("text\n", "\n"), ("text\n\n", ""), ("| other | table |\n", "\n")],
)
def test_a_new_table_is_set_apart_from_what_is_before_it(before: str, lead: str) -> None:
    assert summary.addition(before, ["| r |"]) == f"{lead}{summary.HEADER}\n{summary.RULE}\n| r |\n"


def test_rows_after_another_step_start_a_new_table() -> None:
    tail = f"{summary.HEADER}\n{summary.RULE}\n| a |\n\nanother step's words\n"
    assert summary.addition(tail, ["| b |"]).startswith(f"\n{summary.HEADER}\n")


def test_an_unusable_article_has_an_error_row() -> None:
    [row] = summary.error_rows("runs/x", ["runs/x:1:1 /: no such article folder", "more"])
    assert _cells(row) == [
        "runs/x",
        "",
        "",
        "",
        "",
        "ERROR: runs/x:1:1 /: no such article folder (and 1 more)",
    ]


def test_the_summary_is_never_written_through_a_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    link = tmp_path / "summary.md"
    link.symlink_to(victim)
    with pytest.raises(OSError, match="symbolic links"):
        summary.append(link, ["| a |"])
    assert victim.read_text() == "keep\n"


def test_a_fifo_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "summary.md"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        summary.append(fifo, ["| a |"])
