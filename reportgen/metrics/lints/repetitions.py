"""Repetition lints: a cell that several files of one run measure again (r1, r2, ...) is the
median of its repetitions (`reportgen.metrics.repeats`); these name each repetition that is not
in that median (its cell failed, or was skipped), and each one that is in it on fewer requests
than its siblings, so that a median of four out of five is never silently one of five.
"""

from __future__ import annotations

from collections.abc import Iterator

from reportgen import tolerances as tol
from reportgen.metrics.lints.findings import Finding, cell_label, count, finding, finds
from reportgen.metrics.registry import SPREAD_OF, CellState, MetricSet
from reportgen.model import MatrixRun
from reportgen.stats import median

Where = tuple[str | None, str, int | None, int | None, str | None, float | None]
# A repetition kept with fewer request samples than this share of its siblings' median count.
SHORT_SHARE = 0.5


def _where(c: CellState) -> Where:
    return (c.run, c.kind, c.context, c.concurrency, c.point, c.rate)


def _label(c: CellState) -> str:
    if c.kind == "load":
        return str(c.point)
    if c.kind == "prefill":
        return f"{c.context:,} prefill" if c.context is not None else "prefill"
    assert c.context is not None and c.concurrency is not None
    label = cell_label(c.context, c.concurrency)
    return f"{label} {c.point}" if c.point else label


def _repeated(metrics: MetricSet) -> Iterator[list[CellState]]:
    """Each cell that two or more files of one run have, as those files' states."""
    groups: dict[Where, list[CellState]] = {}
    for c in metrics.cells:
        groups.setdefault(_where(c), []).append(c)
    for states in groups.values():
        if len({c.file for c in states}) > 1:
            yield states


def _combined_ids(metrics: MetricSet, c: CellState) -> tuple[str, ...]:
    """The ids of the cell's values that its repetitions combine into (their medians), of the
    bare values and of each statistic with a spread (`X.p99`): a lint on the cell is on each."""
    at = (c.run, c.context, c.concurrency, c.point)
    return tuple(
        v.id
        for v in metrics.values
        if v.source == "repetitions"
        and (v.stat is None or v.stat in SPREAD_OF)
        and (v.run, v.context, v.concurrency, v.point) == at
    )


@finds(
    "repetition-left-out",
    severity="warning",
    rule="a repetition of a repeated cell was not measured, so the median leaves it out",
    title="Repetitions left out of a cell's median",
    why="The cell's value and its interval rest on fewer repetitions than the run made: the "
    "ones left out did not measure the cell, and say why.",
)
def repetition_left_out(metrics: MetricSet, _: tol.Thresholds) -> Iterator[Finding]:
    """Each file whose repetition of a repeated cell failed or was skipped."""
    for states in _repeated(metrics):
        kept = [c for c in states if c.status == "ok"]
        for c in states:
            if c.status == "ok" or not kept:
                continue  # a cell no repetition measured is `cell-invalid`'s
            label = _label(c)
            yield finding(
                "repetition-left-out",
                c.file,
                c.pointer,
                label,
                f"status {c.status}; the value is the median of "
                f"{count(len(kept), 'repetition')} of {len(states)}",
                f"The {label} repetition in this file is left out of the cell's median and "
                f"interval ({c.reason or c.status}).",
                _combined_ids(metrics, c),
                context=c.context,
                concurrency=c.concurrency,
            )


def _decode_samples(metrics: MetricSet) -> dict[tuple[str, Where], int]:
    """(file, where) -> the number of request samples of each measured decode cell."""
    out: dict[tuple[str, Where], int] = {}
    for run in metrics.runs:
        if not isinstance(run, MatrixRun):
            continue
        file = run.source.label
        article_run = metrics.run_of(file)
        for cell in run.cells:
            if cell.status == "ok" and len(cell.samples):
                where = (
                    article_run,
                    "decode",
                    cell.context_tokens,
                    cell.concurrency,
                    cell.point,
                    None,
                )
                out[(file, where)] = len(cell.samples)
    return out


@finds(
    "repetition-short",
    severity="warning",
    rule=f"a repetition holds fewer than {SHORT_SHARE:.0%} of the request samples its siblings "
    "hold (their median count)",
    title="Repetitions with far fewer requests than the others",
    why="The repetition is in the cell's median, but it measured far fewer requests than the "
    "others: its run was cut short or lost requests.",
)
def repetition_short(metrics: MetricSet, _: tol.Thresholds) -> Iterator[Finding]:
    """Each measured repetition of a repeated decode cell with far fewer request samples than
    the median of its siblings' counts."""
    samples = _decode_samples(metrics)
    for states in _repeated(metrics):
        counted = [(c, samples.get((c.file, _where(c)))) for c in states if c.status == "ok"]
        known = [(c, n) for c, n in counted if n is not None]
        if len(known) < 2:
            continue
        typical = median([float(n) for _, n in known])
        if typical is None:
            continue
        for c, n in known:
            if n >= SHORT_SHARE * typical:
                continue
            label = _label(c)
            yield finding(
                "repetition-short",
                c.file,
                f"{c.pointer}/request_samples",
                label,
                f"{n} request samples; the repetitions' median count is {typical:g}",
                f"The {label} repetition in this file measured {count(n, 'request')}, "
                f"against a median of {typical:g} in the cell's {len(known)} repetitions.",
                _combined_ids(metrics, c),
                context=c.context,
                concurrency=c.concurrency,
            )
