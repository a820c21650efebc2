"""Tests for benchmarks/run.py: merging the scripts' figures (no timing is run here)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


run = _load("run")


def test_collect_merges_and_names_what_is_wrong() -> None:
    names = list(run.GOALS)
    docs = [
        {names[0]: 0.5, names[1]: 1},
        {names[1]: 2.0, names[2]: -1.0, names[3]: True, "stray": 1.0},
    ]
    measured, problems = run.collect(docs)
    assert measured == {names[0]: 0.5, names[1]: 1.0}
    assert problems == [
        f"{names[1]!r}: written twice",
        f"{names[2]!r}: -1.0 is not a positive number",
        f"{names[3]!r}: True is not a positive number",
        "'stray': measured but has no goal",
        *(f"{n!r}: not measured" for n in names[2:]),
    ]


def test_every_goal_is_a_figure_one_script_writes() -> None:
    written = [_load("validate_bench").FIGURE]
    written += [name for name, _, _ in _load("build_bench").FIGURES]
    written += list(_load("check_bench").FIGURES)
    assert sorted(written) == sorted(run.GOALS)
    assert max(map(len, written)) <= 44  # the table's figure column
