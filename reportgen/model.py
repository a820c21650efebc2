"""The internal run model: what every input format normalizes into.

Three shapes of run: an lmx canonical run (one prompt, N iterations), an llm-inference-bench
matrix (context x concurrency decode cells, cold prefill per context), and a sweep of load points
(concurrency or request rate), which is what GuideLLM, AIPerf, vLLM and SGLang bench and
inference-perf measure. Parsers in `reportgen.formats` build these from raw JSON; every later
stage reads only these. Units live in the names: `_s` seconds, `_ms` milliseconds, `_tok_s`
tokens per second.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from reportgen.frozendict import FrozenDict

FormatName = str  # a format module's name, e.g. "llm-inference-bench" (see formats.registry)
ProvenanceStatus = Literal["measured", "reconstructed", "synthetic"]
CellStatus = Literal[
    "ok",  # measured
    "skipped_capacity",  # aggregate_tps -1: context x concurrency does not fit the KV cache
    "skipped_user",  # aggregate_tps -2: skipped on request
    "loop_detected",  # aggregate_tps -3: the model looped; numbers are not throughput
    "error",  # aggregate_tps 0: the cell raised an exception
    "failed",  # failure_reason set / summary null: streams failed
]

Scalar = str | int | float | bool | None


@dataclass(frozen=True, kw_only=True)
class Provenance:
    """Where a file's numbers come from: measured by the tools, reconstructed from a published
    text, or synthetic (generated demo or test data); `note` is the file's own words."""

    status: ProvenanceStatus
    reconstructed_from: str | None = None
    generator: str | None = None
    note: str | None = None
    command: str | None = None


@dataclass(frozen=True, kw_only=True)
class SourceFile:
    """One input run file as it was read."""

    label: str  # the path as given / shown to users
    sha256: str
    format: FormatName
    tool: str  # e.g. "llm-inference-bench 0.7.7"
    format_version: str
    provenance: Provenance
    wrapper: FrozenDict[str, Scalar] = FrozenDict()  # lmx matrix wrapper metadata, scalars only


@dataclass(frozen=True, kw_only=True)
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


@dataclass(frozen=True, kw_only=True)
class CanonicalSummary:
    """The lmx file's own summary fields (medians over iterations, rounded by lmx)."""

    tok_s_out: float
    ttft_ms: float | None
    tok_s_prefill: float | None
    tok_s_total: float | None
    tok_s_out_source: str | None


@dataclass(frozen=True, kw_only=True)
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
    engine_flags: FrozenDict[str, Scalar]
    evidence: FrozenDict[str, Scalar]  # verified-run evidence fields the file carries
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

    @property
    def decoded(self) -> bool:
        """Completed with an inter-token latency: at least two output tokens and an ITL above 0."""
        return self.completed and self.output_tokens >= 2 and self.itl_s > 0


@dataclass(frozen=True)
class CellSummary:
    """A decode cell's own summary fields, as the bench wrote them (None when absent/null)."""

    ttft_p50_s: float | None
    output_tps_per_user_p50: float | None
    itl_p50_s: float | None


# Aggregate sources whose numerator is the client's streamed token count over the window.
TOKEN_COUNT_SOURCES = frozenset(
    {"openai_continuous_usage", "openai_stream_chunks_fallback", "openai_completed_usage"}
)


@dataclass(frozen=True, kw_only=True)
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
    samples: Sequence[RequestSample]  # a `reportgen.samples.PackedSamples` when parsed from a file
    # (counter name, tokens it counted in the window) when the aggregate is a server counter's
    server_counter: tuple[str, float] | None = None
    aggregate_key: str = "aggregate_tps"  # the key under `pointer` of the file's aggregate
    # Several tests of one cell in one file (llama-bench's sweeps): the label that tells this one
    # apart, in its metric ids after the concurrency ("tg128", "tg128-fa1"); None: the only one.
    point: str | None = None
    settings: FrozenDict[str, Scalar] = FrozenDict()  # its own `meta.KEY` axes (meta.n_gen, ...)


@dataclass(frozen=True, kw_only=True)
class PrefillPoint:
    """One cold prefill measurement for a context."""

    pointer: str
    context_key: str  # the key in the file ("4096")
    context_tokens: int
    prompt_tokens: int
    ttft_s: float
    tok_s: float | None  # the file's own tok_per_sec
    samples: int | None
    # the keys under `pointer` that hold the prompt tokens and the time to first token
    prompt_tokens_key: str = "prompt_tokens"
    ttft_key: str = "ttft_seconds"
    basis: str | None = None  # what the time is when it is not a served TTFT
    # Several tests of one context in one file (llama-bench's sweeps): the label that tells this
    # one apart, in its metric ids after the context ("pp512", "pp512-fa1"); None: the only one.
    point: str | None = None
    settings: FrozenDict[str, Scalar] = FrozenDict()  # its own `meta.KEY` axes (meta.n_depth, ...)
    cached_tokens: int = 0  # tokens already in the KV cache before the prompt (llama-bench n_depth)
    # The key under `pointer` of the tool's own rate (`tok_s`) when that rate is the value, as
    # the tool defines it (llama-bench's avg_ts: the mean of its repetitions' rates, checked
    # against them when read); None: the rate is prompt_tokens / ttft_s.
    rate_key: str | None = None


@dataclass(frozen=True, kw_only=True)
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
    settings_pointer: str = "/metadata"  # where duration_per_test and max_tokens are
    # metric key -> the tool's definition where it differs from reportgen's, as SweepRun's
    definitions: FrozenDict[str, str] = FrozenDict()


class Summary(NamedTuple):
    """A tool's own statistics of one quantity over a load point's requests (None: not given)."""

    mean: float | None = None
    p50: float | None = None
    p90: float | None = None
    p95: float | None = None
    p99: float | None = None
    min: float | None = None
    max: float | None = None
    n: int | None = None


@dataclass(frozen=True, kw_only=True)
class LoadPoint:
    """One load point of a sweep: the requests sent at one concurrency or request rate.

    `samples` are the per-request records when the file has them: a tuple, or for a file of many
    requests a packed sequence that builds each on demand (`reportgen.samples`), so read
    them one at a time, not into a list. `summaries` are the tool's own statistics (seconds, or
    tok/s for `per_request_tok_s`), used when it has no records and cross-checked when it has.
    """

    pointer: str
    label: str  # unique in its run: "c3" (concurrency 3), "r2.5" (2.5 requests/s), "sync"
    concurrency: int | None
    rate: float | None  # requests per second; None: as fast as the concurrency allows
    strategy: str | None  # the tool's name for how load was applied
    status: CellStatus
    reason: str | None
    duration_s: float | None  # the measured window
    output_tokens: int | None  # output tokens of the window (the aggregate's numerator)
    aggregate_tok_s: float | None  # the tool's own output tok/s
    requests_ok: int | None
    requests_failed: int
    samples: Sequence[RequestSample]
    summaries: FrozenDict[str, Summary] = FrozenDict()  # quantity -> the tool's statistics
    prompt_tokens: int | None = None  # the configured prompt length, when the load point fixes it
    max_tokens: int | None = None  # the configured output length
    # quantity ("aggregate_tok_s", "ttft_s", ...) -> JSON pointer of the tool's own median or value
    summary_at: FrozenDict[str, str] = FrozenDict()
    # (start, end) in seconds of each request the file times, completed or not, in the file's
    # order, on the file's one clock; empty when the file has no per-request timestamps (read by
    # metrics/steady.py). A tuple, or for a file of many requests packed columns
    # (`reportgen.samples.PackedSpans`)
    spans: Sequence[tuple[float, float]] = ()

    def summary(self, quantity: str) -> Summary | None:
        """The tool's own statistics of `quantity` ("ttft_s", "itl_s", "latency_s", ...)."""
        return self.summaries.get(quantity)

    def summary_pointer(self, quantity: str) -> str | None:
        """Where the file holds the tool's own value of `quantity`, when it does."""
        return self.summary_at.get(quantity)


@dataclass(frozen=True, kw_only=True)
class SweepRun:
    """A run of one or more load points, as load-testing tools write them."""

    source: SourceFile
    engine: str | None
    model: str | None
    points: tuple[LoadPoint, ...]
    # how the tool defines what it reports, where it differs from reportgen's definitions
    definitions: FrozenDict[str, str] = FrozenDict()
    settings: FrozenDict[str, Scalar] = FrozenDict()  # run-wide settings the file states


Run = CanonicalRun | MatrixRun | SweepRun


def context_label(tokens: int) -> str:
    """Label a context length as the article does: 0, 4K, 16K, 1M; 1,500 (not a multiple)."""
    if tokens == 0:
        return "0"
    for unit, suffix in ((1024 * 1024, "M"), (1000 * 1000, "M"), (1024, "K"), (1000, "K")):
        if tokens % unit == 0:
            return f"{tokens // unit}{suffix}"
    return f"{tokens:,}"


@dataclass(frozen=True, kw_only=True)
class Hardware:
    """The machine a run was measured on, as the article's manifest states it."""

    gpu_name: str
    gpu_count: int
    gpu_vram_gb: float | None = None
    gpu_power_cap_w: float | None = None
    gpu_rated_power_w: float | None = None
    gpu_note: str | None = None
    cpu: str | None = None
    ram_gb: float | None = None
    os: str | None = None


@dataclass(frozen=True, kw_only=True)
class Setup:
    """What the article's manifest says about hardware, model and engine (not data)."""

    hardware: Hardware | None  # None: article.toml does not state it
    hf_id: str
    checkpoint: str | None
    quantization: str | None
    engine_name: str
    engine_build: str | None
    engine_description: str | None
    spec_decoding: str | None = None
    command_snippet: str | None = None
    engine_version: str | None = None
    tensor_parallel: int | None = None
