"""The metric registry: the one place a metric is defined, and the values computed by it.

`DEFINITIONS` gives each metric its id pattern, unit, formula, definition version, the raw fields
it reads and which direction is better. Everything that shows, checks, lints or submits a number
takes it from a `MetricValue` (computed by `reportgen.metrics.compute`).

Ids: a metric's pattern filled with its cell (`decode.4K.c3.ttft_s`), then, for a distribution,
the statistic (`decode.4K.c3.ttft_s.p99`; the bare id is the median), and in an article of
several runs the run's id in front (`vllm.load.c3.output_tok_s`). A prefill point or decode cell
that is one of several tests of its cell in one file (a llama-bench sweep) has that test's point
before the metric's name: `decode.4K.c1.tg128.aggregate_tok_s`, `prefill.1K.pp512.tok_s`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, TypedDict, Unpack

from reportgen.errors import Problem
from reportgen.frozendict import FrozenDict
from reportgen.model import CellStatus, ProvenanceStatus, Run, Scalar, context_label

Source = Literal["samples", "fields", "summary", "derived", "repetitions"]
Better = Literal["higher", "lower"]
# Distribution statistics a metric with `stats` has besides its median (the bare id).
STATS = ("p90", "p95", "p99", "mean", "min", "max", "n")
# The spread of a cell measured in several files of one run: lowest, highest, how many; their
# mean, standard deviation and CV; the mean's 95% t interval and its half-width; the median's
# 95% order-statistic interval (`reportgen.metrics.uncertainty`).
REPEAT_STATS = (
    "rep_min",
    "rep_max",
    "reps",
    "rep_mean",
    "rep_sd",
    "rep_cv",
    "rep_ci_lo",
    "rep_ci_hi",
    "rep_hw",
    "rep_med_lo",
    "rep_med_hi",
)
# The statistics of a distribution whose repetitions have a spread of their own, the same
# `REPEAT_STATS` after theirs (`decode.4K.c3.ttft_s.p99.rep_hw`). `.n` has none: it counts a
# repetition's requests, which `repetition-short` judges, and is no measurement of the cell.
SPREAD_OF = ("p90", "p95", "p99", "mean", "min", "max")
# The statistics that say how uncertain a repeated cell is (the appendix explains them when the
# page shows one).
UNCERTAINTY_STATS = REPEAT_STATS[3:]
# Statistics that measure spread, not the quantity: no direction is better for them.
SPREAD_STATS = ("reps", "rep_sd", "rep_cv", "rep_hw")
# What each statistic of the repetitions is: x_i the repetitions' values, n their number, m
# their mean, s their standard deviation (`reportgen.metrics.uncertainty` computes them).
REPEAT_FORMULAS: dict[str, str] = {
    "rep_min": "the lowest repetition's value",
    "rep_max": "the highest repetition's value",
    "reps": "n, the number of run files that measured the cell",
    "rep_mean": "m = sum(x_i) / n",
    "rep_sd": "s = sqrt(sum((x_i - m)^2) / (n - 1))",
    "rep_cv": "s / |m| x 100 (in %; none when m = 0)",
    "rep_ci_lo": "m - t(0.975, n - 1) x s / sqrt(n): the 95% t interval of the mean, its low end",
    "rep_ci_hi": "m + t(0.975, n - 1) x s / sqrt(n): the 95% t interval of the mean, its high end",
    "rep_hw": "t(0.975, n - 1) x s / sqrt(n): the half-width of the mean's 95% interval",
    "rep_med_lo": "x_(k), the k-th lowest value, with k the largest such that 1 - 2 P(Binomial(n, "
    "1/2) <= k - 1) >= 95%: the median's distribution-free interval, its low end (n >= 6)",
    "rep_med_hi": "x_(n-k+1), the high end of the same interval (n >= 6)",
}
AXES = ("run", "context", "concurrency", "rate", "point", "prompt_tokens", "max_tokens")
# An axis over a setting the run file states: `meta.max_concurrency`, `meta.engineName`.
META = "meta."


@dataclass(frozen=True, kw_only=True)
class MetricDef:
    """One metric's definition."""

    key: str
    id_pattern: str
    title: str
    unit: str
    formula: str
    version: int
    reads: tuple[str, ...]
    better: Better | None = None  # which way is an improvement; None: a setting or count
    stats: bool = False  # a distribution over requests: has p90, p95, p99, mean, min, max, n


def _defs(*defs: MetricDef) -> dict[str, MetricDef]:
    return {d.key: d for d in defs}


_DECODE = "decode.{context}.c{concurrency}"
_LOAD = "load.{point}"
_SAMPLES = "results[].request_samples[]"
_RECORDS = "the load point's request records (else the tool's summary statistics)"

_BASE = _defs(
    MetricDef(
        key="canonical.output_tok_s",
        id_pattern="canonical.c{concurrency}.output_tok_s",
        title="Canonical prompt, output tok/s",
        unit="tok/s",
        formula="concurrency 1: median over timed iterations of (outputTokens - 1) / (last token - "
        "first token); concurrency N: median over iterations of sum(outputTokens) / (last "
        "completion - earliest first token), as lmx reports it",
        version=1,
        reads=("samples[].tokSOut", "tokSOut"),
        better="higher",
    ),
    MetricDef(
        key="canonical.ttft_ms",
        id_pattern="canonical.c{concurrency}.ttft_ms",
        title="Canonical prompt, time to first token",
        unit="ms",
        formula="median over timed requests of (first streamed token - request sent)",
        version=1,
        reads=("samples[].ttftMs", "ttftMs"),
        better="lower",
    ),
    MetricDef(
        key="canonical.prefill_tok_s",
        id_pattern="canonical.c{concurrency}.prefill_tok_s",
        title="Canonical prompt, prefill tok/s",
        unit="tok/s",
        formula="median over timed requests of usage prompt_tokens / TTFT",
        version=1,
        reads=("samples[].tokSPrefill", "tokSPrefill"),
        better="higher",
    ),
    MetricDef(
        key="canonical.concurrency",
        id_pattern="canonical.c{concurrency}.concurrency",
        title="Canonical prompt, requests sent together",
        unit="requests",
        formula="engineFlags.concurrency: requests fired together per iteration",
        version=1,
        reads=("engineFlags.concurrency",),
    ),
    MetricDef(
        key="canonical.output_tokens",
        id_pattern="canonical.c{concurrency}.output_tokens",
        title="Canonical prompt, output tokens per request",
        unit="tokens",
        formula="median over timed requests of the output tokens (usage completion_tokens)",
        version=1,
        reads=("samples[].outputTokens", "outputTokens"),
    ),
    MetricDef(
        key="matrix.duration_s",
        id_pattern="matrix.duration_s",
        title="Matrix run, sustained decode window per cell",
        unit="s",
        formula="the bench's --duration: seconds of measurement per decode cell",
        version=1,
        reads=("metadata.duration_per_test",),
    ),
    MetricDef(
        key="matrix.max_tokens",
        id_pattern="matrix.max_tokens",
        title="Matrix run, maximum output tokens per request",
        unit="tokens",
        formula="the bench's max_tokens for decode requests (ignore_eos)",
        version=1,
        reads=("metadata.max_tokens",),
    ),
    MetricDef(
        key="prefill.prompt_tokens",
        id_pattern="prefill.{context}.prompt_tokens",
        title="Prefill, prompt tokens",
        unit="tokens",
        formula="prompt tokens of the cold request, from the endpoint's usage",
        version=1,
        reads=("prefill.<ctx>.prompt_tokens",),
    ),
    MetricDef(
        key="prefill.ttft_s",
        id_pattern="prefill.{context}.ttft_s",
        title="Prefill, time to first token",
        unit="s",
        formula="first streamed token - request sent, one cold request (unique prefix)",
        version=1,
        reads=("prefill.<ctx>.ttft_seconds",),
        better="lower",
    ),
    MetricDef(
        key="prefill.tok_s",
        id_pattern="prefill.{context}.tok_s",
        title="Prefill, tok/s",
        unit="tok/s",
        formula="prompt_tokens / TTFT",
        version=1,
        reads=(
            "prefill.<ctx>.prompt_tokens",
            "prefill.<ctx>.ttft_seconds",
            "prefill.<ctx>.tok_per_sec",
        ),
        better="higher",
    ),
    MetricDef(
        key="decode.aggregate_tok_s",
        id_pattern=f"{_DECODE}.aggregate_tok_s",
        title="Decode throughput, all requests together",
        unit="tok/s",
        formula="streamed usage completion tokens arriving inside the measurement window / (last "
        "usage arrival - window start)",
        version=1,
        reads=(
            "results[].client_output_tokens",
            "results[].measurement_seconds",
            "results[].aggregate_tps",
        ),
        better="higher",
    ),
    MetricDef(
        key="decode.per_request_tok_s",
        id_pattern=f"{_DECODE}.per_request_tok_s",
        title="Decode speed seen by each request (median)",
        unit="tok/s",
        formula="median over the cell's request samples (>= 2 output tokens) of 1 / ITL, where ITL "
        "= (last token - first token) / (output tokens - 1)",
        version=1,
        reads=(f"{_SAMPLES}.inter_token_latency_avg", "results[].output_tps_per_user_p50"),
        better="higher",
        stats=True,
    ),
    MetricDef(
        key="decode.ttft_s",
        id_pattern=f"{_DECODE}.ttft_s",
        title="Time to first token (median)",
        unit="s",
        formula="median over the cell's request samples of TTFT; includes waiting for other "
        "requests' prefill",
        version=1,
        reads=(f"{_SAMPLES}.ttft", "results[].ttft_p50"),
        better="lower",
        stats=True,
    ),
    MetricDef(
        key="decode.itl_s",
        id_pattern=f"{_DECODE}.itl_s",
        title="Inter-token latency (median)",
        unit="s",
        formula="median over the cell's request samples (>= 2 output tokens) of (last token - "
        "first token) / (output tokens - 1), each request weighted once",
        version=1,
        reads=(f"{_SAMPLES}.inter_token_latency_avg", "results[].inter_token_latency_p50"),
        better="lower",
        stats=True,
    ),
    MetricDef(
        key="decode.latency_s",
        id_pattern=f"{_DECODE}.latency_s",
        title="End-to-end request latency (median)",
        unit="s",
        formula="median over the cell's completed requests of (last token - request sent)",
        version=1,
        reads=(f"{_SAMPLES}.latency", f"{_SAMPLES}.completed"),
        better="lower",
        stats=True,
    ),
    MetricDef(
        key="load.output_tok_s",
        id_pattern=f"{_LOAD}.output_tok_s",
        title="Output throughput, all requests together",
        unit="tok/s",
        formula="output tokens of the load point's requests / the load point's duration, as the "
        "tool measures its window (see the importer's notes)",
        version=1,
        reads=("output tokens", "duration"),
        better="higher",
    ),
    MetricDef(
        key="load.request_s",
        id_pattern=f"{_LOAD}.request_s",
        title="Request throughput",
        unit="req/s",
        formula="successful requests / the load point's duration",
        version=1,
        reads=("completed requests", "duration"),
        better="higher",
    ),
    MetricDef(
        key="load.ttft_s",
        id_pattern=f"{_LOAD}.ttft_s",
        title="Time to first token (median)",
        unit="s",
        formula="median over successful requests of (first streamed token - request sent), from "
        f"{_RECORDS}",
        version=1,
        reads=("request TTFT",),
        better="lower",
        stats=True,
    ),
    MetricDef(
        key="load.itl_s",
        id_pattern=f"{_LOAD}.itl_s",
        title="Inter-token latency (median)",
        unit="s",
        formula="median over successful requests of (last token - first token) / (output tokens - "
        f"1), each request weighted once, from {_RECORDS}",
        version=1,
        reads=("request token times or ITL",),
        better="lower",
        stats=True,
    ),
    MetricDef(
        key="load.latency_s",
        id_pattern=f"{_LOAD}.latency_s",
        title="End-to-end request latency (median)",
        unit="s",
        formula=f"median over successful requests of (last token - request sent), from {_RECORDS}",
        version=1,
        reads=("request latency",),
        better="lower",
        stats=True,
    ),
    MetricDef(
        key="load.per_request_tok_s",
        id_pattern=f"{_LOAD}.per_request_tok_s",
        title="Decode speed seen by each request (median)",
        unit="tok/s",
        formula=f"median over successful requests of 1 / ITL, from {_RECORDS}",
        version=1,
        reads=("request ITL",),
        better="higher",
        stats=True,
    ),
    MetricDef(
        key="load.concurrency",
        id_pattern=f"{_LOAD}.concurrency",
        title="Concurrent requests",
        unit="requests",
        formula="the load point's concurrency limit, as the tool was told",
        version=1,
        reads=("concurrency setting",),
    ),
    MetricDef(
        key="load.rate",
        id_pattern=f"{_LOAD}.rate",
        title="Request rate",
        unit="req/s",
        formula="the load point's request rate, as the tool was told",
        version=1,
        reads=("rate setting",),
    ),
    MetricDef(
        key="load.requests",
        id_pattern=f"{_LOAD}.requests",
        title="Successful requests",
        unit="requests",
        formula="requests of the load point that completed",
        version=1,
        reads=("completed requests",),
    ),
    MetricDef(
        key="load.failed",
        id_pattern=f"{_LOAD}.failed",
        title="Failed requests",
        unit="requests",
        formula="requests of the load point that failed",
        version=1,
        reads=("failed requests",),
        better="lower",
    ),
)

# Throughputs that have efficiency forms: per GPU, per watt, and joules per token.
THROUGHPUTS = (
    "canonical.output_tok_s",
    "prefill.tok_s",
    "decode.aggregate_tok_s",
    "load.output_tok_s",
)


def _efficiency_defs() -> dict[str, MetricDef]:
    out = {}
    for base in THROUGHPUTS:
        d = _BASE[base]
        stem = d.id_pattern.removesuffix("tok_s")
        forms = (
            (
                "per_gpu",
                f"{d.id_pattern}_per_gpu",
                f"{d.title}, per GPU",
                "tok/s/GPU",
                f"{d.key} / GPUs of the run's setup",
                "higher",
            ),
            (
                "per_w",
                f"{d.id_pattern}_per_w",
                f"{d.title}, per watt",
                "tok/s/W",
                f"{d.key} / (GPUs x watts per GPU: the setup's power cap, else the GPU's rated "
                "power; no format reportgen reads records the power drawn)",
                "higher",
            ),
            (
                "j_per_tok",
                f"{stem}j_per_tok",
                f"{d.title}, energy per token",
                "J/tok",
                f"(GPUs x watts per GPU) / {d.key}",
                "lower",
            ),
        )
        for kind, pattern, title, unit, formula, better in forms:
            key = f"{base}.{kind}"
            out[key] = MetricDef(
                key=key,
                id_pattern=pattern,
                title=title,
                unit=unit,
                formula=formula,
                version=1,
                reads=(d.key,),
                better=better,  # type: ignore[arg-type]
            )
    return out


_COMPARE = _defs(
    MetricDef(
        key="compare.delta",
        id_pattern="compare.{point}.delta",
        title="Change against the base run",
        unit="",
        formula="the other run's value - the base run's value, for the same metric and cell",
        version=1,
        reads=("both runs' values",),
    ),
    MetricDef(
        key="compare.ratio",
        id_pattern="compare.{point}.ratio",
        title="Ratio to the base run",
        unit="x",
        formula="the other run's value / the base run's value, for the same metric and cell",
        version=1,
        reads=("both runs' values",),
    ),
)

# A claim the prose makes, written as a reference so that it is computed, never typed:
# {{ A/B }} (how many times B, A is) and {{ A->B }} (the change from A to B, in percent).
_CLAIMS = {
    d.key: d
    for d in (
        MetricDef(
            key="claim.ratio",
            id_pattern="A/B",
            title="Ratio of two values the prose names",
            unit="x",
            formula="A / B, for a prose reference {{ A/B }} to two metrics in one unit",
            version=1,
            reads=("both metrics' values",),
        ),
        MetricDef(
            key="claim.change",
            id_pattern="A->B",
            title="Change between two values the prose names",
            unit="%",
            formula="(B - A) / A x 100, for a prose reference {{ A->B }} to two metrics in "
            "one unit",
            version=1,
            reads=("both metrics' values",),
        ),
    )
}

# Output throughputs that have a cost form, from the article's [cost] price (metrics/cost.py).
_COSTED = ("canonical.output_tok_s", "decode.aggregate_tok_s", "load.output_tok_s")
_PRICE = "[cost] gpu_hour_usd"


def _cost_defs() -> dict[str, MetricDef]:
    out = {}
    for base in _COSTED:
        d = _BASE[base]
        stem = d.id_pattern.removesuffix("output_tok_s").removesuffix("aggregate_tok_s")
        out[f"{base}.usd_per_mtok"] = MetricDef(
            key=f"{base}.usd_per_mtok",
            id_pattern=f"{stem}usd_per_mtok",
            title=f"{d.title}, cost per million output tokens",
            unit="USD/Mtok",
            formula=f"gpu_hour_usd x GPUs / (3600 x {d.key}) x 1e6",
            version=1,
            reads=(d.key, _PRICE),
            better="lower",
        )
        out[f"{base}.usd_per_mtok_total"] = MetricDef(
            key=f"{base}.usd_per_mtok_total",
            id_pattern=f"{stem}usd_per_mtok_total",
            title=f"{d.title}, cost per million input and output tokens",
            unit="USD/Mtok",
            formula=f"gpu_hour_usd x GPUs / (3600 x {d.key} x (1 + input tokens / output tokens "
            "of the completed requests)) x 1e6",
            version=1,
            reads=(d.key, "request input and output tokens", _PRICE),
            better="lower",
        )
    return out


_FRONTIER = _defs(
    MetricDef(
        key="frontier.tok_s_per_gpu",
        id_pattern="frontier.{point}.tok_s_per_gpu",
        title="Throughput per GPU on the frontier at a fixed interactivity",
        unit="tok/s/GPU",
        formula="PCHIP through the series' frontier points (tok/s per user, throughput per GPU), "
        "read at the level; unreachable outside the frontier's range, never extrapolated",
        version=1,
        reads=("the series' throughput per GPU", "the series' tok/s per user"),
        better="higher",
    ),
    MetricDef(
        key="frontier.tok_s",
        id_pattern="frontier.{point}.tok_s",
        title="Throughput on the frontier at a fixed interactivity",
        unit="tok/s",
        formula="PCHIP through the series' frontier points (tok/s per user, throughput), read at "
        "the level; unreachable outside the frontier's range, never extrapolated",
        version=1,
        reads=("the series' throughput", "the series' tok/s per user"),
        better="higher",
    ),
    MetricDef(
        key="frontier.ratio",
        id_pattern="frontier.{point}.ratio",
        title="Ratio of two series' frontier throughput at a fixed interactivity",
        unit="x",
        formula="the other series' frontier throughput / the base series', at the same level",
        version=1,
        reads=("both series' frontier values",),
    ),
    MetricDef(
        key="frontier.level",
        id_pattern="frontier.{point}.level",
        title="The interactivity a fixed-interactivity value is read at",
        unit="tok/s",
        formula="the table's declared level of tok/s per user, where the series' frontier "
        "reaches it",
        version=1,
        reads=("the table's levels",),
    ),
    MetricDef(
        key="frontier.usd_per_mtok",
        id_pattern="frontier.{point}.usd_per_mtok",
        title="Cost per million output tokens on the frontier at a fixed interactivity",
        unit="USD/Mtok",
        formula="gpu_hour_usd / (3600 x frontier.tok_s_per_gpu) x 1e6",
        version=1,
        reads=("frontier.tok_s_per_gpu", _PRICE),
        better="lower",
    ),
)

_SLO_READS = ("the load point's request records", "[slo]")
_SLO = _defs(
    MetricDef(
        key="load.slo_attainment",
        id_pattern=f"{_LOAD}.slo_attainment",
        title="SLO attainment",
        unit="share",
        formula="requests that completed and meet every per-request objective of [slo] / "
        "(completed + failed requests); a failed request is a miss; only from per-request records",
        version=1,
        reads=_SLO_READS,
        better="higher",
    ),
    MetricDef(
        key="load.goodput_req_s",
        id_pattern=f"{_LOAD}.goodput_req_s",
        title="Request goodput",
        unit="req/s",
        formula="requests that meet every per-request objective of [slo] / the load point's "
        "measured window; only from per-request records",
        version=1,
        reads=(*_SLO_READS, "the measured window"),
        better="higher",
    ),
    MetricDef(
        key="load.goodput_tok_s",
        id_pattern=f"{_LOAD}.goodput_tok_s",
        title="Token goodput",
        unit="tok/s",
        formula="output tokens of the requests that meet every per-request objective of [slo] / "
        "the load point's measured window; only from per-request records",
        version=1,
        reads=(*_SLO_READS, "the measured window"),
        better="higher",
    ),
    *(
        MetricDef(
            key=f"load.slo_{name}_met",
            id_pattern=f"{_LOAD}.slo_{name}_met",
            title=f"{words} objective met at its percentile",
            unit="verdict",
            formula=f"1 when the load point's declared percentile of {words} (load.{q}.pNN, "
            "from records, else the tool's summary) is at most the objective's limit, else 0",
            version=1,
            reads=(f"load.{q}", "[slo]"),
        )
        for name, q, words in (
            ("ttft", "ttft_s", "TTFT"),
            ("itl", "itl_s", "ITL"),
            ("e2e", "latency_s", "end-to-end latency"),
        )
    ),
    MetricDef(
        key="load.slo_met",
        id_pattern=f"{_LOAD}.slo_met",
        title="Load point meets the SLOs",
        unit="verdict",
        formula="1 when every percentile objective is met and load.slo_attainment >= [slo] "
        "attainment (completed / (completed + failed) when no objective is per request), else 0",
        version=1,
        reads=("load.slo_attainment", "the percentile objectives' verdicts", "[slo]"),
    ),
    MetricDef(
        key="slo.max_concurrency",
        id_pattern="slo.max_concurrency",
        title="Highest concurrency that meets the SLOs",
        unit="requests",
        formula="the highest concurrency of the run whose load point meets the SLOs "
        "(load.slo_met = 1), every higher load point missing them; none when one cannot be judged",
        version=1,
        reads=("load.slo_met", "load.concurrency"),
        better="higher",
    ),
    MetricDef(
        key="slo.max_rate",
        id_pattern="slo.max_rate",
        title="Highest request rate that meets the SLOs",
        unit="req/s",
        formula="the highest request rate of the run whose load point meets the SLOs "
        "(load.slo_met = 1), every higher load point missing them; none when one cannot be judged",
        version=1,
        reads=("load.slo_met", "load.rate"),
        better="higher",
    ),
)

DEFINITIONS: dict[str, MetricDef] = {
    **_BASE,
    **_efficiency_defs(),
    **_cost_defs(),
    **_COMPARE,
    **_CLAIMS,
    **_FRONTIER,
    **_SLO,
}


GateKind = Literal["too-few-samples", "count-unknown", "incomplete", "not-steady"]


@dataclass(frozen=True, kw_only=True)
class Gate:
    """Why a computed value is not shown as a measurement (`reportgen.metrics.gates`): its kind,
    the reason in words, the requests it rests on and the requests it needs (None: not known)."""

    kind: GateKind
    reason: str  # the words after "not measurable: "
    n: int | None = None
    need: int | None = None

    def words(self) -> str:
        """How the article shows the value: "not measurable: <reason>"."""
        return f"not measurable: {self.reason}"

    def as_json(self) -> dict[str, object]:
        return {"kind": self.kind, "reason": self.reason, "n": self.n, "need": self.need}


class MetricChanges(TypedDict, total=False):
    """The fields of a `MetricValue`, any of them, as `MetricValue.but` takes them (a test holds
    them to the class's fields, name and type)."""

    id: str
    key: str
    value: float
    unit: str
    source: Source
    file: str
    sha256: str
    provenance: ProvenanceStatus
    pointer: str
    n: int | None
    summary: float | None
    summary_pointer: str | None
    context: int | None
    concurrency: int | None
    run: str | None
    stat: str | None
    point: str | None
    rate: float | None
    basis: str | None
    extra: FrozenDict[str, Scalar]
    repeats: tuple[tuple[str, float], ...]
    gate: Gate | None
    resamples: tuple[float, ...]


@dataclass(frozen=True, kw_only=True)
class MetricValue:
    """One computed number with everything needed to trust and trace it."""

    id: str
    key: str
    value: float
    unit: str
    source: Source
    file: str
    sha256: str
    provenance: ProvenanceStatus
    pointer: str
    n: int | None = None  # samples behind the value
    summary: float | None = None  # the file's own value for the same quantity, if any
    summary_pointer: str | None = None  # where `summary` is, when not beside `pointer`
    context: int | None = None
    concurrency: int | None = None
    run: str | None = None  # the article's run id, in an article of several runs
    stat: str | None = None  # None: the value itself (the median of a distribution)
    point: str | None = None  # a sweep's load point label
    rate: float | None = None  # the load point's request rate
    basis: str | None = None  # what a derived value rests on ("power cap 700 W x 8 GPUs")
    extra: FrozenDict[str, Scalar] = field(default=FrozenDict())  # other axes (prompt_tokens, ...)
    # (file, value) of each repetition, when the value is their median (or their spread)
    repeats: tuple[tuple[str, float], ...] = ()
    gate: Gate | None = None  # computed, but not measurable as shown (the reason)
    # a derived value's bootstrap: its value in each resample of the repetitions it rests on,
    # in resample order (nan: none in that resample, such as a level a frontier did not
    # reach); () when it has none. Not in metrics.json: its interval values are.
    resamples: tuple[float, ...] = field(default=(), compare=False, repr=False)

    def but(self, **changes: Unpack[MetricChanges]) -> MetricValue:
        """This value with `changes`: the value `dataclasses.replace` gives, at a seventh of its
        cost (it calls `__init__` with every field; computing an article replaces each value up
        to five times, a third of its time). Copying the fields is building the value:
        `MetricValue` has no `__post_init__`, no field outside `__init__` and no slots."""
        if not changes.keys() <= _FIELDS:
            raise TypeError(f"MetricValue has no field {sorted(changes.keys() - _FIELDS)[0]}")
        copy = object.__new__(MetricValue)
        copy.__dict__.update(self.__dict__, **changes)
        return copy

    @property
    def definition(self) -> MetricDef:
        """The registry entry this value was computed by."""
        return DEFINITIONS[self.key]

    @property
    def metric(self) -> str:
        """The metric as declarations name it: the key, with its statistic if any."""
        return self.key if self.stat is None else f"{self.key}.{self.stat}"

    def coord(self, axis: str) -> Scalar:
        """The value's position on an axis (context, concurrency, rate, point, run, ...)."""
        if axis in ("context", "concurrency", "run", "point", "rate"):
            found: Scalar = getattr(self, axis)
            return found
        return self.extra.get(axis)

    def as_json(self) -> dict[str, object]:
        """The value as `metrics.json` and `reportgen metrics --json` print it."""
        doc: dict[str, object] = {
            "id": self.id,
            "value": self.value,
            "unit": self.unit,
            "source": self.source,
            "samples": self.n,
            "summary_value": self.summary,
            "definition": self.key,
            "definition_version": self.definition.version,
            "file": self.file,
            "pointer": self.pointer,
            "sha256": self.sha256,
            "provenance": self.provenance,
        }
        if self.stat is not None:
            doc["statistic"] = self.stat
        if self.run is not None:
            doc["run"] = self.run
        if self.basis is not None:
            doc["basis"] = self.basis
        if self.repeats and repeat_part(self.stat) is not None:
            # a spread names the value that lists the repetitions (metrics.json version 2)
            doc["repetitions_of"] = self.id.rpartition(".")[0]
        elif self.repeats:
            doc["repetitions"] = [{"file": f, "value": v} for f, v in self.repeats]
        if self.gate is not None:
            doc["gate"] = self.gate.as_json()
        return doc


_FIELDS = frozenset(MetricChanges.__annotations__)


@dataclass(frozen=True, kw_only=True)
class CellState:
    """A cell's status, for tables: measured or why not (a decode cell, a cold prefill, or a
    load point)."""

    kind: Literal["decode", "prefill", "load"]
    context: int | None
    concurrency: int | None
    status: CellStatus
    reason: str | None
    file: str
    pointer: str
    run: str | None = None
    point: str | None = None
    rate: float | None = None
    extra: FrozenDict[str, Scalar] = FrozenDict()  # the run file's settings, as `meta.KEY` axes

    def coord(self, axis: str) -> Scalar:
        """The cell's position on an axis (None where it has none)."""
        if axis.startswith(META):
            return self.extra.get(axis)
        found: Scalar = getattr(self, axis, None)
        return found


@dataclass(frozen=True, kw_only=True)
class MetricSet:
    """Every metric value of a set of runs, plus each cell's status."""

    values: tuple[MetricValue, ...]
    cells: tuple[CellState, ...]
    runs: tuple[Run, ...]
    # run settings whose files disagree, so no one value stands for the run: id -> the values
    varying: FrozenDict[str, str] = FrozenDict()
    # the warnings reading the run files gave (a summary against its data, a tool's artefact)
    read_warnings: tuple[Problem, ...] = ()
    # built when first asked, for this set's values only (`dataclasses.replace` starts afresh)
    _index: dict[str, MetricValue] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    _by_metric: dict[str, tuple[MetricValue, ...]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    def by_id(self) -> dict[str, MetricValue]:
        """Values keyed by id."""
        if not self._index and self.values:
            self._index.update((v.id, v) for v in self.values)
        return self._index

    def get(self, metric_id: str) -> MetricValue | None:
        """The value with this id, or None."""
        return self.by_id().get(metric_id)

    def of(self, metric: str) -> tuple[MetricValue, ...]:
        """The values of `metric` (a key, with ".stat" for a statistic), in the set's order:
        what a scan of `values` for it finds, without the scan."""
        if not self._by_metric and self.values:
            grouped: dict[str, list[MetricValue]] = {}
            for v in self.values:
                grouped.setdefault(v.metric, []).append(v)
            self._by_metric.update((k, tuple(vs)) for k, vs in grouped.items())
        return self._by_metric.get(metric, ())

    def find(self, metric: str, **where: Scalar) -> MetricValue | None:
        """The value of `metric` (a key, with ".stat" for a statistic) at the given coordinates."""
        for v in self.of(metric):
            if all(v.coord(a) == x for a, x in where.items()):
                return v
        return None

    def run_of(self, file: str) -> str | None:
        """The article run a run file belongs to (None in an article of one run)."""
        for c in self.cells:
            if c.file == file:
                return c.run
        return next((v.run for v in self.values if v.file == file), None)

    def id_of(self, metric: str, **where: Scalar) -> str | None:
        """The id of `metric` at the given coordinates, if the metrics have it."""
        found = self.find(metric, **where)
        return None if found is None else found.id


def metric_id(
    key: str,
    *,
    context: int | None = None,
    concurrency: int | None = None,
    point: str | None = None,
    run: str | None = None,
    stat: str | None = None,
) -> str:
    """The id of metric `key` for a cell, a statistic and a run."""
    label = None if context is None else context_label(context)
    pattern = DEFINITIONS[key].id_pattern
    base = pattern.format(context=label, concurrency=concurrency, point=point)
    if point is not None and "{point}" not in pattern:  # one of several tests of a matrix cell
        head, _, name = base.rpartition(".")
        base = f"{head}.{point}.{name}"
    if stat is not None:
        base = f"{base}.{stat}"
    return f"{run}.{base}" if run else base


def repeat_part(stat: str | None) -> str | None:
    """The statistic of the repetitions in a statistic, if any: "p99.rep_hw" and "rep_hw" ->
    "rep_hw"; "p99" and None -> None."""
    tail = None if stat is None else stat.rpartition(".")[2]
    return tail if tail in REPEAT_STATS else None


def split_metric(metric: str) -> tuple[str, str | None]:
    """A declared metric name as (registry key, statistic): "decode.ttft_s.p99" -> (.., "p99"),
    "decode.ttft_s.p99.rep_hw" -> (.., "p99.rep_hw"); "p50" is the bare value
    ("decode.ttft_s.p50.rep_hw" -> (.., "rep_hw"))."""
    head, _, tail = metric.rpartition(".")
    if tail in REPEAT_STATS:
        key, _, of = head.rpartition(".")
        if key in DEFINITIONS and of in (*SPREAD_OF, "p50"):
            return key, (tail if of == "p50" else f"{of}.{tail}")
    if head in DEFINITIONS and tail in (*STATS, *REPEAT_STATS, "p50"):
        return head, (None if tail == "p50" else tail)
    return metric, None


def _id_regex(pattern: str) -> re.Pattern[str]:
    head, _, name = pattern.rpartition(".")
    body = re.escape(pattern)
    if head and "{point}" not in pattern:  # a matrix cell's point, when it has one (`metric_id`)
        body = re.escape(head) + r"(?:\.(?P<point>[^.]+))?" + re.escape("." + name)
    for name, part in (("context", r"[^.]+"), ("concurrency", r"\d+"), ("point", r".+?")):
        body = body.replace(re.escape("{" + name + "}"), f"(?P<{name}>{part})", 1)
    spread = "|".join(REPEAT_STATS)
    stats = f"(?:(?:{'|'.join(SPREAD_OF)})\\.)?(?:{spread})|{'|'.join(STATS)}"
    return re.compile(rf"(?:(?P<run>[a-z][a-z0-9_-]*)\.)?{body}(?:\.(?P<stat>{stats}))?")


_ID_REGEX = {key: _id_regex(d.id_pattern) for key, d in DEFINITIONS.items()}


def key_of(metric: str) -> tuple[str, str | None] | None:
    """The registry key and statistic of a metric id (a run's id in front allowed); None when
    no metric's pattern fits it."""
    for key, regex in _ID_REGEX.items():
        found = regex.fullmatch(metric)
        if found:
            return key, found["stat"]
    return None


def coordinates(metric: str) -> tuple[str, dict[str, str]] | None:
    """The registry key of a metric id and where it stands on each axis its id names: run,
    context (as labelled: "4K"), concurrency, load point and statistic. None when no metric's
    pattern fits it."""
    for key, regex in _ID_REGEX.items():
        found = regex.fullmatch(metric)
        if found:
            return key, {k: v for k, v in found.groupdict().items() if v is not None}
    return None
