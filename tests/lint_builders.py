"""Small, plausible runs for the lint tests, built straight from the model dataclasses.

`matrix()` is a clean context x concurrency grid that no lint fires on: per-request speed falls
with context and concurrency, the aggregate rises with concurrency and stays well under
concurrency x the fastest request, TTFT grows with both and equals the cold prefill at
concurrency 1, every summary agrees with its samples. Tests change one thing with `with_cell`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from reportgen.frozendict import FrozenDict
from reportgen.metrics.compute import compute
from reportgen.metrics.lints import lint
from reportgen.metrics.lints.findings import Finding
from reportgen.model import (
    CanonicalRun,
    CanonicalSample,
    CanonicalSummary,
    CellSummary,
    DecodeCell,
    MatrixRun,
    PrefillPoint,
    Provenance,
    RequestSample,
    Run,
    SourceFile,
)
from reportgen.stats import median
from reportgen.tolerances import THRESHOLDS, Thresholds

CONTEXTS = (0, 8192, 32768)
CONCURRENCIES = (1, 2, 4)
OUTPUT_TOKENS = 256
WINDOW_S = 30.0
MATRIX_FILE = "runs/t/benchmark_results.json"


def source(label: str = MATRIX_FILE, fmt: str = "llm-inference-bench") -> SourceFile:
    tool = "llm-inference-bench 0.7.7" if fmt == "llm-inference-bench" else "lmx 0.1.60"
    return SourceFile(
        label=label,
        sha256="0" * 64,
        format=fmt,
        tool=tool,
        format_version=tool.rsplit(" ", 1)[1],
        provenance=Provenance(status="measured"),
    )


def prefill_ttft(ctx: int) -> float:
    """Cold-prefill TTFT of the clean grid, seconds."""
    return 0.05 + ctx / 12_000


def speed(ctx: int, conc: int) -> float:
    """Median per-request decode speed of the clean grid, tok/s."""
    return 120 / (1 + ctx / 262_144) / (1 + 0.25 * (conc - 1))


def ttft(ctx: int, conc: int) -> float:
    """Median TTFT of the clean grid: the cold prefill plus queueing behind the others."""
    return prefill_ttft(ctx) * (1 + 0.5 * (conc - 1))


def aggregate(ctx: int, conc: int) -> float:
    """Aggregate throughput of the clean grid: streams decode 70% of the time."""
    return 0.7 * conc * speed(ctx, conc)


def _spread(n: int) -> list[float]:
    """n factors evenly spread over [0.98, 1.02]; their median is 1."""
    return [1.0] if n == 1 else [0.98 + 0.04 * i / (n - 1) for i in range(n)]


def decode_cell(
    ctx: int,
    conc: int,
    *,
    n: int = 6,
    tok_s: float | None = None,
    ttft_s: float | None = None,
    aggregate_tok_s: float | None = None,
    input_tokens: int | None = None,
    index: int = 0,
) -> DecodeCell:
    """One ok decode cell whose summary fields agree with its `n` request samples."""
    pointer = f"/results/{index}"
    rate = speed(ctx, conc) if tok_s is None else tok_s
    first = ttft(ctx, conc) if ttft_s is None else ttft_s
    samples = []
    for i, (f_rate, f_ttft) in enumerate(zip(_spread(n), reversed(_spread(n)), strict=True)):
        itl = 1 / (rate * f_rate)
        t0 = first * f_ttft
        samples.append(
            RequestSample(
                pointer=f"{pointer}/request_samples/{i}",
                ttft_s=t0,
                latency_s=t0 + itl * (OUTPUT_TOKENS - 1) + 0.01,
                itl_s=itl,
                input_tokens=(input_tokens or ctx or 24),
                output_tokens=OUTPUT_TOKENS,
                completed=True,
            )
        )
    agg = aggregate(ctx, conc) if aggregate_tok_s is None else aggregate_tok_s
    tokens = round(agg * WINDOW_S)
    return DecodeCell(
        pointer=pointer,
        context_tokens=ctx,
        concurrency=conc,
        status="ok",
        reason=None,
        aggregate_tok_s=tokens / WINDOW_S,
        aggregate_source="openai_continuous_usage",
        measurement_s=WINDOW_S,
        window_output_tokens=tokens,
        effective_concurrency=float(conc),
        num_errors=0,
        summary=CellSummary(
            ttft_p50_s=median(s.ttft_s for s in samples),
            output_tps_per_user_p50=median(1 / s.itl_s for s in samples),
            itl_p50_s=median(s.itl_s for s in samples),
        ),
        samples=tuple(samples),
    )


def prefill_point(ctx: int, *, prompt_tokens: int | None = None) -> PrefillPoint:
    tokens = ctx if prompt_tokens is None else prompt_tokens
    first = prefill_ttft(ctx)
    return PrefillPoint(
        pointer=f"/prefill/{ctx}",
        context_key=str(ctx),
        context_tokens=ctx,
        prompt_tokens=tokens,
        ttft_s=first,
        tok_s=tokens / first,
        samples=1,
    )


def matrix(label: str = MATRIX_FILE) -> MatrixRun:
    """The clean grid."""
    cells = [
        decode_cell(ctx, conc, index=i)
        for i, (ctx, conc) in enumerate((x, c) for x in CONTEXTS for c in CONCURRENCIES)
    ]
    return MatrixRun(
        source=source(label),
        engine="test-engine",
        model="test/model",
        duration_s=WINDOW_S,
        max_tokens=OUTPUT_TOKENS,
        contexts=CONTEXTS,
        concurrencies=CONCURRENCIES,
        prefill=tuple(prefill_point(ctx) for ctx in CONTEXTS if ctx),
        cells=tuple(cells),
        summary_table=tuple((c.context_tokens, c.concurrency, c.aggregate_tok_s) for c in cells),
    )


def cell_of(run: MatrixRun, ctx: int, conc: int) -> DecodeCell:
    return next(c for c in run.cells if (c.context_tokens, c.concurrency) == (ctx, conc))


BUILD_ARGS = ("n", "tok_s", "ttft_s", "aggregate_tok_s", "input_tokens")


def with_cell(run: MatrixRun, ctx: int, conc: int, **changes: object) -> MatrixRun:
    """`run` with the ctx x conc cell rebuilt: keyword args of `decode_cell`, or field changes."""
    old = cell_of(run, ctx, conc)
    index = int(old.pointer.rsplit("/", 1)[1])
    build = {k: changes.pop(k) for k in BUILD_ARGS if k in changes}
    new = decode_cell(ctx, conc, index=index, **build) if build else old  # type: ignore[arg-type]
    new = dataclasses.replace(new, **changes)  # type: ignore[arg-type]
    return dataclasses.replace(run, cells=tuple(new if c is old else c for c in run.cells))


def canonical(
    concurrency: int = 1,
    *,
    iterations: int = 3,
    tok_s: float = 150.0,
    group_tok_s: float | None = None,
    warnings: Sequence[str] = (),
) -> CanonicalRun:
    """An lmx canonical run whose summary is the median over its samples (C=1) or a group
    throughput below the sum of its requests' speeds (C>1)."""
    samples: list[CanonicalSample] = []
    for it in range(1, iterations + 1):
        for req in range(concurrency):
            i = len(samples)
            f = _spread(iterations)[it - 1]
            samples.append(
                CanonicalSample(
                    pointer=f"/samples/{i}",
                    iteration=it,
                    request=req,
                    prompt_tokens=120,
                    output_tokens=256,
                    tok_s_out=tok_s * f,
                    ttft_ms=100.0 / f,
                    tok_s_prefill=120 / (0.1 / f),
                )
            )
    if concurrency == 1:
        out = median(s.tok_s_out for s in samples) or 0.0
        ttft_ms = median(s.ttft_ms for s in samples)
        prefill = median(s.tok_s_prefill or 0.0 for s in samples)
    else:
        out = 0.8 * concurrency * tok_s if group_tok_s is None else group_tok_s
        ttft_ms = median(s.ttft_ms for s in samples)
        prefill = None
    return CanonicalRun(
        source=source(f"runs/t/canonical-c{concurrency}.json", "lmx-speed-test"),
        hf_id="test/model",
        engine_name="test-engine",
        engine_version=None,
        quantization=None,
        concurrency=concurrency,
        max_tokens=256,
        iterations=iterations,
        prompt_id="reasoning-v1",
        prompt_tokens=120,
        output_tokens=256,
        samples=tuple(samples),
        summary=CanonicalSummary(
            tok_s_out=out,
            ttft_ms=ttft_ms,
            tok_s_prefill=prefill,
            tok_s_total=None,
            tok_s_out_source="inter_token",
        ),
        engine_flags=FrozenDict({"concurrency": concurrency}),
        evidence=FrozenDict(),
        warnings=tuple(warnings),
    )


def findings(*runs: Run, thresholds: Thresholds = THRESHOLDS) -> tuple[Finding, ...]:
    """The lint findings over `runs`."""
    return lint(compute(runs), thresholds)


def ids(found: Sequence[Finding]) -> set[str]:
    return {f.id for f in found}
