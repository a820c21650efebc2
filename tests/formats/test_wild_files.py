"""Other people's run files (../shared/samples/wild/): each reads, and what reportgen computes
for each load point equals the file's own headline numbers (median TTFT, median ITL or TPOT,
output throughput; llama-bench's avg_ts per test) to 1%. Where reportgen gives no value for one
(inference-perf 0.4's TPOT timed streamed lines, not tokens), a warning at the file's own field
must say why.

The files are read where they are and never copied into the repo; without ../shared the tests
skip and say why. Every expected number is read from the file itself (tests/helpers_headlines.py,
written apart from reportgen's importers), nothing is typed in.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_headlines import agreements, headlines

from reportgen.errors import has_errors
from reportgen.formats.load import load
from reportgen.metrics.compute import compute

WILD = Path(__file__).resolve().parents[3] / "shared" / "samples" / "wild"
FILES = sorted(p for p in WILD.glob("*") if p.suffix in (".json", ".jsonl"))
pytestmark = pytest.mark.skipif(
    not FILES, reason=f"the wild run files are not at {WILD} (../shared is absent)"
)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_a_wild_file_reads_and_agrees_with_its_own_headline_numbers(path: Path) -> None:
    loaded = load([path])
    assert not has_errors(loaded.problems), [p.format() for p in loaded.problems]
    (run,) = loaded.runs
    found = headlines(path, run.source.format)
    assert found, f"no headline number read from {path.name}"
    pairs = agreements(found, list(compute([run]).values), loaded.problems)
    off = [
        f"{a.headline.pointer or '/'} {a.headline.where}: file {a.headline.value:.6g}, "
        f"reportgen {a.metric.value if a.metric else None} ({a.metric.id if a.metric else '-'})"
        for a in pairs
        if not a.accounted
    ]
    assert not off, off
