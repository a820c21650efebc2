"""Parse stage for NVIDIA AIPerf's `profile_export_aiperf.json`: one `aiperf profile` run, one load
point, read from AIPerf's own statistics (the file holds no per-request records).

Schema-valid raw JSON in, a `SweepRun` of that one point plus semantic problems out. The only
module that reads AIPerf's raw keys; `summaries` also serves GenAI-Perf, whose per-metric objects
have the same layout. Definitions (docs/tool-formats-research.md, section 4):

- every metric is `{unit, avg, p1 ... p99, min, max, std, count, sum}`, times in the unit named
  (ms in 0.13), statistics over the successful requests only;
- tokens are counted by AIPerf's client tokenizer (`output_sequence_length`), not the server;
- throughputs divide by the profiling phase's window, `start_time` to `end_time`, not by the
  shorter `benchmark_duration` (first request sent to last response) the file also states.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any

from reportgen import tolerances as tol
from reportgen.errors import Problem
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.jsonfile import JsonDocument
from reportgen.model import CellStatus, LoadPoint, Scalar, SourceFile, Summary, SweepRun
from reportgen.stats import close

Report = Callable[[str, str, str], None]  # (pointer, message, severity)
# the tool's metric -> the reportgen quantity its statistics describe
QUANTITIES = {
    "time_to_first_token": "ttft_s",
    "inter_token_latency": "itl_s",
    "request_latency": "latency_s",
    "output_token_throughput_per_user": "per_request_tok_s",
}
# the tool's statistic -> reportgen's name for it
_STATS = {
    "avg": "mean",
    "p50": "p50",
    "p90": "p90",
    "p95": "p95",
    "p99": "p99",
    "min": "min",
    "max": "max",
}
SECONDS_PER = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "sec": 1.0}
DEFINITIONS = (
    (
        "ttft_s",
        "AIPerf: from the request's start to its first response with content (or reasoning); "
        "usage-only chunks do not count",
    ),
    (
        "itl_s",
        "AIPerf: per request (latency - TTFT) / (output tokens - 1), the output tokens counted "
        "by AIPerf's client tokenizer, not the server's usage",
    ),
    ("latency_s", "AIPerf: from the request's start to its last response with content"),
    ("per_request_tok_s", "AIPerf: output_token_throughput_per_user, 1 / ITL per request"),
    (
        "output_tok_s",
        "AIPerf: all output tokens (client tokenizer) / the profiling phase's window, start_time "
        "to end_time; its benchmark_duration (first request to last response) is shorter and "
        "not what its throughputs divide by",
    ),
)


def detect(data: dict[str, Any]) -> Detection | None:
    """An AIPerf summary names `aiperf_version`, or `schema_version` beside a `benchmark_id`."""
    if "aiperf_version" in data or {"schema_version", "benchmark_id"} <= data.keys():
        return Detection("", "aiperf")
    return None


def version(run: dict[str, Any]) -> tuple[str, str]:
    """AIPerf's package version, as the file records it ("unknown" when AIPerf could not tell)."""
    return str(run["aiperf_version"]), "/aiperf_version"


def summaries(
    raw: Mapping[str, Any], n: int | None = None
) -> tuple[tuple[tuple[str, Summary], ...], list[tuple[str, str]]]:
    """The tool's own statistics by reportgen quantity (times in seconds), and where each is.

    `n`: the request count, for metrics that do not carry their own `count`."""
    found: list[tuple[str, Summary]] = []
    at: list[tuple[str, str]] = []
    for metric, quantity in QUANTITIES.items():
        entry = raw.get(metric)
        if not isinstance(entry, dict):
            continue
        scale = SECONDS_PER.get(entry["unit"], 1.0)  # 1 for a rate (tokens/sec/user)
        stats: dict[str, float] = {}
        for key, stat in _STATS.items():
            if isinstance(entry.get(key), int | float):
                stats[stat] = float(entry[key]) * scale
                at.append((quantity if stat == "p50" else f"{quantity}.{stat}", f"/{metric}/{key}"))
        count = entry.get("count", n)
        found.append((quantity, Summary(**stats, n=None if count is None else int(count))))
    return tuple(sorted(found)), sorted(at)


def label(rate: float | None, concurrency: int | None, kind: str) -> str:
    """The load point's label: "c{N}", "r{rate}", "r{rate}-c{N}", or the strategy's name."""
    if rate is None:
        return f"c{concurrency}" if concurrency is not None else kind.replace("_", "-")
    shown = f"r{rate:g}"
    return shown if concurrency is None else f"{shown}-c{concurrency}"


def check_throughput(
    shown: float, tokens: tuple[int, str], seconds: tuple[float, str], report: Report
) -> None:
    """A warning when the tool's output throughput is not its output tokens over its window
    (each given with where it comes from, in words)."""
    (count, counted), (window, timed) = tokens, seconds
    if window > 0 and not close(shown, count / window, rel=tol.AGGREGATE.rel, abs_=0.01):
        report(
            "/output_token_throughput/avg",
            f"output_token_throughput {shown:g} tok/s disagrees with {count} output tokens "
            f"({counted}) / {window:g} s ({timed}) = {count / window:.6g} tok/s",
            "warning",
        )


def _profiling(raw: dict[str, Any], report: Report) -> dict[str, Any] | None:
    """The one phase the file's numbers measure (warm-up and excluded phases left out)."""
    measured: list[dict[str, Any]] = [
        p
        for p in raw["input_config"]["phases"]
        if p.get("kind", "profiling") == "profiling" and not p.get("exclude", False)
    ]
    if len(measured) != 1:
        report(
            "/input_config/phases",
            f"{len(measured)} profiling phases; reportgen reads one load point per file",
            "error",
        )
        return None
    return measured[0]


def _strategy(phase: dict[str, Any]) -> str:
    kind = str(phase["type"])
    if kind == "concurrency":
        return "concurrency limit"
    if kind == "gamma" and phase.get("smoothness") is not None:
        return f"gamma (smoothness {phase['smoothness']:g})"
    if kind == "user_centric" and phase.get("users") is not None:
        return f"user_centric ({phase['users']} users)"
    return "constant rate" if kind == "constant" else kind


def _window(raw: dict[str, Any], report: Report) -> float | None:
    """Seconds from start_time to end_time (naive local times, as AIPerf writes them)."""
    try:
        start, end = (dt.datetime.fromisoformat(raw[k]) for k in ("start_time", "end_time"))
    except ValueError as exc:
        report("/start_time", f"start_time or end_time is not a date and time: {exc}", "error")
        return None
    seconds = (end - start).total_seconds()
    if seconds <= 0:
        report("/end_time", f"end_time {raw['end_time']} is not after start_time", "error")
        return None
    return seconds


def _count(raw: dict[str, Any], key: str) -> int:
    entry = raw.get(key)
    return int(entry["avg"]) if isinstance(entry, dict) else 0


def _output_tokens(raw: dict[str, Any]) -> tuple[int, str] | None:
    """All output tokens of the successful requests, and the key that says so."""
    if isinstance(raw.get("total_osl"), dict):
        return int(raw["total_osl"]["avg"]), "total_osl"
    osl = raw.get("output_sequence_length")
    if isinstance(osl, dict) and "sum" in osl:
        return int(osl["sum"]), "the sum of output_sequence_length"
    return None


def _fixed_tokens(raw: dict[str, Any], phase: dict[str, Any], key: str) -> int | None:
    """The configured input (isl) or output (osl) length of the phase's dataset, when every
    request has the same."""
    datasets = [d for d in raw["input_config"].get("datasets") or () if isinstance(d, dict)]
    named = [d for d in datasets if d.get("name") == phase.get("dataset")] or datasets[:1]
    for dataset in named:
        spec = (dataset.get("prompts") or {}).get(key) or {}
        mean = spec.get("mean")
        if isinstance(mean, int | float) and mean >= 1 and not spec.get("stddev"):
            return int(mean) if float(mean).is_integer() else None
    return None


def _completion(raw: dict[str, Any], report: Report) -> None:
    if raw.get("was_cancelled"):
        report("/was_cancelled", "the run was cancelled before it finished", "warning")
    elif raw.get("is_complete") is False:
        why = raw.get("incomplete_reason") or "no reason given"
        report("/is_complete", f"AIPerf marks the run incomplete ({why})", "warning")


def _reason(raw: dict[str, Any]) -> str:
    for entry in raw.get("error_summary") or ():
        details = entry.get("error_details") or {}
        lines = str(details.get("message") or details.get("type") or "").strip().splitlines()
        if lines:
            return lines[-1]
    return "no request succeeded"


def _settings(raw: dict[str, Any], phase: dict[str, Any]) -> tuple[tuple[str, Scalar], ...]:
    endpoint = raw["input_config"].get("endpoint") or {}
    found: dict[str, Any] = {
        "schema_version": raw["schema_version"],
        "benchmark_id": raw.get("benchmark_id"),
        "phase_type": phase["type"],
        "requests": phase.get("requests"),
        "endpoint_type": endpoint.get("type"),
        "streaming": endpoint.get("streaming"),
        "cli_command": (raw.get("run_info") or {}).get("cli_command"),
        "benchmark_duration_s": _seconds(raw.get("benchmark_duration")),
    }
    return tuple(sorted((k, v) for k, v in found.items() if isinstance(v, str | int | float)))


def _seconds(entry: Any) -> float | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("avg"), int | float):
        return None
    return float(entry["avg"]) * SECONDS_PER.get(entry.get("unit", "sec"), 1.0)


def _model(raw: dict[str, Any]) -> str | None:
    items = (raw["input_config"].get("models") or {}).get("items") or ()
    names = [str(m["name"]) for m in items if isinstance(m, dict) and m.get("name")]
    return ", ".join(names) or None


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[SweepRun, list[Problem]]:
    """Build the one-point `SweepRun` of a schema-valid AIPerf summary."""
    raw: dict[str, Any] = doc.data
    problems: list[Problem] = []

    def report(pointer: str, message: str, severity: str) -> None:
        problems.append(doc.problem(base + pointer, message, severity))

    phase = _profiling(raw, report) or {"type": "unknown"}
    seconds = _window(raw, report)
    concurrency, rate = phase.get("concurrency"), phase.get("rate")
    ok, failed = _count(raw, "request_count"), _count(raw, "error_request_count")
    tokens = _output_tokens(raw)
    shown = raw["output_token_throughput"]["avg"] if "output_token_throughput" in raw else None
    if shown is not None and tokens is not None and seconds is not None:
        check_throughput(float(shown), tokens, (seconds, "end_time - start_time"), report)
    _completion(raw, report)
    status: CellStatus = "ok" if ok > 0 else "failed"
    stats, summary_at = summaries(raw, ok)
    point = LoadPoint(
        pointer=base,
        label=label(rate, concurrency, str(phase["type"])),
        concurrency=concurrency,
        rate=None if rate is None else float(rate),
        strategy=_strategy(phase),
        status=status,
        reason=None if status == "ok" else _reason(raw),
        duration_s=seconds,
        output_tokens=None if tokens is None else tokens[0],
        aggregate_tok_s=None if shown is None else float(shown),
        requests_ok=ok,
        requests_failed=failed,
        samples=(),
        summaries=stats,
        prompt_tokens=_fixed_tokens(raw, phase, "isl"),
        max_tokens=_fixed_tokens(raw, phase, "osl"),
        summary_at=(("aggregate_tok_s", "/output_token_throughput/avg"), *summary_at),
    )
    run = SweepRun(
        source=source,
        engine=None,  # AIPerf is a client: it does not name the server
        model=_model(raw),
        points=(point,),
        definitions=DEFINITIONS,
        settings=_settings(raw, phase),
    )
    return run, problems


FORMAT = RunFormat(
    name="aiperf",
    tool="aiperf",
    tested_versions=((0, 13), (0, 13)),
    looks_like="an AIPerf profile_export_aiperf.json",
    marks=(
        "/aiperf_version",
        "/time_to_first_token",
        "/inter_token_latency",
        "/output_token_throughput",
        "/request_latency",
    ),
    detect=detect,
    version=version,
    parse=parse,
)
