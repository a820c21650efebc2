"""Lint stage: metric values (and the runs behind them) in, findings out (pure).

A lint asks whether the data is plausible, not whether it is well formed (validation did that):
failed, skipped or incomplete cells, a lighter load than the label says, a summary that its own
samples contradict, medians over too few requests, and numbers that go against physics or against
the other cells. Every threshold comes from `reportgen.tolerances` (`Thresholds`).

Severity: `error` when a number cannot stand as a measurement of what its label says (the cell
failed, requests failed); `warning` when the number probably stands but a reader should know a
caveat, or when it looks implausible and needs a human look. Each lint id has one severity.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from reportgen import tolerances as tol
from reportgen.errors import Severity
from reportgen.metrics.registry import MetricSet, MetricValue, metric_id
from reportgen.model import CanonicalRun, DecodeCell, MatrixRun, context_label
from reportgen.stats import close, median

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


def _finding(
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


def _fmt(x: float, digits: int = 3) -> str:
    """`x` to `digits` significant figures; integers with thousands separators from 10**digits."""
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    if abs(x) >= 10**digits:
        return f"{x:,.0f}"
    return f"{x:.{max(0, digits - 1 - math.floor(math.log10(abs(x))))}f}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _fmt_pair(a: float, b: float) -> tuple[str, str]:
    """`a` and `b` with just enough figures that they read differently (when they differ)."""
    for digits in range(3, 9):
        shown = _fmt(a, digits), _fmt(b, digits)
        if shown[0] != shown[1]:
            return shown
    return _fmt(a, 9), _fmt(b, 9)


def _label(context: int, concurrency: int) -> str:
    return f"{context_label(context)} x {concurrency}"


def _matrix_runs(metrics: MetricSet) -> Iterator[MatrixRun]:
    return (r for r in metrics.runs if isinstance(r, MatrixRun))


def _cell_ids(metrics: MetricSet, cell: DecodeCell) -> tuple[str, ...]:
    where = {"context": cell.context_tokens, "concurrency": cell.concurrency}
    ids = (metric_id(key, **where) for key in DECODE_KEYS)
    return tuple(i for i in ids if metrics.get(i) is not None)


def _cells(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """Cell status, grid holes, failed and incomplete requests, load and aggregate source."""
    for run in _matrix_runs(metrics):
        file = run.source.label
        present = {(c.context_tokens, c.concurrency) for c in run.cells}
        for ctx in run.contexts:
            for conc in run.concurrencies:
                if (ctx, conc) not in present:
                    yield _finding(
                        "cell-missing",
                        file,
                        "/results",
                        _label(ctx, conc),
                        f"no result for context {ctx:,} at concurrency {conc}",
                        f"The run has no {_label(ctx, conc)} cell, although it measured that "
                        "context and that concurrency elsewhere.",
                        context=ctx,
                        concurrency=conc,
                    )
        for cell in run.cells:
            yield from _cell(metrics, file, cell, t)


def _cell(metrics: MetricSet, file: str, cell: DecodeCell, t: tol.Thresholds) -> Iterator[Finding]:
    label, conc = _label(cell.context_tokens, cell.concurrency), cell.concurrency
    where = {"context": cell.context_tokens, "concurrency": conc}
    if cell.status != "ok":
        skipped = cell.status in ("skipped_capacity", "skipped_user")
        yield _finding(
            "cell-skipped" if skipped else "cell-invalid",
            file,
            cell.pointer,
            label,
            f"status {cell.status}",
            f"The {label} cell was not measured ({cell.reason or cell.status}).",
            context=cell.context_tokens,
            concurrency=cell.concurrency,
        )
        return
    ids = _cell_ids(metrics, cell)
    if cell.num_errors > 0:
        yield _finding(
            "requests-failed",
            file,
            f"{cell.pointer}/num_errors",
            label,
            f"num_errors {cell.num_errors}, {len(cell.samples)} request samples",
            f"{_count(cell.num_errors, 'request')} failed in the {label} cell, so for part of its "
            f"window fewer than {conc} streams were decoding.",
            ids,
            context=cell.context_tokens,
            concurrency=cell.concurrency,
        )
    open_ = sum(not s.completed for s in cell.samples)
    allowed = conc * t.incomplete_per_slot
    if open_ > allowed:
        yield _finding(
            "requests-incomplete",
            file,
            f"{cell.pointer}/request_samples",
            label,
            f"{open_} of {len(cell.samples)} request samples not completed; the window end "
            f"can cut off at most {allowed}",
            f"{open_} requests of the {label} cell stopped before completing, more than the "
            f"{allowed} the end of the measurement window can cut off.",
            ids,
            context=cell.context_tokens,
            concurrency=cell.concurrency,
        )
    eff = cell.effective_concurrency
    if eff is not None and eff < t.min_effective_concurrency * conc:
        yield _finding(
            "effective-concurrency-low",
            file,
            f"{cell.pointer}/effective_concurrency",
            label,
            f"effective concurrency {eff:.2f} for {conc} requested "
            f"(below {t.min_effective_concurrency:g} x {conc})",
            f"The server ran {eff:.1f} requests at a time on average in the {label} cell instead "
            f"of {conc}, so the cell measured a lighter load than its label says.",
            ids,
            context=cell.context_tokens,
            concurrency=cell.concurrency,
        )
    if cell.aggregate_source != STREAMED_USAGE:
        words = SOURCE_WORDS.get(cell.aggregate_source, f"'{cell.aggregate_source}'")
        yield _finding(
            "aggregate-source",
            file,
            f"{cell.pointer}/aggregate_source",
            label,
            f"aggregate_source {cell.aggregate_source}, expected {STREAMED_USAGE}",
            f"The {label} throughput was counted from {words} instead of the server's streamed "
            "usage, so it may not compare with the other cells.",
            (metric_id("decode.aggregate_tok_s", **where),),
            context=cell.context_tokens,
            concurrency=cell.concurrency,
        )


# Metric key -> (summary field, tolerance, what the summary is, what the value is computed from,
# whether the value's pointer is the summary field's parent rather than a sibling).
SUMMARY_CHECKS: dict[str, tuple[str, tol.Tolerance, str, str, bool]] = {
    "decode.ttft_s": ("ttft_p50", tol.SUMMARY_SECONDS, "median TTFT", "request samples", False),
    "decode.per_request_tok_s": (
        "output_tps_per_user_p50",
        tol.SUMMARY_RATE,
        "median per-request speed",
        "request samples",
        False,
    ),
    "decode.aggregate_tok_s": (
        "aggregate_tps",
        tol.AGGREGATE,
        "aggregate throughput",
        "token count and window",
        False,
    ),
    "prefill.tok_s": (
        "tok_per_sec",
        tol.PREFILL_RATE,
        "prefill rate",
        "prompt tokens and TTFT",
        True,
    ),
    "canonical.output_tok_s": ("tokSOut", tol.LMX_SUMMARY, "output speed", "samples", False),
    "canonical.ttft_ms": ("ttftMs", tol.LMX_SUMMARY, "TTFT", "samples", False),
    "canonical.prefill_tok_s": ("tokSPrefill", tol.LMX_SUMMARY, "prefill rate", "samples", False),
}


def _value_cell(v: MetricValue) -> str | None:
    if v.key.startswith("canonical."):
        return f"canonical x {v.concurrency}"
    if v.context is None:
        return None
    if v.concurrency is None:
        return f"{context_label(v.context)} prefill"
    return _label(v.context, v.concurrency)


def _summaries(metrics: MetricSet) -> Iterator[Finding]:
    """Each file's own summary value against the value computed from its samples or fields."""
    for v in metrics.values:
        check = SUMMARY_CHECKS.get(v.key)
        if check is None or v.summary is None or v.source == "summary":
            continue
        field, t, what, basis, parent = check
        if close(v.summary, v.value, rel=t.rel, abs_=t.abs_):
            continue
        shown, computed = _fmt_pair(v.summary, v.value)
        base = v.pointer if parent else v.pointer.rsplit("/", 1)[0]
        change = v.summary / v.value - 1 if v.value else math.inf
        yield _finding(
            "summary-disagrees",
            v.file,
            f"{base}/{field}",
            _value_cell(v),
            f"{field} {shown} {v.unit} vs {computed} {v.unit} from the {basis} ({change:+.2%})",
            f"The file's own {what} ({shown} {v.unit}) does not match the {computed} {v.unit} "
            f"its {basis} give.",
            (v.id,),
            v.context,
            v.concurrency,
        )


def _few_samples(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """Medians over fewer than `min_samples` requests (decode cells) or iterations (lmx)."""
    by_cell: dict[tuple[str, int, int], list[MetricValue]] = {}
    for v in metrics.values:
        if (
            v.key in ("decode.ttft_s", "decode.per_request_tok_s")
            and v.source == "samples"
            and v.n is not None
            and v.n < t.min_samples
            and v.context is not None
            and v.concurrency is not None
        ):
            by_cell.setdefault((v.file, v.context, v.concurrency), []).append(v)
    for (file, ctx, conc), values in by_cell.items():
        n = min(v.n or 0 for v in values)
        label = _label(ctx, conc)
        yield _finding(
            "few-samples",
            file,
            values[0].pointer,
            label,
            "; ".join(f"{SHORT[v.key]} median over {_count(v.n or 0, 'request')}" for v in values),
            f"The medians of the {label} cell rest on only {_count(n, 'request')}; with fewer than "
            f"{t.min_samples} one unusual request decides them.",
            (v.id for v in values),
            ctx,
            conc,
        )
    for run in metrics.runs:
        if not isinstance(run, CanonicalRun) or not run.samples:
            continue
        iterations = len({s.iteration for s in run.samples})
        if iterations >= t.min_samples:
            continue
        ids = [v.id for v in metrics.values if v.file == run.source.label]
        yield _finding(
            "few-samples",
            run.source.label,
            run.samples[0].pointer.rsplit("/", 1)[0],
            f"canonical x {run.concurrency}",
            f"{_count(iterations, 'timed iteration')}",
            f"The canonical run with {_count(run.concurrency, 'request')} at a time reports "
            f"medians over only {_count(iterations, 'timed iteration')}; with fewer than "
            f"{t.min_samples} one unusual iteration decides them.",
            ids,
            concurrency=run.concurrency,
        )


def _contexts(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """Prompt tokens (cold prefill, decode samples) against the context the label says."""
    for run in _matrix_runs(metrics):
        file = run.source.label
        points: list[tuple[str, str, int, int, int | None, tuple[str, ...]]] = [
            (
                p.pointer + "/prompt_tokens",
                f"{context_label(p.context_tokens)} prefill",
                p.context_tokens,
                p.prompt_tokens,
                None,
                (metric_id("prefill.prompt_tokens", context=p.context_tokens),),
            )
            for p in run.prefill
        ]
        for cell in run.cells:
            tokens = median(float(s.input_tokens) for s in cell.samples)
            if cell.status == "ok" and tokens is not None:
                label = _label(cell.context_tokens, cell.concurrency)
                points.append(
                    (
                        cell.pointer + "/request_samples",
                        label,
                        cell.context_tokens,
                        round(tokens),
                        cell.concurrency,
                        _cell_ids(metrics, cell),
                    )
                )
        for pointer, label, ctx, tokens, conc, ids in points:
            if ctx == 0 or abs(tokens / ctx - 1) <= t.context_mismatch:
                continue
            change = tokens / ctx - 1
            yield _finding(
                "context-mismatch",
                file,
                pointer,
                label,
                f"{tokens:,} prompt tokens (median) for a {ctx:,}-token context ({change:+.1%}, "
                f"allowed {t.context_mismatch:.0%})",
                f"The {label} prompts held {tokens:,} tokens, {abs(change):.0%} "
                f"{'more' if change > 0 else 'fewer'} than the {context_label(ctx)} context "
                "its label says.",
                ids,
                ctx,
                conc,
            )


def _ttft_vs_prefill(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """The lowest-concurrency decode TTFT of each context against its cold-prefill TTFT."""
    lowest: dict[int, MetricValue] = {}
    for v in metrics.values:
        if v.key == "decode.ttft_s" and v.context is not None and v.concurrency is not None:
            best = lowest.get(v.context)
            if best is None or (best.concurrency or 0) > v.concurrency:
                lowest[v.context] = v
    for ctx, decode in sorted(lowest.items()):
        cold = metrics.get(metric_id("prefill.ttft_s", context=ctx))
        if cold is None or decode.value >= t.min_ttft_vs_prefill * cold.value:
            continue
        name, conc = context_label(ctx), decode.concurrency
        yield _finding(
            "decode-ttft-below-prefill",
            decode.file,
            decode.pointer,
            _label(ctx, conc or 0),
            f"median TTFT {_fmt(decode.value)} s at concurrency {conc} vs cold prefill "
            f"{_fmt(cold.value)} s ({decode.value / cold.value:.2f} x, "
            f"below {t.min_ttft_vs_prefill:g} x)",
            f"At concurrency {conc} the {name} requests got their first token after "
            f"{_fmt(decode.value)} s, well under the {_fmt(cold.value)} s a cold {name} prefill "
            f"took: the prefix cache was probably not busted, or the prompts were shorter than "
            f"{name}.",
            (decode.id, cold.id),
            ctx,
            conc,
        )


# (lint id, metric key, axis, direction physics forbids, message template). Templates get
# hi/lo (the two cells' axis labels), at (the fixed coordinate) and change (signed percent).
TRENDS: tuple[tuple[str, str, str, int, str], ...] = (
    (
        "throughput-rises-with-context",
        "decode.aggregate_tok_s",
        "context",
        +1,
        "With {at} concurrent requests, all requests together decode faster at {hi} than at {lo} "
        "({change}); a longer context should not decode faster.",
    ),
    (
        "speed-rises-with-context",
        "decode.per_request_tok_s",
        "context",
        +1,
        "With {at} concurrent requests, each request decodes faster at {hi} than at {lo} "
        "({change}); a longer context should not decode faster.",
    ),
    (
        "ttft-falls-with-context",
        "decode.ttft_s",
        "context",
        -1,
        "With {at} concurrent requests, the first token comes sooner at {hi} than at {lo} "
        "({change}); a longer prompt should not prefill sooner.",
    ),
    (
        "throughput-falls-with-concurrency",
        "decode.aggregate_tok_s",
        "concurrency",
        -1,
        "At {at}, {hi} concurrent requests together decode slower than {lo} ({change}); more "
        "load should raise total throughput until the server saturates.",
    ),
    (
        "speed-rises-with-concurrency",
        "decode.per_request_tok_s",
        "concurrency",
        +1,
        "At {at}, each of {hi} concurrent requests decodes faster than each of {lo} ({change}); "
        "sharing the server should not make a request faster.",
    ),
    (
        "ttft-falls-with-concurrency",
        "decode.ttft_s",
        "concurrency",
        -1,
        "At {at}, the first token comes sooner with {hi} concurrent requests than with {lo} "
        "({change}); more requests waiting for prefill should not shorten the wait.",
    ),
)


def _axis_label(v: MetricValue, axis: str) -> str:
    return context_label(v.context or 0) if axis == "context" else str(v.concurrency)


def _trends(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """Each cell against the cells before it along context or concurrency (the other fixed)."""
    for lint_id, key, axis, forbidden, template in TRENDS:
        lines: dict[int, list[MetricValue]] = {}
        for v in metrics.values:
            if v.key == key and v.context is not None and v.concurrency is not None:
                fixed = v.concurrency if axis == "context" else v.context
                lines.setdefault(fixed, []).append(v)
        for fixed, line in sorted(lines.items()):
            line.sort(key=lambda v: (v.context or 0) if axis == "context" else (v.concurrency or 0))
            for i, v in enumerate(line[1:], 1):
                # the earlier cell that makes the strongest case: lowest for a forbidden rise,
                # highest for a forbidden fall; the nearest one on ties
                ref = max(reversed(line[:i]), key=lambda r: -forbidden * r.value)
                if ref.value <= 0:
                    continue
                change = v.value / ref.value - 1
                if forbidden * change <= t.trend_margin:
                    continue
                at = str(fixed) if axis == "context" else context_label(fixed)
                unit = v.unit
                yield _finding(
                    lint_id,
                    v.file,
                    v.pointer,
                    _label(v.context or 0, v.concurrency or 0),
                    f"{_fmt(v.value)} {unit} at {_label(v.context or 0, v.concurrency or 0)} vs "
                    f"{_fmt(ref.value)} {unit} at {_label(ref.context or 0, ref.concurrency or 0)}"
                    f" ({change:+.1%}, noise margin {t.trend_margin:.0%})",
                    template.format(
                        at=at,
                        hi=_axis_label(v, axis),
                        lo=_axis_label(ref, axis),
                        change=f"{change:+.0%}",
                    ),
                    (ref.id, v.id),
                    v.context,
                    v.concurrency,
                )


def _aggregate_bound(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """All requests together against concurrency x the fastest single request."""
    factor = 1 + t.aggregate_margin
    for run in _matrix_runs(metrics):
        for cell in run.cells:
            where = {"context": cell.context_tokens, "concurrency": cell.concurrency}
            agg = metrics.get(metric_id("decode.aggregate_tok_s", **where))
            speeds = [1 / s.itl_s for s in cell.samples if s.output_tokens >= 2 and s.itl_s > 0]
            if cell.status != "ok" or agg is None or not speeds:
                continue
            conc, fastest = cell.concurrency, max(speeds)
            if agg.value <= conc * fastest * factor:
                continue
            label = _label(cell.context_tokens, conc)
            yield _finding(
                "aggregate-above-requests",
                agg.file,
                agg.pointer,
                label,
                f"aggregate {_fmt(agg.value)} tok/s > {conc} x fastest request "
                f"{_fmt(fastest)} tok/s x {factor:g} = {_fmt(conc * fastest * factor)} tok/s",
                f"All requests of the {label} cell together produced {_fmt(agg.value)} tok/s, "
                f"more than {conc} streams at its fastest request's {_fmt(fastest)} tok/s can; "
                "the aggregate and the request samples do not describe the same run.",
                _cell_ids(metrics, cell),
                context=cell.context_tokens,
                concurrency=cell.concurrency,
            )


def _group_bound(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """An lmx group throughput against the sum of its requests' own speeds."""
    factor = 1 + t.aggregate_margin
    for run in metrics.runs:
        if not isinstance(run, CanonicalRun) or run.concurrency < 2 or not run.samples:
            continue
        sums: dict[int, float] = {}
        for s in run.samples:
            sums[s.iteration] = sums.get(s.iteration, 0.0) + s.tok_s_out
        bound, group = max(sums.values()), run.summary.tok_s_out
        if group <= bound * factor:
            continue
        conc = run.concurrency
        yield _finding(
            "aggregate-above-requests",
            run.source.label,
            run.samples[0].pointer.rsplit("/samples", 1)[0] + "/tokSOut",
            f"canonical x {conc}",
            f"tokSOut {_fmt(group)} tok/s > best iteration's sum of request speeds "
            f"{_fmt(bound)} tok/s x {factor:g}",
            f"The {conc} requests together are reported at {_fmt(group)} tok/s, more than the "
            f"sum of their own speeds ({_fmt(bound)} tok/s) allows.",
            (metric_id("canonical.output_tok_s", concurrency=conc),),
            concurrency=conc,
        )


def _tool_warnings(metrics: MetricSet) -> Iterator[Finding]:
    """Warnings the benchmark tool itself wrote into an lmx run."""
    for run in metrics.runs:
        if isinstance(run, CanonicalRun):
            base = run.samples[0].pointer.rsplit("/samples", 1)[0] if run.samples else ""
            for i, text in enumerate(run.warnings):
                yield _finding(
                    "tool-warning",
                    run.source.label,
                    f"{base}/warnings/{i}",
                    f"canonical x {run.concurrency}",
                    text,
                    f"{run.source.tool} warned about this run: {text.rstrip('.')}.",
                    concurrency=run.concurrency,
                )


_RANK = {"error": 0, "warning": 1}


def _order(f: Finding) -> tuple[int, str, int, int, str, str, str]:
    ctx = -1 if f.context is None else f.context
    conc = -1 if f.concurrency is None else f.concurrency
    return (_RANK[f.severity], f.file, ctx, conc, f.id, f.pointer, f.evidence)


def lint(metrics: MetricSet, thresholds: tol.Thresholds = tol.THRESHOLDS) -> tuple[Finding, ...]:
    """Every finding over `metrics` and its runs: errors first, then by file, cell and lint id."""
    t = thresholds
    found = [
        *_cells(metrics, t),
        *_summaries(metrics),
        *_few_samples(metrics, t),
        *_contexts(metrics, t),
        *_ttft_vs_prefill(metrics, t),
        *_trends(metrics, t),
        *_aggregate_bound(metrics, t),
        *_group_bound(metrics, t),
        *_tool_warnings(metrics),
    ]
    return tuple(sorted(found, key=_order))
