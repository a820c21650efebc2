"""Benchmark: validate and compute metrics for a large llm-inference-bench file.

Generates (seeded, into a temporary folder) a schema-valid, semantically consistent
`benchmark_results.json` of 8 contexts x 10 concurrency levels (1 to 512) with ~200,000 request
samples, and two more with twice and four times the samples. For each size it times, interleaved
and as the median of several repetitions, a plain `json.load` of the file and the whole reportgen
path (`reportgen.formats.load.load` then `reportgen.metrics.compute`), and prints their ratio and
how each grows with the file. It then measures the peak memory (maximum resident set size) of
each, alone in a fresh process. A breakdown by stage shows where the time goes.

Run it with `make bench` (or `.venv/bin/python benchmarks/validate_bench.py --help`). It asserts
that the generated files load without a single problem; it asserts nothing about timing.
`--json PATH` writes the headline figures (reportgen / json.load: CPU time and peak memory, at 1x)
for `benchmarks/run.py`; `--quick` takes the 1x file only, 2 repetitions, and skips the breakdown.
"""

from __future__ import annotations

import argparse
import compileall
import gc
import hashlib
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from reportgen.formats.llm_inference_bench.packed import fast_document
from reportgen.formats.load import load as load_runs
from reportgen.formats.load import load_document
from reportgen.formats.schema import validate
from reportgen.metrics.compute import compute
from reportgen.metrics.registry import MetricSet
from reportgen.stats import percentile

CONTEXTS = (0, 1024, 2048, 4096, 8192, 16384, 32768, 65536)
CONCURRENCIES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
MAX_TOKENS = 1024
FIGURE = "validate+metrics / json.load (1x, CPU)"  # the headline figures `--json` writes
RSS_FIGURE = "peak RSS: validate+metrics / json.load"
FIGURES = (FIGURE, RSS_FIGURE)
# Each alone in a fresh process; prints the process's peak resident set size in KiB (Linux). The
# peak is reset first: a forked child starts with its parent's (getrusage's ru_maxrss keeps it).
_RSS = (
    "import sys\nwith open('/proc/self/clear_refs', 'w') as f:\n    f.write('5')\n{}\n"
    "print(next(s for s in open('/proc/self/status') if s.startswith('VmHWM')).split()[1])"
)
_RSS_JSON = "import json\nwith open(sys.argv[1], 'rb') as f:\n    json.load(f)"
_RSS_REPORTGEN = (
    "from pathlib import Path\nfrom reportgen.formats.load import load\n"
    "from reportgen.metrics.compute import compute\n"
    "result = load([Path(sys.argv[1])])\nassert result.runs and not result.problems\n"
    "compute(result.runs)"
)
DURATION_S = 30.0
FAMILIES = (
    ("ttft", "ttft"),
    ("time_to_second_token", "time_to_second_token"),
    ("request_latency", "latency"),
    ("inter_token_latency", "inter_token_latency_avg"),
    ("output_tps_per_user", "output_tps_per_user"),
    ("e2e_output_tps_per_user", "e2e_output_tps_per_user"),
)


def _ceil6(x: float) -> float:
    """Round up to 6 decimals, so a rounded latency never undercuts its last token."""
    r = round(x, 6)
    return r if r >= x else round(r + 1e-6, 6)


def _sample(rng: random.Random, ctx: int, conc: int, open_stream: bool) -> dict[str, Any]:
    prefill_s = 0.04 + ctx / 30000
    ttft = round(prefill_s * (1 + rng.random() * min(conc, 64) / 8) + rng.random() * 0.01, 6)
    itl = round((0.008 + 0.00004 * conc + ctx * 2e-8) * rng.uniform(0.9, 1.15), 6)
    n = rng.randint(2, MAX_TOKENS - 1) if open_stream else MAX_TOKENS
    last_token = ttft + itl * (n - 1)
    latency = 0.0 if open_stream else _ceil6(last_token + rng.random() * 0.003)
    return {
        "ttft": ttft,
        "time_to_second_token": round(ttft + itl * rng.uniform(0.8, 1.3), 6),
        "latency": latency,
        "inter_token_latency_avg": itl,
        "chunk_inter_token_latency_avg": itl,
        "input_tokens": ctx + 57,
        "output_tokens": n,
        "output_tps_per_user": round(1 / itl, 4),
        "e2e_output_tps_per_user": round(n / latency, 4) if latency else 0.0,
        "completed": not open_stream,
    }


def _cell(rng: random.Random, ctx: int, conc: int, per_slot: int) -> dict[str, Any]:
    count = per_slot * conc
    # The last `conc` streams were still open when the window closed (completed: false).
    samples = [_sample(rng, ctx, conc, i >= count - conc) for i in range(count)]
    seconds = round(DURATION_S + rng.random() * 0.5, 6)
    mean_itl = statistics.fmean(s["inter_token_latency_avg"] for s in samples)
    tokens = int(conc * seconds / mean_itl)
    cell: dict[str, Any] = {
        "concurrency": conc,
        "context_tokens": ctx,
        "benchmark_mode": "sustained",
        "measurement_seconds": seconds,
        "measurement_wall_seconds": round(seconds + 0.2, 6),
        "client_output_tokens": tokens,
        "server_output_tokens": tokens + conc,
        "aggregate_source": "openai_continuous_usage",
        "aggregate_tps": round(tokens / seconds, 2),
        "per_request_avg_tps": round(tokens / seconds / conc, 2),
    }
    for family, key in FAMILIES:
        values = [s[key] for s in samples]
        positive = [v for v in values if v > 0]
        cell[f"{family}_avg"] = round(statistics.fmean(positive), 6) if positive else None
        for q, p in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99)):
            cell[f"{family}_{q}"] = round(percentile(values, p) or 0.0, 6)
    cell.update(
        {
            "input_seq_len_avg": ctx + 57,
            "request_count": count,
            "completed_request_count": count - conc,
            "num_completed": count - conc,
            "num_errors": 0,
            "avg_running_reqs": round(conc * 0.99, 2),
            "max_running_reqs": conc,
            "effective_concurrency": round(conc * 0.99, 2),
            "avg_queue_reqs": 0.0,
            "underfilled": False,
            "warmup_timed_out": False,
            "capacity_limited": False,
            "loop_detected": False,
            "failure_reason": None,
            "request_samples": samples,
        }
    )
    return cell


def generate(per_slot: int, seed: int = 7) -> dict[str, Any]:
    """A consistent bench file with `per_slot` x concurrency request samples in every cell."""
    rng = random.Random(seed)
    results = [_cell(rng, ctx, c, per_slot) for ctx in CONTEXTS for c in CONCURRENCIES]
    prefill = {}
    for ctx in CONTEXTS[1:]:
        tokens, ttft = ctx + 57, round(0.04 + ctx / 30000 * rng.uniform(0.95, 1.05), 6)
        prefill[str(ctx)] = {
            "ttft_seconds": ttft,
            "tok_per_sec": round(tokens / ttft),
            "prompt_tokens": tokens,
            "samples": 3,
            "method": "standalone_cold",
        }
    table: dict[str, dict[str, float | None]] = {}
    for cell in results:
        table.setdefault(str(cell["context_tokens"]), {})[str(cell["concurrency"])] = cell[
            "aggregate_tps"
        ]
    return {
        "metadata": {
            "version": "0.7.7",
            "engine": "vllm",
            "model": "example/synthetic-model",
            "timestamp": "2026-01-01T00:00:00Z",
            "decode_mode": "sustained",
            "duration_per_test": DURATION_S,
            "prefill_mode": "standalone_cold",
            "max_tokens": MAX_TOKENS,
            "temperature": 0.0,
            "ignore_eos": True,
            "concurrency_levels": list(CONCURRENCIES),
            "context_lengths": list(CONTEXTS),
        },
        "prefill": prefill,
        "results": results,
        "summary_table": table,
    }


def _json_load(path: Path) -> object:
    with path.open("rb") as f:
        return json.load(f)


def _reportgen(path: Path) -> MetricSet:
    result = load_runs([path])
    if result.problems:
        raise AssertionError("\n".join(p.format() for p in result.problems))
    return compute(result.runs)


def _timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """(CPU seconds, wall seconds, result) of one call; garbage from earlier runs is freed first."""
    gc.collect()
    cpu, wall = time.process_time(), time.perf_counter()
    out = fn()
    return time.process_time() - cpu, time.perf_counter() - wall, out


def _stages(path: Path) -> dict[str, float]:
    """CPU seconds of each of reportgen's stages, run one after another on `path`."""
    t_read, _, raw = _timed(path.read_bytes)
    t_sha, _, _ = _timed(lambda: hashlib.sha256(raw).hexdigest())
    t_colons, _, _ = _timed(lambda: raw.count(b":"))
    t_fast, _, doc = _timed(lambda: fast_document(str(path), raw))
    assert doc is not None, "the fast path gave up on a consistent file"
    t_model, _, (run, problems) = _timed(lambda: load_document(doc))
    assert problems == [] and run is not None, problems
    t_metrics, _, _ = _timed(lambda: compute([run]))
    return {
        "read the file": t_read,
        "fast path: msgspec decode, checks, columns, sha256": t_fast,
        "  of which sha256": t_sha,
        "  of which counting the colons (duplicate keys)": t_colons,
        "rest of the document: schema, semantic checks": t_model,
        "metrics.compute": t_metrics,
    }


def _peak_rss_kib(code: str, path: Path) -> int:
    """Peak resident set size (KiB) of a fresh Python process running `code` on `path`."""
    done = subprocess.run(
        [sys.executable, "-c", _RSS.format(code), str(path)],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout.split()[-1])


def _write(
    folder: Path, per_slot: int, seed: int, scales: tuple[int, ...]
) -> list[tuple[Path, int]]:
    files = []
    for scale in scales:
        path = folder / f"benchmark_results_{scale}x.json"
        doc = generate(per_slot * scale, seed + scale)
        samples = sum(len(c["request_samples"]) for c in doc["results"])
        path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
        files.append((path, samples))
    return files


def main() -> None:
    """Generate the two files, time both paths interleaved, print the table and breakdown."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5, help="repetitions per measurement (median)")
    ap.add_argument("--per-slot", type=int, default=25, help="samples per unit of concurrency")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--keep", type=Path, help="write the files here instead of a temp folder")
    ap.add_argument("--json", type=Path, help="write the headline figure (a ratio) here as JSON")
    ap.add_argument(
        "--quick", action="store_true", help="1x file only, 2 repetitions, no breakdown"
    )
    args = ap.parse_args()
    # Time reportgen as an installed package runs, its modules' bytecode compiled (see run.py).
    compileall.compile_dir(Path(__file__).resolve().parents[1] / "reportgen", quiet=1)
    if args.quick:
        args.reps = 2

    setup, _, _ = _timed(lambda: validate.check("llm-inference-bench", {}))
    with tempfile.TemporaryDirectory(prefix="reportgen-bench-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        files = _write(folder, args.per_slot, args.seed, (1,) if args.quick else (1, 2, 4))
        for path, _ in files:
            values = len(_reportgen(path).values)  # loads with no problem at all; warms up
        print(
            f"{len(CONTEXTS)} contexts x {len(CONCURRENCIES)} concurrency levels "
            f"({values} metric values); median of {args.reps} interleaved repetitions.\n"
            "reportgen = load([path]) + metrics.compute(runs), every sample validated.\n"
        )
        cpu: dict[tuple[int, str], list[float]] = {}
        wall: dict[tuple[int, str], list[float]] = {}
        for rep in range(args.reps):
            for i, (path, _) in enumerate(files):
                pair = [("json", _json_load), ("reportgen", _reportgen)]
                for name, fn in pair if (rep + i) % 2 == 0 else pair[::-1]:
                    c, w, out = _timed(partial(fn, path))
                    del out
                    cpu.setdefault((i, name), []).append(c)
                    wall.setdefault((i, name), []).append(w)
        med = {k: statistics.median(v) for k, v in cpu.items()}
        med_wall = {k: statistics.median(v) for k, v in wall.items()}

        print(
            f"{'samples':>9} {'file MB':>8} {'json.load s':>12} {'reportgen s':>12} "
            f"{'ratio':>7} {'wall ratio':>11}"
        )
        for i, (path, samples) in enumerate(files):
            j, r = med[(i, "json")], med[(i, "reportgen")]
            ratio_wall = med_wall[(i, "reportgen")] / med_wall[(i, "json")]
            print(
                f"{samples:>9,} {path.stat().st_size / 1e6:>8.1f} {j:>12.3f} {r:>12.3f} "
                f"{r / j:>6.2f}x {ratio_wall:>10.2f}x"
            )
        for i in range(1, len(files)):
            scale = round(files[i][1] / files[0][1])
            growth = [med[(i, k)] / med[(0, k)] for k in ("json", "reportgen")]
            print(f"{f'growth {scale}x/1x':>18} {growth[0]:>12.2f}x {growth[1]:>11.2f}x")
        print("(seconds are CPU time of this process, median; wall ratio: the same on the clock)")

        print("\npeak memory, each alone in a fresh process (max RSS, interpreter included)")
        print(f"{'samples':>9} {'json.load MB':>13} {'reportgen MB':>13} {'ratio':>7}")
        rss = []
        for path, samples in files:
            j_kib = _peak_rss_kib(_RSS_JSON, path)
            r_kib = _peak_rss_kib(_RSS_REPORTGEN, path)
            rss.append(r_kib / j_kib)
            print(f"{samples:>9,} {j_kib / 1024:>13.1f} {r_kib / 1024:>13.1f} {rss[-1]:>6.2f}x")
        if args.json:
            ratio = med[(0, "reportgen")] / med[(0, "json")]
            figures = {FIGURE: ratio, RSS_FIGURE: rss[0]}
            args.json.write_text(json.dumps(figures) + "\n", encoding="utf-8")
        if args.quick:
            return

        _breakdown(files, med, setup)


def _breakdown(
    files: list[tuple[Path, int]], med: dict[tuple[int, str], float], setup: float
) -> None:
    """The reportgen path's stages, each file's median CPU seconds, beside json.load's."""
    print("\nbreakdown of the reportgen path (CPU seconds, median of 3)")
    runs = [[_stages(path) for _ in range(3)] for path, _ in files]
    print(f"{'stage':<56}" + "".join(f"{s:>10,}" for _, s in files))
    for stage in runs[0][0]:
        cols = [statistics.median(r[stage] for r in by_size) for by_size in runs]
        print(f"{stage:<56}" + "".join(f"{c:>10.3f}" for c in cols))
    cols = [med[(i, "json")] for i in range(len(files))]
    print(f"{'json.load, for reference':<56}" + "".join(f"{c:>10.3f}" for c in cols))
    print(f"{'once per process: load and compile the schemas':<56}{setup:>10.3f}")


if __name__ == "__main__":
    main()
