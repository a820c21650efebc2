"""GuideLLM 0.2/0.3's records timed for the steady state, as 0.4 on are
(tests/metrics/test_gates.py): each successful and errored record's `start_time` and `end_time`
are its load point's spans, and the window and steady count reportgen finds are those an
independent numpy computation finds in the same records (`helpers_steady.window`).

The file: tests/examples/invalid/guidellm-0.2-layout.json, the real GuideLLM c1 run laid out as
0.2/0.3 wrote it (invalid only for the warning that it names no version). The ramp is synthetic:
its first record repeated in a closed loop of two slots, written to a temporary folder only.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from helpers_steady import RAMP_SECONDS, RAMP_STARTS, only_point, window

from reportgen.metrics.steady import steady

LEGACY = Path(__file__).resolve().parents[2] / "examples" / "invalid" / "guidellm-0.2-layout.json"


def _times(bench: dict[str, Any]) -> tuple[list[float], list[float]]:
    records = bench["requests"]["successful"] + bench["requests"]["errored"]
    return [r["start_time"] for r in records], [r["end_time"] for r in records]


def test_the_steady_window_of_a_legacy_file_agrees_with_numpy() -> None:
    (bench,) = json.loads(LEGACY.read_text("utf-8"))["benchmarks"]
    starts, ends = _times(bench)
    point = only_point(LEGACY)
    assert len(point.spans) == len(starts) and point.concurrency == 1
    found = steady(point.spans, point.concurrency)
    expected, inside = window(starts, ends, 1)
    assert found.window == expected
    assert (found.inside, found.total) == (inside, len(starts))
    assert found.inside == found.total  # one request at a time: no ramp or drain to leave out


def test_a_synthetic_ramp_leaves_its_first_and_last_requests_out(tmp_path: Path) -> None:
    # synthetic: the first record repeated in a closed loop of two slots (helpers_steady)
    raw = json.loads(LEGACY.read_text("utf-8"))
    (bench,) = raw["benchmarks"]
    first = bench["requests"]["successful"][0]
    records = []
    for start in RAMP_STARTS:
        record, shift = copy.deepcopy(first), 1.8e9 + start - first["start_time"]
        for key in ("start_time", "first_token_time", "last_token_time"):
            record[key] += shift
        record["end_time"] = record["start_time"] + RAMP_SECONDS
        records.append(record)
    bench["requests"]["successful"] = records
    bench["request_totals"] |= {"successful": len(records), "total": len(records)}
    bench["args"]["strategy"] |= {"max_concurrency": 2, "streams": 2}
    ramp = tmp_path / "benchmarks.json"
    ramp.write_text(json.dumps(raw), "utf-8")
    point = only_point(ramp)
    assert point.concurrency == 2
    found = steady(point.spans, point.concurrency)
    expected, inside = window(*_times(bench), 2)
    assert found.window == expected and found.inside == inside == len(records) - 2
    assert found.window is not None
    begin, end = found.window
    for s, e in (point.spans[0], point.spans[-1]):  # the first request and the last
        assert not (begin <= s and e <= end)
