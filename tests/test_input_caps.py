"""Caps bound time, not only bytes (issue 22, class 6): what a bad run file costs is bounded by
what is explained, not by how much of it is wrong.

Times are compared, side by side in one run, with `json.loads` of the same file's lines (what
reading it costs at the least): a ratio, which the load of a shared machine moves far less than
a time. Explaining every schema violation made a file of bad records 35 to 60 times slower than
its parse; explaining the first ones and counting the rest keeps it within a few times.
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from reportgen.errors import PER_FILE, at_least, counted, left_out
from reportgen.formats.load import load
from reportgen.formats.schemas import EXPLAINED, check

VALID = Path(__file__).resolve().parent / "examples" / "valid"
BAD_RECORDS = 30_000
RATIO = 15  # explaining every violation: 35 to 60; the first ones, then counting: about 5


def _seconds(read: Callable[[], object]) -> float:
    """The fastest of three runs of `read`, without the garbage collector."""
    best = float("inf")
    for _ in range(3):
        gc.disable()
        try:
            start = time.perf_counter()
            read()
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
    return best


def _parse_lines(path: Path) -> Callable[[], object]:
    return lambda: [json.loads(line) for line in path.read_bytes().splitlines()]


def _bad_records(tmp_path: Path, example: str, count: int) -> Path:
    """A JSON Lines run file: the example's first record, then `count` records `{}`."""
    first = (VALID / example).read_text(encoding="utf-8").splitlines()[0]
    path = tmp_path / example
    path.write_text(first + "\n" + "{}\n" * count, encoding="utf-8")
    return path


@pytest.mark.parametrize("example", ["sglang-c1.jsonl", "aiperf-records-c1.jsonl"])
def test_a_file_of_bad_records_costs_a_few_parses_of_it(tmp_path: Path, example: str) -> None:
    """SGLang's file is read whole and AIPerf's streamed; each explains its first problems."""
    path = _bad_records(tmp_path, example, BAD_RECORDS)
    result = load([path])
    last = result.problems[-1]
    assert len(result.problems) == PER_FILE + 1 and at_least(last)
    assert left_out(last) >= BAD_RECORDS - PER_FILE  # every bad record is counted
    took, parse = _seconds(lambda: load([path])), _seconds(_parse_lines(path))
    assert took < RATIO * parse, f"{took:.2f} s, {took / parse:.0f} times a parse ({parse:.3f} s)"


def test_a_json_document_of_bad_items_stops_explaining(tmp_path: Path) -> None:
    """Not a map of records: jsonschema explains the first `EXPLAINED` violations and stops."""
    bench = json.loads((VALID / "bench-small.json").read_text(encoding="utf-8"))
    bench["results"] = bench["results"][:1] + [{}] * BAD_RECORDS
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(bench), encoding="utf-8")
    problems = load([path]).problems
    assert len(problems) == PER_FILE + 1
    assert left_out(problems[-1]) == EXPLAINED - PER_FILE and at_least(problems[-1])
    assert problems[-1].message.startswith(f"... and at least {EXPLAINED - PER_FILE:,} more")
    took = _seconds(lambda: load([path]))
    parse = _seconds(lambda: json.loads(path.read_bytes()))
    assert took < RATIO * parse + 0.2, f"{took:.2f} s, {took / parse:.0f} times a parse"


def test_a_few_problems_are_all_explained_and_counted_exactly() -> None:
    """Under the caps nothing changes: every violation is explained, the count is exact."""
    records = {str(i): {} for i in range(3)}
    found = check("sglang-bench", records)
    assert found and not any(counted(p.message)[0] for p in found)
    assert {p.pointer for p in found} == {"/0", "/1", "/2"}
