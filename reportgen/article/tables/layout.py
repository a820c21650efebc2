"""Lay out the article's declared tables from metric values (pure): rows and columns follow the
data and the declaration.

A grid table has one metric, rows and columns along two axes; a points table lists metric
columns, a row per value of its axis; a comparison adds the other run's change against the base
run. Every cell is a number or the reason it has none (failed, skipped, not measured), rendered
by `article/tables/cells.py` with its marks and footnotes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from markupsafe import Markup, escape

from reportgen.article.axes import (
    axis_label,
    filter_problem,
    kind_of,
    matches,
    sort_values,
    unknown_setting,
)
from reportgen.article.frontiers import TableLevels, left_out_words, table_levels
from reportgen.article.page.numbers import number_html
from reportgen.article.source.declarations import ArticleSource, Column, TableDecl
from reportgen.article.tables.cells import (
    CellBuilder,
    CellView,
    Notes,
    check_metric,
    flags_of,
    table_problem,
    verdict,
)
from reportgen.errors import InputError, Problem
from reportgen.metrics.display import display_of, units_named
from reportgen.metrics.frontier import Level
from reportgen.metrics.lints.findings import Finding
from reportgen.metrics.registry import MetricSet, MetricValue, split_metric
from reportgen.metrics.slo import SLO_KEYS
from reportgen.model import Scalar


@dataclass(frozen=True, kw_only=True)
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
        raise table_problem(
            decl, f"no data for {axis} {', '.join(map(str, missing))}; the data has {shown}"
        )
    by_label = {axis_label(axis, h, article): h for h in have}
    return [v if v in have else by_label[axis_label(axis, v, article)] for v in declared]


def _grid(b: CellBuilder) -> TableView:
    decl = b.decl
    assert decl.metric is not None and isinstance(decl.columns, str)
    key, _ = check_metric(decl, decl.metric)
    values = [v for v in b.metrics.of(decl.metric) if matches(v, decl.where)]
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
        raise table_problem(decl, f"no values of {decl.metric} in the data")
    index = {(v.coord(decl.rows), v.coord(decl.columns)): v for v in values}
    state_of = {(c.coord(decl.rows), c.coord(decl.columns)): c for c in states}
    out_rows = []
    for r in rows:
        cells = []
        for c in cols:
            value = index.get((r, c))
            cells.append(
                b.number(value, None)
                if value is not None
                else b.absent(state_of.get((r, c)), decl.metric)
            )
        out_rows.append((axis_label(decl.rows, r, b.article), tuple(cells)))
    headers = tuple(axis_label(decl.columns, c, b.article) for c in cols)
    corner = decl.corner if decl.corner is not None else f"{decl.rows} \\ {decl.columns}"
    return TableView(
        decl=decl,
        corner=corner,
        columns=headers,
        rows=tuple(out_rows),
        footnotes=b.footnotes.items(),
    )


def _points(b: CellBuilder) -> TableView:
    decl = b.decl
    assert isinstance(decl.columns, tuple)
    for column in decl.columns:
        check_metric(decl, column.metric)
    by_column = [
        [v for v in b.metrics.of(c.metric) if matches(v, decl.where)] for c in decl.columns
    ]
    kinds = {kind_of(split_metric(c.metric)[0]) for c in decl.columns}
    states = [c for c in b.metrics.cells if c.kind in kinds and matches(c, decl.where)]
    found = [v.coord(decl.rows) for vs in by_column for v in vs] + [
        c.coord(decl.rows) for c in states
    ]
    rows = _axis_values(decl, decl.rows, decl.rows_values, found, b.article)
    if not rows:
        raise table_problem(decl, "none of its metrics has a value in the data")
    out_rows = []
    for r in rows:
        cells = []
        for column, values in zip(decl.columns, by_column, strict=True):
            value = next((v for v in values if v.coord(decl.rows) == r), None)
            if value is not None:
                cells.append(b.number(value, column))
            else:
                judged = split_metric(column.metric)[0] in SLO_KEYS  # why an ok cell has none
                state = next(
                    (c for c in states if c.coord(decl.rows) == r and (c.status != "ok" or judged)),
                    None,
                )
                cells.append(b.absent(state, column.metric))
        out_rows.append((axis_label(decl.rows, r, b.article), tuple(cells)))
    corner = (
        decl.corner
        if decl.corner is not None
        else (decl.rows.removeprefix("meta.").replace("_", " "))
    )
    headers = tuple(_with_unit(c) for c in decl.columns)
    return TableView(
        decl=decl,
        corner=corner,
        columns=headers,
        rows=tuple(out_rows),
        footnotes=b.footnotes.items(),
    )


def _check_filters(decl: TableDecl, metrics: MetricSet, article: ArticleSource) -> None:
    """A `where` value or a `meta.` axis the data lacks is a build error naming what it has."""
    wanted = {decl.metric} if decl.metric else set()
    wanted |= {c.metric for c in decl.columns} if isinstance(decl.columns, tuple) else set()
    items = [v for v in metrics.values if v.metric in wanted]
    named = {k for v in items for k in v.extra if k.startswith("meta.")}
    axes = [decl.rows, *([decl.columns] if isinstance(decl.columns, str) else [])]
    for axis in axes:
        if axis.startswith("meta.") and items and axis not in named:
            raise table_problem(decl, unknown_setting(axis, named))
    problem = filter_problem(decl.where, items, article) if items else None
    if problem is not None:
        raise table_problem(decl, problem)


def _check_units(decl: TableDecl) -> None:
    """A unit the caption or a header names must be the unit its numbers are shown in: a caption
    saying (s) over numbers in ms is a build error, not a table a reader misreads."""
    if decl.metric is not None and decl.unit_words:
        shown = (
            display_of("frontier.usd_per_mtok", None).unit
            if decl.cost_only  # the costs of the metric's frontier
            else display_of(*check_metric(decl, decl.metric)).unit
        )
        named = units_named(decl.unit_words)
        if named and shown not in named:
            raise table_problem(
                decl,
                f"unit {decl.unit_words!r} names {', '.join(sorted(named))}, "
                f"but the cells show {shown}",
            )
    for column in decl.columns if isinstance(decl.columns, tuple) else ():
        shown = column.unit or display_of(*check_metric(decl, column.metric)).unit
        named = units_named(column.header)
        if named and shown not in named:
            raise table_problem(
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


def _compare(b: CellBuilder) -> TableView:
    """Rows along an axis, a column per run, then the other run's change against the base."""
    decl = b.decl
    assert decl.compare is not None and decl.metric is not None
    key, _ = check_metric(decl, decl.metric)
    runs = [decl.compare.base, decl.compare.other]
    for run in runs:
        if b.article.run(run) is None:
            known = ", ".join(r.id for r in b.article.runs)
            raise table_problem(decl, f"no run {run!r} to compare; the article's runs are {known}")
    values = [v for v in b.metrics.of(decl.metric) if matches(v, decl.where)]
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
                        html=Markup("—"),
                        note=b.footnotes.mark(f"cmp:{text}", Markup(escape(text))),
                        missing=True,
                    )
                )
                continue
            shown = number_html(change)
            if decl.compare.judge:
                shown = Markup("{} {}").format(shown, verdict(key, change))
            cells.append(CellView(html=shown, metric=change.id))
        out_rows.append((axis_label(decl.rows, r, b.article), tuple(cells)))
    labels = [b.article.run(run).label for run in runs]  # type: ignore[union-attr]
    words = {"delta": f"change ({labels[1]} - {labels[0]})", "ratio": f"{labels[1]} / {labels[0]}"}
    headers = (*labels, *(words[k] for k in decl.compare.show))
    corner = (
        decl.corner
        if decl.corner is not None
        else (decl.rows.removeprefix("meta.").replace("_", " "))
    )
    return TableView(
        decl=decl,
        corner=corner,
        columns=tuple(headers),
        rows=tuple(out_rows),
        footnotes=b.footnotes.items(),
    )


def _at_interactivity(b: CellBuilder) -> TableView:
    """A row per level of tok/s per user; a column per series with its frontier's throughput
    there, then the ratio of the compared series, then each series' cost (`cost = true`)."""
    decl = b.decl
    found = table_levels(decl, b.article, b.metrics)
    b = _with_left_out(b)
    if decl.cost_only:
        return _costs_at_interactivity(b, found)
    headers = list(found.names)
    if found.ratios and decl.compare is not None:
        headers.append(
            f"{_series_name(b, decl.compare.other)} / {_series_name(b, decl.compare.base)}"
        )
    if decl.cost:
        headers += [f"{name} (USD/Mtok)" for name in found.names]
    out_rows = []
    for i, level in enumerate(decl.levels):
        cells = [
            _level_cell(b, name, row[i])
            for name, row in zip(found.names, found.levels, strict=True)
        ]
        if found.ratios:
            ratio = found.ratios[i]
            if ratio is None:
                text = "unreachable for one of the two series"
                cells.append(
                    CellView(
                        html=Markup("—"),
                        note=b.footnotes.mark(f"cmp:{text}", Markup(escape(text))),
                        missing=True,
                    )
                )
            else:
                cells.append(_resampled(b, ratio))
        if decl.cost:
            cells += [
                _cost_cell(b, name, row[i])
                for name, row in zip(found.names, found.levels, strict=True)
            ]
        out_rows.append((f"{level:g}", tuple(cells)))
    return TableView(
        decl=decl,
        corner=decl.corner if decl.corner is not None else "tok/s per user",
        columns=tuple(headers),
        rows=tuple(out_rows),
        footnotes=b.footnotes.items(),
    )


def _costs_at_interactivity(b: CellBuilder, found: TableLevels) -> TableView:
    """`cost = "only"`: a row per level of tok/s per user, a column per series with its cost
    per million output tokens on its frontier there."""
    decl = b.decl
    out_rows = []
    for i, level in enumerate(decl.levels):
        cells = [
            _cost_cell(b, name, row[i]) for name, row in zip(found.names, found.levels, strict=True)
        ]
        out_rows.append((f"{level:g}", tuple(cells)))
    return TableView(
        decl=decl,
        corner=decl.corner if decl.corner is not None else "tok/s per user",
        columns=tuple(found.names),
        rows=tuple(out_rows),
        footnotes=b.footnotes.items(),
    )


def _series_name(b: CellBuilder, series: str) -> str:
    run = b.article.run(series) if b.decl.series == "run" else None
    return run.label if run is not None else series


def _with_left_out(b: CellBuilder) -> CellBuilder:
    """`b` with a note for each series whose frontier leaves out a gated point
    (`reportgen.article.frontiers.left_out`): which points and why, marked on each of that
    series' cells."""
    for name, words in left_out_words(b.metrics, b.decl, b.article).items():
        text = f"left out of the frontier of {name}: {words}"
        b.left_out[name] = b.footnotes.mark(f"left-out:{text}", b.notes.text(text, b.decl.title))
    return b


def _marked(b: CellBuilder, name: str, cell: CellView) -> CellView:
    mark = b.left_out.get(name)
    if mark is None:
        return cell
    return replace(cell, note=mark + (cell.note or ""))  # made first: the first mark


def _level_cell(b: CellBuilder, name: str, level: Level) -> CellView:
    if level.throughput is None:
        return _marked(b, name, _unreachable(b, name, level))
    return _marked(b, name, _resampled(b, level.throughput))


def _cost_cell(b: CellBuilder, name: str, level: Level) -> CellView:
    if level.cost is None:
        return _marked(b, name, _unreachable(b, name, level))
    return _marked(b, name, _resampled(b, level.cost))


def _resampled(b: CellBuilder, value: MetricValue) -> CellView:
    """A frontier value's cell; where the table shows its interval and some of the bootstrap's
    resamples did not reach the level, a note says how many (the interval is of the others)."""
    cell = b.number(value, None)
    missing = sum(math.isnan(x) for x in value.resamples)
    if not missing or b.decl.uncertainty is None:
        return cell
    text = (
        f"{missing:,} of {len(value.resamples):,} bootstrap resamples of the frontier do not "
        "reach this level; the interval is of the others"
    )
    mark = b.footnotes.mark(f"unreached:{text}", b.notes.text(text, b.decl.title))
    return replace(cell, note=(cell.note or "") + mark)


def _unreachable(b: CellBuilder, name: str, level: Level) -> CellView:
    """A level the series' frontier does not reach: the word, and a note with its range."""
    if level.span is None:
        text = f"unreachable: {name} has no point with both metrics"
    else:
        low, high = level.span
        text = (
            f"unreachable: the frontier of {name} spans {low:,.1f} to {high:,.1f} tok/s per user; "
            "values are interpolated between its points, never extrapolated"
        )
    mark = b.footnotes.mark(f"unreachable:{text}", b.notes.text(text, b.decl.title))
    return CellView(html=Markup("unreachable"), note=mark, missing=True)


def table_views(
    article: ArticleSource,
    metrics: MetricSet,
    findings: Iterable[Finding] = (),
    notes: Notes | None = None,
) -> tuple[TableView, ...]:
    """Every declared table, laid out from the metrics, in page order; `notes` collects the
    reasons written out (for the charts after them to refer to)."""
    findings = tuple(findings)
    flags, notes = flags_of(findings), notes if notes is not None else Notes()
    notes.mark_lints(findings)
    views: list[TableView] = []
    problems: list[Problem] = []
    for decl in article.tables():
        b = CellBuilder(decl, metrics, article, flags, notes)
        try:
            _check_units(decl)
            _check_filters(decl, metrics, article)
            if decl.kind == "at_interactivity":
                views.append(_at_interactivity(b))
            elif decl.compare is not None:
                views.append(_compare(b))
            elif isinstance(decl.columns, tuple):
                views.append(_points(b))
            else:
                if decl.metric is None:
                    raise table_problem(
                        decl, f"columns = {decl.columns!r} needs a metric for its cells"
                    )
                views.append(_grid(b))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return tuple(views)
