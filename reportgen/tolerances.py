"""Every threshold reportgen judges data by, in one place.

Cross-check tolerances say when a file's own summary "agrees" with what its samples give; they
allow for the rounding the tools apply when they write a summary (lmx rounds to 1-2 decimals,
the bench rounds prefill tok/s to an integer and most fields to 6 decimals).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tolerance:
    """Agreement within `rel` (fraction of the larger value) or `abs_` (in the value's unit)."""

    rel: float
    abs_: float


# A cell summary percentile vs the same percentile over its request samples.
SUMMARY_SECONDS = Tolerance(rel=1e-3, abs_=5e-4)
SUMMARY_RATE = Tolerance(rel=1e-3, abs_=0.05)
# aggregate_tps vs client_output_tokens / measurement_seconds.
AGGREGATE = Tolerance(rel=1e-3, abs_=0.01)
# summary_table vs results[].aggregate_tps.
SUMMARY_TABLE = Tolerance(rel=1e-3, abs_=0.05)
# prefill tok_per_sec (rounded to an integer by the bench) vs prompt_tokens / ttft_seconds.
PREFILL_RATE = Tolerance(rel=1e-3, abs_=0.51)
# lmx summary fields (medians rounded to 1-2 decimals) vs the median over samples.
LMX_SUMMARY = Tolerance(rel=1e-3, abs_=0.051)
# A request's latency vs ttft + itl * (output_tokens - 1): the last token cannot come after the
# request completed; allow clock granularity.
LATENCY_SLACK_S = 0.002
# 1/ITL vs the sample's own output_tps_per_user.
SAMPLE_RATE = Tolerance(rel=1e-3, abs_=0.01)


@dataclass(frozen=True, kw_only=True)
class Thresholds:
    """Where the lints (`metrics.lints`) draw the line between plausible and suspicious data.

    Each field says what it bounds and why its default is what it is. Pass a changed copy
    (`dataclasses.replace(THRESHOLDS, ...)`) to `lints.lint` to judge differently.
    """

    # few-samples: a median needs at least this many values. With 2 values the "median" is their
    # mean and with 1 it is a single observation; from 3 on one outlier cannot move it. (A short
    # cell at concurrency 1 with requests thousands of tokens long holds only 2-3 requests, so
    # this fires there: a warning, not an error, because each request's speed already averages
    # over its tokens.)
    min_samples: int = 3
    # requests-incomplete: the bench cancels the streams still open when the window closes, so up
    # to one unfinished request per concurrency slot is normal; more means streams broke off early.
    incomplete_per_slot: int = 1
    # effective-concurrency-low: the server's mean running requests below this fraction of the
    # requested concurrency means the cell measured a lighter load than its label. Restarting a
    # finished stream takes milliseconds, so a healthy cell stays within a few percent of C.
    min_effective_concurrency: float = 0.9
    # decode-ttft-below-prefill: a decode cell's median TTFT at its lowest concurrency below this
    # fraction of the cold-prefill TTFT of the same context means the prompt was not prefilled in
    # full (prefix cache hit) or was shorter than its label. Cold TTFT repeats within a few percent
    # run to run; 0.75 leaves room for that and for a warmer server, and still catches a half-cached
    # prompt.
    min_ttft_vs_prefill: float = 0.75
    # context-mismatch: the prompt tokens the endpoint counted may differ from the context label by
    # this fraction (tokenizer and chat-template overhead make a few percent normal).
    context_mismatch: float = 0.10
    # *-with-context, *-with-concurrency: how far a metric may move against physics between two
    # cells before it is a finding. One 30 s window at low concurrency holds only a couple of
    # request boundaries, and whether a prefill stall falls inside it moves the aggregate by a few
    # percent; 5% is above that noise for short contexts, and a real inversion (a longer context
    # decoding faster, more load giving a lower TTFT) is usually larger.
    trend_margin: float = 0.05
    # aggregate-above-requests: all requests together cannot out-produce C streams each decoding at
    # the fastest per-request speed seen, times (1 + this). The margin is wide on purpose: each
    # request's 1/ITL averages over its whole life, which at long contexts and high concurrency
    # includes stalls before the window (while the other streams prefilled) that the window itself
    # does not contain, so measured aggregates reach about 1.5 x C x the *median* request speed.
    # Against the fastest request, +50% still holds those; an aggregate and samples that come
    # from different runs, windows or token counts overshoot it by far more.
    aggregate_margin: float = 0.5
    # aggregate-above-median-speed: all requests together against C x the *median* request speed.
    # Each request's 1/ITL spans its whole life, and at high concurrency that includes stalls
    # while the other streams prefilled, which the window's aggregate does not contain; so the
    # aggregate may sit above C x the median speed. Up to a quarter above is that effect at
    # ordinary loads (the bundled article's 8-stream cells reach +22%); beyond, the finding says
    # how far, and why, so a reader does not take the per-request speeds at face value.
    median_speed_margin: float = 0.25


# The thresholds `reportgen check` and the article use.
THRESHOLDS = Thresholds()
