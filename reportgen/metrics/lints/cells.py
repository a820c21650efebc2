"""Per-cell lints: each cell or run judged on its own (status, failed and unfinished requests,
load, aggregate source, prompt sizes, the tool's own warnings). Summaries against samples and
sample counts are in `samples`.
"""

from __future__ import annotations

from collections.abc import Iterator

from reportgen import tolerances as tol
from reportgen.metrics.lints.findings import (
    SOURCE_WORDS,
    STREAMED_USAGE,
    Finding,
    cell_ids,
    cell_label,
    count,
    finding,
    matrix_runs,
)
from reportgen.metrics.registry import MetricSet
from reportgen.model import CanonicalRun, DecodeCell, SweepRun, context_label
from reportgen.samples import packed
from reportgen.stats import median


def cells(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """Cell status, grid holes, failed and incomplete requests, load and aggregate source."""
    for run in matrix_runs(metrics):
        file = run.source.label
        present = {(c.context_tokens, c.concurrency) for c in run.cells}
        for ctx in run.contexts:
            for conc in run.concurrencies:
                if (ctx, conc) not in present:
                    yield finding(
                        "cell-missing",
                        file,
                        "/results",
                        cell_label(ctx, conc),
                        f"no result for context {ctx:,} at concurrency {conc}",
                        f"The run has no {cell_label(ctx, conc)} cell, although it measured that "
                        "context and that concurrency elsewhere.",
                        context=ctx,
                        concurrency=conc,
                    )
        for cell in run.cells:
            yield from _cell(metrics, file, cell, t)


def load_points(metrics: MetricSet) -> Iterator[Finding]:
    """Load points that failed, and those that lost requests."""
    for run in metrics.runs:
        if not isinstance(run, SweepRun):
            continue
        file = run.source.label
        for point in run.points:
            if point.status != "ok":
                yield finding(
                    "cell-invalid",
                    file,
                    point.pointer,
                    point.label,
                    f"status {point.status}",
                    f"The {point.label} load point was not measured "
                    f"({point.reason or point.status}).",
                    concurrency=point.concurrency,
                )
                continue
            if not point.requests_failed:
                continue
            sent = (point.requests_ok or 0) + point.requests_failed
            ids = [
                v.id
                for v in metrics.values
                if v.file == file and v.point == point.label and v.stat != "n"
                if v.key in ("load.ttft_s", "load.itl_s", "load.latency_s")
            ]
            yield finding(
                "load-requests-failed",
                file,
                point.pointer,
                point.label,
                f"{point.requests_failed} of {sent} requests failed",
                f"{count(point.requests_failed, 'request')} of the {point.label} load point's "
                f"{sent} failed; its latencies are those of the {point.requests_ok} that "
                "completed.",
                ids,
                concurrency=point.concurrency,
            )


def _cell(metrics: MetricSet, file: str, cell: DecodeCell, t: tol.Thresholds) -> Iterator[Finding]:
    label, conc = cell_label(cell.context_tokens, cell.concurrency), cell.concurrency
    where = {"context": cell.context_tokens, "concurrency": conc}
    if cell.status != "ok":
        skipped = cell.status in ("skipped_capacity", "skipped_user")
        yield finding(
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
    ids = cell_ids(metrics, cell, file)
    if cell.num_errors > 0:
        yield finding(
            "requests-failed",
            file,
            f"{cell.pointer}/num_errors",
            label,
            f"num_errors {cell.num_errors}, {len(cell.samples)} request samples",
            f"{count(cell.num_errors, 'request')} failed in the {label} cell, so for part of its "
            f"window fewer than {conc} streams were decoding.",
            ids,
            context=cell.context_tokens,
            concurrency=cell.concurrency,
        )
    open_ = packed(cell.samples).completed.count(0)  # a column: no object per request
    allowed = conc * t.incomplete_per_slot
    if open_ > allowed:
        yield finding(
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
        yield finding(
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
    # llama-bench measures offline: its aggregate is its own timing, with no stream to count
    if cell.aggregate_source not in (STREAMED_USAGE, "llama-bench"):
        words = SOURCE_WORDS.get(cell.aggregate_source, f"'{cell.aggregate_source}'")
        evidence = f"aggregate_source {cell.aggregate_source}, expected {STREAMED_USAGE}"
        if cell.server_counter is not None:
            name, counted = cell.server_counter
            words = f"the server's {name} counter ({counted:,.0f} tokens in the window)"
            streamed = cell.window_output_tokens
            if streamed is not None:
                evidence += f"; the clients' streamed usage counted {streamed:,} tokens"
                if counted > 0:
                    evidence += f" ({streamed / counted:.2f}x the counter)"
        yield finding(
            "aggregate-source",
            file,
            f"{cell.pointer}/aggregate_source",
            label,
            evidence,
            f"The {label} throughput was counted from {words} instead of the server's streamed "
            "usage, so it may not compare with the other cells.",
            _ids(metrics.id_of("decode.aggregate_tok_s", run=metrics.run_of(file), **where)),
            context=cell.context_tokens,
            concurrency=cell.concurrency,
        )


def _ids(*ids: str | None) -> tuple[str, ...]:
    return tuple(i for i in ids if i is not None)


def contexts(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """Prompt tokens (cold prefill, decode samples) against the context the label says."""
    for run in matrix_runs(metrics):
        file = run.source.label
        run_id = metrics.run_of(file)
        points: list[tuple[str, str, int, int, int | None, tuple[str, ...]]] = [
            (
                p.pointer + "/prompt_tokens",
                f"{context_label(p.context_tokens)} prefill",
                p.context_tokens,
                p.prompt_tokens + p.cached_tokens,
                None,
                _ids(
                    metrics.id_of(
                        "prefill.prompt_tokens", run=run_id, context=p.context_tokens, point=p.point
                    )
                ),
            )
            for p in run.prefill
        ]
        for cell in run.cells:
            tokens = median(map(float, packed(cell.samples).input_tokens))
            if cell.status == "ok" and tokens is not None:
                label = cell_label(cell.context_tokens, cell.concurrency)
                points.append(
                    (
                        cell.pointer + "/request_samples",
                        label,
                        cell.context_tokens,
                        round(tokens),
                        cell.concurrency,
                        cell_ids(metrics, cell, file),
                    )
                )
        for pointer, label, ctx, tokens, conc, ids in points:
            if ctx == 0 or abs(tokens / ctx - 1) <= t.context_mismatch:
                continue
            change = tokens / ctx - 1
            yield finding(
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


def tool_warnings(metrics: MetricSet) -> Iterator[Finding]:
    """Warnings the benchmark tool itself wrote into an lmx run."""
    for run in metrics.runs:
        if isinstance(run, CanonicalRun):
            base = run.samples[0].pointer.rsplit("/samples", 1)[0] if run.samples else ""
            for i, text in enumerate(run.warnings):
                yield finding(
                    "tool-warning",
                    run.source.label,
                    f"{base}/warnings/{i}",
                    f"canonical x {run.concurrency}",
                    text,
                    f"{run.source.tool} warned about this run: {text.rstrip('.')}.",
                    concurrency=run.concurrency,
                )


def read_warnings(metrics: MetricSet) -> Iterator[Finding]:
    """The warnings reading the run files gave, kept with the data's other findings, so an
    article and `check` show what `reportgen validate` shows."""
    for p in metrics.read_warnings:
        yield finding(
            "read-warning",
            p.path,
            p.pointer,
            None,
            f"line {p.line}, {p.pointer or 'the whole file'}",
            p.message[:1].upper() + p.message[1:].rstrip(".") + ".",
        )
