"""GuideLLM files that other people committed to public repositories, read where they are in
../shared/samples/wild/ (sources in ../shared/samples/README.md) and never copied into the repo.

Each must read, and agree with its own headline numbers: median TTFT and ITL to 1% (reportgen's
medians are over requests and interpolated, GuideLLM's are not; docs/metric-definitions.md), and
the output rate exactly (it is GuideLLM's own before 0.8), which the records must reproduce by
GuideLLM's definition of that release. Every expected value is read from the files themselves.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reportgen.formats.load import load
from reportgen.metrics.compute import compute
from reportgen.model import SweepRun

WILD = Path(__file__).resolve().parents[4] / "shared" / "samples" / "wild"
FILES = sorted(WILD.glob("guidellm-*.json"))
pytestmark = pytest.mark.skipif(
    not FILES, reason=f"no GuideLLM files from the wild at {WILD} (../shared is absent)"
)
HEADLINE = {  # reportgen metric -> (GuideLLM's metric and statistic, units per reportgen unit)
    "ttft_s": (("time_to_first_token_ms", "median"), 1000.0),
    "itl_s": (("inter_token_latency_ms", "median"), 1000.0),
    "output_tok_s": (("output_tokens_per_second", "mean"), 1.0),
}


def _raw(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _run(path: Path) -> SweepRun:
    loaded = load([path])
    assert loaded.problems == (), [p.message for p in loaded.problems]
    (run,) = loaded.runs
    assert isinstance(run, SweepRun)
    return run


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_a_wild_file_reads_and_agrees_with_its_own_headline_numbers(path: Path) -> None:
    raw = _raw(path)
    run = _run(path)
    assert run.source.tool == f"guidellm {raw['metadata']['guidellm_version']}"
    values = {v.id: v for v in compute([run]).values}
    for point, bench in zip(run.points, raw["benchmarks"], strict=True):
        for quantity, ((metric, stat), per_unit) in HEADLINE.items():
            own = bench["metrics"][metric]["successful"][stat] / per_unit
            ours = values[f"load.{point.label}.{quantity}"].value
            assert ours == pytest.approx(own, rel=0.01), (point.label, quantity)
        rate = values[f"load.{point.label}.output_tok_s"]
        assert rate.value == bench["metrics"]["output_tokens_per_second"]["successful"]["mean"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_a_wild_file_is_read_from_its_measured_records(path: Path) -> None:
    """The records in the measured window are as many as GuideLLM counted, give its own means,
    and its output rate is their tokens over the first-to-last token span (before 0.8)."""
    raw = _raw(path)
    run = _run(path)
    for point, bench in zip(run.points, raw["benchmarks"], strict=True):
        ok = bench["metrics"]["request_totals"]["successful"]
        assert len(point.samples) == ok
        inside = [
            r["info"]["timings"]
            for r in bench["requests"]["successful"]
            if r["info"]["timings"]["request_end"] >= bench["start_time"]
            and r["info"]["timings"]["request_start"] <= bench["end_time"]
        ]
        assert len(inside) == ok
        ttft = bench["metrics"]["time_to_first_token_ms"]["successful"]
        mean = sum(s.ttft_s for s in point.samples) / len(point.samples)
        assert mean == pytest.approx(ttft["mean"] / 1000, rel=1e-9)
        tokens = sum(s.output_tokens for s in point.samples)
        span = max(t["last_token_iteration"] for t in inside) - min(
            t["first_token_iteration"] for t in inside
        )
        own = bench["metrics"]["output_tokens_per_second"]["successful"]["mean"]
        assert tokens / span == pytest.approx(own, rel=1e-3)
