"""What a lint finding is: the lint ids with their severity and rule, the `Finding` value, and
the helpers every lint uses to word its evidence.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from reportgen.errors import Severity
from reportgen.metrics.registry import MetricSet, metric_id
from reportgen.model import DecodeCell, MatrixRun, context_label

STREAMED_USAGE = "openai_continuous_usage"
SOURCE_WORDS = {
    "openai_stream_chunks_fallback": "the number of streamed chunks",
    "prometheus_fallback": "the server's Prometheus counters",
    "openai_completed_usage": "the usage of completed requests only",
    "none": "no token source at all",
}
SHORT = {
    "decode.aggregate_tok_s": "aggregate",
    "decode.per_request_tok_s": "per-request speed",
    "decode.ttft_s": "TTFT",
}
DECODE_KEYS = ("decode.aggregate_tok_s", "decode.per_request_tok_s", "decode.ttft_s")


@dataclass(frozen=True)
class LintDef:
    """One lint: its stable id, its severity and the rule it applies, in a line."""

    id: str
    severity: Severity
    rule: str


def _defs(*defs: LintDef) -> dict[str, LintDef]:
    return {d.id: d for d in defs}


LINTS: dict[str, LintDef] = _defs(
    LintDef("cell-invalid", "error", "a decode cell failed, raised or looped: no measurement"),
    LintDef("requests-failed", "error", "a measured cell counted failed requests"),
    LintDef("cell-skipped", "warning", "a decode cell was skipped (KV capacity or on request)"),
    LintDef("cell-missing", "warning", "a context x concurrency cell of the grid is absent"),
    LintDef(
        "requests-incomplete", "warning", "more unfinished requests than the window end can cut"
    ),
    LintDef(
        "effective-concurrency-low",
        "warning",
        "mean running requests below min_effective_concurrency x requested",
    ),
    LintDef("aggregate-source", "warning", "aggregate not counted from streamed usage"),
    LintDef("summary-disagrees", "warning", "a file's own summary value disagrees with its data"),
    LintDef("few-samples", "warning", "a median over fewer than min_samples values"),
    LintDef("context-mismatch", "warning", "prompt tokens differ from the context label"),
    LintDef(
        "decode-ttft-below-prefill",
        "warning",
        "lowest-concurrency decode TTFT below min_ttft_vs_prefill x cold-prefill TTFT",
    ),
    LintDef("throughput-rises-with-context", "warning", "aggregate rises with context"),
    LintDef("speed-rises-with-context", "warning", "per-request speed rises with context"),
    LintDef("ttft-falls-with-context", "warning", "TTFT falls with context"),
    LintDef("throughput-falls-with-concurrency", "warning", "aggregate falls with concurrency"),
    LintDef("speed-rises-with-concurrency", "warning", "per-request speed rises with concurrency"),
    LintDef("ttft-falls-with-concurrency", "warning", "TTFT falls with concurrency"),
    LintDef(
        "aggregate-above-requests",
        "warning",
        "aggregate above C x fastest request x (1 + aggregate_margin)",
    ),
    LintDef("tool-warning", "warning", "the benchmark tool wrote a warning into the file"),
)


@dataclass(frozen=True)
class Finding:
    """One lint result: what is suspicious, where, the numbers, and a sentence for readers."""

    id: str
    severity: Severity
    file: str
    pointer: str
    cell: str | None  # "64K x 1", "64K prefill", "canonical x 16"; None for the whole file
    metrics: tuple[str, ...]  # metric ids involved
    evidence: str  # the numbers, formatted for reading
    message: str  # one plain sentence
    context: int | None = None
    concurrency: int | None = None

    def format(self) -> str:
        """Render as `file /pointer: severity [id] cell: message (evidence)`."""
        where = f" {self.cell}:" if self.cell else ""
        pointer = self.pointer or "/"
        return (
            f"{self.file} {pointer}: {self.severity} [{self.id}]{where} {self.message} "
            f"({self.evidence})"
        )

    def as_json(self) -> dict[str, object]:
        """The finding as a JSON-ready mapping."""
        return {
            "id": self.id,
            "severity": self.severity,
            "file": self.file,
            "pointer": self.pointer or "/",
            "cell": self.cell,
            "context": self.context,
            "concurrency": self.concurrency,
            "metrics": list(self.metrics),
            "evidence": self.evidence,
            "message": self.message,
        }


def fails(findings: Iterable[Finding], *, strict: bool = False) -> bool:
    """True when a finding is an error, or (with `strict`) any finding at all."""
    return any(strict or f.severity == "error" for f in findings)


def finding(
    lint_id: str,
    file: str,
    pointer: str,
    cell: str | None,
    evidence: str,
    message: str,
    metrics: Iterable[str] = (),
    context: int | None = None,
    concurrency: int | None = None,
) -> Finding:
    return Finding(
        lint_id,
        LINTS[lint_id].severity,
        file,
        pointer,
        cell,
        tuple(metrics),
        evidence,
        message,
        context,
        concurrency,
    )


def fmt(x: float, digits: int = 3) -> str:
    """`x` to `digits` significant figures; integers with thousands separators from 10**digits."""
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    if abs(x) >= 10**digits:
        return f"{x:,.0f}"
    return f"{x:.{max(0, digits - 1 - math.floor(math.log10(abs(x))))}f}"


def count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def fmt_pair(a: float, b: float) -> tuple[str, str]:
    """`a` and `b` with just enough figures that they read differently (when they differ)."""
    for digits in range(3, 9):
        shown = fmt(a, digits), fmt(b, digits)
        if shown[0] != shown[1]:
            return shown
    return fmt(a, 9), fmt(b, 9)


def cell_label(context: int, concurrency: int) -> str:
    return f"{context_label(context)} x {concurrency}"


def matrix_runs(metrics: MetricSet) -> Iterator[MatrixRun]:
    return (r for r in metrics.runs if isinstance(r, MatrixRun))


def cell_ids(metrics: MetricSet, cell: DecodeCell) -> tuple[str, ...]:
    where = {"context": cell.context_tokens, "concurrency": cell.concurrency}
    ids = (metric_id(key, **where) for key in DECODE_KEYS)
    return tuple(i for i in ids if metrics.get(i) is not None)
