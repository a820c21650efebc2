"""Parse stage for NVIDIA AIPerf's `profile_export_aiperf.json`: one `aiperf profile` run, one load
point, read from AIPerf's own statistics (the file holds no per-request records).

Schema-valid raw JSON in, a `SweepRun` of that one point plus semantic problems out. The only
module that reads AIPerf's raw keys (`config` reads its configuration); `summaries` also
serves GenAI-Perf, whose per-metric objects have the same layout. The file is recognised by its
layout, never refused for its version. Layouts, from AIPerf's source (0.1.1 to 0.13.0; docs/
tool-formats-research.md, section 4):

- 0.1.1: the metrics inside `records`, each with its `tag` and `header`; TTFT is `ttft`, the
  output token total `benchmark_token_count`. No version in the file.
- 0.2.x and 0.3.x: the metrics at the top level, as in every later version; no version in the
  file (read by its layout, with one warning that it names none).
- 0.4 to 0.8: `schema_version` 1.0 (1.1 from 0.8), `aiperf_version` and `benchmark_id`.
- 0.9 to 0.11: `schema_version` 1.3, configuration by phases (`config`).
- 0.12 and 0.13: `schema_version` 1.4, `warmup_metrics` beside the profiling ones.

Definitions, the same in every version unless said:

- every metric is `{unit, avg, p1 ... p99, min, max, std}` (`count` and `sum` from 0.8), times
  in the unit named (ms in every version), statistics over the successful requests only;
- tokens are counted by AIPerf's client tokenizer (`output_sequence_length`), not the server;
- `output_token_throughput` divides the output tokens by `benchmark_duration` (first request
  sent to last response) up to layout 1.3 (AIPerf 0.11), and by the profiling phase's window,
  `start_time` to `end_time`, from layout 1.4 (AIPerf 0.12); reportgen's duration is the one the
  file's throughput divides by, so its throughput is the file's.

`not_a_run_file` names AIPerf's other outputs (its CSV summary) when one is given instead.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from reportgen import tolerances as tol
from reportgen.errors import Problem
from reportgen.formats.aiperf.config import Workload, workload
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.json_input.document import JsonDocument
from reportgen.formats.refusals import csv_header
from reportgen.frozendict import FrozenDict
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
# AIPerf 0.1.1's metric tags that later versions renamed -> the later name
RENAMED = {"ttft": "time_to_first_token", "ttst": "time_to_second_token"}
RENAMED |= {"benchmark_token_count": "total_osl"}
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
# AIPerf's metrics, any of which marks a summary by its layout when the file names no version
_LAYOUT_METRICS = (
    *("request_count", "error_request_count", "time_to_first_token", "ttft"),
    *("request_latency", "benchmark_duration", "output_sequence_length"),
)
_LAYOUT = re.compile(r"(\d+)\.(\d+)")
WINDOW_FROM_LAYOUT = (1, 4)  # AIPerf 0.12: throughputs divide by the phase window from here
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
)
_BY_WINDOW = (
    "AIPerf: all output tokens (client tokenizer) / the profiling phase's window, start_time "
    "to end_time (layout 1.4, AIPerf 0.12 on); its benchmark_duration (first request to last "
    "response) is shorter and not what its throughputs divide by"
)
_BY_DURATION = (
    "AIPerf: all output tokens (client tokenizer) / benchmark_duration, the first request sent "
    "to the last response (layouts before 1.4, AIPerf up to 0.11); the file's start_time to "
    "end_time is longer and not what its throughputs divide by"
)


@dataclass(frozen=True)
class Metrics:
    """A summary's metric objects by AIPerf's later names, and where they are (`base`: "" or
    "/records")."""

    base: str
    entries: Mapping[str, Any]

    def get(self, name: str) -> tuple[str, dict[str, Any]] | None:
        """The metric `name` (as AIPerf 0.2 on names it) and its pointer, when the file has it."""
        for key in (name, *(old for old, new in RENAMED.items() if new == name)):
            entry = self.entries.get(key)
            if isinstance(entry, dict):
                return f"{self.base}/{key}", entry
        return None


def metrics_of(raw: Mapping[str, Any]) -> Metrics:
    """The metric objects of a summary: inside `records` (AIPerf 0.1.1) or at the top level."""
    records = raw.get("records")
    if isinstance(records, dict):
        return Metrics("/records", records)
    return Metrics("", raw)


def _is_metric(value: Any) -> bool:
    return isinstance(value, dict) and "unit" in value and "avg" in value


def _by_layout(data: Mapping[str, Any]) -> bool:
    """A summary that names no version: AIPerf's `input_config` without GenAI-Perf's
    `perf_analyzer`, the `start_time` GenAI-Perf never writes, and one of AIPerf's metrics."""
    config = data.get("input_config")
    if not isinstance(config, dict) or "perf_analyzer" in config or "start_time" not in data:
        return False
    metrics = metrics_of(data).entries
    return any(_is_metric(metrics.get(k)) for k in _LAYOUT_METRICS)


def _prerelease(data: Mapping[str, Any]) -> bool:
    """AIPerf's summary before its first release (June 2025): `records` keyed by display name,
    each with its `name` and no `tag`."""
    records = data.get("records")
    if not isinstance(data.get("input_config"), dict) or not isinstance(records, dict):
        return False
    entries = [e for e in records.values() if isinstance(e, dict)]
    return bool(entries) and all("name" in e and "tag" not in e for e in entries)


PRERELEASE = (
    "an AIPerf summary from before AIPerf's first release (mid 2025): its metrics are keyed by "
    "their display names ('Time to First Token') and it records neither the load (no "
    "concurrency or request rate) nor a throughput or request count, so it holds no load point "
    "reportgen can read; re-run with a released AIPerf (0.1.1 or later), whose "
    "profile_export_aiperf.json reportgen reads"
)


def detect(data: dict[str, Any]) -> Detection | None:
    """An AIPerf summary names `aiperf_version`, or `schema_version` beside a `benchmark_id`, or
    (AIPerf before 0.4, no version) has its layout: `input_config`, `start_time` and metrics.
    A pre-release summary is recognised and refused (`PRERELEASE`)."""
    if "aiperf_version" in data or {"schema_version", "benchmark_id"} <= data.keys():
        return Detection("", "aiperf")
    if _by_layout(data):
        return Detection("", "aiperf")
    if _prerelease(data):
        return Detection("", "aiperf", refusal=PRERELEASE)
    return None


def version(run: dict[str, Any]) -> tuple[str, str]:
    """AIPerf's package version, as the file records it ("unknown" when AIPerf could not tell),
    or "" where the file names none (AIPerf before 0.4): the file is then read by its layout."""
    if "aiperf_version" not in run:
        return "", ""
    return str(run["aiperf_version"]), "/aiperf_version"


def not_a_run_file(text: str, _data: Any = None) -> str | None:
    """What an AIPerf output that is not its run summary is, and the file to read instead; None
    for anything else. `text`: the start of the file, decoded.

    AIPerf's CSV summary, `profile_export_aiperf.csv`, is a table of the same statistics without
    the configuration, the phase or its window: its first line is `Metric,avg,min,max,...,p1,...`
    with the percentiles rising (every version, 0.1.1 to 0.13); GenAI-Perf's CSV lists them
    falling, from p99 (`genai_perf.not_a_run_file`)."""
    cells = csv_header(text)
    if not cells or not (cells[0] == "metric" and {"avg", "p50", "p99"} <= set(cells)):
        return None
    if cells.index("p99") < cells.index("p50"):
        return None
    return (
        "this is an AIPerf CSV summary (profile_export_aiperf.csv): it has AIPerf's statistics "
        "without the load, the phases or the window they were measured in; give reportgen "
        "profile_export_aiperf.json from the same artifact folder (or profile_export.jsonl, its "
        "per-request records)"
    )


def summaries(
    raw: Mapping[str, Any], n: int | None = None, metrics: Metrics | None = None
) -> tuple[tuple[tuple[str, Summary], ...], list[tuple[str, str]]]:
    """The tool's own statistics by reportgen quantity (times in seconds), and where each is.

    `n`: the request count, for metrics that do not carry their own `count`. `metrics`: where the
    metric objects are (`metrics_of`), the top level by default."""
    table = metrics or Metrics("", raw)
    found: list[tuple[str, Summary]] = []
    at: list[tuple[str, str]] = []
    for metric, quantity in QUANTITIES.items():
        located = table.get(metric)
        if located is None:
            continue
        pointer, entry = located
        scale = SECONDS_PER.get(entry["unit"], 1.0)  # 1 for a rate (tokens/sec/user)
        stats: dict[str, float] = {}
        for key, stat in _STATS.items():
            if isinstance(entry.get(key), int | float):
                stats[stat] = float(entry[key]) * scale
                at.append((quantity if stat == "p50" else f"{quantity}.{stat}", f"{pointer}/{key}"))
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
    shown: float,
    tokens: tuple[int, str],
    seconds: tuple[float, str],
    report: Report,
    at: str = "/output_token_throughput/avg",
) -> None:
    """A warning when the tool's output throughput is not its output tokens over its window
    (each given with where it comes from, in words)."""
    (count, counted), (window, timed) = tokens, seconds
    if window > 0 and not close(shown, count / window, rel=tol.AGGREGATE.rel, abs_=0.01):
        report(
            at,
            f"output_token_throughput {shown:g} tok/s disagrees with {count} output tokens "
            f"({counted}) / {window:g} s ({timed}) = {count / window:.6g} tok/s",
            "warning",
        )


def _layout(raw: Mapping[str, Any]) -> tuple[int, int] | None:
    found = _LAYOUT.match(str(raw.get("schema_version", "")))
    return (int(found.group(1)), int(found.group(2))) if found else None


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


@dataclass(frozen=True)
class Duration:
    """The window the file's throughputs divide by."""

    seconds: float
    named: str  # where it comes from, in words
    definition: str


def _duration(raw: dict[str, Any], metrics: Metrics, report: Report) -> Duration | None:
    """The phase window for layout 1.4 on, else benchmark_duration (the window, where the file
    lacks it: a run where nothing succeeded)."""
    window = _window(raw, report)
    layout = _layout(raw)
    if layout is not None and layout >= WINDOW_FROM_LAYOUT:
        return None if window is None else Duration(window, "end_time - start_time", _BY_WINDOW)
    located = metrics.get("benchmark_duration")
    seconds = _seconds(located[1]) if located else None
    if seconds is None or seconds <= 0:
        return None if window is None else Duration(window, "end_time - start_time", _BY_WINDOW)
    return Duration(seconds, "benchmark_duration", _BY_DURATION)


def _count(metrics: Metrics, key: str) -> int:
    located = metrics.get(key)
    return int(located[1]["avg"]) if located else 0


def _output_tokens(metrics: Metrics) -> tuple[int, str] | None:
    """All output tokens of the successful requests, and the key that says so."""
    total = metrics.get("total_osl")
    if total is not None:
        return int(total[1]["avg"]), total[0].rsplit("/", 1)[1]
    osl = metrics.get("output_sequence_length")
    if osl is not None and "sum" in osl[1]:
        return int(osl[1]["sum"]), "the sum of output_sequence_length"
    return None


def _completion(raw: dict[str, Any], report: Report) -> None:
    if raw.get("was_cancelled"):
        report("/was_cancelled", "the run was cancelled before it finished", "warning")
    elif raw.get("is_complete") is False:
        why = raw.get("incomplete_reason") or "no reason given"
        report("/is_complete", f"AIPerf marks the run incomplete ({why})", "warning")


def _check_layout(raw: dict[str, Any], report: Report) -> None:
    """A warning for a layout version newer than 1.x, which reportgen has not seen: read by its
    layout, which validated."""
    layout = _layout(raw)
    if "schema_version" in raw and (layout is None or layout[0] != 1):
        report(
            "/schema_version",
            f"AIPerf's file layout version {raw['schema_version']!r} is not one reportgen has "
            "seen (1.0 to 1.4); read by its layout, which validated: compare a few of its "
            "numbers with AIPerf's own output",
            "warning",
        )


def _reason(raw: dict[str, Any]) -> str:
    for entry in raw.get("error_summary") or ():
        details = entry.get("error_details") or {}
        lines = str(details.get("message") or details.get("type") or "").strip().splitlines()
        if lines:
            return lines[-1]
    return "no request succeeded"


def _settings(raw: dict[str, Any], load: Workload, metrics: Metrics) -> FrozenDict[str, Scalar]:
    config = raw["input_config"]
    endpoint = config.get("endpoint") or {}
    located = metrics.get("benchmark_duration")
    found: dict[str, Any] = {
        "schema_version": raw.get("schema_version"),
        "benchmark_id": raw.get("benchmark_id"),
        "phase_type": load.kind,
        "requests": load.requests,
        "endpoint_type": endpoint.get("type"),
        "streaming": endpoint.get("streaming"),
        "cli_command": (raw.get("run_info") or {}).get("cli_command") or config.get("cli_command"),
        "benchmark_duration_s": _seconds(located[1]) if located else None,
        "skipped_phases": load.skipped_phases or None,
        "warmup_request_count": (config.get("loadgen") or {}).get("warmup_request_count"),
    }
    return FrozenDict(sorted((k, v) for k, v in found.items() if isinstance(v, str | int | float)))


def _seconds(entry: Any) -> float | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("avg"), int | float):
        return None
    return float(entry["avg"]) * SECONDS_PER.get(entry.get("unit", "sec"), 1.0)


# the load of a file whose phases are in error (the run is then not used)
_UNKNOWN = Workload(
    kind="unknown",
    strategy="unknown",
    concurrency=None,
    rate=None,
    requests=None,
    prompt_tokens=None,
    max_tokens=None,
    model=None,
    skipped_phases=0,
)


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[SweepRun, list[Problem]]:
    """Build the one-point `SweepRun` of a schema-valid AIPerf summary."""
    raw: dict[str, Any] = doc.data
    problems: list[Problem] = []

    def report(pointer: str, message: str, severity: str) -> None:
        problems.append(doc.problem(base + pointer, message, severity))

    _check_layout(raw, report)
    metrics = metrics_of(raw)
    load = workload(raw["input_config"], report) or _UNKNOWN
    window = _duration(raw, metrics, report)
    ok, failed = _count(metrics, "request_count"), _count(metrics, "error_request_count")
    if ok == failed == 0:
        report(
            metrics.base,
            "no request counted: request_count and error_request_count are both missing, null "
            "or 0, so the file measured nothing",
            "error",
        )
    tokens = _output_tokens(metrics)
    throughput = metrics.get("output_token_throughput")
    shown = None if throughput is None else float(throughput[1]["avg"])
    shown_at = f"{metrics.base}/output_token_throughput/avg"
    if shown is not None and tokens is not None and window is not None:
        check_throughput(shown, tokens, (window.seconds, window.named), report, shown_at)
    _completion(raw, report)
    status: CellStatus = "ok" if ok > 0 else "failed"
    stats, summary_at = summaries(raw, ok, metrics)
    point = LoadPoint(
        pointer=base,
        label=label(load.rate, load.concurrency, load.kind),
        concurrency=load.concurrency,
        rate=load.rate,
        strategy=load.strategy,
        status=status,
        reason=None if status == "ok" else _reason(raw),
        duration_s=None if window is None else window.seconds,
        output_tokens=None if tokens is None else tokens[0],
        aggregate_tok_s=shown,
        requests_ok=ok,
        requests_failed=failed,
        samples=(),
        summaries=FrozenDict(stats),
        prompt_tokens=load.prompt_tokens,
        max_tokens=load.max_tokens,
        summary_at=FrozenDict((("aggregate_tok_s", shown_at), *summary_at)),
    )
    output = ("output_tok_s", _BY_WINDOW if window is None else window.definition)
    run = SweepRun(
        source=source,
        engine=None,  # AIPerf is a client: it does not name the server
        model=load.model,
        points=(point,),
        definitions=FrozenDict(sorted((*DEFINITIONS, output))),
        settings=_settings(raw, load, metrics),
    )
    return run, problems


FORMAT = RunFormat(
    name="aiperf",
    tool="aiperf",
    tested_versions=((0, 8), (0, 13)),
    looks_like="an AIPerf profile_export_aiperf.json",
    marks=(
        "/aiperf_version",
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
