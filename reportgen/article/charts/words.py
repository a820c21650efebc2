"""The words of a chart: its default axis labels, the names of its series and axes, and the
caption's account of the points a line lacks and why."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from markupsafe import Markup

from reportgen.article.axes import axis_label, sort_values
from reportgen.article.source.declarations import ArticleSource, ChartDecl
from reportgen.article.tables.cells import Notes
from reportgen.metrics.registry import DEFINITIONS, CellState
from reportgen.model import Scalar

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


def default_label(key: str, stat: str | None, unit: str) -> str:
    """`output, all requests (tok/s)`, `TTFT p99 (ms)`: a registry key as an axis label."""
    base, _, last = key.rpartition(".")
    name = _AXIS_NAMES.get(last, DEFINITIONS[key].title if key in DEFINITIONS else last)
    if last in ("per_gpu", "per_w", "j_per_tok"):
        name = _AXIS_NAMES.get(base.rpartition(".")[2], "output")
    if last == "per_gpu":  # "output per GPU, all requests": the unit alone is easy to miss
        head, comma, tail = name.partition(",")
        name = f"{head} per GPU{comma}{tail}"
    median = stat is None and DEFINITIONS[key].stats if key in DEFINITIONS else False
    shown = f"{name} {stat}" if stat else f"{name}, median" if median else name
    return f"{shown} ({unit})"


AXIS_WORDS = {
    "concurrency": "concurrent requests",
    "context": "context length (prompt tokens)",
    "rate": "request rate (requests/s)",
    "prompt_tokens": "prompt tokens",
    "max_tokens": "output tokens",
    "point": "load point",
    "run": "run",
}


def axis_words(axis: str) -> str:
    """How a chart names an axis: `meta.max_concurrency` -> "max concurrency"."""
    if axis.startswith("meta."):
        return axis.removeprefix("meta.").replace("_", " ")
    return AXIS_WORDS.get(axis, axis)


def series_name(axis: str | None, value: Scalar, article: ArticleSource) -> str:
    """A series in the legend: context 0 says what it is (no context before the prompt)."""
    if axis == "context" and value == 0:
        return "0 (none)"
    return axis_label(axis or "", value, article)


def gaps(
    decl: ChartDecl,
    article: ArticleSource,
    series: Sequence[Scalar],
    xs: Sequence[Scalar],
    index: Mapping[tuple[Scalar, Scalar], float],
    cells: Sequence[CellState],
    notes: Notes,
    gated: Mapping[tuple[Scalar, Scalar], str] | None = None,
) -> Markup:
    """The caption's words for the points a line lacks, and why (each reason said once): a
    cell not measured, or a value its gate (`gated`: its words) leaves out."""
    s_axis = decl.series
    state = {(c.coord(s_axis) if s_axis else None, c.coord(decl.x)): c for c in cells}
    missing: dict[tuple[Scalar, str | None], list[Scalar]] = {}
    for s in series:
        for x in xs:
            if (s, x) not in index:
                cell = state.get((s, x))
                why = cell.reason if cell is not None and cell.status != "ok" else None
                why = (gated or {}).get((s, x), why)
                missing.setdefault((s, why), []).append(x)
    out = Markup("")
    if missing:
        parts = []
        for (s, why), at in missing.items():
            head = f"{axis_label(s_axis, s, article)} at " if s_axis else "at "
            part = Markup("{}{}").format(
                head, at_words(decl.x, [axis_label(decl.x, x, article) for x in at])
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


def at_words(axis: str, labels: Sequence[str]) -> str:
    """Where on the x axis, in words: "3 and 6 concurrent requests", "context 4K"."""
    values = " and ".join(labels)
    if axis == "concurrency":
        return f"{values} concurrent requests"
    if axis in ("context", "point"):
        return f"{axis} {values}"
    if axis == "rate":
        return values
    return f"{axis_words(axis)} {values}"
