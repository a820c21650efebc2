"""Point labels and the provenance mark, read back from real drawn SVGs: no two labels overlap,
none covers a point or leaves the plot, the same plot draws the same bytes, and a chart of data
that was not measured says so inside its image."""

from __future__ import annotations

import dataclasses
import itertools
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import text_to_path

from reportgen.article.charts.draw import draw_plot
from reportgen.article.charts.labels import Box, Label, place_labels
from reportgen.article.charts.plot import Line, Plot
from reportgen.article.charts.render import Chart, provenance_mark, render_charts
from reportgen.article.rundata import article_metrics
from reportgen.article.source.manifest import load_article

ROOT = Path(__file__).resolve().parents[3]
BUNDLED = ROOT / "runs" / "paiton-kimi-k3.1-pro"
MEASURED = ROOT / "runs" / "tiny-llamacpp-two-tools"
SVG = "{http://www.w3.org/2000/svg}"


def _text_box(text: ET.Element) -> Box:
    """A drawn text's box in SVG units, y down, from its font's real metrics."""
    size = float(text.attrib["font-size"].removesuffix("px"))
    prop = FontProperties(family=["DejaVu Sans"], size=size)
    w, h, d = text_to_path.get_text_width_height_descent(text.text or "", prop, ismath=False)
    x, y = float(text.attrib["x"]), float(text.attrib["y"])
    assert text.attrib.get("text-anchor") == "start"
    return Box(x, y - h, x + w, y + d)


def _read(svg: str) -> tuple[dict[str, Box], list[Box], Box]:
    """The boxes of the point labels and the mark (by group id), every marker's box, and the
    plot's frame."""
    root = ET.fromstring(svg)
    boxes = {}
    for g in root.iter(f"{SVG}g"):
        gid = g.get("id", "")
        if "-label-" in gid or gid.endswith(("-provenance", "-unlabelled")):
            text = g.find(f"{SVG}text")
            assert text is not None, gid
            boxes[gid] = _text_box(text)
    r = 3.0  # half of a marker's 6 pt
    markers = [
        Box(
            float(u.attrib["x"]) - r,
            float(u.attrib["y"]) - r,
            float(u.attrib["x"]) + r,
            float(u.attrib["y"]) + r,
        )
        for g in root.iter(f"{SVG}g")
        if "-line-" in g.get("id", "")
        for u in g.iter(f"{SVG}use")
    ]
    clip = next(root.iter(f"{SVG}clipPath")).find(f"{SVG}rect")
    assert clip is not None
    x, y = float(clip.attrib["x"]), float(clip.attrib["y"])
    frame = Box(x, y, x + float(clip.attrib["width"]), y + float(clip.attrib["height"]))
    return boxes, markers, frame


def _assert_clear(svg: str, points: int) -> dict[str, Box]:
    boxes, markers, frame = _read(svg)
    labels = {k: b for k, b in boxes.items() if "-label-" in k}
    for (a, box_a), (b, box_b) in itertools.combinations(boxes.items(), 2):
        assert not box_a.overlaps(box_b), (a, b)
    for name, box in labels.items():
        assert box.within(frame), name
        assert not any(box.overlaps(m) for m in markers), name
    assert len(markers) == points
    return boxes


@pytest.fixture(scope="session")
def interactivity() -> Chart:
    """The bundled article's interactivity chart alone, drawn from its data."""
    article = load_article(BUNDLED)
    only = tuple(
        dataclasses.replace(s, charts=tuple(c for c in s.charts if c.kind == "interactivity"))
        for s in article.sections
    )
    (chart,) = render_charts(
        dataclasses.replace(article, sections=only), article_metrics(BUNDLED)[1]
    )
    return chart


def test_the_bundled_interactivity_chart_labels_every_point_without_overlap(
    interactivity: Chart,
) -> None:
    _article, metrics = article_metrics(BUNDLED)
    cells = {
        (v.context, v.concurrency) for v in metrics.values if v.key == "decode.aggregate_tok_s"
    }
    boxes = _assert_clear(interactivity.svg, len(cells))
    assert sum("-label-" in k for k in boxes) == len(cells)  # none left out
    assert "point labels left out" not in interactivity.svg
    # the mark is on the chart, and the y axis says per GPU
    assert ">reconstructed data</text>" in interactivity.svg
    assert "per GPU" in interactivity.svg


def _crowded(n_lines: int, n_points: int, mark: str | None) -> Plot:
    """Lines whose points nearly coincide: the worst case for labels."""
    lines = tuple(
        Line(
            xs=tuple(10.0 + i * 0.3 + j * 0.8 for j in range(n_points)),
            ys=tuple(100.0 - j * 6.0 + i * 0.5 for j in range(n_points)),
            label=f"series {i}",
            gid=f"line-{i}",
            style=i,
            points=tuple(str(2**j) for j in range(n_points)),
        )
        for i in range(n_lines)
    )
    return Plot(
        svg_id="chart-crowded",
        title="crowded",
        lines=lines,
        x_axis="from-zero",
        ticks=(),
        x_label="per request (tok/s)",
        y_label="all requests (tok/s)",
        y_unit="tok/s",
        y_log=False,
        legend="lines",
        mark=mark,
    )


@pytest.mark.slow
def test_crowded_labels_never_overlap_and_a_left_out_label_is_said() -> None:
    plot = _crowded(6, 8, "synthetic data")
    svg = draw_plot(plot)
    boxes = _assert_clear(svg, 48)
    placed = sum("-label-" in k for k in boxes)
    leaders = svg.count('stroke="#777777"')
    assert placed + leaders > 0 and placed < 48  # too crowded to label every point
    said = next(b for k, b in boxes.items() if k.endswith("-unlabelled"))
    assert said is not None and f">{48 - placed} point labels left out: no room</text>" in svg
    assert ">synthetic data</text>" in svg
    assert draw_plot(plot) == svg  # the same plot, the same bytes


def test_placement_is_first_clear_candidate_and_never_overlaps() -> None:
    frame = Box(0, 0, 200, 100)
    same = [Label(x=50, y=50, width=12, height=9, depth=1) for _ in range(30)]
    places = place_labels(same, frame, 3.7)
    boxes = [
        Box(50 + p.dx, 50 + p.dy - 1, 50 + p.dx + 12, 50 + p.dy + 9)
        for p in places
        if p is not None
    ]
    assert all(not a.overlaps(b) for a, b in itertools.combinations(boxes, 2))
    assert all(b.within(frame) for b in boxes)
    first = places[0]
    assert first is not None and not first.leader and first.dx > 0 and first.dy > 0  # up-right
    assert any(p is not None and p.leader for p in places)  # the far rings
    assert None in places  # 30 labels on one point: some have no room
    assert place_labels(same, frame, 3.7) == places
    # A line through the up-right place sends the label elsewhere.
    through = [((40.0, 40.0), (80.0, 80.0))]
    moved = place_labels(same[:1], frame, 3.7, through)[0]
    assert moved is not None and moved != first
    assert math.isfinite(moved.dx)


def test_only_data_not_measured_carries_a_mark() -> None:
    bundled = article_metrics(BUNDLED)[1].values
    measured = article_metrics(MEASURED)[1].values
    assert provenance_mark(bundled) == "reconstructed data"
    assert provenance_mark(measured) is None
    synthetic = [dataclasses.replace(v, provenance="synthetic") for v in measured[:1]]
    assert provenance_mark([*bundled[:1], *synthetic]) == "reconstructed and synthetic data"
