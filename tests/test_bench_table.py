"""Tests for benchmarks/table.py: pass/fail against goals and regressions against recorded."""

from __future__ import annotations

from helpers_bench import bench_script

table = bench_script("table")


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
