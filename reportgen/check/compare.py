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

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from reportgen.check.built import check_built
from reportgen.check.claims.labels import metrics_shown
from reportgen.check.claims.together import derived_problem, holding, unjudged, unsettled
from reportgen.check.claims.upto import at_best, claim_finding, up_to_note, what_ranged
from reportgen.check.html.text import Page, built_page, chart_forms, read_html
from reportgen.check.readers.memo import ByIdentity
from reportgen.check.readers.pipeline import reported as reported_in_lines
from reportgen.check.readers.pipetables import find_tables
from reportgen.check.readers.previews import preview
from reportgen.check.readers.prose import expected_prose
from reportgen.check.readers.published import text_lines
from reportgen.check.readers.reported import Lines, Reported
from reportgen.check.readers.shape import Expected, Shape, from_views, normalize
from reportgen.check.readers.sources import PublishedText, read_published
from reportgen.check.readers.tableunits import UnitProblem, settle_units
from reportgen.check.result import (
    CheckResult,
    Item,
    Kind,
    Shown,
    SourceResult,
    expected_numbers,
    missing_item,
)
from reportgen.check.stale import stale_build
from reportgen.errors import InputError
from reportgen.fileio import read_input
from reportgen.formats.json_input.document import JsonDocument
from reportgen.formats.load import parse_run_file
from reportgen.frozendict import FrozenDict
from reportgen.metrics.claims import lookup
from reportgen.metrics.display import Display, display_for, format_number, unit_factor
from reportgen.metrics.lints.findings import Finding
from reportgen.metrics.registry import MetricSet, MetricValue
from reportgen.metrics.slo import VERDICT_KEYS, verdict_word

if TYPE_CHECKING:
    from reportgen.article.build import Built
    from reportgen.article.source.declarations import ArticleSource, ChartDecl


def _judge(r: Reported, value: MetricValue) -> str | None:
    """None when the shown number matches the value; else why not.

    A number shown with a unit is read in that unit (ms or s for a time); one without is read
    as the article's table shows the metric (a load point's TTFT in ms)."""
    factor = unit_factor(value.unit, r.unit) if r.unit else None
    if factor is None:
        if r.unit and not r.unit_soft:
            return f"is shown in {r.unit} but {value.id} is in {value.unit}"
        factor = display_for(value).scale
    expected = value.value * factor
    if r.value < 0 <= expected and value.key not in ("compare.delta", "claim.change"):
        return f"shows {r.text.strip()}, a sign where none can be: {value.id} is never negative"
    tolerance = 0.5 * 10.0**-r.decimals
    if abs(expected - r.value) <= tolerance * (1 + 1e-9):
        return None
    if value.key in VERDICT_KEYS:  # a verdict's word: the objective met or missed
        return f"shows {r.text.strip()} but the run files give {verdict_word(value.value)}"
    shown_as = format_number(expected, Display(decimals=max(0, r.decimals), unit=""))
    unit = "" if not r.unit else r.unit if r.unit in ("%", "x") else f" {r.unit}"
    said = f"shows {r.text} but the run files give {shown_as}{unit}"
    return said + _unit_slip(r, expected)


def _unit_slip(r: Reported, expected: float) -> str:
    """A hint when the shown number is the true one in another unit: off by 1000x."""
    if expected == 0 or r.value == 0:
        return ""
    for factor, hint in ((1000.0, "ms for s?"), (0.001, "s for ms?")):
        if abs(r.value * factor - expected) <= 0.5 * 10.0**-r.decimals * factor * (1 + 1e-9):
            return f": the digits are right in another unit, 1000x off (a unit mislabelled, {hint})"
    return ""


def _settled(r: Reported, value: MetricValue | None) -> bool:
    """Whether the number `r` checks out: its metric's value, the text the article's source
    writes there, or the ratio of its operands."""
    if r.malformed is not None:
        return False
    if r.not_measurable:
        return value is not None and value.gate is not None
    if r.expected_text is not None:
        return _same_text(r.text, r.expected_text)
    if value is None:
        return r.operands is not None and r.metric_id is None and derived_problem(r) is None
    return _judge(r, value) is None


def _same_text(shown: str, written: str) -> bool:
    """Whether a number shown in prose is the one the article's source writes there."""

    def plain(text: str) -> str:
        return text.replace("\u2212", "-").replace("\u00a0", "").replace(",", "")

    return plain(shown) == plain(written)


def check_published(
    text: str | Lines,
    source: str,
    metrics: MetricSet,
    expected: Iterable[Shown],
    shape: Shape,
    *,
    html: bool = False,
    omitted: frozenset[str] = frozenset(),
    page: Page | None = None,
) -> SourceResult:
    """Compare the numbers a published article reports with the recomputed metrics.

    `text`: the article's text, or its numbered lines (`page`: the HTML page they were read
    from, which places findings in it and says what check cannot see there). Every number of
    `expected` that the text does not show is an error, except those whose metric id or table
    id is in `omitted`.
    """
    if isinstance(text, str) and html:
        page = read_html(text)
    lines = (
        page.lines if page is not None else text if not isinstance(text, str) else text_lines(text)
    )
    by_id = metrics.by_id()
    value_of = lookup(by_id)
    items: list[Item] = []
    expected = list(expected)
    reported, unit_problems = settle_units(reported_in_lines(lines, shape), value_of)
    reported = [at_best(r, value_of) for r in reported]
    if page is not None:  # at each number's own place in the page
        reported = [_placed(r, page) for r in reported]
        unit_problems = [_placed(p, page) for p in unit_problems]
        items += _unseen(page, source, shape)
    items += _unresolved(lines, source, shape, page)
    notes = tuple(up_to_note(r, value_of) for r in reported if r.up_to and r.metric_id)
    findings = tuple(f for r in reported if (f := claim_finding(r, source, value_of)))
    titles = {t.id: t.title for t in shape.tables}
    # one error at the header or caption, not one per cell
    items += [_unit_item(p, source, titles) for p in unit_problems]
    # a metric the built article shows n times (in two tables, say) may be shown n times
    judge = _Judge(source, titles, Counter(s.metric for s in expected) | Counter(dict(shape.times)))
    items += judge.all(reported, [value_of(r.metric_id) if r.metric_id else None for r in reported])
    wanted = [
        s
        for s in expected
        if s.metric in by_id and s.metric not in omitted and s.table_id not in omitted
    ]
    absent = [s for s in wanted if s.metric not in judge.first_at]
    if wanted and len(absent) == len(wanted) and not reported:
        items.append(_no_numbers(source, len(wanted)))
    elif absent:
        place = page.place if page is not None else lambda line, col: (line, col)
        table_line = {t.shape.id: place(t.line, 1)[0] for t in find_tables(lines, shape) if t.shape}
        items += [
            missing_item(source, by_id[s.metric], s, table_line.get(s.table_id or "", 1))
            for s in absent
        ]
    return SourceResult(
        source=source,
        kind="published",
        matched=judge.matched,
        items=tuple(items),
        notes=notes,
        findings=findings,
    )


_BRACES = re.compile(r"\{\{+|\}\}+")


def _braces(prose: tuple[Expected, ...]) -> int:
    """How many runs of braces the built article's prose shows."""
    return len(_BRACES.findall(" ".join(e.text for e in prose)))


# counted once for all the copies checked against one `Shape` (about 4% of a check of a post)
_ARTICLE_BRACES = ByIdentity(_braces, size=8)


def _unresolved(lines: Lines, source: str, shape: Shape, page: Page | None) -> list[Item]:
    """Braces a copy shows where its article shows none: a reference the build never resolved
    (`{{ x }` published as it was written), or one typed into the copy by hand. Braces the
    author wrote as text (`\\{\\{`) are in the built article too, and as many are allowed."""
    allowed = _ARTICLE_BRACES(shape.prose)
    found = [(n, m) for n, text in lines for m in _BRACES.finditer(text)]
    if len(found) <= allowed:
        return []
    place = page.place if page is not None else lambda line, col: (line, col)
    items = []
    for n, found_at in found:
        line, col = place(n, found_at.start() + 1)
        message = (
            f"shows {found_at.group(0)!r}: braces of a reference that was not resolved "
            "(the article shows none here; build it again, and publish the new copy)"
        )
        items.append(Item(kind="unresolved", source=source, line=line, col=col, message=message))
    return items


def _unit_item(p: UnitProblem, source: str, titles: dict[str, str]) -> Item:
    """A column or caption whose unit does not fit its metrics, at its header or caption."""
    return Item(
        kind="mismatch",
        source=source,
        line=p.line,
        col=p.col,
        message=p.message,
        metric=p.value.id,
        shown=p.text,
        computed=p.value.value,
        run_file=p.value.file,
        table=titles.get(p.cell.table or "", p.cell.table),
        row=None,
        column=p.cell.column,
    )


def _no_numbers(source: str, wanted: int) -> Item:
    """A text that shows none of the article's numbers."""
    return Item(
        kind="no-numbers",
        source=source,
        line=1,
        col=1,
        message=f"none of the article's {wanted} numbers was found: no table or headline of the "
        "article is in this file (is it the article, in HTML, Markdown, text or PDF?)",
    )


class _Judge:
    """Judges the numbers of one published text in text order, counting those that match and
    where each metric is first shown."""

    def __init__(self, source: str, titles: dict[str, str], allowed: Counter[str]) -> None:
        self.source = source
        self.titles = titles
        self.allowed = allowed  # how many times the article shows each metric
        self.matched = 0
        self.first_at: dict[str, Reported] = {}
        self.times: Counter[str] = Counter()
        self.open_numbers: dict[tuple[int, int], list[Reported]] = {}

    def all(self, reported: list[Reported], values: list[MetricValue | None]) -> list[Item]:
        """The items of every number `reported`, each with its metric's value (`values`)."""
        # the numbers of each sentence that do not check out: while one does, a difference of
        # another number of the sentence tied by a reader's guess is not judged
        self.open_numbers = unsettled(
            reported, [_settled(r, v) for r, v in zip(reported, values, strict=True)]
        )
        items: list[Item] = []
        for r, value in zip(reported, values, strict=True):
            items += self.one(r, value)
        return items

    def one(self, r: Reported, value: MetricValue | None) -> list[Item]:
        """The items of one number: none when it checks out."""
        if r.malformed is not None:
            return [self.malformed(r, value)]
        if r.not_measurable:
            return self.not_measurable(r, value)
        if r.expected_text is not None:
            return self.literal(r)
        if value is None and r.operands is not None and r.metric_id is None:
            return self.derived(r)
        if value is None:
            why = (
                "matches no metric of the run files"
                if r.metric_id is None
                else f"would be {r.metric_id}, which the run files do not give"
            )
            return [self.item("unverified", r, f"{r.text} {why}", None)]
        if value.gate is not None:
            return [self.gated(r, value)]
        return self.valued(r, value)

    def gated(self, r: Reported, value: MetricValue) -> Item:
        """A number shown where the article shows "not measurable": seen, but not a measurement."""
        assert r.metric_id is not None and value.gate is not None
        self.first_at.setdefault(r.metric_id, r)
        message = (
            f"shows {r.text} for {value.id}, which the article shows as {value.gate.words()} "
            f"(gate {value.gate.kind})"
        )
        return self.item("gated", r, message, value)

    def not_measurable(self, r: Reported, value: MetricValue | None) -> list[Item]:
        """A cell's words "not measurable": a match where the article gates the cell, else a
        mismatch (the article shows its number)."""
        assert r.metric_id is not None
        self.first_at.setdefault(r.metric_id, r)
        if value is not None and value.gate is not None:
            self.matched += 1
            return []
        if value is None:
            return [self.item("unverified", r, f"{r.text} for {r.metric_id}, not given", None)]
        message = (
            f"shows {r.text!r} for {value.id}, which the article shows as a number "
            f"({value.value:.6g}): no gate holds it back"
        )
        return [self.item("mismatch", r, message, value)]

    def item(self, kind: Kind, r: Reported, message: str, value: MetricValue | None) -> Item:
        """An item about `r`, at its table, row and column."""
        return Item(
            kind=kind,
            source=self.source,
            line=r.line,
            col=r.col,
            message=message,
            metric=r.metric_id,
            shown=r.text,
            computed=None if value is None else value.value,
            run_file=None if value is None else value.file,
            table=self.titles.get(r.table or "", r.table),
            row=r.row,
            column=r.column,
        )

    def bare(self, kind: Kind, r: Reported, message: str) -> Item:
        """An item about `r` that names no metric, table, row or column."""
        return Item(
            kind=kind, source=self.source, line=r.line, col=r.col, message=message, shown=r.text
        )

    def malformed(self, r: Reported, value: MetricValue | None) -> Item:
        """An error at its cell; the metric counts as seen: it is wrong, not missing."""
        if r.metric_id:
            self.first_at.setdefault(r.metric_id, r)
        message = f"malformed number {r.text!r}: {r.malformed}" + (
            f" ({value.value:.6g}, {r.metric_id})" if value is not None else ""
        )
        return self.item("mismatch", r, message, value)

    def literal(self, r: Reported) -> list[Item]:
        """A number the article's source writes literally: the same text, or a mismatch."""
        assert r.expected_text is not None
        if _same_text(r.text, r.expected_text):
            self.matched += 1
            return []
        message = (
            f"shows {r.text} where the article, as built from its source and run files, "
            f"says {r.expected_text} (after '{r.column}')"
        )
        return [self.bare("mismatch", r, message)]

    def derived(self, r: Reported) -> list[Item]:
        """A ratio written beside its operands: the ratio of the numbers, or not."""
        problem = derived_problem(r)
        other = holding(r, self.open_numbers)
        if problem is None:
            self.matched += 1
            return []
        kind: Kind = "mismatch" if other is None and not r.tentative else "unverified"
        if r.tentative:
            note = f"; {r.tentative}, so it may state something else: not judged"
        else:
            note = "" if other is None else unjudged(other)
        return [self.bare(kind, r, problem + note)]

    def valued(self, r: Reported, value: MetricValue) -> list[Item]:
        """A number of a metric: shown once more than the article does it, and judged at the
        precision shown."""
        assert r.metric_id is not None
        items: list[Item] = []
        self.times[r.metric_id] += not r.in_prose
        if (
            r.metric_id in self.first_at
            and not r.in_prose
            and self.times[r.metric_id] > self.allowed[r.metric_id]
        ):
            first = self.first_at[r.metric_id]
            message = f"{r.metric_id} is shown again (first at line {first.line})"
            items.append(self.item("duplicate", r, message, value))
        self.first_at.setdefault(r.metric_id, r)
        problem = _judge(r, value)
        if problem is None:
            self.matched += 1
            return items
        held = holding(r, self.open_numbers) if r.several else None
        if r.tentative:
            problem += (
                f"; {r.tentative}, so it may state something else: not judged (state it "
                "alone in its sentence, or as a reference)"
            )
        elif held is not None:
            problem += unjudged(held)
        if r.up_to:
            problem += (
                f"; said 'up to', it is judged against the highest {what_ranged(r)} "
                f"its words range over, {r.metric_id}"
            )
        kind: Kind = "unverified" if r.tentative or held is not None else "mismatch"
        items.append(self.item(kind, r, f"{problem} ({value.value:.6g}, {r.metric_id})", value))
        return items


_Located = TypeVar("_Located", Reported, UnitProblem)


def _placed(found: _Located, page: Page) -> _Located:
    """`found` at its own line and column of the page, not of the lines read from it."""
    line, col = page.place(found.line, found.col)
    return replace(found, line=line, col=col)


def _unseen(page: Page, source: str, shape: Shape) -> list[Item]:
    """What readers of an HTML page may see that check does not read: its notes, and each SVG
    with digits that is not one of the charts the build draws."""
    items = [
        Item(
            kind="unseen" if u.severity == "error" else "unread",
            source=source,
            line=u.line,
            col=u.col,
            message=u.message,
        )
        for u in page.unseen
    ]
    for chart in page.charts:
        if chart.form not in shape.charts:
            message = (
                f"an SVG drawing shows {chart.shown!r}, and is not one of the charts the build "
                "draws for this article: check does not read numbers in drawings; show them as "
                "text, or the build's own chart unchanged"
            )
            items.append(
                Item(kind="unseen", source=source, line=chart.line, col=chart.col, message=message)
            )
    return items


def _shows_chart_text(copy: PublishedText, charts: Iterable[ChartDecl]) -> bool:
    """Whether a copy may hold the words the build's charts draw: a PDF, or a text copy with a
    line that is a chart's title alone (the text of a PDF, pasted or from pdftotext)."""
    if copy.kind == "pdf":
        return True
    if copy.kind != "text":
        return False
    titles = {normalize(c.title) for c in charts}
    return any(normalize(text) in titles for _, text in copy.lines)


def article_shape(built: Built, html: str) -> Shape:
    """What a published copy of the built article is matched against: its tables and headlines,
    the prose of its page `html`, the words its charts show, and how often it shows each metric."""
    prose, chart_text = expected_prose(html)
    times = FrozenDict(Counter(re.findall(r'data-metric="([^"]+)"', html)))
    shape = replace(
        from_views(built.article, built.tables),
        prose=tuple(prose),
        chart_text=chart_text,
        times=times,
    )
    charts, texts = built_page(html)
    previews = tuple(preview(text, metrics) for text, metrics in texts)
    shown_in_previews = Counter(m for p in previews for m in p.metrics if m)
    return replace(
        shape,
        shown=metrics_shown(shape),
        charts=charts,
        previews=previews,
        times=FrozenDict(Counter(dict(shape.times)) + shown_in_previews),
    )


def check_article(
    folder: Path,
    published: Iterable[Path] = (),
    *,
    build_dir: Path | None = None,
    strict: bool = False,
    environ: dict[str, str] | None = None,
    chart_cache: Path | None = None,
) -> CheckResult:
    """Check an article folder's build (from `build_dir` if there, else in memory), the published
    versions its manifest names, and any other `published` files (`chart_cache`: charts drawn
    before, for a copy that shows charts when there is no build to read them from)."""
    from reportgen.article.build import render_article
    from reportgen.article.rundata import article_metrics

    loaded = article_metrics(folder)  # read and computed once, for a second render below
    built = render_article(folder, environ, charts=False, loaded=loaded)
    article = built.article
    expected = expected_numbers(article, built.metrics, built.tables)
    page = (build_dir / article.slug / "index.html") if build_dir else None
    # the build's page (with its charts) when there is one, else the page built in memory
    if page is not None and page.is_file():
        html, label = read_input(page, "published").decode("utf-8", "replace"), str(page)
    else:
        html, label = built.html, f"{article.slug} (built in memory)"
    sources = [check_built(html, label, built.metrics, expected)]
    stale = None if build_dir is None else stale_build(built, folder, build_dir, label)
    if stale is not None:
        sources[0] = replace(sources[0], items=(stale, *sources[0].items))
    omitted = frozenset(o.what for o in article.omissions)
    declared = [(p, folder) for p in article.published_paths()]
    copies = [*declared, *((p, None) for p in published)]
    if copies:  # the page's prose is parsed only for copies to align with it
        found = [read_published(path, inside=inside) for path, inside in copies]
        shape = article_shape(built, html)
        drawings = any(f.page is not None and f.page.charts for f in found)
        chart_words = any(_shows_chart_text(f, article.charts()) for f in found)
        if (drawings and not shape.charts) or (chart_words and not shape.chart_text.words):
            # an HTML copy shows drawings, or a PDF's text the words of charts: the charts the
            # build draws, to compare them with, and the words they draw (ticks are no numbers)
            drawn = render_article(folder, environ, chart_cache=chart_cache, loaded=loaded).html
            shape = replace(shape, charts=chart_forms(drawn), chart_text=expected_prose(drawn)[1])
        for copy in found:
            sources.append(
                check_published(
                    copy.lines,
                    copy.label,
                    built.metrics,
                    expected,
                    shape,
                    omitted=omitted,
                    page=copy.page,
                )
            )
    findings = tuple(replace(f, file=str(folder / f.file)) for f in built.findings)
    parsed: dict[str, JsonDocument | None] = {}  # each run file parsed once, for all its findings
    places = tuple(_place(Path(f.file), f.pointer, parsed) for f in findings)
    said, said_at = copies_findings(sources, article)
    return CheckResult(
        article=article.slug,
        sources=tuple(sources),
        findings=findings + tuple(f for f, _ in built.stale) + said,
        strict=strict,
        finding_places=places + tuple(place for _, place in built.stale) + said_at,
    )


def copies_findings(
    sources: Iterable[SourceResult], article: ArticleSource
) -> tuple[tuple[Finding, ...], tuple[tuple[int, int] | None, ...]]:
    """The claim findings of the copies' own "up to" claims, each acknowledged where an
    acknowledgement of the article covers it (as the article's own claim findings are), and
    where each is in its copy: the claim's line, which its evidence starts with."""
    out = []
    for f in (f for s in sources for f in s.findings):
        ack = next((a for a in article.acknowledgements if a.covers(f.id, f.cell)), None)
        out.append(f if ack is None else replace(f, acknowledged=ack.reason.text))
    places = tuple(
        None if (at := re.match(r"line (\d+):", f.evidence)) is None else (int(at.group(1)), 1)
        for f in out
    )
    return tuple(out), places


def _place(
    path: Path, pointer: str, parsed: dict[str, JsonDocument | None]
) -> tuple[int, int] | None:
    """Where a JSON pointer is in a run file, for annotations on the right line."""
    if str(path) not in parsed:
        try:
            parsed[str(path)] = parse_run_file(str(path), read_input(path, "run"), path)
        except InputError:  # not a regular file now, or too large: the finding stays unplaced
            parsed[str(path)] = None
    found = parsed[str(path)]
    return None if found is None else found.locate(pointer)
