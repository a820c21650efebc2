"""The reconstructed llm-inference-bench matrix run: cold prefill per context and one seeded
decode cell (`reportgen.reconstruct.simcell`) per context x concurrency, wrapped as lmx does.
"""

from __future__ import annotations

import random
from typing import Any

from reportgen.check.readers.reported import Reported
from reportgen.reconstruct.facts import SeedFacts, context_tokens
from reportgen.reconstruct.simcell import fit_cell
from reportgen.stats import percentile


def summary_fields(samples: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    columns = {
        "ttft": [s["ttft"] for s in samples],
        "time_to_second_token": [s["time_to_second_token"] for s in samples],
        "request_latency": [s["latency"] for s in samples if s["completed"]],
        "inter_token_latency": [
            s["inter_token_latency_avg"] for s in samples if s["output_tokens"] >= 2
        ],
        "output_tps_per_user": [
            1 / s["inter_token_latency_avg"]
            for s in samples
            if s["output_tokens"] >= 2 and s["inter_token_latency_avg"] > 0
        ],
        "e2e_output_tps_per_user": [s["e2e_output_tps_per_user"] for s in samples],
        "output_seq_len": [float(s["output_tokens"]) for s in samples],
    }
    for name, values in columns.items():
        kept = [v for v in values if v > 0]
        out[f"{name}_avg"] = round(sum(kept) / len(kept), 6) if kept else None
        for q in (50, 90, 99):
            value = percentile(values, q / 100)
            out[f"{name}_p{q}"] = None if value is None else round(value, 6)
    return out


def matrix_run(
    facts: SeedFacts, targets: dict[str, Reported], seed: str, provenance: dict[str, str]
) -> dict[str, Any]:
    """An llm-inference-bench result inside an lmx matrix wrapper, reproducing every table."""
    prefill: dict[str, Any] = {}
    prefill_labels = sorted(
        {mid.split(".")[1] for mid in targets if mid.startswith("prefill.")}, key=context_tokens
    )
    prompt_by_label = {}
    for label in prefill_labels:
        rng = random.Random(f"{seed}/prefill/{label}")
        tokens = int(targets[f"prefill.{label}.prompt_tokens"].value)
        rate_t, ttft_t = targets[f"prefill.{label}.tok_s"], targets[f"prefill.{label}.ttft_s"]
        ttft = round(tokens / (rate_t.value + rng.uniform(-0.3, 0.3)), 6)
        if abs(ttft - ttft_t.value) > 0.5 * 10.0**-ttft_t.decimals:
            raise RuntimeError(
                f"prefill {label}: {tokens} tokens at {rate_t.text} tok/s cannot "
                f"take {ttft_t.text} s"
            )
        prompt_by_label[label] = tokens
        prefill[str(context_tokens(label))] = {
            "ttft_seconds": ttft,
            "prefill_seconds": ttft,
            "tok_per_sec": round(tokens / ttft),
            "client_ttft_seconds": ttft,
            "client_tok_per_sec": round(tokens / ttft),
            "prompt_tokens": tokens,
            "samples": 1,
            "method": "standalone_cold",
        }
    cells = sorted(
        {
            (mid.split(".")[1], int(mid.split(".")[2][1:]))
            for mid in targets
            if mid.startswith("decode.")
        },
        key=lambda lc: (context_tokens(lc[0]), lc[1]),
    )
    results: list[dict[str, Any]] = []
    summary_table: dict[str, dict[str, float]] = {}
    for label, c in cells:
        ids = [
            f"decode.{label}.c{c}.{k}" for k in ("aggregate_tok_s", "per_request_tok_s", "ttft_s")
        ]
        base_tokens = prompt_by_label.get(label, context_tokens(label)) if label != "0" else 24
        sim = fit_cell(
            c,
            (targets[ids[0]], targets[ids[1]], targets[ids[2]]),
            f"{seed}/decode/{label}/{c}",
            duration_s=facts.duration_s,
            max_tokens=facts.max_tokens,
            input_tokens=base_tokens,
        )
        agg = sim.window_tokens / sim.measurement_s
        samples = sim.samples
        completed = [s for s in samples if s["completed"]]
        cell = {
            "concurrency": c,
            "context_tokens": context_tokens(label),
            "benchmark_mode": "duration",
            "measurement_seconds": sim.measurement_s,
            "measurement_wall_seconds": sim.wall_s,
            "client_output_tokens": sim.window_tokens,
            "server_output_tokens": 0,
            "aggregate_source": "openai_continuous_usage",
            "aggregate_tps": round(agg, 2),
            "per_request_avg_tps": round(agg / c, 2),
            **summary_fields(samples),
            "input_seq_len_avg": round(sum(s["input_tokens"] for s in samples) / len(samples), 1),
            "request_count": len(samples),
            "completed_request_count": len(completed),
            "request_samples": samples,
            "num_completed": c,
            "num_errors": 0,
            "avg_running_reqs": sim.effective_concurrency,
            "max_running_reqs": c,
            "effective_concurrency": sim.effective_concurrency,
            "avg_queue_reqs": 0.0,
            "underfilled": False,
            "warmup_timed_out": False,
            "warmup_duration": sim.warmup_s,
            "ready_reason": "all_streams_decoding",
            "capacity_limited": False,
            "loop_detected": False,
            "failure_reason": None,
        }
        results.append(cell)
        summary_table.setdefault(str(context_tokens(label)), {})[str(c)] = round(agg, 2)
    contexts = sorted({context_tokens(label) for label, _ in cells})
    bench = {
        "metadata": {
            "version": facts.bench_version,
            "engine": facts.engine.lower(),
            "model": facts.hf_id,
            "timestamp": f"{facts.date}T12:00:00Z",
            "decode_mode": "sustained",
            "benchmark_mode": "duration",
            "duration_per_test": facts.duration_s,
            "prefill_mode": "standalone_cold",
            "skip_prefill": False,
            "max_tokens": facts.max_tokens,
            "temperature": 0.0,
            "ignore_eos": True,
            "prefix_cache_bust": "unique_prefix_per_request",
            "metrics_available": False,
            "concurrency_levels": sorted({c for _, c in cells}),
            "context_lengths": contexts,
            "prefill_context_lengths": [context_tokens(label) for label in prefill_labels],
        },
        "prefill": prefill,
        "results": results,
        "summary_table": summary_table,
        "methodology": {
            "prefill": {"formula": "prompt_tokens / TTFT"},
            "sustained_decode": {
                "formula": "usage completion tokens in window / (last usage arrival - window start)"
            },
        },
    }
    return {
        "kind": "lmx-speed-test-matrix",
        "cli": "localmaxxing-go",
        "cliVersion": facts.lmx_version,
        "command": "lmx speed-test matrix run",
        "benchVersion": facts.bench_version,
        "hfId": facts.hf_id,
        "engineName": facts.engine.lower(),
        "benchmarkResults": bench,
        "dataProvenance": provenance,
    }
