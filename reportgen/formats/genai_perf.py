"""Parse stage for GenAI-Perf's `profile_export_genai_perf.json`: one `genai-perf profile` run, one
load point, read from GenAI-Perf's own statistics (its per-metric objects are AIPerf's layout,
without `count` and `sum`, so `aiperf.summaries` reads them).

Schema-valid raw JSON in, a `SweepRun` of that one point plus semantic problems out. The only
module that reads GenAI-Perf's raw keys. Definitions (docs/tool-formats-research.md, section 5):

- the file records neither GenAI-Perf's version nor its duration: the tool is named alone, and
  the duration is request_count / request_throughput, the window its throughputs divide by;
- it sends no `stream_options`, so every token count is its own tokenizer's;
- it writes no count of failed requests.
"""

from __future__ import annotations

import math
from typing import Any

from reportgen.errors import Problem
from reportgen.formats.aiperf import check_throughput, label, summaries
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.jsonfile import JsonDocument
from reportgen.model import LoadPoint, Scalar, SourceFile, SweepRun

DEFINITIONS = (
    (
        "ttft_s",
        "GenAI-Perf: from perf_analyzer's request timestamp to the first response with non-empty "
        "text",
    ),
    (
        "itl_s",
        "GenAI-Perf: per request (latency - TTFT) / (output tokens - 1), rounded to the "
        "nanosecond, the output tokens counted by GenAI-Perf's tokenizer on the streamed text",
    ),
    ("latency_s", "GenAI-Perf: from the request timestamp to the last response with text"),
    ("per_request_tok_s", "GenAI-Perf: output_token_throughput_per_user, 1 / ITL per request"),
    (
        "output_tok_s",
        "GenAI-Perf: all output tokens (its tokenizer) / (last response - first request); the "
        "file does not state that duration, reportgen takes it as request_count / "
        "request_throughput",
    ),
    ("failed", "GenAI-Perf writes no count of failed requests: 0 means none reported"),
)


def detect(data: dict[str, Any]) -> Detection | None:
    """A GenAI-Perf summary keeps its configuration, with a `perf_analyzer` part, in
    `input_config`, and has no `aiperf_version` (AIPerf's own files do)."""
    config = data.get("input_config")
    if isinstance(config, dict) and "perf_analyzer" in config and "aiperf_version" not in data:
        return Detection("", "genai-perf")
    return None


def version(run: dict[str, Any]) -> tuple[str, str]:
    """GenAI-Perf does not record its version in the file: the empty string (the tool is named
    alone)."""
    return "", ""


def _fixed(spec: Any) -> int | None:
    """A configured token length, when every request has the same ({mean, stddev 0})."""
    if not isinstance(spec, dict) or spec.get("stddev"):
        return None
    mean = spec.get("mean")
    if isinstance(mean, int | float) and mean >= 1 and float(mean).is_integer():
        return int(mean)
    return None


def _duration(completed: int, per_second: float) -> float | None:
    """request_count / request_throughput: the window GenAI-Perf's throughputs divide by."""
    seconds = completed / per_second if per_second > 0 else 0.0
    return seconds if 0 < seconds < math.inf else None


def _settings(config: dict[str, Any]) -> tuple[tuple[str, Scalar], ...]:
    endpoint = config.get("endpoint") or {}
    measurement = (config["perf_analyzer"].get("measurement")) or {}
    found: dict[str, Any] = {
        "endpoint_type": endpoint.get("type"),
        "service_kind": endpoint.get("service_kind"),
        "streaming": endpoint.get("streaming"),
        "measurement_mode": measurement.get("mode"),
        "measurement_num": measurement.get("num"),
        "warmup_request_count": config["perf_analyzer"].get("warmup_request_count"),
    }
    return tuple(sorted((k, v) for k, v in found.items() if isinstance(v, str | int | float)))


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[SweepRun, list[Problem]]:
    """Build the one-point `SweepRun` of a schema-valid GenAI-Perf summary."""
    raw: dict[str, Any] = doc.data
    problems: list[Problem] = []

    def report(pointer: str, message: str, severity: str) -> None:
        problems.append(doc.problem(base + pointer, message, severity))

    config = raw["input_config"]
    stimulus = config["perf_analyzer"]["stimulus"]
    concurrency, rate = stimulus.get("concurrency"), stimulus.get("request_rate")
    completed = int(raw["request_count"]["avg"])
    seconds = _duration(completed, float(raw["request_throughput"]["avg"]))
    tokens = round(float(raw["output_sequence_length"]["avg"]) * completed)
    shown = float(raw["output_token_throughput"]["avg"])
    if seconds is not None:
        counted = (tokens, "output_sequence_length avg x request_count")
        check_throughput(shown, counted, (seconds, "request_count / request_throughput"), report)
    stats, summary_at = summaries(raw, completed)
    names = config.get("model_names") or ()
    given = config.get("input") or {}
    synthetic = given.get("prompt_source", "synthetic") == "synthetic"
    point = LoadPoint(
        pointer=base,
        label=label(None if rate is None else float(rate), concurrency, "load"),
        concurrency=concurrency,
        rate=None if rate is None else float(rate),
        strategy="concurrency limit" if rate is None else "request rate",
        status="ok" if completed > 0 else "failed",
        reason=None if completed > 0 else "no request completed",
        duration_s=seconds,
        output_tokens=tokens,
        aggregate_tok_s=shown,
        requests_ok=completed,
        requests_failed=0,
        samples=(),
        summaries=stats,
        prompt_tokens=_fixed(given.get("synthetic_tokens")) if synthetic else None,
        max_tokens=_fixed(given.get("output_tokens")),
        summary_at=(("aggregate_tok_s", "/output_token_throughput/avg"), *summary_at),
    )
    run = SweepRun(
        source=source,
        engine=None,  # GenAI-Perf is a client; its endpoint.backend is a request format
        model=", ".join(str(n) for n in names) or None,
        points=(point,),
        definitions=DEFINITIONS,
        settings=_settings(config),
    )
    return run, problems


FORMAT = RunFormat(
    name="genai-perf",
    tool="genai-perf",
    tested_versions=None,  # its files do not record its version
    looks_like="a GenAI-Perf profile_export_genai_perf.json",
    marks=(
        "/input_config/perf_analyzer",
        "/time_to_first_token",
        "/inter_token_latency",
        "/output_token_throughput",
        "/request_latency",
    ),
    detect=detect,
    version=version,
    parse=parse,
)
