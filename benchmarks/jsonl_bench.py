"""Benchmark: peak memory and time of reading a large AIPerf `profile_export.jsonl` (issue 14).

Generates (seeded, into a temporary folder) an AIPerf per-request export of N records (default
1,000,000) and one of 2N, each record one of the real AIPerf 0.13 records in
tests/data/realtools/aiperf/c4 (about 3.4 KB a line) with its timestamps shifted to a round of
its own, plus a seeded jitter, and a new request id. Then, each in a FRESH subprocess, it measures
the peak RSS (`resource.getrusage(RUSAGE_SELF).ru_maxrss`) and the wall time of

- reportgen: `reportgen.formats.load.load` of the file, then `reportgen.metrics.compute`;
- the baseline: `json.loads` of each line, kept in a list (what `json.load` of the same data
  would hold).

and prints their ratio (goal: peak RSS <= the baseline's), and reportgen's peak at N and 2N with
the growth per record (packed numbers only: well under 100 bytes a record).

The baseline needs about 18 KB of RAM a record (18 GB at a million). So that it never takes more
than `--baseline-mb` (default: 40% of the memory available, at most 4096 MB) it is run on the
first 5,000 records, 10,000, then twice as many each time while the next run, by the line
through the last two, stays within that; when it stops short of N its figures at N are
extrapolated on that line (it is linear: one list of parsed records), and said to be.

Run it with `.venv/bin/python benchmarks/jsonl_bench.py` (`--help`); `make bench` runs it with
`--json`, `--quick` uses 200,000 records. It asserts that reportgen loads the files without a
problem; it asserts nothing about memory or time.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "data" / "realtools" / "aiperf" / "c4" / "profile_export.jsonl"
FIGURE = "jsonl peak RSS / json.loads lines (1M records)"  # the headline figure `--json` writes
QUICK_RECORDS = 200_000
PROBE = 10_000  # records of the baseline's second run; its first reads half as many
SAFETY = 1.5  # margin on the RAM a baseline run is expected to take


def _templates() -> tuple[list[str], list[dict[str, int]], int]:
    """Each real record as a %-template (its `*_ns` times and request id left open), the times
    of each, and the span of the real run in ns (a round of records)."""
    texts, times = [], []
    for line in REAL.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        meta = record["metadata"]
        found = {k: v for k, v in meta.items() if k.endswith("_ns") and isinstance(v, int)}
        meta.update({k: f"@@{k}@@" for k in found}, x_request_id="@@id@@")
        text = json.dumps(record, separators=(",", ":"), ensure_ascii=False).replace("%", "%%")
        for k in found:
            text = text.replace(f'"@@{k}@@"', f"%({k})d")
        texts.append(text.replace('"@@id@@"', '"%(id)s"') + "\n")
        times.append(found)
    starts = [t["request_start_ns"] for t in times]
    ends = [t["request_end_ns"] for t in times]
    return texts, times, max(ends) - min(starts) + 1


def generate(path: Path, n: int, seed: int = 14) -> int:
    """Write `n` AIPerf records to `path` (seeded); returns the file's size in bytes."""
    rng = random.Random(seed)
    texts, times, span = _templates()
    with path.open("w", encoding="utf-8") as out:
        chunk = []
        for i in range(n):
            k, round_ = i % len(texts), i // len(texts)
            shift = span * 2 * round_ + rng.randrange(span // 2)  # rounds never overlap
            values: dict[str, Any] = {name: t + shift for name, t in times[k].items()}
            values["id"] = f"{rng.getrandbits(128):032x}"
            chunk.append(texts[k] % values)
            if len(chunk) == 10_000:
                out.write("".join(chunk))
                chunk = []
        out.write("".join(chunk))
    return path.stat().st_size


def _child_reportgen(path: Path) -> dict[str, Any]:
    from reportgen.formats.load import load
    from reportgen.metrics.compute import compute

    start = time.perf_counter()
    result = load([path])
    if result.problems or len(result.runs) != 1:
        raise SystemExit(f"{path}: {[p.format() for p in result.problems][:5]}")
    values = compute(result.runs).values
    return {"wall_s": time.perf_counter() - start, "metrics": len(values)}


def _child_baseline(path: Path, limit: int) -> dict[str, Any]:
    start = time.perf_counter()
    kept: list[Any] = []
    with path.open("rb") as f:
        for line in f:
            if len(kept) == limit:
                break
            kept.append(json.loads(line))
    return {"wall_s": time.perf_counter() - start, "records": len(kept)}


def _child(kind: str, path: Path, limit: int) -> None:
    import resource

    found = _child_reportgen(path) if kind == "reportgen" else _child_baseline(path, limit)
    found["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps(found))


def measure(kind: str, path: Path, limit: int = 0) -> dict[str, Any]:
    """Peak RSS (MB) and wall seconds of one fresh process reading `path` (`limit` records for
    the baseline)."""
    env = dict(os.environ)
    env["REPORTGEN_MAX_RUN_FILE_MB"] = str(path.stat().st_size // 2**20 + 1)  # above any cap
    cmd = [sys.executable, __file__, "--child", kind, str(path), "--limit", str(limit)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{kind} on {path.name} exited {done.returncode}:\n{done.stderr[-3000:]}")
    found: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return found


def _available_mb() -> float:
    with open("/proc/meminfo", encoding="ascii") as f:
        info = dict(line.split(":", 1) for line in f)
    return int(info["MemAvailable"].split()[0]) / 1024


def _extrapolated(small: dict[str, Any], big: dict[str, Any], n: int, key: str) -> float:
    """`key` at `n` records on the line through two baseline runs."""
    slope = (big[key] - small[key]) / (big["records"] - small["records"])
    return float(big[key] + slope * (n - big["records"]))


def baseline(path: Path, n: int, budget_mb: float) -> tuple[dict[str, float], str]:
    """The baseline's peak RSS and wall time at `n` records, and how they were found: runs of
    twice the records each time, from `PROBE`, while the next one, on the line through the last
    two (with a margin of `SAFETY`), stays within `budget_mb`; extrapolated when it stops short."""
    runs = [measure("baseline", path, PROBE // 2), measure("baseline", path, PROBE)]
    while runs[-1]["records"] < n:
        small, big = runs[-2], runs[-1]
        slope = (big["rss_mb"] - small["rss_mb"]) / (big["records"] - small["records"])
        size = min(n, 2 * big["records"])
        if big["rss_mb"] + SAFETY * slope * (size - big["records"]) > budget_mb:
            break
        runs.append(measure("baseline", path, size))
    for run in runs:
        print(f"  baseline run: {run['records']:,} records, {run['rss_mb']:,.0f} MB")
    small, big = runs[-2], runs[-1]
    if big["records"] == n:
        return {"rss_mb": big["rss_mb"], "wall_s": big["wall_s"]}, f"measured at {n:,} records"
    figures = {key: _extrapolated(small, big, n, key) for key in ("rss_mb", "wall_s")}
    how = (
        f"EXTRAPOLATED to {n:,} records on the line through runs of {small['records']:,} and "
        f"{big['records']:,} records ({small['rss_mb']:,.0f} and {big['rss_mb']:,.0f} MB): "
        f"twice as many would pass the {budget_mb:,.0f} MB allowed (--baseline-mb)"
    )
    return figures, how


def main() -> None:
    """Generate the files, measure both readers in fresh processes, print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=int, help="records of the 1x file (default 1,000,000)")
    ap.add_argument("--quick", action="store_true", help=f"{QUICK_RECORDS:,} records")
    ap.add_argument("--json", type=Path, help="write the headline figure here as JSON")
    ap.add_argument("--baseline-mb", type=float, help="most RAM the baseline may take (MB)")
    ap.add_argument("--child", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    ap.add_argument("--limit", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    # Time reportgen as an installed package runs, its modules' bytecode compiled (see run.py).
    compileall.compile_dir(ROOT / "reportgen", quiet=1)
    if args.child:
        _child(args.child[0], Path(args.child[1]), args.limit)
        return
    n = args.records or (QUICK_RECORDS if args.quick else 1_000_000)
    if n < 2 * PROBE:
        ap.error(f"--records must be at least {2 * PROBE:,}")
    budget = args.baseline_mb or min(4096.0, 0.4 * _available_mb())
    with tempfile.TemporaryDirectory(prefix="reportgen-jsonl-bench-") as tmp:
        files = {}
        for times in (1, 2):
            path = Path(tmp) / f"x{times}" / "profile_export.jsonl"
            path.parent.mkdir()
            start = time.perf_counter()
            size = generate(path, n * times)
            spent = time.perf_counter() - start
            print(f"generated {n * times:,} records, {size / 2**20:,.0f} MiB in {spent:.0f} s")
            files[times] = path
        ours = {times: measure("reportgen", files[times]) for times in (1, 2)}
        base, how = baseline(files[1], n, budget)
    ratio_rss = ours[1]["rss_mb"] / base["rss_mb"]
    ratio_wall = ours[1]["wall_s"] / base["wall_s"]
    growth = (ours[2]["rss_mb"] - ours[1]["rss_mb"]) * 2**20 / n
    print(f"\nfresh processes; peak RSS = ru_maxrss; {n:,} records (1x), {2 * n:,} (2x)")
    print(f"{'':<38} {'peak RSS MB':>12} {'wall s':>8}")
    for name, found in (
        ("reportgen load + metrics, 1x", ours[1]),
        ("reportgen load + metrics, 2x", ours[2]),
        ("json.loads of each line, kept, 1x", base),
    ):
        print(f"{name:<38} {found['rss_mb']:>12,.0f} {found['wall_s']:>8.1f}")
    print(f"  baseline {how}")
    print(f"\npeak RSS reportgen / baseline at 1x: {ratio_rss:.3f} (goal <= 1.0)")
    print(f"wall time reportgen / baseline at 1x: {ratio_wall:.2f}")
    print(f"reportgen's peak grows {growth:.0f} bytes a record from 1x to 2x")
    if args.json:
        args.json.write_text(json.dumps({FIGURE: round(ratio_rss, 4)}) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
