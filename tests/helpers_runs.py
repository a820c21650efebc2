"""Builders of small, consistent run-file dicts, and shortcuts to validate them.

Every builder returns a value that validates with no problem at all; a test changes the one thing
it is about. Numbers are chosen to be exact in binary floating point where a test compares them.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from reportgen.errors import InputError, Problem
from reportgen.formats.json_input.document import parse_json
from reportgen.formats.load import load_document
from reportgen.model import CanonicalRun, MatrixRun, Run

EXAMPLES = Path(__file__).parent / "examples"
VALID = EXAMPLES / "valid"
INVALID = EXAMPLES / "invalid"


def bench_sample(
    *,
    ttft: float = 0.25,
    itl: float = 0.0625,
    n: int = 33,
    completed: bool = True,
    latency: float | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """One bench request sample; latency defaults to just after its last token."""
    if latency is None:
        latency = ttft + itl * (n - 1) + 0.001 if completed else 0.0
    sample: dict[str, Any] = {
        "ttft": ttft,
        "latency": latency,
        "inter_token_latency_avg": itl,
        "output_tokens": n,
        "completed": completed,
    }
    sample.update(extra)
    return sample


def bench_cell(
    *,
    concurrency: int = 1,
    context: int = 0,
    aggregate_tps: float | None = 100.0,
    tokens: int | None = 1000,
    seconds: float | None = 10.0,
    source: str = "openai_continuous_usage",
    samples: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """One decode cell with no summary percentiles (so nothing is cross-checked by default)."""
    cell: dict[str, Any] = {
        "concurrency": concurrency,
        "context_tokens": context,
        "aggregate_source": source,
        "aggregate_tps": aggregate_tps,
        "client_output_tokens": tokens,
        "measurement_seconds": seconds,
        "request_samples": [bench_sample()] if samples is None else samples,
    }
    cell.update(extra)
    return cell


def prefill_entry(
    prompt_tokens: int = 8000, ttft: float = 0.5, tok_per_sec: float | None = None, **extra: Any
) -> dict[str, Any]:
    """One cold-prefill entry; tok_per_sec defaults to prompt_tokens / ttft."""
    entry: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "ttft_seconds": ttft,
        "tok_per_sec": prompt_tokens / ttft if tok_per_sec is None else tok_per_sec,
    }
    entry.update(extra)
    return entry


def bench_run(
    *cells: dict[str, Any],
    version: str = "0.7.7",
    prefill: dict[str, dict[str, Any]] | None = None,
    summary_table: dict[str, dict[str, float | None]] | None = None,
    **metadata: Any,
) -> dict[str, Any]:
    """A bare llm-inference-bench benchmark_results.json (one default cell if none given)."""
    run: dict[str, Any] = {
        "metadata": {"version": version, "engine": "paiton", **metadata},
        "results": list(cells) if cells else [bench_cell()],
    }
    if prefill is not None:
        run["prefill"] = prefill
    if summary_table is not None:
        run["summary_table"] = summary_table
    return run


def lmx_sample(
    iteration: int = 0,
    request: int = 0,
    *,
    tok_s_out: float = 40.0,
    ttft_ms: float = 200.0,
    output_tokens: int = 256,
    **extra: Any,
) -> dict[str, Any]:
    """One request of one timed lmx iteration."""
    sample: dict[str, Any] = {
        "iteration": iteration,
        "request": request,
        "outputTokens": output_tokens,
        "tokSOut": tok_s_out,
        "ttftMs": ttft_ms,
    }
    sample.update(extra)
    return sample


def lmx_run(
    samples: list[dict[str, Any]] | None = None,
    *,
    tok_s_out: float = 40.0,
    ttft_ms: float | None = 200.0,
    concurrency: int = 1,
    iterations: int | None = None,
    max_tokens: int = 256,
    cli: str = "lmx 0.1.60",
    **extra: Any,
) -> dict[str, Any]:
    """An lmx speed-test run JSON; with `samples`, iterations defaults to how many they hold."""
    flags: dict[str, Any] = {"maxTokens": max_tokens, "concurrency": concurrency}
    if iterations is None and samples:
        iterations = len({s["iteration"] for s in samples})
    if iterations is not None:
        flags["iterations"] = iterations
    run: dict[str, Any] = {
        "hfId": "moonshotai/Kimi-K3.1-Pro",
        "engineName": "paiton",
        "tokSOut": tok_s_out,
        "ttftMs": ttft_ms,
        "engineFlags": flags,
        "provenance": {"cli": cli},
    }
    if samples is not None:
        run["samples"] = samples
    run.update(extra)
    return run


def to_bytes(data: Any) -> bytes:
    """Pretty-printed JSON, as the tools write it."""
    return json.dumps(data, indent=2).encode("utf-8")


def validate(data: Any, label: str = "run.json") -> tuple[Run | None, list[Problem]]:
    """Parse and validate `data` as a run file; the run is None when it has errors."""
    try:
        doc = parse_json(label, to_bytes(data))
    except InputError as exc:
        return None, list(exc.problems)
    run, problems = load_document(doc)
    return run, problems


def messages(problems: list[Problem]) -> list[str]:
    """`pointer: message` of each problem (warnings keep their prefix), location left out."""
    return [p.format().split(" ", 1)[1] for p in problems]


def load_ok(data: Any, label: str = "run.json") -> Run:
    """The run of a file that must validate with no problem at all."""
    run, problems = validate(data, label)
    assert problems == [], messages(problems)
    assert run is not None
    return run


def load_matrix(data: Any, label: str = "run.json") -> MatrixRun:
    """`load_ok` for a bench file."""
    run = load_ok(data, label)
    assert isinstance(run, MatrixRun)
    return run


def load_canonical(data: Any, label: str = "run.json") -> CanonicalRun:
    """`load_ok` for an lmx file."""
    run = load_ok(data, label)
    assert isinstance(run, CanonicalRun)
    return run


def edited(data: dict[str, Any], pointer: str, value: Any) -> dict[str, Any]:
    """A deep copy of `data` with the value at JSON pointer `pointer` replaced."""
    out = copy.deepcopy(data)
    *parents, last = pointer.strip("/").split("/")
    node: Any = out
    for token in parents:
        node = node[int(token)] if isinstance(node, list) else node[token]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return out
