"""vLLM bench results timed for the steady state: with `--save-detailed`, vLLM since January 2026
writes each request's `start_times` entry (perf_counter) beside its `latencies` entry, and the
load point's spans are (start, start + latency). The window and steady count reportgen finds are
those an independent numpy computation finds in the same arrays (`helpers_steady.window`).

No real vLLM output is in the repository (its real-tools run has no GPU for vLLM). The files are
the rate-sweep test article's (synthetic, labelled so in each file) and the hand-written example
tests/examples/valid/vllm-serve-partly-failed.json; the ramp is synthetic, written to a temporary
folder only. A file without `start_times` (older vLLM, or saved without --save-detailed) has no
spans.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers_steady import RAMP_SECONDS, RAMP_STARTS, only_point, window

from reportgen.metrics.steady import steady

TESTS = Path(__file__).resolve().parents[2]
FILES = sorted((TESTS / "articles" / "rate-sweep").glob("vllm-*.json"))
FILES.append(TESTS / "examples" / "valid" / "vllm-serve-partly-failed.json")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_steady_window_agrees_with_numpy(path: Path) -> None:
    raw = json.loads(path.read_text("utf-8"))
    starts = raw["start_times"]
    ends = [s + latency for s, latency in zip(starts, raw["latencies"], strict=True)]
    point = only_point(path)
    assert point.concurrency == raw["max_concurrency"]
    assert len(point.spans) == len(starts)
    found = steady(point.spans, point.concurrency)
    expected, inside = window(starts, ends, point.concurrency)
    assert found.window == expected
    assert (found.inside, found.total) == (inside, len(starts))
    assert 0 < found.inside < found.total


def test_a_file_without_start_times_has_no_spans() -> None:
    path = TESTS / "examples" / "valid" / "vllm-serve-detailed.json"
    assert "start_times" not in json.loads(path.read_text("utf-8"))
    point = only_point(path)
    assert len(point.samples) == 4 and point.spans == ()


def test_a_synthetic_ramp_leaves_its_first_and_last_requests_out(tmp_path: Path) -> None:
    # synthetic: the example's layout with 12 requests of 32 tokens in a closed loop of 2 slots
    raw = json.loads(FILES[-1].read_text("utf-8"))
    raw = {k: v for k, v in raw.items() if not re.fullmatch(r".*_(ttft|tpot|itl|e2el)_ms", k)}
    n, tokens = len(RAMP_STARTS), 32
    raw |= {
        "num_prompts": n,
        "max_concurrency": 2,
        "completed": n,
        "failed": 0,
        "input_lens": [100] * n,
        "output_lens": [tokens] * n,
        "ttfts": [0.1] * n,
        "itls": [[(RAMP_SECONDS - 0.1) / (tokens - 1)] * (tokens - 1)] * n,
        "latencies": [RAMP_SECONDS] * n,
        "start_times": list(RAMP_STARTS),
        "generated_texts": ["x" * tokens] * n,
        "errors": [""] * n,
        "total_output_tokens": n * tokens,
        "duration": RAMP_STARTS[-1] + RAMP_SECONDS,
    }
    raw["output_throughput"] = n * tokens / raw["duration"]
    ramp = tmp_path / "vllm-ramp.json"
    ramp.write_text(json.dumps(raw), "utf-8")
    point = only_point(ramp)
    found = steady(point.spans, point.concurrency)
    ends = [s + RAMP_SECONDS for s in RAMP_STARTS]
    expected, inside = window(RAMP_STARTS, ends, 2)
    assert found.window == expected and found.inside == inside == n - 2
    assert found.window is not None
    begin, end = found.window
    for s, e in (point.spans[0], point.spans[-1]):  # the first request and the last
        assert not (begin <= s and e <= end)
