"""Regenerate the test articles' run files: `python tests/articles/generate.py [ARTICLE...]`
(`--out DIR` writes them under DIR instead, for comparing with the committed ones).

Every file written here is synthetic: generated test data, marked `dataProvenance.status =
"synthetic"` with this script as its generator, so no article built from it can pass for a
measurement. Each article has its own shape:

- `small`: an llm-inference-bench matrix over other contexts and concurrencies than the Paiton
  article, with a failed cell, a cell skipped for KV capacity and a cell missing from the grid
  (its lmx `canonical.json` is written by hand);
- `matrix-4x4`: a 4 x 4 bench matrix with an out-of-memory cell and a skipped cell;
- `rate-sweep`: five `vllm bench serve --save-result` files, one per request rate, with their
  per-request arrays, from a small queueing model of one server;
- `two-engines`: the same model on two engines, one bench file each, the second missing a cell;
- `three-configs`: one model in three configurations (1, 2 and 4 GPUs), three bench files (r1..r3)
  each at one context, for the frontier with its intervals, the fixed-interactivity table and
  cost.
- `repetitions`: one small bench matrix measured five times (r1..r5), one repetition's cell
  failed: the tables and chart show each cell's 95% interval.

Decode cells come from the seeded cell model of the reconstructions (`reportgen.reconstruct.
simcell`); the load points from `serve` below. Fixed seeds: the files are the same bytes on
every run.
"""

from __future__ import annotations

import json
import math
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reportgen.reconstruct.matrix import summary_fields
from reportgen.reconstruct.simcell import CellParams, simulate

HERE = Path(__file__).resolve().parent
OUT = [HERE]  # where the article folders are written (main's --out changes it)
GENERATOR = "tests/articles/generate.py"


def provenance(note: str) -> dict[str, str]:
    return {"status": "synthetic", "generator": GENERATOR, "note": note}


def write(path: Path, doc: dict[str, Any], *, indent: int | None = 2) -> None:
    text = json.dumps(doc, indent=indent)
    path.write_text(text + "\n", encoding="utf-8")


# --- llm-inference-bench matrices --------------------------------------------------------------


def bench_cell(
    seed: str, ctx: int, c: int, params: CellParams, *, duration_s: float, max_tokens: int
) -> dict[str, Any]:
    """One measured decode cell, as llm-inference-bench 0.7 writes it."""
    rng = random.Random(seed)
    sim = simulate(
        c, params, rng, duration_s=duration_s, max_tokens=max_tokens, input_tokens=lambda: ctx + 7
    )
    agg = sim.window_tokens / sim.measurement_s
    return {
        "concurrency": c,
        "context_tokens": ctx,
        "benchmark_mode": "duration",
        "measurement_seconds": sim.measurement_s,
        "client_output_tokens": sim.window_tokens,
        "aggregate_source": "openai_continuous_usage",
        "aggregate_tps": round(agg, 2),
        **summary_fields(sim.samples),
        "request_samples": sim.samples,
        "num_errors": 0,
        "effective_concurrency": float(c),
        "failure_reason": None,
    }


def summary_table(results: list[dict[str, Any]]) -> dict[str, dict[str, float | None]]:
    table: dict[str, dict[str, float | None]] = {}
    for r in results:
        agg = r["aggregate_tps"]
        value = agg if isinstance(agg, float) and agg > 0 else None
        table.setdefault(str(r["context_tokens"]), {})[str(r["concurrency"])] = value
    return table


def bench_file(
    *,
    engine: str,
    model: str,
    contexts: tuple[int, ...],
    levels: tuple[int, ...],
    results: list[dict[str, Any]],
    prefill_s: dict[int, float],
    duration_s: float,
    max_tokens: int,
    note: str,
) -> dict[str, Any]:
    return {
        "metadata": {
            "version": "0.7.7",
            "engine": engine,
            "model": model,
            "duration_per_test": duration_s,
            "max_tokens": max_tokens,
            "context_lengths": list(contexts),
            "concurrency_levels": list(levels),
        },
        "prefill": {
            str(ctx): {
                "prompt_tokens": ctx + 11,
                "ttft_seconds": round(seconds, 6),
                "tok_per_sec": round((ctx + 11) / round(seconds, 6)),
                "samples": 1,
            }
            for ctx, seconds in prefill_s.items()
        },
        "results": results,
        "summary_table": summary_table(results),
        "dataProvenance": provenance(note),
    }


def small() -> None:
    folder = OUT[0] / "small"
    contexts, levels = (0, 4096, 16384), (1, 4, 32)
    results = []
    for ctx in contexts:
        for c in levels:
            if (ctx, c) == (16384, 4):
                continue  # missing from the grid
            if (ctx, c) == (16384, 32):
                results.append(
                    {
                        "concurrency": c,
                        "context_tokens": ctx,
                        "aggregate_tps": -1,
                        "aggregate_source": "none",
                        "request_samples": [],
                    }
                )
                continue
            params = CellParams(
                prefill_s=0.05 + ctx / 20000, base_tok_s=60.0 - ctx / 1000, stall=0.3
            )
            results.append(
                bench_cell(f"small/{ctx}/{c}", ctx, c, params, duration_s=20.0, max_tokens=512)
            )
    failed = next(r for r in results if (r["context_tokens"], r["concurrency"]) == (4096, 32))
    failed.update(
        {
            "failure_reason": "stream error: connection reset by peer",
            "aggregate_tps": None,
            "num_errors": 3,
        }
    )
    doc = bench_file(
        engine="vllm",
        model="example/Small-8B",
        contexts=contexts,
        levels=levels,
        results=results,
        prefill_s={ctx: (ctx + 11) / 9000.0 for ctx in (4096, 16384)},
        duration_s=20.0,
        max_tokens=512,
        note="A test fixture for reportgen: a seeded model of a decode matrix, not a measurement.",
    )
    write(folder / "bench.json", doc)


OOM = (
    "RuntimeError: CUDA out of memory. Tried to allocate 3.52 GiB. GPU 0 has a total capacity "
    "of 79.11 GiB of which 1.87 GiB is free. Including non-PyTorch memory, this process has "
    "77.23 GiB memory in use. Of the allocated memory 71.90 GiB is allocated by PyTorch, and "
    "4.12 GiB is reserved by PyTorch but unallocated."
)


def matrix_4x4() -> None:
    folder = OUT[0] / "matrix-4x4"
    contexts, levels = (2048, 16384, 65536, 131072), (3, 6, 12, 24)
    results: list[dict[str, Any]] = []
    for ctx in contexts:
        for c in levels:
            if (ctx, c) == (131072, 24):
                # the KV cache cannot hold 24 x 128K: the bench skips the cell before sending
                results.append(
                    {
                        "concurrency": c,
                        "context_tokens": ctx,
                        "aggregate_tps": -1,
                        "aggregate_source": "none",
                        "request_samples": [],
                    }
                )
                continue
            params = CellParams(
                prefill_s=0.04 + ctx / 40000, base_tok_s=72.0 / (1 + ctx / 200_000), stall=0.25
            )
            results.append(
                bench_cell(f"4x4/{ctx}/{c}", ctx, c, params, duration_s=30.0, max_tokens=1024)
            )
    oom = next(r for r in results if (r["context_tokens"], r["concurrency"]) == (131072, 12))
    oom.update({"failure_reason": OOM, "aggregate_tps": None, "num_errors": 12})
    doc = bench_file(
        engine="vllm",
        model="example/Mid-32B",
        contexts=contexts,
        levels=levels,
        results=results,
        prefill_s={ctx: 0.04 + ctx / 40000 for ctx in contexts},
        duration_s=30.0,
        max_tokens=1024,
        note="Generated test data for reportgen's 4 x 4 matrix article (a seeded decode model); "
        "not a measurement.",
    )
    write(folder / "bench.json", doc)


def two_engines() -> None:
    folder = OUT[0] / "two-engines"
    contexts, levels = (4096, 32768), (1, 4, 16, 64)
    engines = {
        # engine: (base decode tok/s, stall while another request prefills, prefill tok/s)
        "vllm": (68.0, 0.30, 14000.0),
        "sglang": (74.0, 0.22, 15500.0),
    }
    for engine, (base, stall, prefill) in engines.items():
        results = []
        for ctx in contexts:
            for c in levels:
                if engine == "sglang" and (ctx, c) == (32768, 64):
                    continue  # not run: the second engine's sweep stopped at 16 for 32K
                params = CellParams(
                    prefill_s=0.03 + ctx / prefill,
                    base_tok_s=base / (1 + ctx / 250_000) / (1 + 0.012 * c),
                    stall=stall,
                )
                results.append(
                    bench_cell(
                        f"two/{engine}/{ctx}/{c}", ctx, c, params, duration_s=25.0, max_tokens=768
                    )
                )
        doc = bench_file(
            engine=engine,
            model="example/Chat-14B",
            contexts=contexts,
            levels=levels,
            results=results,
            prefill_s={ctx: 0.03 + ctx / prefill for ctx in contexts},
            duration_s=25.0,
            max_tokens=768,
            note=f"Generated test data for reportgen's two-engine comparison ({engine} side); "
            "not a measurement.",
        )
        write(folder / f"{engine}.json", doc)


def three_configs() -> None:
    """One model on one engine in three configurations (1, 2 and 4 GPUs per replica), each
    measured three times (r1..r3, a bench file each, its own seed and a server 2% slower or
    faster than the middle one) at one context: the frontier article's data."""
    folder = OUT[0] / "three-configs"
    ctx, levels = 4096, (1, 2, 4, 8, 16, 32, 64)
    configs = {
        # config: (base decode tok/s, slowdown per running request, levels run)
        "tp1": (38.0, 0.030, levels[:-1]),
        "tp2": (61.0, 0.022, levels),
        "tp4": (96.0, 0.016, levels),
    }
    for config, (base, slowdown, run) in configs.items():
        for rep in (1, 2, 3):
            speed = base * (1 + 0.02 * (rep - 2))
            results = [
                bench_cell(
                    f"three/{config}/r{rep}/{c}",
                    ctx,
                    c,
                    CellParams(
                        prefill_s=0.03 + ctx / 16000,
                        base_tok_s=speed / (1 + slowdown * c),
                        stall=0.2,
                    ),
                    duration_s=20.0,
                    max_tokens=512,
                )
                for c in run
            ]
            doc = bench_file(
                engine="vllm",
                model="example/Chat-14B",
                contexts=(ctx,),
                levels=run,
                results=results,
                prefill_s={ctx: 0.03 + ctx / 16000},
                duration_s=20.0,
                max_tokens=512,
                note=f"Generated test data for reportgen's frontier article ({config}, "
                f"repetition r{rep} of 3, a seeded decode model); not a measurement.",
            )
            write(folder / f"{config}-r{rep}.json", doc)


def repetitions() -> None:
    """One small matrix measured five times (r1..r5), each repetition its own seed and a slightly
    different server; r4's 4K x 16 cell failed, so its median is of four."""
    folder = OUT[0] / "repetitions"
    contexts, levels = (4096,), (1, 4, 16)
    for rep in range(1, 6):
        results = []
        for ctx in contexts:
            for c in levels:
                params = CellParams(
                    prefill_s=0.04 + ctx / 30000,
                    base_tok_s=(64.0 + 1.5 * ((rep * 7) % 5 - 2)) / (1 + 0.015 * c),
                    stall=0.25,
                )
                results.append(
                    bench_cell(
                        f"reps/r{rep}/{ctx}/{c}", ctx, c, params, duration_s=12.0, max_tokens=256
                    )
                )
        if rep == 4:
            failed = next(r for r in results if r["concurrency"] == 16)
            failed.update(
                {
                    "failure_reason": "server restarted during the cell",
                    "aggregate_tps": None,
                    "num_errors": 16,
                }
            )
        doc = bench_file(
            engine="vllm",
            model="example/Small-8B",
            contexts=contexts,
            levels=levels,
            results=results,
            prefill_s={ctx: 0.04 + ctx / 30000 for ctx in contexts},
            duration_s=12.0,
            max_tokens=256,
            note=f"Generated test data for reportgen's repetitions article (repetition r{rep} of "
            "5, a seeded decode model); not a measurement.",
        )
        write(folder / f"bench-r{rep}.json", doc)


# --- vLLM bench serve load points --------------------------------------------------------------


def np_percentile(values: list[float], q: float) -> float:
    """numpy.percentile's default (linear between closest ranks), as vLLM computes it."""
    s = sorted(values)
    pos = (len(s) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def _std(values: list[float]) -> float:
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def serve(
    rate: float,
    prompts: int,
    seed: str,
    *,
    capacity: int = 16,
    input_len: int = 512,
    prefill_tok_s: float = 9000.0,
    decode_tok_s: float = 62.0,
    slowdown: float = 0.04,
    stall: float = 0.3,
    timeout_s: float = math.inf,
) -> list[dict[str, Any]]:
    """A queueing model of one server: Poisson arrivals at `rate`, at most `capacity` requests
    running, prefills one at a time (decode slows by `stall` meanwhile), each running request
    decoding at `decode_tok_s / (1 + slowdown x running)`. Returns each request's send time,
    first token and token times (seconds), or its error."""
    rng = random.Random(seed)
    t_arrive, arrivals = 0.0, []
    for _ in range(prompts):
        t_arrive += rng.expovariate(rate)
        arrivals.append(t_arrive)
    outs = [rng.randint(96, 160) for _ in range(prompts)]
    jitter = [rng.lognormvariate(0, 0.05) for _ in range(prompts)]
    times: list[list[float]] = [[] for _ in range(prompts)]
    waiting: list[int] = []
    running: dict[int, float] = {}  # request -> progress towards its next token
    prefill: tuple[int, float] | None = None  # (request, seconds left)
    failed: set[int] = set()
    t, dt, nxt = 0.0, 0.002, 0
    while nxt < prompts or waiting or running or prefill:
        while nxt < prompts and arrivals[nxt] <= t:
            waiting.append(nxt)
            nxt += 1
        for i in [i for i in waiting if t - arrivals[i] > timeout_s]:
            waiting.remove(i)
            failed.add(i)
        if prefill is None and waiting and len(running) < capacity:
            i = waiting.pop(0)
            prefill = (i, input_len / prefill_tok_s * jitter[i])
        speed = decode_tok_s / (1 + slowdown * len(running)) * (1 - stall if prefill else 1.0)
        for i in list(running):
            before = running[i]
            after = before + speed * jitter[i] * dt
            k = math.floor(before) + 1
            while k <= after:
                times[i].append(t + dt * (k - before) / (after - before))
                if len(times[i]) == outs[i]:
                    del running[i]
                    break
                k += 1
            else:
                running[i] = after
        if prefill is not None:
            i, left = prefill
            if left <= dt:
                times[i].append(t + left)
                running[i] = 0.0
                prefill = None
            else:
                prefill = (i, left - dt)
        t += dt
    records = []
    for i in range(prompts):
        if i in failed:
            records.append(
                {
                    "sent": arrivals[i],
                    "error": "TimeoutError: request waited in the queue past 12 s",
                }
            )
        else:
            records.append({"sent": arrivals[i], "times": times[i], "input": input_len})
    return records


def vllm_result(rate: float, records: list[dict[str, Any]], model: str) -> dict[str, Any]:
    """The records as `vllm bench serve --save-result --save-detailed` writes them, with
    `--percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 90,95,99`."""
    start = records[0]["sent"]
    ok = [r for r in records if "times" in r]
    end = max(r["times"][-1] for r in ok)
    duration = end - start
    ttfts = [r["times"][0] - r["sent"] if "times" in r else 0.0 for r in records]
    latencies = [r["times"][-1] - r["sent"] if "times" in r else 0.0 for r in records]
    outputs = [len(r["times"]) if "times" in r else 0 for r in records]
    inputs = [r.get("input", 0) for r in records]
    itls = [
        [round(b - a, 6) for a, b in zip(r["times"], r["times"][1:], strict=False)]
        if "times" in r
        else []
        for r in records
    ]
    good = [i for i, r in enumerate(records) if "times" in r]
    tpots = [(latencies[i] - ttfts[i]) / (outputs[i] - 1) for i in good if outputs[i] > 1]
    metrics = {
        "ttft": [ttfts[i] for i in good],
        "tpot": tpots,
        "itl": [gap for i in good for gap in itls[i]],
        "e2el": [latencies[i] for i in good],
    }
    total_out = sum(outputs[i] for i in good)
    total_in = sum(inputs[i] for i in good)
    doc: dict[str, Any] = {
        "date": "20261104-141500",
        "endpoint_type": "vllm",
        "backend": "vllm",
        "label": None,
        "model_id": model,
        "tokenizer_id": model,
        "num_prompts": len(records),
        "request_rate": rate,
        "burstiness": 1.0,
        "max_concurrency": None,
        "duration": round(duration, 6),
        "completed": len(good),
        "failed": len(records) - len(good),
        "total_input_tokens": total_in,
        "total_output_tokens": total_out,
        "request_throughput": len(good) / duration,
        "request_goodput": None,
        "output_throughput": total_out / duration,
        "total_token_throughput": (total_in + total_out) / duration,
        "max_output_tokens_per_s": None,
        "max_concurrent_requests": None,
        "input_lens": inputs,
        "output_lens": outputs,
        "ttfts": [round(x, 6) for x in ttfts],
        "itls": itls,
        "latencies": [round(x, 6) for x in latencies],
        "start_times": [round(r["sent"], 6) for r in records],
        "errors": [r.get("error", "") for r in records],
    }
    for name, values in metrics.items():
        doc[f"mean_{name}_ms"] = sum(values) / len(values) * 1000
        doc[f"median_{name}_ms"] = np_percentile(values, 50) * 1000
        doc[f"std_{name}_ms"] = _std(values) * 1000
        for p in (90, 95, 99):
            doc[f"p{p}_{name}_ms"] = np_percentile(values, p) * 1000
    doc["dataProvenance"] = provenance(
        "Generated test data for reportgen's rate-sweep article: a seeded queueing model of one "
        "server, written as vllm bench serve writes its results; not a measurement."
    )
    return doc


def rate_sweep() -> None:
    folder = OUT[0] / "rate-sweep"
    model = "example/Coder-7B"
    for rate in (0.5, 1.0, 2.0, 4.0, 8.0):
        # at 8 requests/s the queue outgrows the server: the longest waits time out
        timeout = 12.0 if rate == 8.0 else math.inf
        records = serve(rate, 120, f"sweep/{rate}", timeout_s=timeout)
        write(folder / f"vllm-{rate:g}qps.json", vllm_result(rate, records, model), indent=None)


ARTICLES: dict[str, Callable[[], None]] = {
    "small": small,
    "matrix-4x4": matrix_4x4,
    "rate-sweep": rate_sweep,
    "two-engines": two_engines,
    "three-configs": three_configs,
    "repetitions": repetitions,
}


def main(argv: list[str]) -> int:
    if argv[:1] == ["--out"] and len(argv) > 1:
        OUT[0], argv = Path(argv[1]), argv[2:]
    unknown = [a for a in argv if a not in ARTICLES]
    if unknown:
        print(f"unknown article {unknown[0]!r}; known: {', '.join(ARTICLES)}", file=sys.stderr)
        return 2
    for name in argv or list(ARTICLES):
        (OUT[0] / name).mkdir(parents=True, exist_ok=True)
        ARTICLES[name]()
        print(f"wrote {OUT[0] / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
