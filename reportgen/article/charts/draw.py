"""Drawing for the charts: a `Plot` (article/charts/plot.py) in, matplotlib's figure of it in the
article's look (palette, markers, axes, legend, fixed margins) made an SVG element to inline in
the page out.

Each chart is drawn with matplotlib's SVG backend (no pyplot, no `matplotlib.use`) inside a style
context (an `rc_context`) that starts from matplotlib's defaults, so a user's matplotlibrc cannot
change the output and ours ends with the call. The SVG is then made fit to inline in an HTML page:
no prolog, doctype, comments, metadata or global `<style>`; CSS `style` attributes turned into
presentation attributes; every id and `#id` reference prefixed with the chart id; width 100% over
the kept viewBox; `role="img"` with a `<title>`. The same drawing gives the same bytes in any
process.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import math
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import fields, replace
from typing import Any

import matplotlib.style
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import text_to_path
from matplotlib.ticker import FixedFormatter, FixedLocator, FuncFormatter, NullLocator

from reportgen.article.charts.labels import Box, Label, Place, free_corner, place_labels
from reportgen.article.charts.plot import (
    DASHES,
    HEIGHT_IN,
    HOLLOW,
    MARKERS,
    PALETTE,
    TEXT_PT,
    WIDTH_IN,
    Line,
    Plot,
    svg_head,
)
from reportgen.terminal import visible

_RC: dict[str, Any] = {
    # Every text on a chart (run names, axis values, labels from run files and article.toml) is
    # drawn as written: a `$` pair is two dollar signs, never matplotlib's mathtext.
    "text.parse_math": False,
    "text.usetex": False,
    "svg.hashsalt": "reportgen",
    "svg.fonttype": "none",
    "font.family": ["DejaVu Sans"],
    "font.size": TEXT_PT,
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


def line_style(i: int) -> dict[str, Any]:
    """The colour, marker and dash of the `i`th line of a chart."""
    return {
        "color": PALETTE[i % len(PALETTE)],
        "marker": MARKERS[i % len(MARKERS)],
        "linestyle": DASHES[i % len(DASHES)],
        "markerfacecolor": "white" if HOLLOW[i % len(HOLLOW)] else None,
        "markeredgewidth": 1.4,
    }


def log2_axis(ax: Any, ticks: Sequence[float], labels: Sequence[str]) -> None:
    """A base-2 log x axis with a tick, labelled, at each value."""
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(list(ticks)))
    ax.xaxis.set_major_formatter(FixedFormatter(list(labels)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlim(min(ticks) / 1.3, max(ticks) * 1.3)
    ax.grid(False, axis="x")


def headroom(top: float, factor: float) -> float:
    """`top` raised by `factor`, where a float holds it (a value near 1.8e308 stays itself)."""
    raised = top * factor
    return raised if math.isfinite(raised) else top


def y_axis(ax: Any, unit: str, *, log: bool) -> None:
    """The y axis: log, or linear from zero with headroom; tick labels by the unit."""
    seconds = unit in ("s", "ms", "J/tok", "tok/s/W")
    if log:
        ax.set_yscale("log")
        ax.yaxis.set_minor_formatter(FuncFormatter(lambda _v, _: ""))
    else:  # from zero, with headroom so the top markers are not cut by the frame
        ax.set_ylim(0, headroom(ax.dataLim.y1, 1.08))
    fmt: Callable[[float, object], str] = (
        (lambda v, _: f"{v:g}") if seconds else (lambda v, _: f"{v:,.0f}")
    )
    ax.yaxis.set_major_formatter(FuncFormatter(fmt))


# Room around the axes, in points where it holds text (the tick labels and axis label below, the
# legend's title and entries above), as fractions of the figure.
_MARGINS = {"left": 0.16, "right": 0.97, "bottom": 39.0 / 72 / HEIGHT_IN, "top": 0.95}
_LEGEND_TOP = 1 - 48.0 / 72 / HEIGHT_IN  # the top of the axes under a legend: title, one row
# A legend column's width, in ems of the 12-point font: the handle, its gap and the column
# spacing set below, and each character of its longest label at about 0.62 em. The room is the
# figure's width right of where the legend starts; one more row takes about 20 points.
_ENTRY_EMS, _CHAR_EMS, _EM_IN = 1.9 + 0.4 + 0.8, 0.62, TEXT_PT / 72
_LEGEND_ROOM_IN = WIDTH_IN * (1 - _MARGINS["left"] + 0.02 * (_MARGINS["right"] - _MARGINS["left"]))
_ROW_FRACTION = 20.0 / 72 / HEIGHT_IN
_MUTED, _MARK = "#333333", "#9a3412"


def legend_columns(labels: list[str]) -> int:
    """How many columns the legend takes: one row for up to four entries, else two rows, and
    more rows while its columns (matplotlib fills them top to bottom, each as wide as its
    longest label) are wider than the figure holds."""
    n = len(labels)
    rows = 1 if n <= 4 else 2
    while rows < n:
        columns = -(-n // rows)
        per_column = [labels[c * rows : (c + 1) * rows] for c in range(columns)]
        ems = sum(_ENTRY_EMS + _CHAR_EMS * max(len(t) for t in col) for col in per_column if col)
        if ems * _EM_IN <= _LEGEND_ROOM_IN:
            break
        rows += 1
    return max(1, -(-n // rows))


def draw_legend(ax: Any, title: str, labels: list[str]) -> float:
    """The legend above the plot, with its title: in one row (two for more than four entries),
    more rows where long labels do not fit. Returns the top of the axes that makes room for it."""
    columns = legend_columns(labels)
    rows = -(-len(labels) // columns)
    ax.legend(
        # each line by its label as given (one that starts with "_" is shown too); the frontiers,
        # drawn first, have no entry
        ax.get_lines()[-len(labels) :],
        labels,
        title=title,
        loc="lower left",
        bbox_to_anchor=(-0.02, 1.01),
        ncols=columns,
        alignment="left",
        handlelength=1.9,
        handletextpad=0.4,
        columnspacing=0.8,
        borderaxespad=0.0,
    )
    return _LEGEND_TOP - max(0, rows - 1) * _ROW_FRACTION


# Room left of the axes: the rotated y label and padding, plus the widest y tick label, in
# fractions of the figure's width (12 pt DejaVu Sans is about 0.1 in a character).
_LEFT_BASE, _LEFT_PER_CHAR = 0.09, 0.1 / WIDTH_IN
_LINE_PT = 1.2 * TEXT_PT  # one more line of an axis label


def _left_margin(fig: Figure) -> float:
    """The left margin that fits the widest y tick label the figure will show, and the y
    label's lines (`fold` makes a long one two)."""
    widest, lines = 0, 1
    for ax in fig.axes:
        low, high = sorted(ax.get_ylim())
        ticks = [t for t in ax.get_yticks() if low <= t <= high]
        labels = ax.yaxis.get_major_formatter().format_ticks(ticks)
        widest = max([widest, *(len(label) for label in labels)])
        lines = max(lines, ax.get_ylabel().count("\n") + 1)
    extra = (lines - 1) * _LINE_PT / 72 / WIDTH_IN
    return min(0.3 + extra, _LEFT_BASE + _LEFT_PER_CHAR * widest + extra)


_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def safe_id(gid: str) -> str:
    """`gid` as an SVG id made only of ASCII letters, digits, `-` and `_`: any other character
    (a quote, space or `;` from a run's name) becomes `_`, and the id then ends with a short hash
    of `gid`, so that two names that differ only there keep two ids."""
    safe = _ID_UNSAFE.sub("_", gid)[:64]
    if safe == gid:
        return gid
    digest = hashlib.sha256(gid.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{safe}-{digest}"


def _drawable(value: Any) -> Any:
    """`value` (a Plot, Line, tuple or scalar) with every string's characters that draw nothing,
    or act, written as their escapes (`terminal.visible`): C0 and C1 controls, DEL, lone
    surrogates, bidirectional overrides and isolates. The SVG stays well-formed XML, no name
    reorders the text around it, and a name reads as it does on the page, in the CSVs and in the
    terminal."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, tuple):
        return tuple(_drawable(v) for v in value)
    if isinstance(value, Line | Plot):
        return replace(value, **{f.name: _drawable(getattr(value, f.name)) for f in fields(value)})
    return value


def error_bars(ax: Any, line: Line) -> None:
    """The error bars of the line's points that have one, in the line's colour."""
    kept = [
        (x, y, e)
        for x, y, e in zip(line.xs, line.ys, line.errors, strict=True)
        if math.isfinite(y) and math.isfinite(e)
    ]
    if not kept:
        return
    xs, ys, es = (list(column) for column in zip(*kept, strict=True))
    drawn = ax.errorbar(
        xs,
        ys,
        yerr=es,
        fmt="none",
        ecolor=PALETTE[line.style % len(PALETTE)],
        elinewidth=1.2,
        capsize=3.0,
    )
    # One id for each element the bars draw: a `gid` given to errorbar goes on the bars and on
    # both rows of caps, and a page (or a PDF) may hold an id once.
    _, caps, bars = drawn.lines
    parts = [*zip(bars, ["errors"], strict=True), *zip(caps, ["low", "high"], strict=True)]
    for artist, part in parts:
        artist.set_gid(safe_id(f"{line.gid}-{part}"))


# The longest text a chart draws, in characters: a name or a tick label (MAX_NAME: a legend
# entry of about 45 characters reaches the figure's right edge, so the "…" stays in sight), an
# axis or legend title (twice that: a long y label is folded into two lines). A longer one ends
# in "…" there; the tables and CSVs show it whole. A name of 10,000 characters took WeasyPrint
# 3 s to lay out in the PDF, where SVG text is placed one character at a time.
MAX_NAME = 40
MAX_TITLE = 2 * MAX_NAME


def shortened(text: str, most: int = MAX_NAME) -> str:
    """`text` as a chart draws it: cut to `most` characters, the last one "…"."""
    return text if len(text) <= most else text[: most - 1] + "…"


def _shortened(plot: Plot) -> Plot:
    """`plot` with every text it draws `shortened` (its ids and title, which are not drawn,
    stay whole)."""
    lines = tuple(
        replace(line, label=None if line.label is None else shortened(line.label))
        for line in plot.lines
    )
    return replace(
        plot,
        lines=lines,
        ticks=tuple((at, shortened(label)) for at, label in plot.ticks),
        x_label=shortened(plot.x_label, MAX_TITLE),
        y_label=shortened(plot.y_label, MAX_TITLE),
        legend=None if plot.legend is None else shortened(plot.legend, MAX_TITLE),
    )


def draw_plot(plot: Plot) -> str:
    """The chart `plot` describes, as an inline `<svg>` element. Its strings (from run files
    and article.toml) are drawn as plain text: no mathtext, control characters as escapes, and
    none longer than MAX_NAME characters (MAX_TITLE for an axis or the legend's title)."""
    plot = _shortened(_drawable(plot))

    def draw(fig: Figure) -> None:
        ax = fig.add_subplot()
        for front in plot.frontiers:
            ax.plot(
                list(front.xs),
                list(front.ys),
                gid=safe_id(front.gid),
                color=PALETTE[front.style % len(PALETTE)],
                linewidth=7.0,
                alpha=0.25,
                solid_capstyle="round",
                zorder=1,
            )
        for line in plot.lines:
            ax.plot(
                list(line.xs),
                list(line.ys),
                label=line.label,
                gid=safe_id(line.gid),
                **line_style(line.style),
            )
            if line.errors:
                error_bars(ax, line)
        positions, labels = [p for p, _ in plot.ticks], [label for _, label in plot.ticks]
        if plot.x_axis == "log2":
            log2_axis(ax, positions, labels)
        elif plot.x_axis == "categorical":
            ax.set_xticks(positions, labels)
            ax.set_xmargin(0.08)
            ax.grid(False, axis="x")
        ax.set_xlabel(plot.x_label)
        if plot.x_axis == "from-zero":
            ax.set_xlim(left=0, right=headroom(ax.dataLim.x1, 1.15))
        y_axis(ax, plot.y_unit, log=plot.y_log)
        top = _MARGINS["top"]
        if plot.legend is not None:
            top = draw_legend(ax, plot.legend, [line.label or "" for line in plot.lines])
        fig.subplots_adjust(top=top)
        ax.set_ylabel(fold(plot.y_label, (top - _MARGINS["bottom"]) * HEIGHT_IN * 72 + 24))

    def finish(fig: Figure) -> None:
        ax = fig.axes[0]
        taken = [] if plot.mark is None else provenance_mark(fig, ax, plot.mark, plot.lines)
        if any(line.points for line in plot.lines):
            point_labels(fig, ax, plot.lines, taken)

    return render_svg(plot.svg_id, plot.title, draw, finish)


def fold(label: str, room_pt: float) -> str:
    """An axis label longer than `room_pt` as two lines, broken at the space nearest its middle
    (a label with no space stays one line)."""
    if _measure(label)[0] <= room_pt or " " not in label:
        return label
    spaces = [i for i, c in enumerate(label) if c == " "]
    cut = min(spaces, key=lambda i: (abs(2 * i - len(label)), i))
    return f"{label[:cut]}\n{label[cut + 1 :]}"


def provenance_mark(fig: Figure, ax: Any, words: str, lines: Sequence[Line]) -> list[Box]:
    """`words` ("reconstructed data") in a corner of the plot where no line or point is, else in
    a row above it, so that the chart says it even when shown without its page. Returns the
    box it takes on the plot, if it is there."""
    width, height, depth = _measure(words)
    segments, markers, frame = _geometry(fig, ax, lines)
    box = free_corner((width, height + depth), frame, 4.0, markers, segments)
    style: dict[str, Any] = {"color": _MARK, "fontstyle": "italic", "gid": "provenance"}
    if box is None:
        fig.subplots_adjust(top=fig.subplotpars.top - _ROW_FRACTION)
        fig.subplots_adjust(left=_left_margin(fig))
        fig.text(0.99, 1 - 4.0 / 72 / HEIGHT_IN, words, ha="right", va="top", **style)
        return []
    size = (WIDTH_IN * 72, HEIGHT_IN * 72)
    x, y = (box.x0 + _LABEL_PAD_PT) / size[0], (box.y0 + depth) / size[1]
    fig.text(x, y, words, ha="left", va="baseline", **style)
    return [box]


# Point labels are measured with a little room around them, for a browser's fallback font.
_LABEL_PAD_PT = 1.0


def _measure(text: str) -> tuple[float, float, float]:
    """A text's width, height above its baseline and depth below it, in points, padded."""
    prop = FontProperties(family=["DejaVu Sans"], size=TEXT_PT)
    width, height, depth = text_to_path.get_text_width_height_descent(text, prop, ismath=False)
    return width + 2 * _LABEL_PAD_PT, height + _LABEL_PAD_PT, depth + _LABEL_PAD_PT


def _geometry(fig: Figure, ax: Any, lines: Sequence[Line]) -> tuple[list[Any], list[Box], Box]:
    """The lines as segments, a box round each marker, and the plot's frame, in points."""
    radius = _marker_radius()
    segments, markers = [], []
    for line in lines:
        drawn = [p for p in _points(fig, ax, line) if p is not None]
        segments += list(itertools.pairwise(drawn))
        markers += [Box(x - radius, y - radius, x + radius, y + radius) for x, y in drawn]
    scale, b = 72.0 / fig.dpi, ax.bbox
    return segments, markers, Box(b.x0 * scale, b.y0 * scale, b.x1 * scale, b.y1 * scale)


def _points(fig: Figure, ax: Any, line: Line) -> list[tuple[float, float] | None]:
    """Each point of `line` in points from the figure's lower left; None where it has no value."""
    scale = 72.0 / fig.dpi
    out: list[tuple[float, float] | None] = []
    for x, y in zip(line.xs, line.ys, strict=True):
        if math.isfinite(x) and math.isfinite(y):
            px, py = ax.transData.transform((x, y))
            out.append((float(px) * scale, float(py) * scale))
        else:
            out.append(None)
    return out


def _marker_radius() -> float:
    return (float(matplotlib.rcParams["lines.markersize"]) + 1.4) / 2


def point_labels(fig: Figure, ax: Any, lines: Sequence[Line], taken: Sequence[Box]) -> None:
    """Label each point of `lines` where no label, marker, the mark in `taken` or the frame is
    in the way (see article/charts/labels.py): beside it, or farther out with a leader line; a
    label with no room is left out, and a line under the plot says how many were."""
    radius = _marker_radius()

    def place() -> tuple[list[tuple[Line, int, str]], list[Place | None]]:
        segments, _, frame = _geometry(fig, ax, lines)
        texts, labels = [], []
        for line in lines:
            for j, (text, at) in enumerate(zip(line.points, _points(fig, ax, line), strict=True)):
                if at is not None:
                    texts.append((line, j, text))
                    width, height, depth = _measure(text)
                    labels.append(Label(x=at[0], y=at[1], width=width, height=height, depth=depth))
        return texts, place_labels(labels, frame, radius, segments, taken)

    texts, places = place()
    if None in places:  # a row below the plot for the words; the labels placed again
        fig.subplots_adjust(bottom=fig.subplotpars.bottom + _ROW_FRACTION)
        fig.subplots_adjust(left=_left_margin(fig))
        texts, places = place()
    for (line, j, text), where in zip(texts, places, strict=True):
        if where is not None:
            _annotate(ax, line, j, text, where, radius)
    left_out = places.count(None)
    if left_out:
        words = "1 point label" if left_out == 1 else f"{left_out} point labels"
        y = 2.0 / 72 / HEIGHT_IN
        fig.text(0.01, y, f"{words} left out: no room", color=_MUTED, gid="unlabelled")


def _annotate(ax: Any, line: Line, j: int, text: str, place: Place, radius: float) -> None:
    leader = (
        {"arrowstyle": "-", "color": "#777777", "lw": 0.6, "shrinkA": 0.0, "shrinkB": radius}
        if place.leader
        else None
    )
    ax.annotate(
        text,
        (line.xs[j], line.ys[j]),
        textcoords="offset points",
        xytext=(place.dx + _LABEL_PAD_PT, place.dy),
        ha="left",
        va="baseline",
        color=_MUTED,
        arrowprops=leader,
        gid=safe_id(f"{line.gid.replace('line', 'label', 1)}-{j}"),  # "label-<series>-3"
        annotation_clip=False,
    )


def render_svg(
    chart_id: str,
    title: str,
    draw: Callable[[Figure], None],
    finish: Callable[[Figure], None] | None = None,
) -> str:
    """The figure `draw` fills, in the article's style, as an inline `<svg>` element; `finish`
    adds what needs the final layout (where each point lands)."""
    buf = io.StringIO()
    # Start from matplotlib's defaults, not the user's matplotlibrc; restored on exit.
    with _LOCK, matplotlib.style.context(["default", _RC]):
        fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN))
        # Fixed margins, sized for the tick labels, axis labels and the legend above:
        # matplotlib's constrained layout measured every label and cost half of a chart's time.
        fig.subplots_adjust(**_MARGINS)
        draw(fig)  # sets the top, for its legend and mark
        fig.subplots_adjust(left=_left_margin(fig))
        if finish is not None:
            finish(fig)
        fig.savefig(buf, format="svg", metadata=_METADATA)
    return _inline(buf.getvalue(), chart_id, title)


_DROP = re.compile(
    r"<\?xml.*?\?>|<!DOCTYPE.*?>|<!--.*?-->|<metadata>.*?</metadata>|<style.*?</style>", re.S
)
# matplotlib's SVG writer escapes `<`, `>` and `"` in attribute values and `<` in text, so a
# match of _TAG is exactly one tag: ids and styles are rewritten there only, never in the text
# a chart shows (a run named `run style="a;` stays words).
_TAG = re.compile(r"<[^<>]*>")
_REF = re.compile(r'(\bid="|url\(#|href="#)')
_STYLE = re.compile(r'\bstyle="([^"]*)"')
# The PDF draws with its own copy of DejaVu Sans (see article/pdf/render.py); browsers fall back.
_FONTS = {"'DejaVu Sans'": "'reportgen DejaVu Sans', 'DejaVu Sans', sans-serif"}
_ROOT = re.compile(r"<svg\b[^>]*>")


def _inline(svg: str, chart_id: str, title: str) -> str:
    """matplotlib's SVG document as an element to inline in HTML (see the module docstring)."""
    svg = _DROP.sub("", svg)
    svg = re.sub(r"\n\s*\n", "\n", svg)  # lines left empty by the drops
    svg = _TAG.sub(lambda tag: _STYLE.sub(_attributes, _REF.sub(_prefix(chart_id), tag[0])), svg)
    root = _ROOT.search(svg)
    assert root is not None, "matplotlib wrote no <svg> element"
    view_box = re.search(r'viewBox="[^"]*"', root.group(0))
    assert view_box is not None, "matplotlib wrote no viewBox"
    head = svg_head(chart_id, title, view_box.group(0))
    return (svg[: root.start()] + head + svg[root.end() :]).strip() + "\n"


def _prefix(chart_id: str) -> Callable[[re.Match[str]], str]:
    return lambda m: f"{m.group(1)}{chart_id}-"


def _attributes(style: re.Match[str]) -> str:
    """`style="fill: #fff; stroke: #000"` as presentation attributes `fill="#fff" stroke="#000"`.

    WeasyPrint reads inline SVG's `style` attributes with its HTML CSS parser, which warns about
    every SVG property; presentation attributes are plain SVG and also let page CSS override.
    """
    pairs = (item.split(":", 1) for item in style.group(1).split(";") if ":" in item)
    return " ".join(
        f'{k.strip()}="{_FONTS.get(v.strip(), v.strip())}"' for k, v in pairs if k.strip()
    )
