"""Lay out the article's declared tables from metric values (pure): rows and columns follow the
data and the declaration.

A grid table has one metric, rows and columns along two axes; a points table lists metric
columns, a row per value of its axis; a comparison adds the other run's change against the base
run. Every cell is a number or the reason it has none (failed, skipped, not measured). A cell a
lint flags carries a mark and a footnote; a cell's reason is written out once in the article and
referred to after that (`Notes`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from markupsafe import Markup, escape

from reportgen.article.axes import STATUS_WORDS, axis_label, kind_of, matches, sort_values
from reportgen.article.manifest import ArticleSource, Column, TableDecl
from reportgen.article.numbers import number_html
from reportgen.errors import InputError, Problem
from reportgen.metrics import MetricSet, MetricValue
from reportgen.metrics.display import Display, display_of, format_number, shown_in, units_named
from reportgen.metrics.lints import LINTS, Finding
from reportgen.metrics.registry import DEFINITIONS, CellState, split_metric
from reportgen.model import Scalar

MARKS = "*†‡§¶#"


@dataclass(frozen=True)
class CellView:
    """One table cell: a number, or a word; with its footnote marks."""

    html: Markup
    note: str | None = None  # footnote marks ("a", "*", "a,*")
    missing: bool = False
    metric: str | None = None  # the id of the metric shown


@dataclass(frozen=True)
class TableView:
    """A table ready for the template (and for the checker, which reads tables back by it)."""

    decl: TableDecl
    corner: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple[CellView, ...]], ...]
    footnotes: tuple[tuple[str, Markup], ...]  # (mark, text)

    @property
    def id(self) -> str:
        return self.decl.id

    @property
    def title(self) -> str:
        return self.decl.title


@dataclass
class Notes:
    """The reasons cells have no number, each written out once in the article: the first table
    or chart that needs one says it in full; later ones point back to it."""

    first: dict[str, tuple[str, str]] = field(default_factory=dict)  # reason -> (where, anchor)

    def text(self, reason: str, where: str) -> Markup:
        """The footnote text for `reason`, in the table or chart called `where`."""
        if reason not in self.first:
            anchor = f"note-{len(self.first) + 1}"
            self.first[reason] = (where, anchor)
            return Markup('<span id="{}">{}</span>').format(anchor, reason)
        seen, anchor = self.first[reason]
        return Markup('as in <a href="#{}">the note under "{}"</a>').format(anchor, seen)

    def refer(self, message: str, *, longer_than: int = 80) -> Markup:
        """`message` with every long reason already written out in a note replaced by a link
        to that note (a finding repeats the cell's reason; the page says it once)."""
        out = escape(message)
        for reason, (seen, anchor) in self.first.items():
            if len(reason) > longer_than and reason in message:
                link = Markup('the reason in <a href="#{}">the note under "{}"</a>').format(
                    anchor, seen
                )
                out = Markup(out.replace(escape(reason), link))
        return out


class _Footnotes:
    def __init__(self) -> None:
        self.marks: dict[str, tuple[str, Markup]] = {}

    def mark(self, key: str, text: Markup, *, symbol: bool = False) -> str:
        if key not in self.marks:
            letters = [m for m, _ in self.marks.values() if m.isalpha()]
            symbols = [m for m, _ in self.marks.values() if not m.isalpha()]
            mark = (
                MARKS[len(symbols) % len(MARKS)]
                if symbol
                else "abcdefghijklmnopqrstuvwxyz"[len(letters) % 26]
            )
            self.marks[key] = (mark, text)
        return self.marks[key][0]

    def items(self) -> tuple[tuple[str, Markup], ...]:
        return tuple(self.marks.values())


def _flags(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    """Metric id -> the findings that name it (to mark the cells that show it)."""
    out: dict[str, list[Finding]] = {}
    for f in findings:
        if f.severity == "warning" or f.id != "cell-invalid":
            for metric in f.metrics:
                out.setdefault(metric, []).append(f)
    return out


class _Builder:
    def __init__(
        self,
        decl: TableDecl,
        metrics: MetricSet,
        article: ArticleSource,
        flags: dict[str, list[Finding]],
        notes: Notes,
    ) -> None:
        self.decl, self.metrics, self.article, self.flags, self.notes = (
            decl,
            metrics,
            article,
            flags,
            notes,
        )
        self.footnotes = _Footnotes()

    def number(self, value: MetricValue, column: Column | None) -> CellView:
        try:
            display = _column_display(value, column)
        except ValueError as exc:
            raise _problem(self.decl, str(exc)) from None
        html = number_html(value, display=display)
        if self.decl.counts and value.n is not None:
            count = self.metrics.find(f"{value.key}.n", **_coords(value))
            shown = number_html(count) if count is not None else escape(f"{value.n:,}")
            html = Markup('{} <span class="count">n={}</span>').format(html, shown)
        marks = []
        for f in self.flags.get(value.id, []):
            text = Markup('{} (see <a href="#data-quality">Data quality</a>)').format(
                LINTS[f.id].title
            )
            marks.append(self.footnotes.mark(f"lint:{f.id}", text, symbol=True))
        note = "".join(dict.fromkeys(marks)) or None
        return CellView(html, note, metric=value.id)

    def absent(self, state: CellState | None) -> CellView:
        if state is None:
            text, word = "not measured: the run has no such cell", "—"
        elif state.status == "ok":
            text, word = "measured, but the cell holds no samples for this metric", "—"
        else:
            text, word = state.reason or state.status, STATUS_WORDS[state.status]
        mark = self.footnotes.mark(f"state:{text}", self.notes.text(text, self.decl.title))
        return CellView(Markup(escape(word)), mark, missing=True)


def _coords(value: MetricValue) -> dict[str, Scalar]:
    return {
        "run": value.run,
        "context": value.context,
        "concurrency": value.concurrency,
        "point": value.point,
    }


def _column_display(value: MetricValue, column: Column | None) -> Display | None:
    if column is None or (column.unit is None and column.decimals is None):
        return None
    return shown_in(value, column.unit, column.decimals)


def _problem(decl: TableDecl, message: str) -> InputError:
    return InputError([decl.place.problem(f"table {decl.id!r}: {message}")])


def _axis_values(
    decl: TableDecl,
    axis: str,
    declared: Sequence[Scalar],
    found: Iterable[Scalar],
    article: ArticleSource,
) -> list[Scalar]:
    """The values of `axis` to lay out: those declared (each must exist) or all the data has."""
    have = sort_values(axis, {v for v in found if v is not None}, article)
    if not declared:
        return have
    missing = [
        v
        for v in declared
        if v not in have
        and axis_label(axis, v, article) not in {axis_label(axis, h, article) for h in have}
    ]
    if missing:
        shown = ", ".join(axis_label(axis, v, article) for v in have) or "none"
        raise _problem(
            decl, f"no data for {axis} {', '.join(map(str, missing))}; the data has {shown}"
        )
    by_label = {axis_label(axis, h, article): h for h in have}
    return [v if v in have else by_label[axis_label(axis, v, article)] for v in declared]


def _check_metric(decl: TableDecl, metric: str) -> tuple[str, str | None]:
    key, stat = split_metric(metric)
    if key not in DEFINITIONS:
        import difflib

        near = difflib.get_close_matches(metric, list(DEFINITIONS), n=3)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise _problem(decl, f"unknown metric {metric!r}{hint}")
    return key, stat


def _grid(b: _Builder) -> TableView:
    decl = b.decl
    assert decl.metric is not None and isinstance(decl.columns, str)
    key, _ = _check_metric(decl, decl.metric)
    values = [v for v in b.metrics.values if v.metric == decl.metric and matches(v, decl.where)]
    kind = kind_of(key)
    states = [c for c in b.metrics.cells if c.kind == kind and matches(c, decl.where)]
    rows = _axis_values(
        decl,
        decl.rows,
        decl.rows_values,
        [*(v.coord(decl.rows) for v in values), *(c.coord(decl.rows) for c in states)],
        b.article,
    )
    cols = _axis_values(
        decl,
        decl.columns,
        decl.columns_values,
        [*(v.coord(decl.columns) for v in values), *(c.coord(decl.columns) for c in states)],
        b.article,
    )
    if not rows or not cols:
        raise _problem(decl, f"no values of {decl.metric} in the data")
    index = {(v.coord(decl.rows), v.coord(decl.columns)): v for v in values}
    state_of = {(c.coord(decl.rows), c.coord(decl.columns)): c for c in states}
    out_rows = []
    for r in rows:
        cells = []
        for c in cols:
            value = index.get((r, c))
            cells.append(
                b.number(value, None) if value is not None else b.absent(state_of.get((r, c)))
            )
        out_rows.append((axis_label(decl.rows, r, b.article), tuple(cells)))
    headers = tuple(axis_label(decl.columns, c, b.article) for c in cols)
    corner = decl.corner if decl.corner is not None else f"{decl.rows} \\ {decl.columns}"
    return TableView(decl, corner, headers, tuple(out_rows), b.footnotes.items())


def _points(b: _Builder) -> TableView:
    decl = b.decl
    assert isinstance(decl.columns, tuple)
    for column in decl.columns:
        _check_metric(decl, column.metric)
    by_column = [
        [v for v in b.metrics.values if v.metric == c.metric and matches(v, decl.where)]
        for c in decl.columns
    ]
    kinds = {kind_of(split_metric(c.metric)[0]) for c in decl.columns}
    states = [c for c in b.metrics.cells if c.kind in kinds and matches(c, decl.where)]
    found = [v.coord(decl.rows) for vs in by_column for v in vs] + [
        c.coord(decl.rows) for c in states
    ]
    rows = _axis_values(decl, decl.rows, decl.rows_values, found, b.article)
    if not rows:
        raise _problem(decl, "none of its metrics has a value in the data")
    out_rows = []
    for r in rows:
        cells = []
        for column, values in zip(decl.columns, by_column, strict=True):
            value = next((v for v in values if v.coord(decl.rows) == r), None)
            if value is not None:
                cells.append(b.number(value, column))
            else:
                state = next(
                    (c for c in states if c.coord(decl.rows) == r and c.status != "ok"), None
                )
                cells.append(b.absent(state))
        out_rows.append((axis_label(decl.rows, r, b.article), tuple(cells)))
    corner = decl.corner if decl.corner is not None else decl.rows.replace("_", " ")
    headers = tuple(_with_unit(c) for c in decl.columns)
    return TableView(decl, corner, headers, tuple(out_rows), b.footnotes.items())


def _check_units(decl: TableDecl) -> None:
    """A unit the caption or a header names must be the unit its numbers are shown in: a caption
    saying (s) over numbers in ms is a build error, not a table a reader misreads."""
    if decl.metric is not None and decl.unit_words:
        shown = display_of(*_check_metric(decl, decl.metric)).unit
        named = units_named(decl.unit_words)
        if named and shown not in named:
            raise _problem(
                decl,
                f"unit {decl.unit_words!r} names {', '.join(sorted(named))}, but the cells show {shown}",
            )
    for column in decl.columns if isinstance(decl.columns, tuple) else ():
        shown = column.unit or display_of(*_check_metric(decl, column.metric)).unit
        named = units_named(column.header)
        if named and shown not in named:
            raise _problem(
                decl,
                f"column {column.header!r} names {', '.join(sorted(named))}, but its numbers are "
                f"in {shown}",
            )


def _with_unit(column: Column) -> str:
    """A column's header with the unit its numbers are in, unless the header already says it."""
    key, stat = split_metric(column.metric)
    unit = column.unit or display_of(key, stat).unit
    if "(" in column.header or unit in column.header or unit == "requests":
        return column.header
    return f"{column.header} ({unit})"


def _compare(b: _Builder) -> TableView:
    """Rows along an axis, a column per run, then the other run's change against the base."""
    decl = b.decl
    assert decl.compare is not None and decl.metric is not None
    key, _ = _check_metric(decl, decl.metric)
    runs = [decl.compare.base, decl.compare.other]
    for run in runs:
        if b.article.run(run) is None:
            known = ", ".join(r.id for r in b.article.runs)
            raise _problem(decl, f"no run {run!r} to compare; the article's runs are {known}")
    values = [v for v in b.metrics.values if v.metric == decl.metric and matches(v, decl.where)]
    states = [c for c in b.metrics.cells if c.kind == kind_of(key) and matches(c, decl.where)]
    found = [v.coord(decl.rows) for v in values] + [c.coord(decl.rows) for c in states]
    rows = _axis_values(decl, decl.rows, decl.rows_values, found, b.article)
    out_rows = []
    for r in rows:
        pair = [
            next((v for v in values if v.run == run and v.coord(decl.rows) == r), None)
            for run in runs
        ]
        cells = []
        for run, value in zip(runs, pair, strict=True):
            if value is not None:
                cells.append(b.number(value, None))
            else:
                state = next((c for c in states if c.run == run and c.coord(decl.rows) == r), None)
                cells.append(b.absent(state))
        base, other = pair
        for kind in decl.compare.show:
            change = None
            if base is not None and other is not None:
                change = b.metrics.find(f"compare.{kind}", run=other.run, of=base.id)
            if change is None:
                text = (
                    "no value in one of the runs"
                    if base is None or other is None
                    else "not comparable"
                )
                cells.append(
                    CellView(
                        Markup("—"),
                        b.footnotes.mark(f"cmp:{text}", Markup(escape(text))),
                        missing=True,
                    )
                )
                continue
            shown = number_html(change)
            if decl.compare.judge:
                shown = Markup("{} {}").format(shown, _verdict(key, change))
            cells.append(CellView(shown, metric=change.id))
        out_rows.append((axis_label(decl.rows, r, b.article), tuple(cells)))
    labels = [b.article.run(run).label for run in runs]  # type: ignore[union-attr]
    words = {"delta": f"change ({labels[1]} - {labels[0]})", "ratio": f"{labels[1]} / {labels[0]}"}
    headers = (*labels, *(words[k] for k in decl.compare.show))
    corner = decl.corner if decl.corner is not None else decl.rows.replace("_", " ")
    return TableView(decl, corner, tuple(headers), tuple(out_rows), b.footnotes.items())


def _verdict(key: str, change: MetricValue) -> Markup:
    """better / worse / same, by the metric's direction, for a delta or a ratio."""
    better = DEFINITIONS[key].better
    shown = format_number(change.value, Display(3, ""))
    neutral = 0.0 if change.key == "compare.delta" else 1.0
    if better is None or float(shown) == neutral:
        return Markup('<span class="verdict">(same)</span>') if better else Markup("")
    up = change.value > neutral
    good = up == (better == "higher")
    word = "better" if good else "worse"
    return Markup('<span class="verdict {}">({})</span>').format(word, word)


def table_views(
    article: ArticleSource,
    metrics: MetricSet,
    findings: Iterable[Finding] = (),
    notes: Notes | None = None,
) -> tuple[TableView, ...]:
    """Every declared table, laid out from the metrics, in page order; `notes` collects the
    reasons written out (for the charts after them to refer to)."""
    flags, notes = _flags(findings), notes if notes is not None else Notes()
    views: list[TableView] = []
    problems: list[Problem] = []
    for decl in article.tables():
        b = _Builder(decl, metrics, article, flags, notes)
        try:
            _check_units(decl)
            if decl.compare is not None:
                views.append(_compare(b))
            elif isinstance(decl.columns, tuple):
                views.append(_points(b))
            else:
                if decl.metric is None:
                    raise _problem(decl, f"columns = {decl.columns!r} needs a metric for its cells")
                views.append(_grid(b))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return tuple(views)
