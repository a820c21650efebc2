"""The internal run model: what both input formats normalize into.

Frozen dataclasses only. Parsers (`reportgen.lmx`, `reportgen.bench`) build these from raw JSON;
every later stage (metrics, lints, render, check, submit) reads only these.
Units live in the names: `_s` seconds, `_ms` milliseconds, `_tok_s` tokens per second.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

FormatName = Literal["lmx-speed-test", "llm-inference-bench"]
ProvenanceStatus = Literal["measured", "reconstructed"]
CellStatus = Literal[
    "ok",  # measured
    "skipped_capacity",  # aggregate_tps -1: context x concurrency does not fit the KV cache
    "skipped_user",  # aggregate_tps -2: skipped on request
    "loop_detected",  # aggregate_tps -3: the model looped; numbers are not throughput
    "error",  # aggregate_tps 0: the cell raised an exception
    "failed",  # failure_reason set / summary null: streams failed
]

Scalar = str | int | float | bool | None


@dataclass(frozen=True)
class Provenance:
    """Where a file's numbers come from: measured by the tools, or reconstructed."""

    status: ProvenanceStatus
    reconstructed_from: str | None = None
    generator: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class SourceFile:
    """One input run file as it was read."""

    label: str  # the path as given / shown to users
    sha256: str
    format: FormatName
    tool: str  # e.g. "llm-inference-bench 0.7.7"
    format_version: str
    provenance: Provenance
    wrapper: tuple[tuple[str, Scalar], ...] = ()  # lmx matrix wrapper metadata, scalars only


@dataclass(frozen=True)
class CanonicalSample:
    """One request of one timed iteration of an lmx speed test."""

    pointer: str
    iteration: int
    request: int
    prompt_tokens: int
    output_tokens: int
    tok_s_out: float
    ttft_ms: float
    tok_s_prefill: float | None


@dataclass(frozen=True)
class CanonicalSummary:
    """The lmx file's own summary fields (medians over iterations, rounded by lmx)."""

    tok_s_out: float
    ttft_ms: float | None
    tok_s_prefill: float | None
    tok_s_total: float | None
    tok_s_out_source: str | None


@dataclass(frozen=True)
class CanonicalRun:
    """An lmx speed-test run: one canonical prompt, N iterations of `concurrency` requests."""

    source: SourceFile
    hf_id: str
    engine_name: str
    engine_version: str | None
    quantization: str | None
    concurrency: int
    max_tokens: int | None
    iterations: int | None
    prompt_id: str | None
    prompt_tokens: int | None
    output_tokens: int | None
    samples: tuple[CanonicalSample, ...]
    summary: CanonicalSummary
    engine_flags: tuple[tuple[str, Scalar], ...]
    evidence: tuple[tuple[str, Scalar], ...]  # verified-run evidence fields the file carries
    warnings: tuple[str, ...]
    pointer: str = ""  # where the run sits in its file ("" bare, "/payload" when wrapped)


class RequestSample(NamedTuple):
    """One streamed request of a decode cell (bench `request_samples[]`).

    A NamedTuple rather than a frozen dataclass: immutable all the same, and a file can hold
    hundreds of thousands of them (building one costs a quarter of a frozen dataclass).
    """

    pointer: str
    ttft_s: float
    latency_s: float
    itl_s: float
    input_tokens: int
    output_tokens: int
    completed: bool


@dataclass(frozen=True)
class CellSummary:
    """A decode cell's own summary fields, as the bench wrote them (None when absent/null)."""

    ttft_p50_s: float | None
    output_tps_per_user_p50: float | None
    itl_p50_s: float | None


@dataclass(frozen=True)
class DecodeCell:
    """One context x concurrency cell of sustained decode."""

    pointer: str
    context_tokens: int
    concurrency: int
    status: CellStatus
    reason: str | None  # why a cell is not "ok", in words
    aggregate_tok_s: float | None  # the file's aggregate_tps; None when it is a sentinel
    aggregate_source: str
    measurement_s: float | None
    window_output_tokens: int | None  # client_output_tokens: streamed usage tokens in the window
    effective_concurrency: float | None
    num_errors: int
    summary: CellSummary
    samples: tuple[RequestSample, ...]


@dataclass(frozen=True)
class PrefillPoint:
    """One cold prefill measurement for a context."""

    pointer: str
    context_key: str  # the key in the file ("8192")
    context_tokens: int
    prompt_tokens: int
    ttft_s: float
    tok_s: float | None  # the file's own tok_per_sec
    samples: int | None


@dataclass(frozen=True)
class MatrixRun:
    """An llm-inference-bench run (bare or wrapped by `lmx speed-test matrix`)."""

    source: SourceFile
    engine: str | None
    model: str | None
    duration_s: float | None
    max_tokens: int | None
    contexts: tuple[int, ...]
    concurrencies: tuple[int, ...]
    prefill: tuple[PrefillPoint, ...]
    cells: tuple[DecodeCell, ...]
    summary_table: tuple[tuple[int, int, float | None], ...]  # (context, concurrency, value)


Run = CanonicalRun | MatrixRun


def context_label(tokens: int) -> str:
    """Label a context length as the article does: 0, 8K, 32K, 128K, 1M."""
    if tokens == 0:
        return "0"
    for unit, suffix in ((1024 * 1024, "M"), (1000 * 1000, "M"), (1024, "K"), (1000, "K")):
        if tokens % unit == 0:
            return f"{tokens // unit}{suffix}"
    return f"{tokens:,}"


@dataclass(frozen=True)
class Hardware:
    """The machine a run was measured on, as the article's manifest states it."""

    gpu_name: str
    gpu_count: int
    gpu_vram_gb: float
    gpu_power_cap_w: float | None = None
    gpu_rated_power_w: float | None = None
    gpu_note: str | None = None
    cpu: str | None = None
    ram_gb: float | None = None
    os: str | None = None


@dataclass(frozen=True)
class Setup:
    """What the article's manifest says about hardware, model and engine (not data)."""

    hardware: Hardware
    hf_id: str
    checkpoint: str | None
    quantization: str | None
    engine_name: str
    engine_build: str | None
    engine_description: str | None
    spec_decoding: str | None = None
    command_snippet: str | None = None
