"""Reconstruct run files from a published article's text (seeded, reproducible).

The Paiton article's raw run JSON was not published. This module writes stand-ins in the real
tools' formats whose every number, computed by reportgen's own metrics and rounded as the article
shows it, equals the published one; each file says `dataProvenance.status: reconstructed` and what
it was reconstructed from. Decode cells come from the cell model in `reportgen.simcell`.
Regenerate with `python -m reportgen.reconstruct SEED_TXT OUT_DIR`.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportgen.check.published import Reported, reported_numbers
from reportgen.reconstruct.simcell import bisect, fit_cell
from reportgen.stats import median, percentile

GENERATOR = "reportgen.reconstruct (python -m reportgen.reconstruct)"


# --- the article's files -------------------------------------------------------------------------


@dataclass(frozen=True)
class SeedFacts:
    """What the seed article states about its runs, read from its text."""

    hf_id: str
    quantization: str
    engine: str
    engine_build: str
    lmx_version: str
    bench_version: str
    prompt_id: str
    duration_s: float
    max_tokens: int
    together: int
    together_tokens: int
    date: str


def _search(pattern: str, text: str, what: str) -> tuple[str, ...]:
    import re

    found = re.search(pattern, text)
    if not found:
        raise ValueError(f"the seed text does not state {what} (looked for /{pattern}/)")
    return found.groups()


def seed_facts(text: str) -> SeedFacts:
    """Read the setup facts the reconstruction needs from the seed article's text."""
    hf_id, quant = _search(
        r"\n-\s*Model\s*\n-\s*(\S+/\S+?),\s*released (\S+) checkpoint", text, "the model"
    )
    engine, build = _search(r"\n-\s*Engine\s*\n-\s*(\w+) \(build (\w+)\)", text, "the engine")
    lmx_v, bench_v = _search(
        r"lmx (\d+\.\d+\.\d+), llm-inference-bench (\d+\.\d+\.\d+)", text, "tool versions"
    )
    (prompt,) = _search(r"canonical prompt ([\w.-]+)", text, "the canonical prompt")
    duration, max_tokens = _search(
        r"\((\d+) s per decode cell, max ([\d,]+) output tokens", text, "the matrix settings"
    )
    together, tokens = _search(
        r"(\d+) requests together, (\d+) output tokens each", text, "the concurrent canonical run"
    )
    day, month, year = _search(r"(\d{1,2}) (\w+) (\d{4})\.", text, "the date")
    months = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ]
    return SeedFacts(
        hf_id=hf_id,
        quantization=quant,
        engine=engine,
        engine_build=build,
        lmx_version=lmx_v,
        bench_version=bench_v,
        prompt_id=prompt,
        duration_s=float(duration),
        max_tokens=int(max_tokens.replace(",", "")),
        together=int(together),
        together_tokens=int(tokens),
        date=f"{year}-{months.index(month) + 1:02d}-{int(day):02d}",
    )


def _context_tokens(label: str) -> int:
    if label == "0":
        return 0
    units = {"K": 1024, "M": 1024 * 1024}
    return int(label[:-1]) * units[label[-1]]


def _provenance(seed_label: str, seed_sha: str, note: str) -> dict[str, str]:
    return {
        "status": "reconstructed",
        "reconstructedFrom": f"{seed_label} (sha256 {seed_sha})",
        "generator": GENERATOR,
        "note": note,
    }


def _stats(values: list[float]) -> dict[str, float]:
    n = len(values)
    mean = sum(values) / n
    out = {
        "count": n,
        "min": min(values),
        "p50": median(values) or 0.0,
        "mean": mean,
        "max": max(values),
    }
    if n > 1:
        out["stddev"] = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return {k: round(v, 2) for k, v in out.items()}


def _lmx_common(facts: SeedFacts, concurrency: int, max_tokens: int) -> dict[str, Any]:
    return {
        "hfId": facts.hf_id,
        "modelRevision": "main",
        "engineName": facts.engine.lower(),
        "engineVersion": facts.engine_build,
        "engineBuild": facts.engine_build,
        "quantization": facts.quantization,
        "backend": "rocm",
        "benchmarkMode": "remote",
        "hardware": {},
        "hardwareSource": "missing_remote",
        "engineFlags": {
            "mode": "remote",
            "baseUrl": "http://paiton.invalid/v1",
            "servedModel": facts.hf_id,
            "stream": True,
            "maxTokens": max_tokens,
            "timeoutSeconds": 600,
            "warmup": 1,
            "iterations": 3,
            "concurrency": concurrency,
            "promptSource": facts.prompt_id,
            "prefixCacheBust": "leading_nonce_per_request",
        },
        "provenance": {
            "cli": "localmaxxing-go",
            "cliVersion": facts.lmx_version,
            "benchmarkMode": "remote",
            "createdAt": f"{facts.date}T12:00:00Z",
            "metricSource": "remote_endpoint",
            "timingSource": "client_observed_http",
            "ttftSource": "stream_first_token",
        },
    }


def canonical_single(
    facts: SeedFacts, out_tok_s: Reported, ttft_ms: Reported, seed: str, provenance: dict[str, str]
) -> dict[str, Any]:
    """An lmx speed-test run, one request per iteration, reproducing the two headline numbers."""
    rng = random.Random(f"{seed}/canonical-single")
    prompt_tokens, output_tokens = rng.randint(900, 1400), 256
    speeds = [round(out_tok_s.value + rng.uniform(-0.3, 0.3), 1)]
    speeds += [
        round(speeds[0] * (1 - rng.uniform(0.01, 0.04)), 1),
        round(speeds[0] * (1 + rng.uniform(0.01, 0.04)), 1),
    ]
    ttfts = [ttft_ms.value + rng.uniform(-0.3, 0.3)]
    ttfts += [ttfts[0] * (1 + rng.uniform(0.02, 0.08)), ttfts[0] * (1 - rng.uniform(0.01, 0.05))]
    order = [0, 1, 2]
    rng.shuffle(order)
    samples = []
    for iteration, i in enumerate(order, start=1):
        ttft_s = ttfts[i] / 1000
        total = (prompt_tokens + output_tokens) / (ttft_s + (output_tokens - 1) / speeds[i])
        samples.append(
            {
                "iteration": iteration,
                "request": 0,
                "promptTokens": prompt_tokens,
                "outputTokens": output_tokens,
                "tokSTotal": round(total, 1),
                "tokSOut": speeds[i],
                "ttftMs": round(ttfts[i], 2),
                "tokSPrefill": round(prompt_tokens / ttft_s, 1),
            }
        )
    run = _lmx_common(facts, 1, output_tokens)
    run.update(
        {
            "promptTokens": prompt_tokens,
            "outputTokens": output_tokens,
            "contextLength": prompt_tokens + output_tokens,
            "batchSize": 1,
            "tokSOut": round(median(s["tokSOut"] for s in samples) or 0.0, 2),
            "tokSOutSource": "inter_token",
            "ttftMs": round(median(ttfts) or 0.0, 2),
            "ttftSource": "stream_first_token",
            "tokSPrefill": round(median(s["tokSPrefill"] for s in samples) or 0.0, 2),
            "tokSPrefillSource": "estimated_from_ttft",
            "tokSTotal": round(median(s["tokSTotal"] for s in samples) or 0.0, 2),
            "samples": samples,
            "sampleStats": {
                k: _stats([s[k] for s in samples]) for k in ("tokSOut", "tokSTotal", "ttftMs")
            },
            "warnings": [],
            "dataProvenance": provenance,
        }
    )
    return run


def _together_iteration(
    rng: random.Random, n: int, tokens: int, aim: float
) -> tuple[float, list[float], list[float], float]:
    """One iteration of N requests sent together: (speed, TTFTs, speed jitter, group tok/s)."""
    prefill = 0.03 * rng.lognormvariate(0, 0.05)
    ttfts = [prefill * (i + 1) * rng.lognormvariate(0, 0.02) for i in range(n)]
    jitter = [rng.lognormvariate(0, 0.05) for _ in range(n)]

    def group(v: float) -> float:
        ends = [t + (tokens - 1) / (v * j) for t, j in zip(ttfts, jitter, strict=True)]
        return n * tokens / (max(ends) - min(ttfts))

    def error(v: float) -> float:
        return group(v) - aim

    speed = bisect(error, 1.0, 5000.0, 1e-6, steps=80)
    return speed, ttfts, jitter, group(speed)


def canonical_together(
    facts: SeedFacts, out_tok_s: Reported, seed: str, provenance: dict[str, str]
) -> dict[str, Any]:
    """An lmx speed-test run of N requests per iteration, reproducing the group throughput."""
    rng = random.Random(f"{seed}/canonical-together")
    n, tokens = facts.together, facts.together_tokens
    prompt_tokens = rng.randint(900, 1400)
    aim = out_tok_s.value + rng.uniform(-0.3, 0.3)
    group_aims = [aim, aim * (1 - rng.uniform(0.01, 0.03)), aim * (1 + rng.uniform(0.01, 0.03))]
    rng.shuffle(group_aims)
    samples, groups = [], []
    for iteration, group_aim in enumerate(group_aims, start=1):
        speed, ttfts, jitter, group = _together_iteration(rng, n, tokens, group_aim)
        groups.append(group)
        for request, (t, j) in enumerate(zip(ttfts, jitter, strict=True)):
            samples.append(
                {
                    "iteration": iteration,
                    "request": request,
                    "promptTokens": prompt_tokens,
                    "outputTokens": tokens,
                    "tokSOut": round(speed * j, 1),
                    "ttftMs": round(t * 1000, 2),
                    "tokSPrefill": round(prompt_tokens / t, 1),
                }
            )
    run = _lmx_common(facts, n, tokens)
    run.update(
        {
            "promptTokens": prompt_tokens,
            "outputTokens": tokens,
            "batchSize": n,
            "tokSOut": round(median(groups) or 0.0, 2),
            "tokSOutSource": "concurrent_request_window",
            "ttftMs": round(median(s["ttftMs"] for s in samples) or 0.0, 2),
            "ttftSource": "stream_first_token",
            "samples": samples,
            "sampleStats": {k: _stats([s[k] for s in samples]) for k in ("tokSOut", "ttftMs")},
            "warnings": [],
            "dataProvenance": provenance,
        }
    )
    return run


def _summary_fields(samples: list[dict[str, Any]]) -> dict[str, Any]:
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
        {mid.split(".")[1] for mid in targets if mid.startswith("prefill.")}, key=_context_tokens
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
        prefill[str(_context_tokens(label))] = {
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
        key=lambda lc: (_context_tokens(lc[0]), lc[1]),
    )
    results: list[dict[str, Any]] = []
    summary_table: dict[str, dict[str, float]] = {}
    for label, c in cells:
        ids = [
            f"decode.{label}.c{c}.{k}" for k in ("aggregate_tok_s", "per_request_tok_s", "ttft_s")
        ]
        base_tokens = prompt_by_label.get(label, _context_tokens(label)) if label != "0" else 24
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
            "context_tokens": _context_tokens(label),
            "benchmark_mode": "duration",
            "measurement_seconds": sim.measurement_s,
            "measurement_wall_seconds": sim.wall_s,
            "client_output_tokens": sim.window_tokens,
            "server_output_tokens": 0,
            "aggregate_source": "openai_continuous_usage",
            "aggregate_tps": round(agg, 2),
            "per_request_avg_tps": round(agg / c, 2),
            **_summary_fields(samples),
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
        summary_table.setdefault(str(_context_tokens(label)), {})[str(c)] = round(agg, 2)
    contexts = sorted({_context_tokens(label) for label, _ in cells})
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
            "prefill_context_lengths": [_context_tokens(label) for label in prefill_labels],
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


def dumps(data: dict[str, Any]) -> str:
    """The canonical text of a generated file (stable key order and float formatting)."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def reconstruct(
    seed_path: Path, seed_label: str, seed: str = "paiton-2026-11-11"
) -> dict[str, str]:
    """The reconstructed run files (name -> text) for the article at `seed_path`."""
    import hashlib

    raw = seed_path.read_bytes()
    text = raw.decode("utf-8")
    sha = hashlib.sha256(raw).hexdigest()
    facts = seed_facts(text)
    targets = {r.metric_id: r for r in reported_numbers(text) if r.metric_id}

    def prov(note: str) -> dict[str, str]:
        return _provenance(seed_label, sha, note)

    single = canonical_single(
        facts,
        targets["canonical.c1.output_tok_s"],
        targets["canonical.c1.ttft_ms"],
        seed,
        prov(
            "Reconstructed from the article's headline numbers (output tok/s and TTFT of one "
            "request); per-iteration spread and the prompt token count are invented."
        ),
    )
    together = canonical_together(
        facts,
        targets[f"canonical.c{facts.together}.output_tok_s"],
        seed,
        prov(
            "Reconstructed from the article's headline number for the concurrent run; "
            "per-request timings are invented and only the group throughput is published."
        ),
    )
    matrix = matrix_run(
        facts,
        targets,
        seed,
        prov(
            "Reconstructed from the article's four matrix tables: request samples come from a "
            "seeded model of each cell fitted to the published medians and aggregates."
        ),
    )
    return {
        "canonical-single.json": dumps(single),
        f"canonical-{facts.together}.json": dumps(together),
        "matrix.json": dumps(matrix),
    }


def main(argv: list[str] | None = None) -> int:
    """`python -m reportgen.reconstruct SEED_TXT OUT_DIR`: write the reconstructed run files."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m reportgen.reconstruct",
        description="Regenerate reconstructed run files from a published article's text.",
        epilog="example: python -m reportgen.reconstruct ../shared/seed/paiton-kimi-k3.1-pro.txt "
        "runs/paiton-kimi-k3.1-pro",
    )
    parser.add_argument("seed", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument(
        "--label", default=None, help="how the files name the seed (default: its file name)"
    )
    args = parser.parse_args(argv)
    files = reconstruct(args.seed, args.label or f"seed/{args.seed.name}")
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (args.out / name).write_text(text, encoding="utf-8")
        print(f"wrote {args.out / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
