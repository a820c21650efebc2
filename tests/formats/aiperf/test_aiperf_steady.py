"""AIPerf's per-request export timed for the steady state: each profiling record's
`request_start_ns` and `request_end_ns` are its load point's spans, and the window and steady
count reportgen finds are those an independent numpy computation finds in the same records
(`helpers_steady.window`, in integer nanoseconds).

The real files: tests/data/realtools/aiperf/{c1,c4}/profile_export.jsonl (AIPerf 0.13, against a
llama.cpp server). The ramp is synthetic: the real c4 records retimed into a closed loop of two
slots, written to a temporary folder only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers_steady import RAMP_SECONDS, RAMP_STARTS, only_point, window

from reportgen.formats.load import load_document, parse_run_file
from reportgen.metrics.compute import compute
from reportgen.metrics.steady import steady
from reportgen.model import SweepRun

REAL = Path(__file__).resolve().parents[2] / "data" / "realtools" / "aiperf"


def _profiling(lines: str) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in lines.splitlines() if line.strip()]
    return [
        r["metadata"]
        for r in records
        if r["metadata"]["benchmark_phase"] == "profiling"
        and not r["metadata"].get("context_overflow_skip")
    ]


@pytest.mark.parametrize("load", ["c1", "c4"])
def test_the_steady_window_of_real_records_agrees_with_numpy(load: str) -> None:
    path = REAL / load / "profile_export.jsonl"
    meta = _profiling(path.read_text("utf-8"))
    first = min(m["request_start_ns"] for m in meta)
    starts = [m["request_start_ns"] - first for m in meta]
    ends = [m["request_end_ns"] - first for m in meta]
    point = only_point(path)
    assert len(point.spans) == len(meta) and point.concurrency is None
    found = steady(point.spans, point.concurrency)
    expected, inside = window(starts, ends, None)
    assert found.window is not None and expected is not None
    assert found.window == pytest.approx((expected[0] * 1e-9, expected[1] * 1e-9), abs=1e-9)
    assert (found.inside, found.total) == (inside, len(meta))
    assert 0 < found.inside < found.total  # warm-up and drain left out


def test_a_synthetic_ramp_leaves_its_first_and_last_requests_out(tmp_path: Path) -> None:
    # synthetic: the real c4 records, retimed to a closed loop of two slots (helpers_steady)
    lines = (REAL / "c4" / "profile_export.jsonl").read_text("utf-8").splitlines()
    records = [json.loads(line) for line in lines][: len(RAMP_STARTS)]
    base = 1_800_000_000_000_000_000
    for record, start in zip(records, RAMP_STARTS, strict=True):
        meta = record["metadata"]
        meta["credit_issued_ns"] = meta["request_start_ns"] = base + round(start * 1e9)
        meta["request_ack_ns"] = meta["request_start_ns"]
        meta["request_end_ns"] = base + round((start + RAMP_SECONDS) * 1e9)
    path = tmp_path / "profile_export.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    point = only_point(path)
    found = steady(point.spans, point.concurrency)
    ends = [s + RAMP_SECONDS for s in RAMP_STARTS]
    expected, inside = window(RAMP_STARTS, ends, None)
    assert found.window == pytest.approx(expected) and found.inside == inside == 8
    assert found.window is not None
    begin, end = found.window
    for s, e in (point.spans[0], point.spans[-1]):  # the first request and the last
        assert not (begin <= s and e <= end)
    # 12 requests are enough for a p90 by count, not the 8 that ran steady: the gate says so
    (p90,) = (v for v in compute([_run(path)]).values if v.id.endswith("ttft_s.p90"))
    assert p90.gate is not None and p90.gate.kind == "not-steady"
    assert (p90.gate.n, p90.gate.need) == (8, 10)


def _run(path: Path) -> SweepRun:
    run, _ = load_document(parse_run_file(path.name, path.read_bytes(), path))
    assert isinstance(run, SweepRun)
    return run
