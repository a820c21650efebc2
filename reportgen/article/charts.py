"""Chart stage of rendering: metric values in, inline SVG charts out (pure, no files).

Each chart is drawn with matplotlib's SVG backend (no pyplot, no `matplotlib.use`) inside a style
context (an `rc_context`) that starts from matplotlib's defaults, so a user's matplotlibrc cannot
change the output and ours ends with the call. The SVG is then made fit to inline in an HTML page:
no prolog, doctype, comments, metadata or global `<style>`; CSS `style` attributes turned into
presentation attributes; every id and `#id` reference prefixed with the chart id; width 100% over
the kept viewBox; `role="img"` with a `<title>`. The same metrics give the same bytes in any
process. The chart's title and caption are for the page's `<figcaption>`; the plot has no title.
"""

from __future__ import annotations

import difflib
import html
import io
import math
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib.style
from markupsafe import Markup
from matplotlib.figure import Figure
from matplotlib.ticker import FixedFormatter, FixedLocator, FuncFormatter, NullLocator

from reportgen.article.axes import axis_label, kind_of, matches, sort_values
from reportgen.article.manifest import ArticleSource, ChartDecl
from reportgen.article.prose import Resolver, render_inline, tool_versions
from reportgen.article.tableview import Notes
from reportgen.errors import InputError, Problem
from reportgen.metrics import DEFINITIONS, CellState, MetricSet, MetricValue
from reportgen.metrics.display import UNITS, display_of
from reportgen.metrics.registry import split_metric
from reportgen.model import Scalar


@dataclass(frozen=True)
class Chart:
    """One rendered chart: `svg` is an inline `<svg>` element, safe to embed as is."""

    id: str
    title: str
    caption: Markup
    svg: str


# Okabe-Ito, yellow last (weak on white); markers differ too, for grey print.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
# Lines that lie on top of each other stay apart by dash and by marker (hollow every other one),
# not by colour alone.
DASHES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 2)), "-", "--")
HOLLOW = (False, True, False, True, False, True, False, True)
# Sized for a phone: shown at its natural width (4.8 in = 461 CSS px) or narrower, the 12 pt
# text stays at least as large as the page's small print (0.8rem) down to a 420 px screen.
WIDTH_IN, HEIGHT_IN = 4.8, 3.6
_RC: dict[str, Any] = {
    "svg.hashsalt": "reportgen",
    "svg.fonttype": "none",
    "font.family": ["DejaVu Sans"],
    "font.size": 12.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.axisbelow": True,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "axes.edgecolor": "#555555",
    "xtick.color": "#333333",
    "ytick.color": "#333333",
    "lines.linewidth": 1.8,
    "lines.markersize": 6.0,
    "legend.frameon": False,
}
_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}
_LOCK = threading.Lock()  # rc_context changes process-wide rcParams while it is open


def render_charts(
    article: ArticleSource, metrics: MetricSet, notes: Notes | None = None
) -> tuple[Chart, ...]:
    """Every declared chart, drawn from the metrics, in page order; a chart over values the
    data lacks is a located error."""
    notes = notes if notes is not None else Notes()
    out: list[Chart] = []
    problems: list[Problem] = []
    for decl in article.charts():
        try:
            draw = _interactivity if decl.kind == "interactivity" else _line
            out.append(draw(decl, article, metrics, notes))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return tuple(out)


def _problem(decl: ChartDecl, message: str) -> InputError:
    return InputError([decl.place.problem(f"chart {decl.id!r}: {message}")])


_LABEL_UNIT = re.compile(r"\(([^(),]+)[^()]*\)\s*$")
_UNITS = UNITS  # the units an axis label may name


# What an axis is called when the declaration does not say: short enough for the chart's edge.
_AXIS_NAMES = {
    "aggregate_tok_s": "output, all requests",
    "output_tok_s": "output, all requests",
    "per_request_tok_s": "per request",
    "ttft_s": "TTFT",
    "itl_s": "ITL",
    "latency_s": "latency",
    "request_s": "requests",
    "tok_s": "prefill",
}


def _default_label(key: str, stat: str | None, unit: str) -> str:
    """`output, all requests (tok/s)`, `TTFT p99 (ms)`: a registry key as an axis label."""
    base, _, last = key.rpartition(".")
    name = _AXIS_NAMES.get(last, DEFINITIONS[key].title if key in DEFINITIONS else last)
    if last in ("per_gpu", "per_w", "j_per_tok"):
        name = _AXIS_NAMES.get(base.rpartition(".")[2], "output")
    median = stat is None and DEFINITIONS[key].stats if key in DEFINITIONS else False
    shown = f"{name} {stat}" if stat else f"{name}, median" if median else name
    return f"{shown} ({unit})"


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
    found = [v for v in metrics.values if v.metric == metric and matches(v, decl.where)]
    if not found:
        raise _problem(decl, f"no values of {metric} in the data")
    return found


def _style(i: int) -> dict[str, Any]:
    return {
        "color": PALETTE[i % len(PALETTE)],
        "marker": MARKERS[i % len(MARKERS)],
        "linestyle": DASHES[i % len(DASHES)],
        "markerfacecolor": "white" if HOLLOW[i % len(HOLLOW)] else None,
        "markeredgewidth": 1.4,
    }


_AXIS_WORDS = {
    "concurrency": "concurrent requests",
    "context": "context length (prompt tokens)",
    "rate": "request rate (requests/s)",
    "prompt_tokens": "prompt tokens",
    "max_tokens": "output tokens",
    "point": "load point",
    "run": "run",
}


def _series_name(axis: str | None, value: Scalar, article: ArticleSource) -> str:
    """A series in the legend: context 0 says what it is (no context before the prompt)."""
    if axis == "context" and value == 0:
        return "0 (none)"
    return axis_label(axis or "", value, article)


def _line(decl: ChartDecl, article: ArticleSource, metrics: MetricSet, notes: Notes) -> Chart:
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
    index = {
        (v.coord(series_axis) if series_axis else None, v.coord(decl.x)): v.value * display.scale
        for v in values
    }

    y_label = _label(
        decl, "y_label", decl.y_label, _default_label(key, stat, display.unit), display.unit
    )

    def draw(fig: Figure) -> None:
        ax = fig.add_subplot()
        positions = numbers if log2 else [float(i) for i in range(len(xs))]
        for i, s in enumerate(series):
            ys = [index.get((s, x), math.nan) for x in xs]
            label = _series_name(series_axis, s, article) if series_axis else None
            gid = f"line-{axis_label(series_axis, s, article)}" if series_axis else "line"
            ax.plot(positions, ys, label=label, gid=gid, **_style(i))
        labels = [axis_label(decl.x, x, article) for x in xs]
        if log2:
            _log2_axis(ax, positions, labels)
        else:
            ax.set_xticks(positions, labels)
            ax.set_xmargin(0.08)
            ax.grid(False, axis="x")
        ax.set_xlabel(decl.x_label or _AXIS_WORDS.get(decl.x, decl.x))
        ax.set_ylabel(y_label)
        _y_axis(ax, display.unit, log=decl.y_log)
        if series_axis and len(series) > 1:
            _legend(ax, decl.legend or _AXIS_WORDS.get(series_axis, series_axis), len(series))

    gaps = _gaps(decl, article, series, xs, index, cells, notes)
    return _chart(decl, article, metrics, gaps, draw)


def _interactivity(
    decl: ChartDecl, article: ArticleSource, metrics: MetricSet, notes: Notes
) -> Chart:
    """Aggregate throughput against the speed each request sees: one curve per series, each
    point labelled by `label` (concurrency by default)."""
    ys = _values(decl, metrics, decl.metric)
    xs = _values(decl, metrics, decl.x)
    y_key, y_stat = _metric(decl, decl.metric)
    x_key, x_stat = _metric(decl, decl.x)
    y_display, x_display = display_of(y_key, y_stat), display_of(x_key, x_stat)
    series_axis, label_axis = decl.series, decl.label or "concurrency"

    def place(v: MetricValue) -> tuple[Scalar, ...]:
        return tuple(v.coord(a) for a in ("run", "context", "concurrency", "point"))

    x_at = {place(v): v for v in xs}
    pairs = [(x_at[place(y)], y) for y in ys if place(y) in x_at]
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
        _default_label(x_key, x_stat, x_display.unit),
        x_display.unit,
    )
    y_label = _label(
        decl,
        "y_label",
        decl.y_label,
        _default_label(y_key, y_stat, y_display.unit),
        y_display.unit,
    )

    def draw(fig: Figure) -> None:
        ax = fig.add_subplot()
        for i, s in enumerate(series):
            line = sorted(
                ((x, y) for x, y in pairs if series_axis is None or y.coord(series_axis) == s),
                key=lambda p: _number(p[1].coord(label_axis)),
            )
            px = [x.value * x_display.scale for x, _ in line]
            py = [y.value * y_display.scale for _, y in line]
            label = _series_name(series_axis, s, article) if series_axis else None
            gid = f"line-{axis_label(series_axis, s, article)}" if series_axis else "line"
            ax.plot(px, py, label=label, gid=gid, **_style(i))
            for (_, y), a, b in zip(line, px, py, strict=True):
                ax.annotate(
                    axis_label(label_axis, y.coord(label_axis), article),
                    (a, b),
                    textcoords="offset points",
                    xytext=(5, 4),
                    fontsize=10.5,
                    color="#333333",
                )
        ax.set_xlabel(x_label)
        ax.set_ylabel(y_label)
        ax.set_xlim(left=0, right=ax.dataLim.x1 * 1.15)
        _y_axis(ax, y_display.unit, log=decl.y_log)
        if series_axis and len(series) > 1:
            _legend(ax, decl.legend or _AXIS_WORDS.get(series_axis, series_axis), len(series))

    words = f" Each point is labelled by its {_AXIS_WORDS.get(label_axis, label_axis)}."
    return _chart(decl, article, metrics, words, draw)


def _chart(
    decl: ChartDecl,
    article: ArticleSource,
    metrics: MetricSet,
    extra: str,
    draw: Callable[[Figure], None],
) -> Chart:
    caption = Markup("")
    if decl.caption is not None:
        resolver = Resolver(metrics, article.setup, tool_versions(metrics.runs), article.date)
        caption = render_inline(decl.caption, resolver)
    svg = _render(f"chart-{decl.id}", decl.title, draw)
    return Chart(decl.id, decl.title, caption + Markup(extra), svg)


def _gaps(
    decl: ChartDecl,
    article: ArticleSource,
    series: Sequence[Scalar],
    xs: Sequence[Scalar],
    index: Mapping[tuple[Scalar, Scalar], float],
    cells: Sequence[CellState],
    notes: Notes,
) -> Markup:
    """The caption's words for the points a line lacks, and why (each reason said once)."""
    s_axis = decl.series
    state = {(c.coord(s_axis) if s_axis else None, c.coord(decl.x)): c for c in cells}
    missing: dict[tuple[Scalar, str | None], list[Scalar]] = {}
    for s in series:
        for x in xs:
            if (s, x) not in index:
                cell = state.get((s, x))
                why = cell.reason if cell is not None and cell.status != "ok" else None
                missing.setdefault((s, why), []).append(x)
    out = Markup("")
    if missing:
        parts = []
        for (s, why), at in missing.items():
            head = f"{axis_label(s_axis, s, article)} at " if s_axis else "at "
            part = Markup("{}{}").format(
                head, _at(decl.x, [axis_label(decl.x, x, article) for x in at])
            )
            if why:
                part += Markup(" ({})").format(notes.text(why, decl.title))
            parts.append(part)
        out += Markup(" Gaps where a cell has no measurement: ") + Markup("; ").join(parts) + "."
    if s_axis:
        unmeasured = sort_values(
            s_axis, {c.coord(s_axis) for c in cells} - set(series) - {None}, article
        )
        if unmeasured:
            names = ", ".join(axis_label(s_axis, u, article) for u in unmeasured)
            out += Markup(" No line for {}: no cell was measured.").format(names)
    return out


def _at(axis: str, labels: Sequence[str]) -> str:
    """Where on the x axis, in words: "3 and 6 concurrent requests", "context 4K"."""
    values = " and ".join(labels)
    if axis == "concurrency":
        return f"{values} concurrent requests"
    if axis in ("context", "point"):
        return f"{axis} {values}"
    if axis == "rate":
        return values
    return f"{_AXIS_WORDS.get(axis, axis)} {values}"


def _number(value: Scalar) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


def _log2_axis(ax: Any, ticks: Sequence[float], labels: Sequence[str]) -> None:
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(list(ticks)))
    ax.xaxis.set_major_formatter(FixedFormatter(list(labels)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlim(min(ticks) / 1.3, max(ticks) * 1.3)
    ax.grid(False, axis="x")


def _y_axis(ax: Any, unit: str, *, log: bool) -> None:
    seconds = unit in ("s", "ms", "J/tok", "tok/s/W")
    if log:
        ax.set_yscale("log")
        ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    else:  # from zero, with headroom so the top markers are not cut by the frame
        ax.set_ylim(0, ax.dataLim.y1 * 1.08)
    fmt: Callable[[float, object], str] = (
        (lambda v, _: f"{v:g}") if seconds else (lambda v, _: f"{v:,.0f}")
    )
    ax.yaxis.set_major_formatter(FuncFormatter(fmt))


def _legend(ax: Any, title: str, entries: int) -> None:
    """The legend above the plot, in one row (two for more than four entries), with its title."""
    ax.legend(
        title=title,
        loc="lower left",
        bbox_to_anchor=(-0.02, 1.01),
        ncols=entries if entries <= 4 else -(-entries // 2),
        alignment="left",
        handlelength=1.9,
        handletextpad=0.4,
        columnspacing=0.8,
        borderaxespad=0.0,
    )


_MARGINS = {"left": 0.16, "right": 0.97, "bottom": 0.15, "top": 0.76}
# Room left of the axes: the rotated y label and padding, plus the widest y tick label, in
# fractions of the figure's width (12 pt DejaVu Sans is about 0.1 in a character).
_LEFT_BASE, _LEFT_PER_CHAR = 0.09, 0.1 / WIDTH_IN


def _left_margin(fig: Figure) -> float:
    """The left margin that fits the widest y tick label the figure will show."""
    widest = 0
    for ax in fig.axes:
        low, high = sorted(ax.get_ylim())
        ticks = [t for t in ax.get_yticks() if low <= t <= high]
        labels = ax.yaxis.get_major_formatter().format_ticks(ticks)
        widest = max([widest, *(len(label) for label in labels)])
    return min(0.3, _LEFT_BASE + _LEFT_PER_CHAR * widest)


def _render(chart_id: str, title: str, draw: Callable[[Figure], None]) -> str:
    buf = io.StringIO()
    # Start from matplotlib's defaults, not the user's matplotlibrc; restored on exit.
    with _LOCK, matplotlib.style.context(["default", _RC]):
        fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN))
        # Fixed margins, sized for the tick labels, axis labels and the legend above:
        # matplotlib's constrained layout measured every label and cost half of a chart's time.
        fig.subplots_adjust(**_MARGINS)
        draw(fig)
        legend = any(ax.get_legend() is not None for ax in fig.axes)
        fig.subplots_adjust(left=_left_margin(fig), top=_MARGINS["top"] if legend else 0.95)
        fig.savefig(buf, format="svg", metadata=_METADATA)
    return _inline(buf.getvalue(), chart_id, title)


_DROP = re.compile(
    r"<\?xml.*?\?>|<!DOCTYPE.*?>|<!--.*?-->|<metadata>.*?</metadata>|<style.*?</style>", re.S
)
_REF = re.compile(r'(\bid="|url\(#|href="#)')
_STYLE = re.compile(r'\bstyle="([^"]*)"')
# The PDF draws with its own copy of DejaVu Sans (see article/pdf.py); browsers fall back.
_FONTS = {"'DejaVu Sans'": "'reportgen DejaVu Sans', 'DejaVu Sans', sans-serif"}
_ROOT = re.compile(r"<svg\b[^>]*>")


def _inline(svg: str, chart_id: str, title: str) -> str:
    """matplotlib's SVG document as an element to inline in HTML (see the module docstring)."""
    svg = _DROP.sub("", svg)
    svg = re.sub(r"\n\s*\n", "\n", svg)  # lines left empty by the drops
    svg = _REF.sub(lambda m: f"{m.group(1)}{chart_id}-", svg)
    svg = _STYLE.sub(_attributes, svg)
    root = _ROOT.search(svg)
    assert root is not None, "matplotlib wrote no <svg> element"
    view_box = re.search(r'viewBox="[^"]*"', root.group(0))
    assert view_box is not None, "matplotlib wrote no viewBox"
    label = html.escape(title, quote=True)
    head = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'version="1.1" {view_box.group(0)} width="100%" role="img" '
        f'aria-label="{label}" stroke-linejoin="round" stroke-linecap="butt">'
        f'<title id="{chart_id}-title">{label}</title>'
    )
    return (svg[: root.start()] + head + svg[root.end() :]).strip() + "\n"


def _attributes(style: re.Match[str]) -> str:
    """`style="fill: #fff; stroke: #000"` as presentation attributes `fill="#fff" stroke="#000"`.

    WeasyPrint reads inline SVG's `style` attributes with its HTML CSS parser, which warns about
    every SVG property; presentation attributes are plain SVG and also let page CSS override.
    """
    pairs = (item.split(":", 1) for item in style.group(1).split(";") if item.strip())
    return " ".join(f'{k.strip()}="{_FONTS.get(v.strip(), v.strip())}"' for k, v in pairs)
