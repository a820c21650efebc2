"""Parse stage for SGLang's `python -m sglang.bench_serving --output-file F.jsonl` results.

SGLang appends one JSON line per invocation: a record is one load point (one run at one request
rate and concurrency limit), a `.jsonl` file one `SweepRun` of its records in file order, read by
`reportgen.formats.json_input.lines` (pointers `/INDEX/key`; the bare `Infinity` of an unbounded
`request_rate` accepted there alone). The format descends from vLLM's (`vllm.bench_serve`); per
SGLang 0.5's source:

- `*_ms` statistics are milliseconds; `--output-details` adds `ttfts` and `itls` (each request's
  chunk gaps) in seconds, but no latency: reportgen takes TTFT + the sum of the gaps (the last
  streamed content), where SGLang's e2e latency runs to the stream's last line;
- `output_lens` and `total_output_tokens` are the server's usage count; SGLang's re-tokenization
  of the text (`total_output_tokens_retokenized`) is not used, and a warning when it differs by
  more than a token a request. A failed request has output length 0 and, usually, an error;
- SGLang's TPOT per request, (latency - TTFT) / (output tokens - 1), is reportgen's ITL; its ITL
  statistics pool every chunk gap of every request and are not used;
- `request_rate` Infinity: every request released at once, no rate;
- a record names neither SGLang's version nor the model (but `server_info.model_path` from an
  SGLang server), nor how many requests were sent: failed ones are known only from the arrays.

Labels are vLLM's (`r{rate}`, `c{N}`, `r{rate}-c{N}`, `burst`); when records of one file share
one (the same load run again), each is suffixed with its record's index, `-b{INDEX}` as GuideLLM's
benchmarks are, so every load point's metrics keep ids of their own.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from reportgen import tolerances as tol
from reportgen.errors import Problem
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.json_input.document import JsonDocument, escape_pointer_token
from reportgen.formats.records import ms_statistics
from reportgen.formats.sglang.requests import fit_record, request_samples
from reportgen.frozendict import FrozenDict
from reportgen.model import (
    CellStatus,
    LoadPoint,
    Scalar,
    SourceFile,
    SweepRun,
)
from reportgen.stats import close

Report = Callable[[str, str, str], None]  # (pointer inside the record, message, severity)
_MARKS = ("backend", "dataset_name", "random_input_len", "duration", "completed")
_STAT = re.compile(r"(mean|median|std|p[0-9]+(?:\.[0-9]+)?)_(ttft|tpot|itl|e2e_latency)_ms")
# SGLang's metric -> the reportgen quantity its statistics describe (its pooled `itl` is not one)
_QUANTITY = {"ttft": "ttft_s", "tpot": "itl_s", "e2e_latency": "latency_s"}
_STATS = {"mean": "mean", "median": "p50", "p90": "p90", "p95": "p95", "p99": "p99"}
# settings a record states, kept for the run when every record states the same
_SETTINGS = "tag backend dataset_name sharegpt_output_len random_input_len random_output_len"
_SETTINGS += " random_range_ratio max_concurrency request_rate"
DEFINITIONS = (
    ("ttft_s", "SGLang: the first streamed chunk with content, from just before the POST"),
    (
        "itl_s",
        "SGLang's TPOT per request, (latency - TTFT) / (output tokens - 1), or, from the "
        "per-request records, the sum of the request's chunk gaps / (output tokens - 1); "
        "SGLang's own ITL statistics pool every chunk gap of every request and are not used",
    ),
    (
        "output_tok_s",
        "SGLang: the server's output tokens / the whole run's duration, ramp-up and tail included",
    ),
    (
        "output_tokens",
        "SGLang: the server's usage count (total_output_tokens); SGLang's own re-tokenization of "
        "the generated text (total_output_tokens_retokenized) is not used",
    ),
)
_LATENCY = (
    "latency_s",
    "SGLang writes no per-request latency: reportgen takes TTFT + the sum of the request's chunk "
    "gaps (its last streamed content); SGLang's e2e latency runs to the stream's last line",
)
_FAILED = (
    "failed",
    "SGLang counts failed requests only in its per-request records (--output-details); without "
    "them 0 means none reported, not none failed",
)


def detect(data: dict[str, Any]) -> Detection | None:
    """SGLang records (a JSON Lines file's, by index) have `backend`, `dataset_name`,
    `random_input_len`, `duration` and `completed`, and no vLLM `model_id`."""
    first = data.get("0")
    if isinstance(first, dict) and all(k in first for k in _MARKS) and "model_id" not in first:
        return Detection("", "sglang-bench")
    return None


def version(_run: dict[str, Any]) -> tuple[str, str]:
    """SGLang does not record its version: the empty string (the tool is named alone)."""
    return "", ""


def _rate(raw: dict[str, Any]) -> float | None:
    """Requests per second; None for Infinity, every request released at once."""
    rate = float(raw["request_rate"])
    return None if math.isinf(rate) else rate


def _labels(records: list[dict[str, Any]]) -> list[str]:
    """vLLM's labels, each one that repeats in the file suffixed with its record's index."""
    labels = []
    for raw in records:
        rate, limit = _rate(raw), raw.get("max_concurrency")
        shown = "" if rate is None else f"r{rate:g}"
        labels.append("-".join(filter(None, (shown, f"c{limit}" if limit else ""))) or "burst")
    counts = Counter(labels)
    return [f"{label}-b{i}" if counts[label] > 1 else label for i, label in enumerate(labels)]


def _strategy(rate: float | None, concurrency: int | None) -> str:
    if rate is None:
        return "concurrency limit" if concurrency is not None else "all at once"
    return "poisson"  # SGLang spaces requests by exponential gaps


def _checks(raw: dict[str, Any], report: Report) -> None:
    """Warnings: SGLang's own rates against its counts, and its two output token counts."""
    duration, completed = float(raw["duration"]), int(raw["completed"])
    output = int(raw["total_output_tokens"])
    for key, count, what in (
        ("output_throughput", output, "total_output_tokens"),
        ("request_throughput", completed, "completed"),
    ):
        if key not in raw or duration <= 0:
            continue
        shown, computed = float(raw[key]), count / duration
        if not close(shown, computed, rel=tol.AGGREGATE.rel, abs_=0.01):
            report(
                f"/{key}",
                f"{key} {shown:g}/s disagrees with {what} / duration = {count} / {duration:g} s "
                f"= {computed:.6g}/s",
                "warning",
            )
    retokenized = raw.get("total_output_tokens_retokenized")
    if isinstance(retokenized, int) and abs(retokenized - output) > completed:
        report(
            "/total_output_tokens_retokenized",
            f"SGLang's re-tokenized output count {retokenized} differs from the server's "
            f"total_output_tokens {output} by more than one token a request ({completed} "
            "requests); reportgen counts the server's",
            "warning",
        )


def _point(raw: dict[str, Any], at: str, label: str, report: Report) -> LoadPoint:
    rate, concurrency = _rate(raw), raw.get("max_concurrency")
    completed, duration = int(raw["completed"]), float(raw["duration"])
    _checks(raw, report)
    samples = request_samples(raw, at, report)
    done = sum(s.completed for s in samples)
    if samples and done != completed:
        report(
            "/completed",
            f"completed {completed} but {done} per-request records completed",
            "warning",
        )
    errors = [e for e in raw.get("errors") or () if e]
    status: CellStatus = "ok" if completed > 0 else "failed"
    reason = None
    if status == "failed":
        reason = errors[0].strip().splitlines()[-1] if errors else "no request completed"
        report(
            "/completed",
            f"completed 0 ({reason}): the load point has its request counts only, no latency or "
            "throughput",
            "warning",
        )
    summaries, summary_at = ms_statistics(raw, _STAT, _STATS, _QUANTITY, at)
    fixed = str(raw["dataset_name"]).startswith("random") and raw.get("random_range_ratio") == 1
    return LoadPoint(
        pointer=at,
        label=label,
        concurrency=concurrency,
        rate=rate,
        strategy=_strategy(rate, concurrency),
        status=status,
        reason=reason,
        duration_s=duration if duration > 0 else None,
        output_tokens=int(raw["total_output_tokens"]),
        aggregate_tok_s=float(raw["output_throughput"]),
        requests_ok=completed,
        requests_failed=len(samples) - done,
        samples=samples,
        summaries=FrozenDict(summaries),
        prompt_tokens=raw.get("random_input_len") if fixed else None,
        max_tokens=raw.get("random_output_len") if fixed else None,
        summary_at=FrozenDict((("aggregate_tok_s", f"{at}/output_throughput"), *summary_at)),
    )


def _setting(value: Any) -> Scalar:
    if isinstance(value, float) and math.isinf(value):
        return "inf"  # as vLLM writes it, and as JSON can hold it
    return value if isinstance(value, str | int | float | bool) else None


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[SweepRun, list[Problem]]:
    """Build the `SweepRun` of a schema-valid SGLang file: one load point per record."""
    problems: list[Problem] = []

    def reporter(at: str) -> Report:
        def report(pointer: str, message: str, severity: str) -> None:
            problems.append(doc.problem(at + pointer, message, severity))

        return report

    places = [f"{base}/{escape_pointer_token(key)}" for key in doc.data]
    records = [
        fit_record(raw, reporter(at)) for at, raw in zip(places, doc.data.values(), strict=True)
    ]
    points = tuple(
        _point(raw, at, label, reporter(at))
        for raw, at, label in zip(records, places, _labels(records), strict=True)
    )
    settings: list[tuple[str, Scalar]] = []
    for key in _SETTINGS.split():
        values = {_setting(r.get(key)) for r in records}
        if len(values) == 1 and (value := values.pop()) is not None:
            settings.append((key, value))
    paths = {
        info["model_path"]
        for r in records
        if isinstance(info := r.get("server_info"), dict)
        and isinstance(info.get("model_path"), str)
    }
    definitions = list(DEFINITIONS)
    if any(p.samples for p in points):
        definitions.append(_LATENCY)
    if not all(p.samples for p in points):
        definitions.append(_FAILED)
    run = SweepRun(
        source=source,
        engine=None,  # the file names the client's backend, not the server
        model=paths.pop() if len(paths) == 1 else None,
        points=points,
        definitions=FrozenDict(sorted(definitions)),
        settings=FrozenDict(sorted(settings)),
    )
    return run, problems


FORMAT = RunFormat(
    name="sglang-bench",
    tool="sglang bench_serving",
    tested_versions=None,  # its files do not record its version
    looks_like="an SGLang bench_serving .jsonl file (one record a line)",
    marks=tuple(f"/{key}" for key in _MARKS),
    detect=detect,
    version=version,
    parse=parse,
    lines=True,
)
