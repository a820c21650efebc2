"""Render a `CheckResult` for people (text), machines (JSON) or GitHub (annotations).

A result quotes published copies (row labels, the words near a number, file names), so every
rendering prints them as data: escape and control characters visible (reportgen/terminal.py), no
line that a CI runner reads as a workflow command, and GitHub's own escapes in annotations.
"""

from __future__ import annotations

import json
import re
from itertools import groupby

from reportgen.check.result import CheckResult, Item
from reportgen.metrics.lints.findings import Finding, group
from reportgen.terminal import one_line

SCHEMA_ID = "https://reportgen.invalid/schemas/check-result.schema.json"


def _counts(result: CheckResult) -> dict[str, int]:
    kinds = (
        "mismatch",
        "unverified",
        "missing",
        "duplicate",
        "no_numbers",
        "unseen",
        "unread",
        "unresolved",
        "stale",
        "gated",
    )
    counts = {k: 0 for k in kinds}
    for item in result.items:
        counts[item.kind.replace("-", "_")] += 1
    counts["matched"] = sum(s.matched for s in result.sources)
    counts["lint_errors"] = sum(f.severity == "error" for f in result.findings)
    counts["lint_warnings"] = sum(f.severity == "warning" for f in result.findings)
    counts["lint_acknowledged"] = sum(bool(f.acknowledged) for f in result.findings)
    return counts


def verdict(result: CheckResult) -> str:
    """The one-line verdict."""
    c = _counts(result)
    word = "FAIL" if result.failed else "PASS"
    empty = f", {c['no_numbers']} source(s) with none of them" if c["no_numbers"] else ""
    if c["unseen"] or c["unread"]:
        empty += f", {c['unseen']} not seen as readers see it, {c['unread']} not read"
    if c["unresolved"]:
        empty += f", {c['unresolved']} unresolved reference(s)"
    if c["stale"]:
        empty += ", the build is older than its sources"
    if c["gated"]:
        empty += f", {c['gated']} shown where the article says not measurable"
    acknowledged = f" ({c['lint_acknowledged']} acknowledged)" if c["lint_acknowledged"] else ""
    return (
        f"{word}: {c['matched']} numbers match in {len(result.sources)} source(s); "
        f"{c['mismatch']} mismatched, {c['unverified']} unverified, {c['missing']} missing, "
        f"{c['duplicate']} shown twice{empty}; data: {c['lint_errors']} error(s), "
        f"{c['lint_warnings']} warning(s){acknowledged}" + (" (strict)" if result.strict else "")
    )


def _item_line(item: Item) -> str:
    where = f"{item.source}:{item.line}:{item.col}"
    cell = ", ".join(
        x
        for x in (
            f"row {item.row}" if item.row else None,
            # outside a table, the "column" is the words before the number: what it was near
            None
            if not item.column
            else f"column {item.column}"
            if item.table or item.row
            else f'near "{item.column}"',
        )
        if x
    )
    run = f" [from {item.run_file}]" if item.run_file else ""
    return (
        f"    {where} {item.severity} [{item.kind}]{' ' + cell + ':' if cell else ''} "
        f"{item.message}{run}"
    )


def _table(item: Item) -> str:
    return item.table or "(outside tables)"


def to_text(result: CheckResult) -> str:
    """Grouped by source and table, a verdict line at the end."""
    out = [f"reportgen check {result.article}"]
    for source in result.sources:
        out.append(
            f"{source.source}: {source.matched} number(s) match"
            + (f", {len(source.items)} to look at" if source.items else "")
        )
        out.extend(f"  note: {note}" for note in source.notes)
        ordered = sorted(source.items, key=lambda i: (_table(i), i.line, i.col))
        for table, items in groupby(ordered, key=_table):
            out.append(f"  {table}")
            out.extend(_item_line(i) for i in items)
    if result.findings:
        out.append("data quality (lints):")
        for g in group(result.findings):
            cells = f": {', '.join(g.cells)}" if g.cells else ""
            out.append(f"  {g.lint.severity} [{g.lint.id}] {g.lint.title}{cells}")
            out.extend(f"    acknowledged: {reason}" for reason in g.acknowledged)
            out.extend(f"    {f.format(reason=False)}" for f in g.findings)
    out.append(verdict(result))
    return "\n".join(one_line(line) for line in out) + "\n"


# JSON escapes C0 controls itself; these it would leave raw (ensure_ascii=False): DEL, C1,
# line separators, bidi and other format characters, lone surrogates.
_RAW_IN_JSON = re.compile(
    "[\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff"
    "\ufff9-\ufffb\ud800-\udfff]"
)


def to_json(result: CheckResult) -> str:
    """The result as JSON (schemas/check-result.schema.json)."""
    doc = {
        "$schema": SCHEMA_ID,
        "article": result.article,
        "verdict": "fail" if result.failed else "pass",
        "strict": result.strict,
        "counts": _counts(result),
        "sources": [
            {
                "source": s.source,
                "kind": s.kind,
                "matched": s.matched,
                "items": [i.as_json() for i in s.items],
                "notes": list(s.notes),
            }
            for s in result.sources
        ],
        "findings": [f.as_json() for f in result.findings],
        "summary": verdict(result),
    }
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


def _escape(text: str, *, prop: bool = False) -> str:
    text = one_line(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def _annotation(
    level: str, file: str | None, line: int | None, col: int | None, title: str, message: str
) -> str:
    props = [f"title={_escape(title, prop=True)}"]
    if file:
        props.insert(0, f"file={_escape(file, prop=True)}")
        if line:
            props.insert(1, f"line={line}")
            if col:
                props.insert(2, f"col={col}")
    return f"::{level} {','.join(props)}::{_escape(message)}"


def _finding_level(f: Finding, strict: bool) -> str:
    """An acknowledged finding is a notice: the author accepted it, with a reason, and it fails
    no check; CI shows it without asking for action on every run."""
    if f.acknowledged:
        return "notice"
    return "error" if f.severity == "error" or strict else "warning"


def to_github(result: CheckResult) -> str:
    """GitHub Actions workflow commands: one annotation per item and finding."""
    out = []
    for item in result.items:
        level = "error" if item.severity == "error" or result.strict else "warning"
        out.append(
            _annotation(
                level, item.source, item.line, item.col, f"reportgen {item.kind}", item.message
            )
        )
    places = result.finding_places or (None,) * len(result.findings)
    for f, place in zip(result.findings, places, strict=True):
        line, col = place or (None, None)
        out.append(
            _annotation(
                _finding_level(f, result.strict),
                f.file,
                line,
                col,
                f"reportgen lint {f.id}",
                f"{f.where + ': ' if f.where else ''}{f.message} ({f.evidence})",
            )
        )
    out.append(verdict(result))
    return "\n".join(out) + "\n"
