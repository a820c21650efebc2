"""The article's tables: which metric each cell shows, under which title.

One catalogue used by the renderer (to lay tables out) and by the checker (to recognise the same
tables in a published text). How each metric is shown is `reportgen.metrics.display`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Column:
    """A column of a per-context table: its header and the metric it shows."""

    header: str
    key: str


@dataclass(frozen=True)
class TableSpec:
    """One article table."""

    id: str
    title: str
    kind: Literal["per-context", "matrix"]
    unit_words: str  # how the caption names the unit, e.g. "(output tok/s)"
    recognise: tuple[str, ...]  # lower-case words that identify the caption in a text
    metric_key: str | None = None  # matrix tables: the metric of every cell
    columns: tuple[Column, ...] = ()  # per-context tables


TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        id="prefill",
        title="Prefill (one cold request)",
        kind="per-context",
        unit_words="",
        recognise=("prefill", "cold"),
        columns=(
            Column("prompt tokens", "prefill.prompt_tokens"),
            Column("TTFT (s)", "prefill.ttft_s"),
            Column("prefill tok/s", "prefill.tok_s"),
        ),
    ),
    TableSpec(
        id="decode-aggregate",
        title="Decode throughput, all requests together",
        kind="matrix",
        unit_words="(output tok/s)",
        recognise=("decode throughput",),
        metric_key="decode.aggregate_tok_s",
    ),
    TableSpec(
        id="decode-per-request",
        title="Decode speed seen by each request",
        kind="matrix",
        unit_words="(tok/s, median)",
        recognise=("decode speed", "each request"),
        metric_key="decode.per_request_tok_s",
    ),
    TableSpec(
        id="decode-ttft",
        title="Time to first token",
        kind="matrix",
        unit_words="(s, median)",
        recognise=("time to first token",),
        metric_key="decode.ttft_s",
    ),
)
TABLES_BY_ID = {t.id: t for t in TABLES}
