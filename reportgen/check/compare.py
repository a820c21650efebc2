"""Check stage: do an article's numbers match its run files? (pure, apart from `check_article`)

Recomputes every metric and compares it with the numbers an article reports:
- the article as `reportgen build` renders it, exactly, through each number's data attributes;
- any published version of it (HTML, Markdown or plain text), matched by table, row and column
  labels and headline words, each judged at the precision it shows:
  a value shown with k decimals matches x when |x - shown| <= 0.5 * 10^-k.
Numbers that match no metric are "unverified"; metrics the article should show but does not are
"missing"; both fail only under --strict, as do the lints' warnings.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from reportgen.article.tables import TABLES_BY_ID
from reportgen.check.built import check_built
from reportgen.check.htmltext import html_lines
from reportgen.check.published import Reported, reported_in_lines, text_lines
from reportgen.check.result import CheckResult, Item, SourceResult, expected_ids, missing_item
from reportgen.errors import InputError, Problem
from reportgen.formats.jsonfile import parse_json
from reportgen.metrics import MetricSet, MetricValue
from reportgen.metrics.display import DISPLAY, Display, format_number

UNIT_FACTORS = {("ms", "s"): 1000.0, ("s", "ms"): 0.001}


def _judge(r: Reported, value: MetricValue) -> str | None:
    """None when the shown number matches the value; else why not."""
    unit = DISPLAY[value.key].unit
    factor = 1.0
    if r.unit and r.unit != unit:
        if (r.unit, unit) not in UNIT_FACTORS:
            return f"is shown in {r.unit} but {value.id} is in {unit}"
        factor = UNIT_FACTORS[(r.unit, unit)]
    expected = value.value * factor
    tolerance = 0.5 * 10.0**-r.decimals
    if abs(expected - r.value) <= tolerance * (1 + 1e-9):
        return None
    shown_as = format_number(expected, Display(r.decimals, ""))
    return f"shows {r.text} but the run files give {shown_as}" + (f" {r.unit}" if r.unit else "")


def check_published(
    text: str, source: str, metrics: MetricSet, expected: Iterable[str], *, html: bool = False
) -> SourceResult:
    """Compare the numbers a published article text reports with the recomputed metrics."""
    lines = html_lines(text) if html else text_lines(text)
    by_id = metrics.by_id()
    items: list[Item] = []
    matched = 0
    first_at: dict[str, Reported] = {}
    for r in reported_in_lines(lines):
        where: dict[str, str | None] = {
            "table": _table_title(r.table),
            "row": r.row,
            "column": r.column,
        }
        value = by_id.get(r.metric_id) if r.metric_id else None
        if value is None:
            why = (
                "matches no metric of the run files"
                if r.metric_id is None
                else f"would be {r.metric_id}, which the run files do not give"
            )
            items.append(
                Item(
                    "unverified",
                    source,
                    r.line,
                    r.col,
                    f"{r.text} {why}",
                    r.metric_id,
                    r.text,
                    None,
                    None,
                    **where,
                )
            )
            continue
        assert r.metric_id is not None
        if r.metric_id in first_at:
            first = first_at[r.metric_id]
            items.append(
                Item(
                    "duplicate",
                    source,
                    r.line,
                    r.col,
                    f"{r.metric_id} is shown again (first at line {first.line})",
                    r.metric_id,
                    r.text,
                    value.value,
                    value.file,
                    **where,
                )
            )
        first_at.setdefault(r.metric_id, r)
        problem = _judge(r, value)
        if problem is None:
            matched += 1
        else:
            items.append(
                Item(
                    "mismatch",
                    source,
                    r.line,
                    r.col,
                    f"{problem} ({value.value:.6g}, {r.metric_id})",
                    r.metric_id,
                    r.text,
                    value.value,
                    value.file,
                    **where,
                )
            )
    for metric in expected:
        if metric not in first_at and metric in by_id:
            items.append(missing_item(source, by_id[metric]))
    return SourceResult(source, "published", matched, tuple(items))


def _table_title(table: str | None) -> str | None:
    if table is None:
        return None
    spec = TABLES_BY_ID.get(table)
    return spec.title if spec else table


def check_article(
    folder: Path,
    published: Iterable[Path] = (),
    *,
    build_dir: Path | None = None,
    strict: bool = False,
    environ: dict[str, str] | None = None,
) -> CheckResult:
    """Check an article folder's build (from `build_dir` if there, else in memory) and files."""
    from reportgen.article.build import render_article

    built = render_article(folder, environ)
    expected = expected_ids(built.article, built.metrics)
    sources = []
    page = (build_dir / built.article.slug / "index.html") if build_dir else None
    if page is not None and page.is_file():
        sources.append(check_built(_read(page), str(page), built.metrics, expected))
    else:
        sources.append(
            check_built(
                built.html, f"{built.article.slug} (built in memory)", built.metrics, expected
            )
        )
    for path in published:
        text = _read(path)
        is_html = path.suffix.lower() in (".html", ".htm") or text.lstrip()[:15].lower() in (
            "<!doctype html>",
            "<html",
        )
        sources.append(check_published(text, str(path), built.metrics, expected, html=is_html))
    findings = tuple(replace(f, file=str(folder / f.file)) for f in built.findings)
    return CheckResult(
        built.article.slug,
        tuple(sources),
        findings,
        strict,
        tuple(_place(Path(f.file), f.pointer) for f in findings),
    )


def _place(path: Path, pointer: str) -> tuple[int, int] | None:
    """Where a JSON pointer is in a run file, for annotations on the right line."""
    try:
        return parse_json(str(path), path.read_bytes()).locate(pointer)
    except (OSError, InputError):
        return None


def _read(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError([Problem(str(path), 1, 1, "", f"cannot read: {exc.strerror}")]) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError([Problem(str(path), line, 1, "", "not valid UTF-8 text")]) from None
