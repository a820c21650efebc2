"""A number no float can hold (`1e999` reads as infinity) in any numeric field of any valid
example is a located error or a value the metrics never see: never a crash, never an infinite
metric. Deterministic, unlike the fuzz test: every seventh number of every example (a sweep of
all of them, 5,620 cases on 2026-12-03, found none either)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

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


@pytest.mark.parametrize(("path", "start", "end"), CASES, ids=lambda x: getattr(x, "name", x))
def test_a_number_too_large_is_located_or_never_reaches_a_metric(
    tmp_path: Path, path: Path, start: int, end: int
) -> None:
    text = path.read_text(encoding="utf-8")
    mutated = tmp_path / path.name
    mutated.write_text(text[:start] + "1e999" + text[end:], encoding="utf-8")
    try:
        result = load([mutated])
    except InputError as exc:
        assert all(p.line >= 1 for p in exc.problems)  # noqa: PT017 -- raising is one allowed outcome
        return
    if not result.ok:
        assert any(p.severity == "error" and p.line >= 1 for p in result.problems)
        return
    for value in compute(result.runs).values:
        assert math.isfinite(value.value), value.id
