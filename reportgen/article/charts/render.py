"""Chart stage of rendering: metric values in, inline SVG charts out (pure, no files).

This module picks each declared chart's values from the metrics and checks its metrics and axis
labels; `article/charts/words.py` says what the chart shows in words and `article/charts/draw.py`
draws it. The same metrics give the same bytes in any process. The chart's title and caption are for
the page's `<figcaption>`; the plot has no title.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from markupsafe import Markup, escape

from reportgen.article.axes import axis_label, kind_of, matches, sort_values
from reportgen.article.charts.cache import PendingSvgs, start_svgs
from reportgen.article.charts.plot import (
    Line,
    Plot,
)
from reportgen.article.charts.words import axis_words, default_label, gaps, series_name
from reportgen.article.frontiers import left_out_words, series_frontiers
from reportgen.article.frontiers import pairs as cell_pairs
from reportgen.article.prose.render import render_inline
from reportgen.article.prose.resolver import Resolver
from reportgen.article.source.declarations import ArticleSource, ChartDecl
from reportgen.article.tables.cells import Notes
from reportgen.article.workers import Stage
from reportgen.errors import InputError, Problem
from reportgen.metrics.display import UNITS, display_of
from reportgen.metrics.registry import DEFINITIONS, MetricSet, MetricValue, split_metric
from reportgen.model import Scalar


@dataclass(frozen=True)
class Chart:
    """One rendered chart: `svg` is an inline `<svg>` element, safe to embed as is."""

    id: str
    title: str
    caption: Markup
    svg: str


def render_charts(
    article: ArticleSource,
    metrics: MetricSet,
    notes: Notes | None = None,
    cache: Path | None = None,
    drawer: Stage | None = None,
) -> tuple[Chart, ...]:
    """Every declared chart, drawn from the metrics, in page order; a chart over values the
    data lacks is a located error. With a `cache` folder, a chart drawn before is read from it
    (article/charts/cache.py), and matplotlib is imported only when one is not; `drawer` draws
    the others (a worker started ahead, article/workers.py), else this process."""
    charts, pending = start_charts(article, metrics, notes, cache, drawer)
    svgs = pending.svgs()
    return tuple(replace(c, svg=svg) for c, svg in zip(charts, svgs, strict=True))


def start_charts(
    article: ArticleSource,
    metrics: MetricSet,
    notes: Notes | None = None,
    cache: Path | None = None,
    drawer: Stage | None = None,
) -> tuple[tuple[Chart, ...], PendingSvgs]:
    """`render_charts` with the drawing started, not waited for: each chart's `svg` is the mark
    that `PendingSvgs.fill` replaces with its drawing."""
    try:
        planned = _planned(article, metrics, notes)
    except InputError:
        if drawer is not None:
            drawer.close()
        raise
    pending = start_svgs([plot for *_, plot in planned], cache, drawer, article.folder)
    charts = tuple(
        Chart(decl.id, decl.title, caption, mark)
        for (decl, caption, _), mark in zip(planned, pending.marks, strict=True)
    )
    return charts, pending


def undrawn_charts(
    article: ArticleSource, metrics: MetricSet, notes: Notes | None = None
) -> tuple[Chart, ...]:
    """Every declared chart's title and caption, in page order, not drawn (`svg` empty): the
    page's text without matplotlib, for `check`, which reads no drawing but reads the words
    around it. A chart over values the data lacks is the same located error as in a build."""
    return tuple(
        Chart(decl.id, decl.title, caption, "")
        for decl, caption, _ in _planned(article, metrics, notes)
    )


def _planned(
    article: ArticleSource, metrics: MetricSet, notes: Notes | None
) -> list[tuple[ChartDecl, Markup, Plot]]:
    """Each declared chart with its caption and what to plot; every problem, located."""
    notes = notes if notes is not None else Notes()
    planned: list[tuple[ChartDecl, Markup, Plot]] = []
    problems: list[Problem] = []
    for decl in article.charts():
        try:
            plan = _interactivity if decl.kind == "interactivity" else _line
            extra, plot = plan(decl, article, metrics, notes)
            planned.append((decl, _caption(decl, article, metrics) + extra, plot))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return planned


def _problem(decl: ChartDecl, message: str) -> InputError:
    return InputError([decl.place.problem(f"chart {decl.id!r}: {message}")])


_LABEL_UNIT = re.compile(r"\(([^(),]+)[^()]*\)\s*$")
_UNITS = UNITS  # the units an axis label may name


def _label(decl: ChartDecl, which: str, declared: str | None, default: str, unit: str) -> str:
    """The declared axis label, when the unit it names (in parentheses at its end) is the unit
    the axis plots; a build error when it names another."""
    if declared is None:
        return default
    found = _LABEL_UNIT.search(declared)
    named = found.group(1).strip() if found else None
    if named in _UNITS and named != unit:
        raise _problem(decl, f"{which} {declared!r} names {named}, but the axis plots {unit}")
    return declared


def _metric(decl: ChartDecl, metric: str) -> tuple[str, str | None]:
    key, stat = split_metric(metric)
    if key not in DEFINITIONS:
        near = difflib.get_close_matches(metric, list(DEFINITIONS), n=3)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise _problem(decl, f"unknown metric {metric!r}{hint}")
    return key, stat


def _values(decl: ChartDecl, metrics: MetricSet, metric: str) -> list[MetricValue]:
    _metric(decl, metric)
    found = [v for v in metrics.of(metric) if matches(v, decl.where)]
    if not found:
        raise _problem(decl, f"no values of {metric} in the data")
    return found


def _line(
    decl: ChartDecl, article: ArticleSource, metrics: MetricSet, notes: Notes
) -> tuple[Markup, Plot]:
    values = _values(decl, metrics, decl.metric)
    key, stat = _metric(decl, decl.metric)
    display = display_of(key, stat)
    kind = kind_of(key)
    cells = [c for c in metrics.cells if c.kind == kind and matches(c, decl.where)]
    series_axis = decl.series
    series = (
        sort_values(series_axis, {v.coord(series_axis) for v in values}, article)
        if series_axis
        else [None]
    )
    xs = sort_values(
        decl.x,
        {v.coord(decl.x) for v in values} | {c.coord(decl.x) for c in cells} - {None},
        article,
    )
    numbers = [float(x) for x in xs if isinstance(x, int | float) and not isinstance(x, bool)]
    numeric = len(numbers) == len(xs)
    log2 = decl.x_log if decl.x_log is not None else numeric and min(numbers, default=0) > 0
    log2 = (
        log2
        and numeric
        and decl.x in ("concurrency", "context", "rate", "prompt_tokens", "max_tokens")
    )
    # a gated value is left out, its gate's words in the caption: a point, hollow or not, would
    # be read as the number the table does not show
    gated = {
        (v.coord(series_axis) if series_axis else None, v.coord(decl.x)): v.gate.words()
        for v in values
        if v.gate is not None
    }
    values = [v for v in values if v.gate is None]
    index = {
        (v.coord(series_axis) if series_axis else None, v.coord(decl.x)): v.value * display.scale
        for v in values
    }
    errors: dict[tuple[Scalar, Scalar], float] = {}
    if decl.error_bars:
        for v in values:
            at = (v.coord(series_axis) if series_axis else None, v.coord(decl.x))
            mean, half = (metrics.get(f"{v.id}.{stat}") for stat in ("rep_mean", "rep_hw"))
            if mean is not None and half is not None:  # of the bare value or a percentile
                index[at], errors[at] = mean.value * display.scale, half.value * display.scale

    y_label = _label(
        decl, "y_label", decl.y_label, default_label(key, stat, display.unit), display.unit
    )

    positions = numbers if log2 else [float(i) for i in range(len(xs))]
    lines = tuple(
        Line(
            xs=tuple(positions),
            ys=tuple(index.get((s, x), math.nan) for x in xs),
            label=series_name(series_axis, s, article) if series_axis else None,
            gid=f"line-{axis_label(series_axis, s, article)}" if series_axis else "line",
            style=i,
            errors=tuple(errors.get((s, x), math.nan) for x in xs) if errors else (),
        )
        for i, s in enumerate(series)
    )
    labels = [axis_label(decl.x, x, article) for x in xs]
    plot = Plot(
        svg_id=f"chart-{decl.id}",
        title=decl.title,
        lines=lines,
        x_axis="log2" if log2 else "categorical",
        ticks=tuple(zip(positions, labels, strict=True)),
        x_label=decl.x_label or axis_words(decl.x),
        y_label=y_label,
        y_unit=display.unit,
        y_log=decl.y_log,
        legend=_legend(decl, len(series)),
        mark=provenance_mark(values),
    )
    missing = gaps(decl, article, series, xs, index, cells, notes, gated)
    return missing, plot


def _interactivity(
    decl: ChartDecl, article: ArticleSource, metrics: MetricSet, _notes: Notes
) -> tuple[Markup, Plot]:
    """Aggregate throughput against the speed each request sees: one curve per series, each
    point labelled by `label` (concurrency by default)."""
    if decl.error_bars:
        raise _problem(
            decl, "error_bars = true is for line charts: an interactivity chart has none"
        )
    _values(decl, metrics, decl.metric)
    _values(decl, metrics, decl.x)
    y_key, y_stat = _metric(decl, decl.metric)
    x_key, x_stat = _metric(decl, decl.x)
    y_display, x_display = display_of(y_key, y_stat), display_of(x_key, x_stat)
    series_axis, label_axis = decl.series, decl.label or "concurrency"

    pairs = cell_pairs(metrics, decl.metric, decl.x, decl.where)
    if not pairs:
        raise _problem(decl, f"no cell has both {decl.x} and {decl.metric}")
    series = (
        sort_values(series_axis, {y.coord(series_axis) for _, y in pairs}, article)
        if series_axis
        else [None]
    )

    x_label = _label(
        decl,
        "x_label",
        decl.x_label,
        default_label(x_key, x_stat, x_display.unit),
        x_display.unit,
    )
    y_label = _label(
        decl,
        "y_label",
        decl.y_label,
        default_label(y_key, y_stat, y_display.unit),
        y_display.unit,
    )

    lines = []
    for i, s in enumerate(series):
        line = sorted(
            ((x, y) for x, y in pairs if series_axis is None or y.coord(series_axis) == s),
            key=lambda p: _number(p[1].coord(label_axis)),
        )
        lines.append(
            Line(
                xs=tuple(x.value * x_display.scale for x, _ in line),
                ys=tuple(y.value * y_display.scale for _, y in line),
                label=series_name(series_axis, s, article) if series_axis else None,
                gid=f"line-{axis_label(series_axis, s, article)}" if series_axis else "line",
                style=i,
                points=tuple(axis_label(label_axis, y.coord(label_axis), article) for _, y in line),
            )
        )
    fronts = series_frontiers(pairs, series_axis, article) if decl.frontier else []
    frontier_lines = tuple(
        Line(
            xs=tuple(p.x * x_display.scale for p in front),
            ys=tuple(p.y * y_display.scale for p in front),
            label=None,
            gid=f"frontier-{axis_label(series_axis, s, article)}" if series_axis else "frontier",
            style=i,
        )
        for i, (s, front) in enumerate(fronts)
        if front
    )
    plot = Plot(
        svg_id=f"chart-{decl.id}",
        title=decl.title,
        lines=tuple(lines),
        frontiers=frontier_lines,
        x_axis="from-zero",
        ticks=(),
        x_label=x_label,
        y_label=y_label,
        y_unit=y_display.unit,
        y_log=decl.y_log,
        legend=_legend(decl, len(series)),
        mark=provenance_mark([v for pair in pairs for v in pair]),
    )
    words = f" Each point is labelled by its {axis_words(label_axis)}."
    if decl.frontier:
        words += (
            " The wide pale line joins each series' frontier points: those no other point of "
            "the series beats on both axes."
        )
    gone = left_out_words(metrics, decl, article)
    if gone:  # gated points are neither drawn nor on a frontier (`frontiers.pairs`)
        parts = [f"{name} at {where}" if name else where for name, where in gone.items()]
        words += f" Left out: {'; '.join(parts)}."
    return escape(words), plot


def provenance_mark(values: Sequence[MetricValue]) -> str | None:
    """The words a chart carries in its corner when any value it draws is not measured:
    "reconstructed data", "synthetic data", or both; None when every value was measured."""
    kinds = [k for k in ("reconstructed", "synthetic") if any(v.provenance == k for v in values)]
    return f"{' and '.join(kinds)} data" if kinds else None


def _legend(decl: ChartDecl, series: int) -> str | None:
    """The legend's title, when the chart has more than one series."""
    if not decl.series or series < 2:
        return None
    return decl.legend or axis_words(decl.series)


def _caption(decl: ChartDecl, article: ArticleSource, metrics: MetricSet) -> Markup:
    if decl.caption is None:
        return Markup("")
    return render_inline(decl.caption, Resolver.of(article, metrics))


def _number(value: Scalar) -> float:
    return float(value) if isinstance(value, int | float) else 0.0
