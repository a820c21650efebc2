"""Tests for benchmarks/table.py: pass/fail against goals and regressions against recorded."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location(
    "bench_table", Path(__file__).resolve().parents[1] / "benchmarks" / "table.py"
)
assert _SPEC and _SPEC.loader
table = importlib.util.module_from_spec(_SPEC)
sys.modules["bench_table"] = table  # dataclasses look their module up
_SPEC.loader.exec_module(table)


def test_pass_fail_and_regression() -> None:
    goals = {"a": 1.0, "b": 2.0, "c": 1.0}
    got = table.rows(goals, {"a": 0.9, "b": 2.5, "c": 1.0}, {"a": 0.8, "b": 2.4})
    assert [(r.name, r.passed, r.regressed) for r in got] == [
        ("a", True, True),
        ("b", False, False),
        ("c", True, False),
    ]
    text = table.render(got, color=False)
    assert "REGRESSED" in text.splitlines()[1] and "\033" not in text
    assert "\033[31m" in table.render(got, color=True)
