"""Per-cell lints about samples: a file's own summary values against the samples they summarise,
and medians that rest on too few requests or iterations. Each lint is one function, registered
with its definition by `finds`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from reportgen import tolerances as tol
from reportgen.metrics.lints.findings import (
    SHORT,
    Finding,
    cell_label,
    count,
    finding,
    finds,
    fmt_pair,
)
from reportgen.metrics.registry import MetricSet, MetricValue
from reportgen.model import CanonicalRun, context_label
from reportgen.stats import close

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
    # A load point's own values: the field is the last part of the value's `summary_pointer`.
    "load.output_tok_s": ("", tol.AGGREGATE, "output throughput", "token count and duration", True),
    "load.ttft_s": ("", tol.SUMMARY_SECONDS, "median TTFT", "request records", True),
    "load.itl_s": ("", tol.SUMMARY_SECONDS, "median ITL", "request records", True),
    "load.latency_s": ("", tol.SUMMARY_SECONDS, "median latency", "request records", True),
    "load.per_request_tok_s": (
        "",
        tol.SUMMARY_RATE,
        "median per-request speed",
        "request records",
        True,
    ),
}


def _value_cell(v: MetricValue) -> str | None:
    if v.key.startswith("canonical."):
        return f"canonical x {v.concurrency}"
    if v.point is not None:
        return v.point
    if v.context is None:
        return None
    if v.concurrency is None:
        return f"{context_label(v.context)} prefill"
    return cell_label(v.context, v.concurrency)


@finds(
    "summary-disagrees",
    severity="warning",
    rule="a file's own summary value disagrees with its data",
    title="Summary values that disagree with their own data",
    why="The file's own summary does not match what its data gives; the article shows the value "
    "computed from the data.",
)
def summary_disagrees(metrics: MetricSet, _: tol.Thresholds) -> Iterator[Finding]:
    """Each file's own summary value against the value computed from its samples or fields."""
    for v in metrics.values:
        check = SUMMARY_CHECKS.get(v.key)
        if check is None or v.summary is None or v.source == "summary":
            continue
        field, t, what, basis, parent = check
        if close(v.summary, v.value, rel=t.rel, abs_=t.abs_):
            continue
        shown, computed = fmt_pair(v.summary, v.value)
        if v.summary_pointer is not None:
            where = v.summary_pointer
            field = where.rsplit("/", 1)[-1]
        else:
            base = v.pointer if parent else v.pointer.rsplit("/", 1)[0]
            where = f"{base}/{field}"
        change = v.summary / v.value - 1 if v.value else math.inf
        yield finding(
            "summary-disagrees",
            v.file,
            where,
            _value_cell(v),
            f"{field} {shown} {v.unit} vs {computed} {v.unit} from the {basis} ({change:+.2%})",
            f"The file's own {what} ({shown} {v.unit}) does not match the {computed} {v.unit} "
            f"its {basis} give.",
            (v.id,),
            v.context,
            v.concurrency,
        )


@finds(
    "few-samples",
    severity="warning",
    rule="a median over fewer than min_samples values",
    title="Medians over very few requests",
    why="With so few requests, one unusual request decides the median.",
)
def few_samples(metrics: MetricSet, t: tol.Thresholds) -> Iterator[Finding]:
    """Medians over fewer than `min_samples` requests (decode cells) or iterations (lmx)."""
    by_cell: dict[tuple[str, int, int], list[MetricValue]] = {}
    for v in metrics.values:
        if (
            v.key in ("decode.ttft_s", "decode.per_request_tok_s")
            and v.stat is None
            and v.source == "samples"
            and v.n is not None
            and v.n < t.min_samples
            and v.context is not None
            and v.concurrency is not None
        ):
            by_cell.setdefault((v.file, v.context, v.concurrency), []).append(v)
    for (file, ctx, conc), values in by_cell.items():
        n = min(v.n or 0 for v in values)
        label = cell_label(ctx, conc)
        yield finding(
            "few-samples",
            file,
            values[0].pointer,
            label,
            "; ".join(f"{SHORT[v.key]} median over {count(v.n or 0, 'request')}" for v in values),
            f"The medians of the {label} cell rest on only {count(n, 'request')}; with fewer than "
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
        yield finding(
            "few-samples",
            run.source.label,
            run.samples[0].pointer.rsplit("/", 1)[0],
            f"canonical x {run.concurrency}",
            f"{count(iterations, 'timed iteration')}",
            f"The canonical run with {count(run.concurrency, 'request')} at a time reports "
            f"medians over only {count(iterations, 'timed iteration')}; with fewer than "
            f"{t.min_samples} one unusual iteration decides them.",
            ids,
            concurrency=run.concurrency,
        )
