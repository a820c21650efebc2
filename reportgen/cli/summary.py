"""`reportgen check --summary FILE`: what a check read, as rows of a Markdown table appended to
FILE (in CI, `$GITHUB_STEP_SUMMARY`, the job's summary page).

One row per checked text (the built article, each published copy) and one for the data lints:
the numbers checked, how many matched, how many mismatched or stayed unverified, and the result.
Checks of several articles in one job append to one table: a call that finds the table a call
before it left at the end of FILE adds its rows to it, else it starts a new table.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from reportgen.check.result import CheckResult, SourceResult
from reportgen.fileio import append_output
from reportgen.metrics.lints.findings import fails
from reportgen.terminal import one_line

HEADER = (
    "| article | published file | numbers checked | matched | mismatched / unverified | result |"
)
RULE = "| --- | --- | ---: | ---: | ---: | --- |"
# What a text's item of each kind fails or warns of, in the result column's words.
_WORDS = {
    "mismatch": "mismatched",
    "unverified": "unverified",
    "missing": "missing",
    "duplicate": "shown twice",
    "no-numbers": "none of the article's numbers",
    "unseen": "not seen as readers see it",
    "unread": "not read",
    "unresolved": "unresolved reference",
    "stale": "build older than its sources",
    "gated": "a number where the article says not measurable",
}


def cell(text: str) -> str:
    """Text from a file name or a copy, made one table cell: shown as written, never markup."""
    return html.escape(one_line(text), quote=False).replace("|", "\\|").replace("`", "&#96;")


def _source_row(article: str, source: SourceResult, strict: bool) -> str:
    kinds = Counter(item.kind for item in source.items)
    mismatched, unverified = kinds["mismatch"], kinds["unverified"]
    checked = source.matched + mismatched + unverified
    failed = any(i.severity == "error" for i in source.items) or (strict and bool(source.items))
    said = ", ".join(f"{n} {_WORDS[kind]}" for kind, n in sorted(kinds.items()))
    result = ("FAIL" if failed else "pass") + (f": {said}" if said else "")
    name = source.source if source.kind == "published" else f"build: {source.source}"
    return (
        f"| {cell(article)} | {cell(name)} | {checked} | {source.matched} | "
        f"{mismatched} / {unverified} | {cell(result)} |"
    )


def _lint_row(result: CheckResult) -> str:
    errors = sum(f.severity == "error" for f in result.findings)
    warnings = len(result.findings) - errors
    acknowledged = sum(bool(f.acknowledged) for f in result.findings)
    words = f"{errors} error(s), {warnings} warning(s)"
    words += f" ({acknowledged} acknowledged)" if acknowledged else ""
    verdict = "FAIL" if fails(result.findings, strict=result.strict) else "pass"
    return f"| {cell(result.article)} | data lints of the run files | | | | {verdict}: {words} |"


def rows(result: CheckResult) -> list[str]:
    """The table rows of one article's check: each text it read, then its data lints."""
    out = [_source_row(result.article, s, result.strict) for s in result.sources]
    return [*out, _lint_row(result)]


def error_rows(article: str, problems: Sequence[str]) -> list[str]:
    """The row of an article that could not be checked (its input was unusable)."""
    first = problems[0] if problems else "unusable input"
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return [f"| {cell(article)} | | | | | {cell(f'ERROR: {first}{more}')} |"]


def _continues_table(tail: str) -> bool:
    """True when the text ends with a table this writer made (its header, then only rows)."""
    for line in reversed(tail.rstrip("\n").split("\n")):
        if line == HEADER:
            return True
        if not line.startswith("| "):
            return False
    return False


def addition(tail: str, table_rows: Sequence[str]) -> str:
    """What to append to a file that ends with `tail`: the rows alone when it ends with this
    writer's table, else a new table, set apart from what is before it by a blank line."""
    if _continues_table(tail):
        return "\n".join(table_rows) + "\n"
    lead = "" if not tail or tail.endswith("\n\n") else "\n" if tail.endswith("\n") else "\n\n"
    return lead + "\n".join([HEADER, RULE, *table_rows]) + "\n"


def append(path: Path, table_rows: Sequence[str]) -> None:
    """Append `table_rows` to the table at the end of `path`, or start one there."""

    def data(tail: bytes) -> bytes:
        return addition(tail.decode("utf-8", "replace"), table_rows).encode("utf-8")

    append_output(path, data)
