"""Benchmark: `reportgen check` of the bundled article, in fresh processes.

Times, as wall-clock medians of fresh processes interleaved after one warm-up of each:

1. `reportgen check runs/paiton-kimi-k3.1-pro --build-dir <empty folder>` (so the article is
   built in memory) against `reportgen validate runs/paiton-kimi-k3.1-pro`;
2. the same check with 100 `--published` copies of the article's published text (each its own
   file) against 1 copy.

It prints the medians and three figures: check seconds (goal 0.35), check / validate (goal 1.5)
and check with 100 copies / with 1 (goal 2.0). It asserts that every check passes; it asserts
nothing about timing. `--json PATH` writes the figures for `benchmarks/run.py`; `--quick` times
2 repetitions instead of 7.

Run it with `make bench` (or `.venv/bin/python benchmarks/check_bench.py --help`).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARTICLE = ROOT / "runs" / "paiton-kimi-k3.1-pro"
PUBLISHED = ARTICLE / "published" / "paiton-kimi-k3.1-pro.txt"
REPORTGEN = ROOT / ".venv" / "bin" / "reportgen"
COPIES = 100
CHECK, VALIDATE = "check", "validate"
CHECK_1, CHECK_100 = "check --published x1", f"check --published x{COPIES}"
FIGURES = {
    "check seconds (fresh process, wall)": (CHECK, None),
    "check / validate (fresh processes, wall)": (CHECK, VALIDATE),
    f"check x{COPIES} published / x1 (wall)": (CHECK_100, CHECK_1),
}


def _run(cmd: list[str], env: dict[str, str]) -> float:
    """Wall seconds of one subprocess, which must exit 0."""
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True)
    spent = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:3])} ... exited {done.returncode}:\n{done.stdout}")
    return spent


def figures(med: dict[str, float]) -> dict[str, float]:
    """The headline figures from the medians: seconds, or a ratio of two medians."""
    return {
        name: med[a] if b is None else med[a] / med[b]
        for name, (a, b) in FIGURES.items()
        if a in med and (b is None or b in med)
    }


def main() -> None:
    """Time the four commands interleaved in fresh processes; print medians and figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=7, help="timed repetitions of each (median)")
    ap.add_argument("--json", type=Path, help="write the figures here as JSON")
    ap.add_argument("--quick", action="store_true", help="2 repetitions")
    args = ap.parse_args()
    # Time reportgen as an installed package runs, its modules' bytecode compiled (see run.py).
    compileall.compile_dir(ROOT / "reportgen", quiet=1)
    if args.quick:
        args.reps = 2
    if args.reps < 1:
        ap.error("--reps must be at least 1")
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    with tempfile.TemporaryDirectory(prefix="reportgen-check-bench-") as tmp_name:
        tmp = Path(tmp_name)
        empty = tmp / "empty-build"
        empty.mkdir()
        copies = []
        for i in range(COPIES):
            copy = tmp / f"published-{i:03}.txt"
            shutil.copyfile(PUBLISHED, copy)
            copies.append(str(copy))
        check = [str(REPORTGEN), "check", str(ARTICLE), "--build-dir", str(empty)]
        commands = {
            CHECK: check,
            VALIDATE: [str(REPORTGEN), "validate", str(ARTICLE)],
            CHECK_1: [*check, "--published", copies[0]],
            CHECK_100: [*check, *(a for c in copies for a in ("--published", c))],
        }
        print(
            f"article {ARTICLE.name}; fresh processes, 1 warm-up + {args.reps} timed "
            "repetitions of each, interleaved (order reversed every other repetition).\n"
        )
        wall: dict[str, list[float]] = {name: [] for name in commands}
        for rep in range(args.reps + 1):  # rep 0 is the warm-up
            order = list(commands) if rep % 2 else list(commands)[::-1]
            for name in order:
                spent = _run(commands[name], env)
                if rep > 0:
                    wall[name].append(spent)
    med = {name: statistics.median(v) for name, v in wall.items()}
    print(f"{'wall seconds':<28}{'median':>8}{'min':>8}{'max':>8}")
    for name, values in wall.items():
        print(f"{name:<28}{med[name]:>8.3f}{min(values):>8.3f}{max(values):>8.3f}")
    found = figures(med)
    print()
    for name, value in found.items():
        print(f"{name:<44}{value:>8.3f}")
    if args.json:
        args.json.write_text(json.dumps(found) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
