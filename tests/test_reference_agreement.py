"""What reportgen imports from each real tool's file, against an independent httpx streaming
client measuring the same llama.cpp server at the same load, just before and just after the tool
(tests/data/realtools/comparison.json, written by tests/realtools/produce.py).

The tolerance, 0.6x to 1.5x, is wide on purpose: the runs share a noisy 2-core machine with the
server, and at concurrency 4 the tools' own medians have spread from 0.75x to 1.3x of the
reference. A definition error is off by more: ms read as s by 1000x, a window twice too long by
2x, and ITL with the first token folded in (TPOT) by about 1.6x at concurrency 4 here, where TTFT
is some 40 tokens' worth of ITL.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reportgen.formats.load import load
from reportgen.metrics import compute

REALTOOLS = Path(__file__).resolve().parent / "data" / "realtools"
COMPARISON = json.loads((REALTOOLS / "comparison.json").read_text(encoding="utf-8"))
FILES = {
    "guidellm": "benchmarks.json",
    "aiperf": "profile_export_aiperf.json",
    "genai-perf": "profile_export_genai_perf.json",
    "inference-perf": "stage_0_lifecycle_metrics.json",
}
LOW, HIGH = 0.6, 1.5  # reportgen's value / the reference's, for each quantity
# reportgen's metric, its factor to the comparison's unit, the comparison's key
QUANTITIES = (
    ("load.ttft_s", 1000.0, "ttft_ms"),
    ("load.itl_s", 1000.0, "itl_ms"),
    ("load.output_tok_s", 1.0, "output_tok_s"),
)
CASES = [(tool, load_) for tool in FILES for load_ in ("c1", "c4")]


def imported(tool: str, load_: str) -> dict[str, float]:
    metrics = compute(load([REALTOOLS / tool / load_ / FILES[tool]]).runs)
    return {v.key: v.value for v in metrics.values if v.stat is None}


@pytest.mark.parametrize(("tool", "load_"), CASES)
def test_imported_numbers_agree_with_the_reference_client(tool: str, load_: str) -> None:
    values = imported(tool, load_)
    reference = COMPARISON[tool][load_]["reference_mean"]
    for metric, factor, key in QUANTITIES:
        ratio = values[metric] * factor / reference[key]
        assert LOW <= ratio <= HIGH, f"{tool} {load_} {metric}: {ratio:.3f}x the reference"


@pytest.mark.parametrize(("tool", "load_"), [c for c in CASES if c[0] in ("aiperf", "genai-perf")])
def test_summary_only_imports_give_the_tools_own_medians(tool: str, load_: str) -> None:
    # AIPerf and GenAI-Perf files hold the tool's statistics only: reportgen passes the latencies
    # through, and its output tok/s (tokens over the window) matches the tool's to rounding.
    values = imported(tool, load_)
    own = COMPARISON[tool][load_]["tool"]
    for metric, factor, key in QUANTITIES:
        assert values[metric] * factor == pytest.approx(own[key], rel=1e-6)


@pytest.mark.parametrize("load_", ["c1", "c4"])
def test_inference_perf_itl_is_its_tpot_not_its_pooled_zero(load_: str) -> None:
    # the tool's own median ITL pools token gaps that are half zeros; reportgen reads its TPOT
    assert COMPARISON["inference-perf"][load_]["tool"]["itl_ms"] == 0.0
    itl = imported("inference-perf", load_)["load.itl_s"] * 1000
    assert itl / COMPARISON["inference-perf"][load_]["reference_mean"]["itl_ms"] > LOW


def test_guidellm_is_read_from_its_records_with_reportgen_percentiles() -> None:
    # GuideLLM's own median is a sample (not interpolated); reportgen's median of the records
    # interpolates, so with six requests the two differ, and reportgen's is the one shown.
    values = imported("guidellm", "c1")
    own = COMPARISON["guidellm"]["c1"]["tool"]
    assert values["load.output_tok_s"] == pytest.approx(own["output_tok_s"], rel=1e-9)
    assert values["load.ttft_s"] * 1000 != pytest.approx(own["ttft_ms"], rel=1e-3)
