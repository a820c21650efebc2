"""The article's tables and headline numbers: which metric each cell shows, at what precision.

One catalogue used by the renderer (to lay tables out) and by the checker (to recognise the same
tables in a published text). Display precision here is also the check tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Display:
    """How a metric is shown: decimals, the unit written after it, thousands separators."""

    decimals: int
    unit: str
    scale: float = 1.0  # shown = value * scale (e.g. seconds shown as ms)

    def tolerance(self) -> float:
        """|value - shown| allowed by the precision shown."""
        return 0.5 * 10.0**-self.decimals


DISPLAY: dict[str, Display] = {
    "canonical.output_tok_s": Display(0, "tok/s"),
    "canonical.ttft_ms": Display(0, "ms"),
    "canonical.prefill_tok_s": Display(0, "tok/s"),
    "canonical.concurrency": Display(0, "requests"),
    "canonical.output_tokens": Display(0, "tokens"),
    "prefill.prompt_tokens": Display(0, "tokens"),
    "prefill.ttft_s": Display(2, "s"),
    "prefill.tok_s": Display(0, "tok/s"),
    "decode.aggregate_tok_s": Display(0, "tok/s"),
    "decode.per_request_tok_s": Display(0, "tok/s"),
    "decode.ttft_s": Display(2, "s"),
    "matrix.duration_s": Display(0, "s"),
    "matrix.max_tokens": Display(0, "tokens"),
}


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
