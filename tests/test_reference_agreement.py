"""What reportgen imports from each real tool's file, against an independent httpx streaming
client measuring the same llama.cpp server at the same load, just before and just after the tool
(tests/data/realtools/comparison.json, written by tests/realtools/produce.py). The tolerance, and
why it is what it is, are in helpers_agreement.py, which `make realtools` applies to fresh output.
"""

from __future__ import annotations

import json
from pathlib import Path

import helpers_agreement
import pytest
from helpers_agreement import ALONE, HIGH, LOW, QUANTITIES, RUN_FILES, bounds, disagreements

REALTOOLS = Path(__file__).resolve().parent / "data" / "realtools"
COMPARISON = json.loads((REALTOOLS / "comparison.json").read_text(encoding="utf-8"))
CASES = [(tool, load_) for tool in RUN_FILES for load_ in ("c1", "c4")]


def imported(tool: str, load_: str) -> dict[str, float]:
    return helpers_agreement.imported(REALTOOLS / tool / load_, tool)


@pytest.mark.parametrize(("tool", "load_"), CASES)
def test_imported_numbers_agree_with_the_reference_client(tool: str, load_: str) -> None:
    _, bad = disagreements(COMPARISON, tool, load_, imported(tool, load_))
    assert not bad


def test_ttft_under_load_may_fall_to_one_request_alone_but_no_lower() -> None:
    # A tool that sends its c4 requests staggered sees less prefill wait than the reference, which
    # sends them together; one request alone is the floor. Units and other quantities stay tight.
    low, high = bounds(COMPARISON, "inference-perf", "c4", "ttft_ms")
    alone = COMPARISON["inference-perf"][ALONE]["reference_mean"]["ttft_ms"]
    loaded = COMPARISON["inference-perf"]["c4"]["reference_mean"]["ttft_ms"]
    assert low == pytest.approx(LOW * alone) and high == pytest.approx(HIGH * loaded)
    itl = COMPARISON["inference-perf"]["c4"]["reference_mean"]["itl_ms"]
    assert bounds(COMPARISON, "inference-perf", "c4", "itl_ms") == (LOW * itl, HIGH * itl)
    values = imported("inference-perf", "c4")
    staggered = dict(values, **{"load.ttft_s": alone / 1000})
    assert not disagreements(COMPARISON, "inference-perf", "c4", staggered)[1]
    for wrong in (alone / 1000 * 0.5, alone / 1e6, loaded / 1000 * 2):
        bad = disagreements(
            COMPARISON, "inference-perf", "c4", dict(values, **{"load.ttft_s": wrong})
        )[1]
        assert len(bad) == 1 and "load.ttft_s" in bad[0]


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
