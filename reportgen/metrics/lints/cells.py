"""Per-cell lints: each cell or run judged on its own (status, failed and unfinished requests,
load, aggregate source, prompt sizes, the tool's own warnings). Summaries against samples and
sample counts are in `samples`. Each lint is one function, registered with its definition by
`finds`.
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
    finds,
    matrix_runs,
)
from reportgen.metrics.registry import MetricSet
from reportgen.model import CanonicalRun, DecodeCell, SweepRun, context_label
from reportgen.samples import packed
from reportgen.stats import median

SKIPPED = ("skipped_capacity", "skipped_user")


def _cells(metrics: MetricSet) -> Iterator[tuple[str, DecodeCell]]:
    """(file, cell) for every decode cell of every matrix run, in the runs' order."""
    for run in matrix_runs(metrics):
        for cell in run.cells:
            yield run.source.label, cell


def _measured(metrics: MetricSet) -> Iterator[tuple[str, DecodeCell]]:
    """(file, cell) for every decode cell that was measured."""
    return ((file, cell) for file, cell in _cells(metrics) if cell.status == "ok")


def _not_measured(lint_id: str, file: str, cell: DecodeCell) -> Finding:
    label = cell_label(cell.context_tokens, cell.concurrency)
    return finding(
        lint_id,
        file,
        cell.pointer,
        label,
        f"status {cell.status}",
        f"The {label} cell was not measured ({cell.reason or cell.status}).",
        context=cell.context_tokens,
        concurrency=cell.concurrency,
    )


@finds(
    "cell-invalid",
    severity="error",
    rule="a decode cell failed, raised or looped: no measurement",
    title="Cells that failed: no measurement",
    why="No number can stand for these cells: the benchmark tool reports them as failed.",
)
def cell_invalid(metrics: MetricSet, _: tol.Thresholds) -> Iterator[Finding]:
    """Decode cells, then load points, that failed, raised or looped."""
    for file, cell in _cells(metrics):
        if cell.status != "ok" and cell.status not in SKIPPED:
            yield _not_measured("cell-invalid", file, cell)
    for run in metrics.runs:
        if not isinstance(run, SweepRun):
            continue
        for point in run.points:
            if point.status != "ok":
                yield finding(
                    "cell-invalid",
                    run.source.label,
                    point.pointer,
                    point.label,
                    f"status {point.status}",
                    f"The {point.label} load point was not measured "
                    f"({point.reason or point.status}).",
                    concurrency=point.concurrency,
                )


@finds(
    "requests-failed",
    severity="error",
    rule="a measured cell counted failed requests",
    title="Cells with failed requests",
    why="Part of the window ran with fewer streams than the label says.",
)
def requests_failed(metrics: MetricSet, _: tol.Thresholds) -> Iterator[Finding]:
    """Measured decode cells that counted failed requests."""
    for file, cell in _measured(metrics):
        if cell.num_errors <= 0:
            continue
        label, conc = cell_label(cell.context_tokens, cell.concurrency), cell.concurrency
        yield finding(
            "requests-failed",
            file,
            f"{cell.pointer}/num_errors",
            label,
            f"num_errors {cell.num_errors}, {len(cell.samples)} request samples",
            f"{count(cell.num_errors, 'request')} failed in the {label} cell, so for part of its "
            f"window fewer than {conc} streams were decoding; the article shows its values as "
            "not measurable.",
            cell_ids(metrics, cell, file),
            context=cell.context_tokens,
            concurrency=cell.concurrency,
        )


@finds(
    "load-requests-failed",
    severity="warning",
    rule="requests of a load point failed",
    title="Load points with failed requests",
    why="Their latency statistics cover only the requests that completed, so the tail "
    "understates what the failed requests met.",
)
def load_requests_failed(metrics: MetricSet, _: tol.Thresholds) -> Iterator[Finding]:
    """Measured load points that lost requests."""
    for run in metrics.runs:
        if not isinstance(run, SweepRun):
            continue
        file = run.source.label
        for point in run.points:
            if point.status != "ok" or not point.requests_failed:
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
                "completed, so the article shows them as not measurable.",
                ids,
                concurrency=point.concurrency,
            )


@finds(
    "cell-skipped",
    severity="warning",
    rule="a decode cell was skipped (KV capacity or on request)",
    title="Cells skipped",
    why="The run did not measure these cells, and says why.",
)
def cell_skipped(metrics: MetricSet, _: tol.Thresholds) -> Iterator[Finding]:
    """Decode cells the bench skipped: they did not fit the KV cache, or were asked not to run."""
    for file, cell in _cells(metrics):
        if cell.status in SKIPPED:
            yield _not_measured("cell-skipped", file, cell)


@finds(
    "cell-missing",
    severity="warning",
    rule="a context x concurrency cell of the grid is absent",
    title="Cells of the grid the run does not have",
    why="The run measured these contexts and concurrencies elsewhere, but not together.",
)
def cell_missing(metrics: MetricSet, _: tol.Thresholds) -> Iterator[Finding]:
    """Holes in a matrix run's grid of contexts x concurrencies."""
    for run in matrix_runs(metrics):
        present = {(c.context_tokens, c.concurrency) for c in run.cells}
        for ctx in run.contexts:
            for conc in run.concurrencies:
                if (ctx, conc) not in present:
                    yield finding(
                        "cell-missing",
                        run.source.label,
                        "/results",
                        cell_label(ctx, conc),
                        f"no result for context {ctx:,} at concurrency {conc}",
                        f"The run has no {cell_label(ctx, conc)} cell, although it measured that "
                        "context and that concurrency elsewhere.",
                        context=ctx,
                        concurrency=conc,
                    )


@finds(
    "requests-incomplete",
    severity="warning",
    rule="more unfinished requests than the window end can cut",
    title="Cells with more unfinished requests than the window's end explains",
    why="Streams broke off before they completed, more than the end of the window cuts.",
)
def requests_incomplete(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """Measured cells with more unfinished requests than one cut-off stream per slot."""
    for file, cell in _measured(metrics):
        open_ = packed(cell.samples).completed.count(0)  # a column: no object per request
        allowed = cell.concurrency * t.incomplete_per_slot
        if open_ <= allowed:
            continue
        label = cell_label(cell.context_tokens, cell.concurrency)
        yield finding(
            "requests-incomplete",
            file,
            f"{cell.pointer}/request_samples",
            label,
            f"{open_} of {len(cell.samples)} request samples not completed; the window end "
            f"can cut off at most {allowed}",
            f"{open_} requests of the {label} cell stopped before completing, more than the "
            f"{allowed} the end of the measurement window can cut off.",
            cell_ids(metrics, cell, file),
            context=cell.context_tokens,
            concurrency=cell.concurrency,
        )


@finds(
    "effective-concurrency-low",
    severity="warning",
    rule="mean running requests below min_effective_concurrency x requested",
    title="Cells that ran a lighter load than their concurrency",
    why="The server ran fewer requests at a time than the label says, so these cells measured a "
    "lighter load.",
)
def effective_concurrency_low(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """Measured cells whose server ran fewer requests at a time than the label says."""
    for file, cell in _measured(metrics):
        eff, conc = cell.effective_concurrency, cell.concurrency
        if eff is None or eff >= t.min_effective_concurrency * conc:
            continue
        label = cell_label(cell.context_tokens, conc)
        yield finding(
            "effective-concurrency-low",
            file,
            f"{cell.pointer}/effective_concurrency",
            label,
            f"effective concurrency {eff:.2f} for {conc} requested "
            f"(below {t.min_effective_concurrency:g} x {conc})",
            f"The server ran {eff:.1f} requests at a time on average in the {label} cell instead "
            f"of {conc}, so the cell measured a lighter load than its label says.",
            cell_ids(metrics, cell, file),
            context=cell.context_tokens,
            concurrency=cell.concurrency,
        )


@finds(
    "aggregate-source",
    severity="warning",
    rule="aggregate not counted from streamed usage",
    title="Aggregates not counted from streamed usage",
    why="These aggregates were not counted from the server's streamed usage, so they may not "
    "compare with the other cells.",
)
def aggregate_source(metrics: MetricSet, _: tol.Thresholds) -> Iterator[Finding]:
    """Measured cells whose aggregate was not counted from the server's streamed usage."""
    for file, cell in _measured(metrics):
        # llama-bench measures offline: its aggregate is its own timing, with no stream to count
        if cell.aggregate_source in (STREAMED_USAGE, "llama-bench"):
            continue
        label = cell_label(cell.context_tokens, cell.concurrency)
        where = {"context": cell.context_tokens, "concurrency": cell.concurrency}
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


@finds(
    "context-mismatch",
    severity="warning",
    rule="prompt tokens differ from the context label",
    title="Prompts whose size differs from their context",
    why="The prompts held a different number of tokens than the context label says.",
)
def context_mismatch(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
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


@finds(
    "tool-warning",
    severity="warning",
    rule="the benchmark tool wrote a warning into the file",
    title="Warnings the benchmark tool wrote",
    why="The benchmark tool itself flagged these runs.",
)
def tool_warning(metrics: MetricSet, _: tol.Thresholds) -> Iterator[Finding]:
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


@finds(
    "read-warning",
    severity="warning",
    rule="reading a run file found a problem in it: a summary that disagrees with its own data, "
    "or a known artefact of the tool that wrote it",
    title="Problems found while reading the run files",
    why="The run files contradict themselves here, or show a known artefact of the tool that "
    "wrote them; the numbers reportgen shows are computed as the metric definitions say.",
)
def read_warning(metrics: MetricSet, _: tol.Thresholds) -> Iterator[Finding]:
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
