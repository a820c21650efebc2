"""What a chart draws, as plain data: its lines, points, axes and legend (no matplotlib here).

`article/charts/render.py` turns a chart's declaration and the metrics into a `Plot`;
`article/charts/draw.py` draws a `Plot` with matplotlib; `article/charts/cache.py` keeps the SVG of
each `Plot` it has drawn. A `Plot` holds only strings, numbers, booleans, None and tuples of them,
so its `repr` spells out everything the drawing reads: the cache keys on it. The article's look
(palette, markers, dashes, figure size) lives here too, so that the charts can be described without
importing matplotlib.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, fields
from typing import Literal

from reportgen.terminal import visible

# Okabe-Ito, yellow last (weak on white); markers differ too, for grey print.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
# Lines that lie on top of each other stay apart by dash and by marker (hollow every other one),
# not by colour alone.
DASHES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 2)), "-", "--")
HOLLOW = (False, True, False, True, False, True, False, True)
# Sized for the narrowest place a chart is shown, half the column (two to a row, about 370 CSS
# px) or a phone's column: there every text, 12 pt over the 4.8 in (345.6 pt) viewBox, is at least
# the page's small print (0.8rem = 12.8 px, at 369 px and up). The page scales the SVG to the
# width it gives it; across the whole column (about 760 px) the text is twice that, the size of a
# subheading. Wider than tall (1.41:1), so that a chart across the column is not taller than a
# screen. Every text is drawn at TEXT_PT, point labels and the provenance mark included.
WIDTH_IN, HEIGHT_IN = 4.8, 3.4
TEXT_PT = 12.0

# How the x axis is laid out: base-2 log with a tick at each value, one evenly spaced tick per
# value (categories), or linear from zero with room right of the last point.
XAxis = Literal["log2", "categorical", "from-zero"]


@dataclass(frozen=True, kw_only=True)
class Line:
    """One series: its points (NaN where a cell has no value), legend label, SVG group id, the
    index of its style (colour, marker, dash), and a label beside each point when `points`."""

    xs: tuple[float, ...]
    ys: tuple[float, ...]
    label: str | None
    gid: str
    style: int
    points: tuple[str, ...] = ()
    errors: tuple[
        float, ...
    ] = ()  # half-width of each point's error bar (NaN: none); none: no bars


@dataclass(frozen=True, kw_only=True)
class Plot:
    """One chart as drawn: `svg_id` prefixes every id in its SVG, `title` labels the SVG."""

    svg_id: str
    title: str
    lines: tuple[Line, ...]
    x_axis: XAxis
    ticks: tuple[tuple[float, str], ...]  # (position, label) of each x tick; none: automatic
    x_label: str
    y_label: str
    y_unit: str  # the y tick labels' format follows the unit
    y_log: bool
    legend: str | None  # the legend's title; no legend when None
    mark: str | None = None  # drawn in the corner: "reconstructed data" when the data is
    # interactivity with `frontier = true`: each series' frontier, drawn wide and pale under
    # its points, in its series' colour (`style`), with no legend entry of its own
    frontiers: tuple[Line, ...] = ()


def plain(value: object) -> bool:
    """Whether `value` is made of strings, numbers, booleans, None and tuples of them only, so
    that its `repr` says all of it (Plots and Lines are checked field by field)."""
    if isinstance(value, Line | Plot):
        return all(plain(getattr(value, f.name)) for f in fields(value))
    if isinstance(value, tuple):
        return all(plain(v) for v in value)
    return value is None or isinstance(value, str | int | float | bool)


def svg_head(chart_id: str, title: str, view_box: str) -> str:
    """The start of a chart's inline `<svg>` element: its root, sized by `view_box`
    (`viewBox="0 0 w h"`) to the width the page gives it, and its `<title>`."""
    label = html.escape(title, quote=True)
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'version="1.1" {view_box} width="100%" role="img" '
        f'aria-label="{label}" stroke-linejoin="round" stroke-linecap="butt">'
        f'<title id="{chart_id}-title">{label}</title>'
    )


def stand_in(plot: Plot) -> str:
    """An empty `<svg>` with the root and title `plot` will be drawn with (its strings as
    article/charts/draw.py writes them): it takes the chart's room in a layout made while the
    chart is drawn (article/pdf/render.py)."""
    view_box = f'viewBox="0 0 {WIDTH_IN * 72:g} {HEIGHT_IN * 72:g}"'
    return svg_head(visible(plot.svg_id), visible(plot.title), view_box) + "</svg>"
