"""SGLang bench_serving lines across its versions, read by their layout (no line names a version).

- December 2025 (sglang 0.5.x): `tag`, `server_info`, mean/median/std/p90/p95/p99 of e2e latency,
  TTFT, TPOT and ITL: the real file in ../shared/samples/wild/ (skipped where it is absent);
- December 2024 (sglang 0.3 to 0.4): a reduced key set, only `mean_e2e_latency_ms`,
  `median_e2e_latency_ms`, `median_ttft_ms` and `median_itl_ms`, no TPOT and no
  `request_throughput`: tests/examples/valid/sglang-2024-reduced-keys.jsonl, written by hand with
  invented numbers in the key set of real files of that time. SGLang's pooled ITL is not
  reportgen's ITL, so such a line has no ITL.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from reportgen.formats.load import load
from reportgen.metrics.compute import compute
from reportgen.model import SweepRun

VALID = Path(__file__).resolve().parents[2] / "examples" / "valid"
REDUCED = VALID / "sglang-2024-reduced-keys.jsonl"
WILD = Path(__file__).resolve().parents[4] / "shared" / "samples" / "wild"
DECEMBER_2025 = WILD / "sglang-bench-2025-12-agg-c32.jsonl"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _run(path: Path) -> SweepRun:
    result = load([path])
    assert result.problems == ()
    (run,) = result.runs
    assert isinstance(run, SweepRun)
    return run


@pytest.mark.skipif(not DECEMBER_2025.is_file(), reason=f"no real files here: {WILD} is absent")
def test_the_december_2025_line_gives_sglangs_own_headline_numbers() -> None:
    (line,) = _lines(DECEMBER_2025)
    assert "tag" in line and isinstance(line["server_info"], dict)
    run = _run(DECEMBER_2025)
    (point,) = run.points
    assert (point.label, point.concurrency) == (f"c{line['max_concurrency']}", 32)
    values = {v.id: v.value for v in compute([run]).values}
    label = point.label
    assert values[f"load.{label}.ttft_s"] * 1000 == pytest.approx(line["median_ttft_ms"], rel=1e-12)
    assert values[f"load.{label}.itl_s"] * 1000 == pytest.approx(line["median_tpot_ms"], rel=1e-12)
    out = values[f"load.{label}.output_tok_s"]
    assert out == pytest.approx(line["output_throughput"], rel=1e-9)
    latency = values[f"load.{label}.latency_s"] * 1000
    assert latency == pytest.approx(line["median_e2e_latency_ms"], rel=1e-12)
    assert run.model == line["server_info"]["model_path"]


def test_a_2024_line_with_the_reduced_key_set_reads_its_medians() -> None:
    lines = _lines(REDUCED)
    assert not [k for line in lines for k in line if "tpot" in k or k == "request_throughput"]
    run = _run(REDUCED)
    values = {v.id: v for v in compute([run]).values}
    for line, point in zip(lines, run.points, strict=True):
        assert point.label == f"r{line['request_rate']:g}"
        ttft = values[f"load.{point.label}.ttft_s"]
        assert ttft.value * 1000 == pytest.approx(line["median_ttft_ms"], rel=1e-12)
        assert ttft.source == "summary"
        latency = values[f"load.{point.label}.latency_s"].value * 1000
        assert latency == pytest.approx(line["median_e2e_latency_ms"], rel=1e-12)
        out = values[f"load.{point.label}.output_tok_s"].value
        assert out == pytest.approx(line["output_throughput"], rel=1e-12)
        requests = values[f"load.{point.label}.request_s"].value
        assert requests == pytest.approx(line["completed"] / line["duration"], rel=1e-12)
        # SGLang's pooled median_itl_ms is not reportgen's ITL: no ITL without a TPOT
        assert not [k for k in values if k.startswith(f"load.{point.label}.itl_s")]
        assert not math.isnan(line["median_itl_ms"])
    assert "failed" in dict(run.definitions)  # no per-request records: failures not known
