"""What a lint finding is: the lint ids with their severity and rule, the `Finding` value, and
the helpers every lint uses to word its evidence.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from reportgen.errors import Severity
from reportgen.metrics.registry import MetricSet
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


@dataclass(frozen=True, kw_only=True)
class LintDef:
    """One lint: its stable id, its severity, the rule it applies, and the title that heads its
    findings in the article (several findings of one lint are listed under one entry)."""

    id: str
    severity: Severity
    rule: str
    title: str
    why: str  # one sentence for readers: what the findings mean


def _defs(*defs: LintDef) -> dict[str, LintDef]:
    return {d.id: d for d in defs}


LINTS: dict[str, LintDef] = _defs(
    LintDef(
        id="cell-invalid",
        severity="error",
        rule="a decode cell failed, raised or looped: no measurement",
        title="Cells that failed: no measurement",
        why="No number can stand for these cells: the benchmark tool reports them as failed.",
    ),
    LintDef(
        id="requests-failed",
        severity="error",
        rule="a measured cell counted failed requests",
        title="Cells with failed requests",
        why="Part of the window ran with fewer streams than the label says.",
    ),
    LintDef(
        id="load-requests-failed",
        severity="warning",
        rule="requests of a load point failed",
        title="Load points with failed requests",
        why="Their latency statistics cover only the requests that completed, so the tail "
        "understates what the failed requests met.",
    ),
    LintDef(
        id="cell-skipped",
        severity="warning",
        rule="a decode cell was skipped (KV capacity or on request)",
        title="Cells skipped",
        why="The run did not measure these cells, and says why.",
    ),
    LintDef(
        id="cell-missing",
        severity="warning",
        rule="a context x concurrency cell of the grid is absent",
        title="Cells of the grid the run does not have",
        why="The run measured these contexts and concurrencies elsewhere, but not together.",
    ),
    LintDef(
        id="requests-incomplete",
        severity="warning",
        rule="more unfinished requests than the window end can cut",
        title="Cells with more unfinished requests than the window's end explains",
        why="Streams broke off before they completed, more than the end of the window cuts.",
    ),
    LintDef(
        id="effective-concurrency-low",
        severity="warning",
        rule="mean running requests below min_effective_concurrency x requested",
        title="Cells that ran a lighter load than their concurrency",
        why="The server ran fewer requests at a time than the label says, so these cells measured "
        "a lighter load.",
    ),
    LintDef(
        id="aggregate-source",
        severity="warning",
        rule="aggregate not counted from streamed usage",
        title="Aggregates not counted from streamed usage",
        why="These aggregates were not counted from the server's streamed usage, so they may not "
        "compare with the other cells.",
    ),
    LintDef(
        id="summary-disagrees",
        severity="warning",
        rule="a file's own summary value disagrees with its data",
        title="Summary values that disagree with their own data",
        why="The file's own summary does not match what its data gives; the article shows the "
        "value computed from the data.",
    ),
    LintDef(
        id="few-samples",
        severity="warning",
        rule="a median over fewer than min_samples values",
        title="Medians over very few requests",
        why="With so few requests, one unusual request decides the median.",
    ),
    LintDef(
        id="context-mismatch",
        severity="warning",
        rule="prompt tokens differ from the context label",
        title="Prompts whose size differs from their context",
        why="The prompts held a different number of tokens than the context label says.",
    ),
    LintDef(
        id="decode-ttft-below-prefill",
        severity="warning",
        rule="lowest-concurrency decode TTFT below min_ttft_vs_prefill x cold-prefill TTFT",
        title="Decode TTFT well below the cold prefill of the same context",
        why="The first token came much sooner than a cold prefill of the same context takes: the "
        "prefix cache was probably hit, or the prompts were shorter than their label.",
    ),
    LintDef(
        id="throughput-rises-with-context",
        severity="warning",
        rule="aggregate rises with context",
        title="Aggregate throughput that rises with context",
        why="A longer context should not decode faster; differences this size are above the noise "
        "of one window.",
    ),
    LintDef(
        id="speed-rises-with-context",
        severity="warning",
        rule="per-request speed rises with context",
        title="Per-request speed that rises with context",
        why="A longer context should not decode faster; differences this size are above the noise "
        "of one window.",
    ),
    LintDef(
        id="ttft-falls-with-context",
        severity="warning",
        rule="TTFT falls with context",
        title="TTFT that falls with context",
        why="A longer prompt should not prefill sooner.",
    ),
    LintDef(
        id="throughput-falls-with-concurrency",
        severity="warning",
        rule="aggregate falls with concurrency",
        title="Aggregate throughput that falls with concurrency",
        why="More load should raise total throughput until the server saturates.",
    ),
    LintDef(
        id="speed-rises-with-concurrency",
        severity="warning",
        rule="per-request speed rises with concurrency",
        title="Per-request speed that rises with concurrency",
        why="Sharing the server should not make a request faster.",
    ),
    LintDef(
        id="ttft-falls-with-concurrency",
        severity="warning",
        rule="TTFT falls with concurrency",
        title="TTFT that falls with concurrency",
        why="More requests waiting for prefill should not shorten the wait.",
    ),
    LintDef(
        id="aggregate-above-requests",
        severity="warning",
        rule="aggregate above C x fastest request x (1 + aggregate_margin)",
        title="Aggregates above what the requests' own speeds allow",
        why="All requests together produced more than their own speeds allow: the aggregate and "
        "the request samples may not describe the same run.",
    ),
    LintDef(
        id="aggregate-above-median-speed",
        severity="warning",
        rule="aggregate above C x median request speed x (1 + median_speed_margin)",
        title="Aggregates well above concurrency x the median request speed",
        why="The per-request speeds here are lower than what all requests together produced: each "
        "request's 1 / ITL includes the stalls while the other requests prefilled, which the "
        "aggregate's window does not. Read the per-request speeds as a lower bound.",
    ),
    LintDef(
        id="tool-warning",
        severity="warning",
        rule="the benchmark tool wrote a warning into the file",
        title="Warnings the benchmark tool wrote",
        why="The benchmark tool itself flagged these runs.",
    ),
    LintDef(
        id="read-warning",
        severity="warning",
        rule="reading a run file found a problem in it: a summary that disagrees with its own "
        "data, or a known artefact of the tool that wrote it",
        title="Problems found while reading the run files",
        why="The run files contradict themselves here, or show a known artefact of the tool that "
        "wrote them; the numbers reportgen shows are computed as the metric definitions say.",
    ),
    # About the article: its declared setup against what the run files record.
    LintDef(
        id="setup-contradicts-data",
        severity="error",
        rule="the setup in article.toml contradicts a run file "
        "(model, engine, tensor parallel, tool)",
        title="The article's setup and its run files disagree",
        why="The article says one thing about how the numbers were measured and the run files "
        "another; one of them is wrong.",
    ),
    # Not about the data: article.toml acknowledges a finding that the data does not give.
    LintDef(
        id="acknowledgement-unused",
        severity="warning",
        rule="an acknowledgement in article.toml matches no finding",
        title="Acknowledgements that match no finding",
        why="A stale acknowledgement hides nothing; remove it or fix its lint id or cells.",
    ),
)


@dataclass(frozen=True, kw_only=True)
class Finding:
    """One lint result: what is suspicious, where, the numbers, and a sentence for readers."""

    id: str
    severity: Severity
    file: str
    pointer: str
    cell: str | None  # "4K x 1", "4K prefill", "canonical x 3"; None for the whole file
    metrics: tuple[str, ...]  # metric ids involved
    evidence: str  # the numbers, formatted for reading
    message: str  # one plain sentence
    context: int | None = None
    concurrency: int | None = None
    acknowledged: str | None = None  # the author's reason, when article.toml acknowledges it
    run: str | None = None  # the article's run id, in an article of several runs

    @property
    def where(self) -> str | None:
        """The cell as a reader finds it: with its run's id in an article of several runs."""
        if self.cell is None:
            return self.run
        return f"{self.run} {self.cell}" if self.run else self.cell

    def format(self, *, reason: bool = True) -> str:
        """Render as `file /pointer: severity [id] cell: message (evidence)`, and the author's
        reason when the finding is acknowledged (unless `reason` is False)."""
        where = f" {self.where}:" if self.where else ""
        pointer = self.pointer or "/"
        ack = f" [acknowledged: {self.acknowledged}]" if self.acknowledged and reason else ""
        return (
            f"{self.file} {pointer}: {self.severity} [{self.id}]{where} {self.message} "
            f"({self.evidence}){ack}"
        )

    def as_json(self) -> dict[str, object]:
        """The finding as a JSON-ready mapping."""
        return {
            "id": self.id,
            "severity": self.severity,
            "file": self.file,
            "pointer": self.pointer or "/",
            "cell": self.cell,
            "run": self.run,
            "context": self.context,
            "concurrency": self.concurrency,
            "metrics": list(self.metrics),
            "evidence": self.evidence,
            "message": self.message,
            "acknowledged": self.acknowledged,
        }


def fails(findings: Iterable[Finding], *, strict: bool = False) -> bool:
    """True when an error, or (with `strict`) any finding, is not acknowledged by the article.

    An acknowledged error is a result the author expects, such as a cell that ran out of memory:
    the article shows it with its reason, and it does not fail.
    """
    return any(not f.acknowledged and (strict or f.severity == "error") for f in findings)


@dataclass(frozen=True)
class FindingGroup:
    """The findings of one lint, listed together under the lint's title."""

    lint: LintDef
    findings: tuple[Finding, ...]

    @property
    def cells(self) -> tuple[str, ...]:
        """The cells the findings name, in order."""
        return tuple(dict.fromkeys(f.where for f in self.findings if f.where))

    @property
    def acknowledged(self) -> tuple[str, ...]:
        """The distinct reasons given for the findings that are acknowledged."""
        return tuple(dict.fromkeys(f.acknowledged for f in self.findings if f.acknowledged))

    @property
    def all_acknowledged(self) -> bool:
        return all(f.acknowledged for f in self.findings)


def group(findings: Iterable[Finding]) -> tuple[FindingGroup, ...]:
    """Findings grouped by lint, in the order their first finding comes."""
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.id, []).append(f)
    return tuple(FindingGroup(LINTS[lint], tuple(fs)) for lint, fs in groups.items())


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
        id=lint_id,
        severity=LINTS[lint_id].severity,
        file=file,
        pointer=pointer,
        cell=cell,
        metrics=tuple(metrics),
        evidence=evidence,
        message=message,
        context=context,
        concurrency=concurrency,
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


def cell_ids(metrics: MetricSet, cell: DecodeCell, file: str) -> tuple[str, ...]:
    """The ids of a decode cell's main metrics (those the metrics have)."""
    run = metrics.run_of(file)
    where = {"run": run, "context": cell.context_tokens, "concurrency": cell.concurrency}
    ids = (metrics.id_of(key, point=cell.point, **where) for key in DECODE_KEYS)
    return tuple(i for i in ids if i is not None)
