"""`make bench`: run every benchmark and print one table (issue 14 item 5).

Runs `validate_bench.py`, `build_bench.py`, `check_bench.py`, `jsonl_bench.py` and
`serve_bench.py` one after another as subprocesses, each with `--json` (and `--quick` when
given), and prints each figure, its goal, its ratio to the goal and pass/fail. A figure more
than 10% worse than the one recorded in `benchmarks/recorded.json` is named REGRESSED (in red on
a terminal). Each script's own output goes to `build/bench/<script>.log`. `--record` writes the
measured figures to `benchmarks/recorded.json`. It asserts nothing about timing: the exit status
is 0 unless a script fails.

Each script first compiles reportgen's modules to bytecode, so that reportgen is timed as an
installed package runs. pip compiles a package's modules when it installs it (WeasyPrint's and
matplotlib's are compiled). An editable install, which `make` does, leaves that to the first
import, and a machine with PYTHONDONTWRITEBYTECODE set (this project's CI machines have it) never
writes the result, so every fresh process compiled every reportgen module from source again: about
0.1 s of a fresh `reportgen check`'s 0.4 s, paid only by reportgen's side of each comparison.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RECORDED = HERE / "recorded.json"
LOGS = ROOT / "build" / "bench"
SCRIPTS = (
    "validate_bench.py",
    "build_bench.py",
    "check_bench.py",
    "jsonl_bench.py",
    "serve_bench.py",
)

# figure -> goal (lower is better); the names are the ones the scripts write with --json.
GOALS = {
    "validate+metrics / json.load (1x, CPU)": 0.7,
    "peak RSS: validate+metrics / json.load": 1.0,
    "fresh build / fresh weasyprint (wall)": 1.15,
    "warm rebuild / fresh weasyprint (wall)": 1.05,
    "in-process build / weasyprint (wall)": 1.3,
    "check seconds (fresh process, wall)": 0.35,
    "check / validate (fresh processes, wall)": 1.5,
    "check x100 published / x1 (wall)": 2.0,
    "jsonl peak RSS / json.loads lines (1M records)": 1.0,  # --quick: 200,000 records
    "serve: prose edit to new page (s)": 0.3,
    "serve: prose edit shown in Chromium (s)": 0.3,
}


def _table() -> ModuleType:
    """benchmarks/table.py, loaded by path (benchmarks/ is not a package)."""
    if "bench_table" in sys.modules:
        return sys.modules["bench_table"]
    spec = importlib.util.spec_from_file_location("bench_table", HERE / "table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_table"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def collect(documents: list[dict[str, object]]) -> tuple[dict[str, float], list[str]]:
    """The figures of the scripts' JSON documents merged, and what is wrong with them:
    a figure with no goal, one written twice, one that is not a positive number, and a goal
    that no script measured."""
    measured: dict[str, float] = {}
    problems: list[str] = []
    for doc in documents:
        for name, value in doc.items():
            if name not in GOALS:
                problems.append(f"{name!r}: measured but has no goal")
            elif name in measured:
                problems.append(f"{name!r}: written twice")
            elif isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                problems.append(f"{name!r}: {value!r} is not a positive number")
            else:
                measured[name] = float(value)
    problems += [f"{name!r}: not measured" for name in GOALS if name not in measured]
    return measured, problems


def _recorded() -> dict[str, float]:
    if not RECORDED.exists():
        return {}
    data = json.loads(RECORDED.read_text(encoding="utf-8"))
    return {str(k): float(v) for k, v in data.items()}


def _run(script: str, out: Path, quick: bool) -> dict[str, object]:
    """Run one script with --json; its output goes to its log. Exit when it fails."""
    LOGS.mkdir(parents=True, exist_ok=True)
    log = LOGS / (Path(script).stem + ".log")
    cmd = [sys.executable, str(HERE / script), "--json", str(out)]
    cmd += ["--quick"] if quick else []
    print(f"{script} ...", end=" ", file=sys.stderr, flush=True)
    start = time.perf_counter()
    with log.open("w", encoding="utf-8") as f:
        done = subprocess.run(cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT)
    print(f"{time.perf_counter() - start:.0f} s (log: {log.relative_to(ROOT)})", file=sys.stderr)
    if done.returncode != 0:
        sys.stderr.write(log.read_text(encoding="utf-8")[-3000:])
        raise SystemExit(f"{script} exited {done.returncode}; its output is in {log}")
    data = json.loads(out.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{out}: not a JSON object"
    return data


def main() -> None:
    """Run the scripts, print the table, and with --record write the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="pass --quick to every script")
    ap.add_argument("--record", action="store_true", help=f"write the figures to {RECORDED.name}")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="reportgen-bench-run-") as tmp:
        documents = [_run(s, Path(tmp) / f"{Path(s).stem}.json", args.quick) for s in SCRIPTS]
    measured, problems = collect(documents)
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    table = _table()
    print(table.render(table.rows(GOALS, measured, _recorded()), color=sys.stdout.isatty()))
    if args.record:
        ordered = {name: round(measured[name], 4) for name in GOALS if name in measured}
        RECORDED.write_text(json.dumps(ordered, indent=2) + "\n", encoding="utf-8")
        print(f"recorded in {RECORDED.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
