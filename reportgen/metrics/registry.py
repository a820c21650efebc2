"""The metric registry: the one place a metric is defined, and the values computed by it.

`DEFINITIONS` gives each metric its id pattern, unit, formula, definition version and the raw
fields it reads. Everything that shows, checks, lints or submits a number takes it from a
`MetricValue` (computed by `reportgen.metrics.compute`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from reportgen.model import (
    CellStatus,
    ProvenanceStatus,
    Run,
    context_label,
)

Source = Literal["samples", "fields", "summary"]


@dataclass(frozen=True)
class MetricDef:
    """One metric's definition."""

    key: str
    id_pattern: str
    title: str
    unit: str
    formula: str
    version: int
    reads: tuple[str, ...]


def _defs(*defs: MetricDef) -> dict[str, MetricDef]:
    return {d.key: d for d in defs}


DEFINITIONS: dict[str, MetricDef] = _defs(
    MetricDef(
        "canonical.output_tok_s",
        "canonical.c{concurrency}.output_tok_s",
        "Canonical prompt, output tok/s",
        "tok/s",
        "concurrency 1: median over timed iterations of (outputTokens - 1) / (last token - first "
        "token); concurrency N: median over iterations of sum(outputTokens) / (last completion - "
        "earliest first token), as lmx reports it",
        1,
        ("samples[].tokSOut", "tokSOut"),
    ),
    MetricDef(
        "canonical.ttft_ms",
        "canonical.c{concurrency}.ttft_ms",
        "Canonical prompt, time to first token",
        "ms",
        "median over timed requests of (first streamed token - request sent)",
        1,
        ("samples[].ttftMs", "ttftMs"),
    ),
    MetricDef(
        "canonical.prefill_tok_s",
        "canonical.c{concurrency}.prefill_tok_s",
        "Canonical prompt, prefill tok/s",
        "tok/s",
        "median over timed requests of usage prompt_tokens / TTFT",
        1,
        ("samples[].tokSPrefill", "tokSPrefill"),
    ),
    MetricDef(
        "canonical.concurrency",
        "canonical.c{concurrency}.concurrency",
        "Canonical prompt, requests sent together",
        "requests",
        "engineFlags.concurrency: requests fired together per iteration",
        1,
        ("engineFlags.concurrency",),
    ),
    MetricDef(
        "canonical.output_tokens",
        "canonical.c{concurrency}.output_tokens",
        "Canonical prompt, output tokens per request",
        "tokens",
        "median over timed requests of the output tokens (usage completion_tokens)",
        1,
        ("samples[].outputTokens", "outputTokens"),
    ),
    MetricDef(
        "matrix.duration_s",
        "matrix.duration_s",
        "Matrix run, sustained decode window per cell",
        "s",
        "the bench's --duration: seconds of measurement per decode cell",
        1,
        ("metadata.duration_per_test",),
    ),
    MetricDef(
        "matrix.max_tokens",
        "matrix.max_tokens",
        "Matrix run, maximum output tokens per request",
        "tokens",
        "the bench's max_tokens for decode requests (ignore_eos)",
        1,
        ("metadata.max_tokens",),
    ),
    MetricDef(
        "prefill.prompt_tokens",
        "prefill.{context}.prompt_tokens",
        "Prefill, prompt tokens",
        "tokens",
        "prompt tokens of the cold request, from the endpoint's usage",
        1,
        ("prefill.<ctx>.prompt_tokens",),
    ),
    MetricDef(
        "prefill.ttft_s",
        "prefill.{context}.ttft_s",
        "Prefill, time to first token",
        "s",
        "first streamed token - request sent, one cold request (unique prefix)",
        1,
        ("prefill.<ctx>.ttft_seconds",),
    ),
    MetricDef(
        "prefill.tok_s",
        "prefill.{context}.tok_s",
        "Prefill, tok/s",
        "tok/s",
        "prompt_tokens / TTFT",
        1,
        ("prefill.<ctx>.prompt_tokens", "prefill.<ctx>.ttft_seconds", "prefill.<ctx>.tok_per_sec"),
    ),
    MetricDef(
        "decode.aggregate_tok_s",
        "decode.{context}.c{concurrency}.aggregate_tok_s",
        "Decode throughput, all requests together",
        "tok/s",
        "streamed usage completion tokens arriving inside the measurement window / (last usage "
        "arrival - window start)",
        1,
        (
            "results[].client_output_tokens",
            "results[].measurement_seconds",
            "results[].aggregate_tps",
        ),
    ),
    MetricDef(
        "decode.per_request_tok_s",
        "decode.{context}.c{concurrency}.per_request_tok_s",
        "Decode speed seen by each request (median)",
        "tok/s",
        "median over the cell's request samples (>= 2 output tokens) of 1 / ITL, where ITL = "
        "(last token - first token) / (output tokens - 1)",
        1,
        (
            "results[].request_samples[].inter_token_latency_avg",
            "results[].output_tps_per_user_p50",
        ),
    ),
    MetricDef(
        "decode.ttft_s",
        "decode.{context}.c{concurrency}.ttft_s",
        "Time to first token (median)",
        "s",
        "median over the cell's request samples of TTFT; includes waiting for other requests' "
        "prefill",
        1,
        ("results[].request_samples[].ttft", "results[].ttft_p50"),
    ),
)


@dataclass(frozen=True)
class MetricValue:
    """One computed number with everything needed to trust and trace it."""

    id: str
    key: str
    value: float
    unit: str
    source: Source
    file: str
    sha256: str
    provenance: ProvenanceStatus
    pointer: str
    n: int | None = None  # samples behind the value
    summary: float | None = None  # the file's own value for the same quantity, if any
    context: int | None = None
    concurrency: int | None = None

    @property
    def definition(self) -> MetricDef:
        """The registry entry this value was computed by."""
        return DEFINITIONS[self.key]

    def as_json(self) -> dict[str, object]:
        """The value as `metrics.json` and `reportgen metrics --json` print it."""
        return {
            "id": self.id,
            "value": self.value,
            "unit": self.unit,
            "source": self.source,
            "samples": self.n,
            "summary_value": self.summary,
            "definition": self.key,
            "definition_version": self.definition.version,
            "file": self.file,
            "pointer": self.pointer,
            "sha256": self.sha256,
            "provenance": self.provenance,
        }


@dataclass(frozen=True)
class CellState:
    """A matrix cell's status, for tables: measured or why not."""

    kind: Literal["decode", "prefill"]
    context: int
    concurrency: int | None
    status: CellStatus
    reason: str | None
    file: str
    pointer: str


@dataclass(frozen=True)
class MetricSet:
    """Every metric value of a set of runs, plus each matrix cell's status."""

    values: tuple[MetricValue, ...]
    cells: tuple[CellState, ...]
    runs: tuple[Run, ...]

    def get(self, metric_id: str) -> MetricValue | None:
        """The value with this id, or None."""
        for value in self.values:
            if value.id == metric_id:
                return value
        return None

    def by_id(self) -> dict[str, MetricValue]:
        """Values keyed by id."""
        return {v.id: v for v in self.values}


def metric_id(key: str, *, context: int | None = None, concurrency: int | None = None) -> str:
    """The id of metric `key` for a context and/or concurrency."""
    label = None if context is None else context_label(context)
    return DEFINITIONS[key].id_pattern.format(context=label, concurrency=concurrency)
