"""Parse stage for GenAI-Perf's `profile_export_genai_perf.json`: one `genai-perf profile` run, one
load point, read from GenAI-Perf's own statistics (its per-metric objects are AIPerf's layout,
without `count` and `sum`, so `aiperf.summary.summaries` reads them).

Schema-valid raw JSON in, a `SweepRun` of that one point plus semantic problems out. The only
module that reads GenAI-Perf's raw keys. The file never records GenAI-Perf's version; it is
recognised by its layout, of which there are two (from GenAI-Perf's source, perf_analyzer
repository, genai-perf folder, May 2024 to December 2025):

- the flat `input_config` (0.0.3 to 0.0.11, Triton SDK containers up to 25.02): the command's
  arguments as parsed, `model` (a list), `concurrency` or `request_rate`, `endpoint_type`,
  `service_kind`, `streaming`, `synthetic_input_tokens_mean`, `output_tokens_mean` ...;
- the configuration file's layout (0.0.12 on, 25.03): `model_names`, `endpoint`, the load in
  `perf_analyzer.stimulus`, the lengths in `input.synthetic_tokens` and `input.output_tokens`.

Definitions (docs/tool-formats-research.md, section 5):

- the file records no duration: reportgen takes request_count / request_throughput, the window
  its throughputs divide by (last response - first request). Files before 0.0.10 (December 2024)
  write no request_count: their load point has GenAI-Perf's throughput but no request count,
  duration or token total;
- every token count is its own tokenizer's (it sends no `stream_options`);
- it writes no count of failed requests;
- times are in the unit each metric names (ns in 2024's first versions, ms after);
- `output_token_throughput_per_user` (0.0.13 on, 1 / ITL per request) is reportgen's per-request
  speed; the older `output_token_throughput_per_request` is output tokens / request latency
  (TTFT included), another quantity, and is not read;
- a run without streaming has no ITL, and its TTFT is the whole response's time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reportgen.errors import Problem
from reportgen.formats.aiperf.config import fixed_length
from reportgen.formats.aiperf.summary import check_throughput, label, summaries
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.json_input.document import JsonDocument
from reportgen.formats.refusals import csv_header
from reportgen.frozendict import FrozenDict
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
    ("failed", "GenAI-Perf writes no count of failed requests: 0 means none reported"),
)
_PER_USER = "GenAI-Perf: output_token_throughput_per_user, 1 / ITL per request"
_PER_REQUEST = (
    "not read: GenAI-Perf before 0.0.13 writes output_token_throughput_per_request, output "
    "tokens / request latency (TTFT included), which is not 1 / ITL"
)
_OUTPUT = (
    "GenAI-Perf: all output tokens (its tokenizer) / (last response - first request); the file "
    "does not state that duration, reportgen takes it as request_count / request_throughput"
)
_OUTPUT_UNCOUNTED = (
    "GenAI-Perf's own output_token_throughput: all output tokens (its tokenizer) / (last "
    "response - first request); the file (before GenAI-Perf 0.0.10) writes no request_count, "
    "so neither that duration nor the token total is known"
)
_UNSTREAMED = (
    "GenAI-Perf without streaming: the whole response arrives at once, so its TTFT is the "
    "request's latency; there is no ITL, nor a per-request speed"
)
# keys of the flat input_config (GenAI-Perf 0.0.3 to 0.0.11) that name the endpoint
_FLAT_ENDPOINT = ("endpoint_type", "service_kind")


@dataclass(frozen=True, kw_only=True)
class Config:
    """What either layout of `input_config` says of the load and the requests."""

    concurrency: int | None
    rate: float | None
    model: str | None
    prompt_tokens: int | None
    max_tokens: int | None
    streaming: bool | None
    settings: FrozenDict[str, Scalar]


def _flat(config: Mapping[str, Any]) -> bool:
    return any(k in config for k in _FLAT_ENDPOINT) and (
        "concurrency" in config or "request_rate" in config
    )


def detect(data: dict[str, Any]) -> Detection | None:
    """A GenAI-Perf summary keeps its configuration in `input_config`: with a `perf_analyzer`
    part (0.0.12 on), or flat, the command's arguments (`endpoint_type` or `service_kind`, and
    `concurrency` or `request_rate`). AIPerf's files have `aiperf_version` or `start_time`."""
    config = data.get("input_config")
    if not isinstance(config, dict) or "aiperf_version" in data or "start_time" in data:
        return None
    if "perf_analyzer" in config or _flat(config):
        return Detection("", "genai-perf")
    return None


def version(_run: dict[str, Any]) -> tuple[str, str]:
    """GenAI-Perf does not record its version in the file: the empty string (the tool is named
    alone)."""
    return "", ""


def not_a_run_file(text: str, _data: Any = None) -> str | None:
    """What a GenAI-Perf output that is not its run summary is, and the file to read instead;
    None for anything else. `text`: the start of the file, decoded.

    GenAI-Perf's CSV, `profile_export_genai_perf.csv`, has its statistics without the
    configuration: its first line is `Metric,avg,min,max,p99,p95,p90,p75,p50,p25...`, the
    percentiles falling (AIPerf's rise)."""
    cells = csv_header(text)
    if not cells or not (cells[0] == "metric" and {"avg", "p50", "p99"} <= set(cells)):
        return None
    if cells.index("p99") > cells.index("p50"):
        return None
    return (
        "this is a GenAI-Perf CSV summary (profile_export_genai_perf.csv): it has GenAI-Perf's "
        "statistics without the load they were measured at; give reportgen "
        "profile_export_genai_perf.json from the same artifact folder"
    )


def _duration(completed: int, per_second: float) -> float | None:
    """request_count / request_throughput: the window GenAI-Perf's throughputs divide by."""
    seconds = completed / per_second if per_second > 0 else 0.0
    return seconds if 0 < seconds < math.inf else None


def _scalars(found: Mapping[str, Any]) -> FrozenDict[str, Scalar]:
    return FrozenDict(sorted((k, v) for k, v in found.items() if isinstance(v, str | int | float)))


def _nested(config: Mapping[str, Any]) -> Config:
    """The configuration file's layout (GenAI-Perf 0.0.12 on)."""
    analyzer = config["perf_analyzer"]
    stimulus = analyzer["stimulus"]
    endpoint = config.get("endpoint") or {}
    measurement = analyzer.get("measurement") or {}
    given = config.get("input") or {}
    synthetic = given.get("prompt_source", "synthetic") == "synthetic"
    rate = stimulus.get("request_rate")
    return Config(
        concurrency=stimulus.get("concurrency"),
        rate=None if rate is None else float(rate),
        model=", ".join(str(n) for n in config.get("model_names") or ()) or None,
        prompt_tokens=fixed_length(given.get("synthetic_tokens")) if synthetic else None,
        max_tokens=fixed_length(given.get("output_tokens")),
        streaming=endpoint.get("streaming"),
        settings=_scalars(
            {
                "endpoint_type": endpoint.get("type"),
                "service_kind": endpoint.get("service_kind"),
                "streaming": endpoint.get("streaming"),
                "measurement_mode": measurement.get("mode"),
                "measurement_num": measurement.get("num"),
                "warmup_request_count": analyzer.get("warmup_request_count"),
            }
        ),
    )


def _flat_config(config: Mapping[str, Any]) -> Config:
    """The flat layout, the command's arguments (GenAI-Perf 0.0.3 to 0.0.11)."""
    rate = config.get("request_rate")
    synthetic = config.get("prompt_source", "synthetic") == "synthetic"
    names = config.get("model") or ()
    names = [names] if isinstance(names, str) else names  # one string before June 2024
    return Config(
        concurrency=config.get("concurrency"),
        rate=None if rate is None else float(rate),
        model=", ".join(str(n) for n in names) or None,
        prompt_tokens=fixed_length(
            {
                "mean": config.get("synthetic_input_tokens_mean"),
                "stddev": config.get("synthetic_input_tokens_stddev"),
            }
        )
        if synthetic
        else None,
        max_tokens=fixed_length(
            {"mean": config.get("output_tokens_mean"), "stddev": config.get("output_tokens_stddev")}
        ),
        streaming=config.get("streaming"),
        settings=_scalars(
            {
                "endpoint_type": config.get("endpoint_type"),
                "service_kind": config.get("service_kind"),
                "streaming": config.get("streaming"),
                "measurement_interval_ms": config.get("measurement_interval"),
                "warmup_request_count": config.get("warmup_request_count"),
                "input_config_layout": "flat",
            }
        ),
    )


def _definitions(raw: Mapping[str, Any], config: Config) -> FrozenDict[str, str]:
    found = dict(DEFINITIONS)
    if "output_token_throughput_per_user" in raw:
        found["per_request_tok_s"] = _PER_USER
    elif "output_token_throughput_per_request" in raw:
        found["per_request_tok_s"] = _PER_REQUEST
    found["output_tok_s"] = _OUTPUT if "request_count" in raw else _OUTPUT_UNCOUNTED
    if config.streaming is False:
        found["ttft_s"] = _UNSTREAMED
        found.pop("itl_s")
    return FrozenDict(sorted(found.items()))


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[SweepRun, list[Problem]]:
    """Build the one-point `SweepRun` of a schema-valid GenAI-Perf summary."""
    raw: dict[str, Any] = doc.data
    problems: list[Problem] = []

    def report(pointer: str, message: str, severity: str) -> None:
        problems.append(doc.problem(base + pointer, message, severity))

    given = raw["input_config"]
    config = _nested(given) if "perf_analyzer" in given else _flat_config(given)
    if config.concurrency is None and config.rate is None:
        report(
            "/input_config",
            "the flat input_config names no load: concurrency and request_rate are both null "
            "(GenAI-Perf writes concurrency 1 when neither was given)",
            "error",
        )
    per_second = float(raw["request_throughput"]["avg"])
    completed = int(raw["request_count"]["avg"]) if "request_count" in raw else None
    seconds = None if completed is None else _duration(completed, per_second)
    osl = float(raw["output_sequence_length"]["avg"])
    tokens = None if completed is None else round(osl * completed)
    shown = float(raw["output_token_throughput"]["avg"])
    if seconds is not None and tokens is not None:
        counted = (tokens, "output_sequence_length avg x request_count")
        check_throughput(shown, counted, (seconds, "request_count / request_throughput"), report)
    stats, summary_at = summaries(raw, completed)
    done = per_second > 0 if completed is None else completed > 0
    point = LoadPoint(
        pointer=base,
        label=label(config.rate, config.concurrency, "load"),
        concurrency=config.concurrency,
        rate=config.rate,
        strategy="concurrency limit" if config.rate is None else "request rate",
        status="ok" if done else "failed",
        reason=None if done else "no request completed",
        duration_s=seconds,
        output_tokens=tokens,
        aggregate_tok_s=shown,
        requests_ok=completed,
        requests_failed=0,
        samples=(),
        summaries=FrozenDict(stats),
        prompt_tokens=config.prompt_tokens,
        max_tokens=config.max_tokens,
        summary_at=FrozenDict((("aggregate_tok_s", "/output_token_throughput/avg"), *summary_at)),
    )
    run = SweepRun(
        source=source,
        engine=None,  # GenAI-Perf is a client; its endpoint.backend is a request format
        model=config.model,
        points=(point,),
        definitions=_definitions(raw, config),
        settings=config.settings,
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
    other_files=not_a_run_file,
    detect=detect,
    version=version,
    parse=parse,
)
