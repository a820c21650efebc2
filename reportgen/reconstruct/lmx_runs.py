"""Reconstructed lmx speed-test runs: one request per iteration, and N requests together, each
reproducing its published headline number.
"""

from __future__ import annotations

import math
import random
from typing import Any

from reportgen.check.readers.reported import Reported
from reportgen.reconstruct.facts import SeedFacts
from reportgen.reconstruct.simcell import bisect
from reportgen.stats import median


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
