"""Regenerate the small second test article's run files: `python tests/articles/make_small.py`.

A bare llm-inference-bench file with other contexts and concurrencies than the Paiton article, a
failed cell, a cell skipped for KV capacity, and a cell missing from the grid; plus one lmx run.
Samples come from the same seeded cell model as the reconstructions, with fixed parameters.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from reportgen.reconstruct.matrix import summary_fields
from reportgen.reconstruct.simcell import CellParams, simulate

HERE = Path(__file__).resolve().parent / "small"
CONTEXTS = (0, 4096, 16384)
LEVELS = (1, 4, 32)


def cell(ctx: int, c: int) -> dict[str, object]:
    rng = random.Random(f"small/{ctx}/{c}")
    params = CellParams(prefill_s=0.05 + ctx / 20000, base_tok_s=60.0 - ctx / 1000, stall=0.3)
    sim = simulate(c, params, rng, duration_s=20.0, max_tokens=512, input_tokens=lambda: ctx + 7)
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


def main() -> None:
    results = []
    for ctx in CONTEXTS:
        for c in LEVELS:
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
            results.append(cell(ctx, c))
    failed = next(r for r in results if (r["context_tokens"], r["concurrency"]) == (4096, 32))
    failed.update(
        {
            "failure_reason": "stream error: connection reset by peer",
            "aggregate_tps": None,
            "num_errors": 3,
        }
    )
    summary: dict[str, dict[str, float | None]] = {}
    for r in results:
        agg = r["aggregate_tps"]
        value = agg if isinstance(agg, float) and agg > 0 else None
        summary.setdefault(str(r["context_tokens"]), {})[str(r["concurrency"])] = value
    bench = {
        "metadata": {
            "version": "0.7.7",
            "engine": "vllm",
            "model": "example/Small-8B",
            "duration_per_test": 20.0,
            "max_tokens": 512,
            "context_lengths": list(CONTEXTS),
            "concurrency_levels": list(LEVELS),
        },
        "prefill": {
            str(ctx): {
                "prompt_tokens": ctx + 11,
                "ttft_seconds": round((ctx + 11) / 9000.0, 6),
                "tok_per_sec": round(9000.0),
                "samples": 1,
            }
            for ctx in (4096, 16384)
        },
        "results": results,
        "summary_table": summary,
    }
    (HERE / "bench.json").write_text(json.dumps(bench, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
