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
