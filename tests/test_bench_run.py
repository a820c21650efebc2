"""Tests for benchmarks/run.py: merging the scripts' figures (no timing is run here)."""

from __future__ import annotations

from helpers_bench import bench_script

run = bench_script("run")


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
    written = list(bench_script("validate_bench").FIGURES)
    build_figures = bench_script("build_bench").FIGURES
    written += [name for name, _, _, _ in build_figures]
    # the build benchmark prints each figure against the goal the table judges it by
    assert {name: goal for name, _, _, goal in build_figures} == {
        name: run.GOALS[name] for name, _, _, _ in build_figures
    }
    written += list(bench_script("check_bench").FIGURES)
    written += [bench_script("jsonl_bench").FIGURE]
    written += list(bench_script("serve_bench").FIGURES)
    assert sorted(written) == sorted(run.GOALS)
    assert max(map(len, written)) <= bench_script("table").WIDTH  # the table's figure column
