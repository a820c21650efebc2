"""Where a chart's point labels go: each point, its label's size and the plot's frame in, one
place per label out (beside its point, farther out with a leader line, or none), with no two
labels overlapping each other, a point's marker or the frame's edge.

Pure geometry in points (1/72 in, y up), no matplotlib: `article/charts/draw.py` measures the
labels and turns data into points, then draws what this module decides. The search is fixed and
in a fixed order, so the same chart gives the same places, and the same bytes, in any process:
each label, line by line and point by point, takes the first candidate place (`NEAR`, then
`FAR`) that keeps clear of every label placed before it, every marker and the frame's edge,
preferring a place that no line crosses; a label with no such place is left out, and the drawing
says so in the chart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# Directions around a point, as (dx, dy) signs, tried in this order: up-right first (where a
# label reads as the point's), then the sides, then below.
_DIRECTIONS = ((1, 1), (1, 0), (0, 1), (-1, 1), (-1, 0), (1, -1), (0, -1), (-1, -1))
GAP_PT = 2.0  # between a marker's edge and its label
FAR = (2.6, 4.2)  # farther rings, in marker-plus-gap distances, with a leader line


@dataclass(frozen=True)
class Box:
    """A rectangle in points, y up."""

    x0: float
    y0: float
    x1: float
    y1: float

    def overlaps(self, other: Box) -> bool:
        """Whether the two rectangles share any area (touching edges do not)."""
        return (
            self.x0 < other.x1 and other.x0 < self.x1 and self.y0 < other.y1 and other.y0 < self.y1
        )

    def within(self, frame: Box) -> bool:
        """Whether the rectangle lies inside `frame`."""
        return (
            frame.x0 <= self.x0
            and self.x1 <= frame.x1
            and frame.y0 <= self.y0
            and self.y1 <= frame.y1
        )

    def crossed_by(self, a: tuple[float, float], b: tuple[float, float]) -> bool:
        """Whether the segment from `a` to `b` passes through the rectangle (Liang-Barsky)."""
        (ax, ay), (bx, by) = a, b
        dx, dy = bx - ax, by - ay
        low, high = 0.0, 1.0
        for p, q in (
            (-dx, ax - self.x0),
            (dx, self.x1 - ax),
            (-dy, ay - self.y0),
            (dy, self.y1 - ay),
        ):
            if p == 0:
                if q < 0:
                    return False
                continue
            t = q / p
            if p < 0:
                low = max(low, t)
            else:
                high = min(high, t)
            if low > high:
                return False
        return True


@dataclass(frozen=True, kw_only=True)
class Label:
    """A label to place: its point, and its text's width, height above the baseline and depth
    below it, all in points."""

    x: float
    y: float
    width: float
    height: float
    depth: float


@dataclass(frozen=True)
class Place:
    """Where a label's baseline starts, as an offset in points from its point; `leader` when it
    sits away from the point and a line joins the two."""

    dx: float
    dy: float
    leader: bool


def _box(label: Label, place: Place) -> Box:
    x, y = label.x + place.dx, label.y + place.dy
    return Box(x, y - label.depth, x + label.width, y + label.height)


def _candidates(label: Label, radius: float, rings: Sequence[float]) -> list[Place]:
    """Offsets that put the label's box clear of a marker of `radius`, at each ring's distance,
    in each direction in turn."""
    out = []
    for ring in rings:
        reach = (radius + GAP_PT) * ring
        leader = ring > 1
        for sx, sy in _DIRECTIONS:
            # the box's near corner or edge at `reach` from the point, centred on a side
            dx = reach if sx > 0 else -reach - label.width if sx < 0 else -label.width / 2
            base = label.depth  # the box's bottom sits on y + dy - depth
            middle = (label.height - label.depth) / 2
            dy = reach + base if sy > 0 else -reach - label.height if sy < 0 else -middle
            out.append(Place(dx, dy, leader))
    return out


def _clear(
    label: Label,
    place: Place,
    frame: Box,
    taken: Sequence[Box],
    segments: Sequence[tuple[tuple[float, float], tuple[float, float]]],
) -> bool:
    box = _box(label, place)
    if not box.within(frame) or any(box.overlaps(b) for b in taken):
        return False
    return not any(box.crossed_by(a, b) for a, b in segments)


def place_labels(
    labels: Sequence[Label],
    frame: Box,
    radius: float,
    segments: Sequence[tuple[tuple[float, float], tuple[float, float]]] = (),
    taken: Sequence[Box] = (),
) -> list[Place | None]:
    """A place for each label, in order, or None where none is clear (see the module docstring).
    `radius` is a marker's half-size in points; `segments` are the chart's lines; `taken` are
    boxes already drawn on the plot, such as its provenance mark."""
    taken = [
        *taken,
        *(Box(p.x - radius, p.y - radius, p.x + radius, p.y + radius) for p in labels),
    ]
    out: list[Place | None] = []
    for label in labels:
        # near without a line through it, near, far without a line through it, far
        tries = [(rings, lines) for rings in ((1.0,), FAR) for lines in (segments, ())]
        chosen = next(
            (
                place
                for rings, lines in tries
                for place in _candidates(label, radius, rings)
                if _clear(label, place, frame, taken, lines)
            ),
            None,
        )
        if chosen is not None:
            taken.append(_box(label, chosen))
        out.append(chosen)
    return out


def free_corner(
    size: tuple[float, float],
    frame: Box,
    inset: float,
    taken: Sequence[Box],
    segments: Sequence[tuple[tuple[float, float], tuple[float, float]]],
) -> Box | None:
    """The first corner of `frame` (top left, top right, bottom right) where a box of `size`,
    `inset` from the edges, is clear of `taken` and of every segment; None when none is."""
    w, h = size
    corners = (
        Box(frame.x0 + inset, frame.y1 - inset - h, frame.x0 + inset + w, frame.y1 - inset),
        Box(frame.x1 - inset - w, frame.y1 - inset - h, frame.x1 - inset, frame.y1 - inset),
        Box(frame.x1 - inset - w, frame.y0 + inset, frame.x1 - inset, frame.y0 + inset + h),
    )
    for box in corners:
        clear = not any(box.overlaps(b) for b in taken)
        if clear and not any(box.crossed_by(a, b) for a, b in segments):
            return box
    return None


def label_boxes(labels: Sequence[Label], places: Sequence[Place | None]) -> list[Box]:
    """The boxes of the labels that have a place."""
    return [_box(label, p) for label, p in zip(labels, places, strict=True) if p is not None]
