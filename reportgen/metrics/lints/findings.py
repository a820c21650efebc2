"""What a lint finding is: the table of lints (`LINTS`, built by `finds` and `define_lint` next
to the code that finds each lint), the `Finding` value, and the helpers every lint uses to word
its evidence.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from reportgen import tolerances as tol
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


Finder = Callable[[MetricSet, tol.Thresholds], Iterable["Finding"]]
F = TypeVar("F", bound=Finder)


@dataclass(frozen=True, kw_only=True)
class LintDef:
    """One lint: its stable id, its severity, the rule it applies, the title that heads its
    findings in the article (several findings of one lint are listed under one entry), and the
    function that finds it (None for a lint whose findings another stage makes)."""

    id: str
    severity: Severity
    rule: str
    title: str
    why: str  # one sentence for readers: what the findings mean
    find: Finder | None = None
    # a lint about values as an article shows them (a gate): `lint()` runs it over the values
    # the article shows, so a value that stays in metrics.json alone is no finding
    shown_only: bool = False


# Every lint by id, filled by `finds` and `define_lint` where each lint is found.
LINTS: dict[str, LintDef] = {}


def define_lint(id: str, *, severity: Severity, rule: str, title: str, why: str) -> LintDef:
    """Put a lint in `LINTS` and return it; for a lint whose findings are made outside the lint
    stage (by the article's own checks). A lint id can be defined once only."""
    return _add(LintDef(id=id, severity=severity, rule=rule, title=title, why=why))


def finds(
    id: str, *, severity: Severity, rule: str, title: str, why: str, shown_only: bool = False
) -> Callable[[F], F]:
    """Decorator: the function finds the lint `id`, which it defines. `lint()` runs it with the
    metrics and the thresholds, and it yields the lint's findings (made with `finding(id, ...)`).
    `shown_only`: the lint is about values as an article shows them; `lint()` gives it only the
    values the article shows."""

    def register(find: F) -> F:
        lint = LintDef(
            id=id,
            severity=severity,
            rule=rule,
            title=title,
            why=why,
            find=find,
            shown_only=shown_only,
        )
        _add(lint)
        return find

    return register


def _add(lint: LintDef) -> LintDef:
    if lint.id in LINTS:
        raise ValueError(f"the lint {lint.id!r} is defined twice")
    LINTS[lint.id] = lint
    return lint


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
