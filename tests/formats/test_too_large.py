"""A number no float can hold (`1e999` reads as infinity) in any numeric field of any valid
example is a located error or a value the metrics never see: never a crash, never an infinite
metric. Deterministic, unlike the fuzz test: every seventh number of every example (a sweep of
all of them, 5,620 cases on 2026-12-03, found none either), judged in one loop that names every
case it finds wrong (helpers_sweeps.py; the fast lane judges a seeded eighth of them)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from helpers_sweeps import Sweep

from reportgen.errors import InputError
from reportgen.formats.load import load
from reportgen.metrics.compute import compute

VALID = Path(__file__).resolve().parents[1] / "examples" / "valid"
NUMBER = re.compile(r"(?<=[:\[,\s])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?=[,\s\]}])")
STRIDE = 7


def cases() -> list[tuple[Path, int, int]]:
    out = []
    for path in sorted(VALID.glob("*.json")):
        found = list(NUMBER.finditer(path.read_text(encoding="utf-8")))
        out += [(path, m.start(), m.end()) for m in found[::STRIDE]]
    return out


CASES = cases()


def test_the_sweep_covers_every_example() -> None:
    assert {p for p, _, _ in CASES} == set(VALID.glob("*.json"))


@pytest.mark.slow
def test_a_number_too_large_is_located_or_never_reaches_a_metric(
    tmp_path: Path, sweep: Sweep
) -> None:
    sweep.judge(CASES, lambda case: _wrong(tmp_path, *case), _name, sample=True)


def _name(case: tuple[Path, int, int]) -> str:
    path, start, end = case
    return f"{path.name} {start}-{end}"


def _wrong(tmp_path: Path, path: Path, start: int, end: int) -> str | None:
    """What is wrong when the number at `start:end` of `path` reads `1e999`: None if nothing."""
    text = path.read_text(encoding="utf-8")
    mutated = tmp_path / path.name
    mutated.write_text(text[:start] + "1e999" + text[end:], encoding="utf-8")
    try:
        result = load([mutated])
    except InputError as exc:
        unlocated = [p for p in exc.problems if p.line < 1]
        return f"refused without a line: {unlocated}" if unlocated else None
    if not result.ok:
        if any(p.severity == "error" and p.line >= 1 for p in result.problems):
            return None
        return f"not ok, yet no located error: {result.problems}"
    infinite = [v.id for v in compute(result.runs).values if not math.isfinite(v.value)]
    return f"infinite metrics: {infinite}" if infinite else None
