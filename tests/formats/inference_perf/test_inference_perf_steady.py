"""inference-perf's per-request records timed for the steady state: each record's `start_time`
and `end_time` are its load point's spans, and the window and steady count reportgen finds are
those an independent numpy computation finds in the same records (`helpers_steady.window`).

The real files: tests/data/realtools/inference-perf/{c1,c4}/per_request_lifecycle_metrics.json
(against a llama.cpp server, COMMAND.json beside each). The ramp is synthetic: the real c4
records retimed into a closed loop of two slots, written to a temporary folder only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_steady import RAMP_SECONDS, RAMP_STARTS, only_point, window

from reportgen.metrics.steady import steady

REAL = Path(__file__).resolve().parents[2] / "data" / "realtools" / "inference-perf"


@pytest.mark.parametrize("load", ["c1", "c4"])
def test_the_steady_window_of_real_records_agrees_with_numpy(load: str) -> None:
    path = REAL / load / "per_request_lifecycle_metrics.json"
    records = json.loads(path.read_text("utf-8"))
    starts, ends = [r["start_time"] for r in records], [r["end_time"] for r in records]
    point = only_point(path)
    assert len(point.spans) == len(records) and point.concurrency is None
    found = steady(point.spans, point.concurrency)
    expected, inside = window(starts, ends, None)
    assert found.window == expected  # the same floats: no unit or origin changed
    assert (found.inside, found.total) == (inside, len(records))
    assert 0 < found.inside < found.total


def test_a_synthetic_ramp_leaves_its_first_and_last_requests_out(tmp_path: Path) -> None:
    # synthetic: the real c4 records, retimed to a closed loop of two slots (helpers_steady)
    path = REAL / "c4" / "per_request_lifecycle_metrics.json"
    records = json.loads(path.read_text("utf-8"))[: len(RAMP_STARTS)]
    for record, start in zip(records, RAMP_STARTS, strict=True):
        shift = 1000.0 + start - record["start_time"]
        response = record["info"]["response_metrics"]
        for key in ("chunk_times", "output_token_times"):
            response[key] = [t + shift for t in response[key]]
        record["start_time"] += shift
        record["end_time"] = record["start_time"] + RAMP_SECONDS
    ramp = tmp_path / "per_request_lifecycle_metrics.json"
    ramp.write_text(json.dumps(records), "utf-8")
    point = only_point(ramp)
    found = steady(point.spans, point.concurrency)
    expected, inside = window(
        [r["start_time"] for r in records], [r["end_time"] for r in records], None
    )
    assert found.window == expected and found.inside == inside == 8
    assert found.window is not None
    begin, end = found.window
    for s, e in (point.spans[0], point.spans[-1]):  # the first request and the last
        assert not (begin <= s and e <= end)
