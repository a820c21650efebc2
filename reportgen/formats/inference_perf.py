"""Parse stage for kubernetes-sigs inference-perf's lifecycle reports (0.7): one
`stage_<N>_lifecycle_metrics.json` is one load point, read from inference-perf's own statistics.

Schema-valid raw JSON in, a `SweepRun` of that one point plus semantic problems out. The only
module that reads inference-perf's raw keys. Run files: a stage file, whose `load_summary`
records its `requested_rate` and, for a concurrency stage, its `concurrency`. The
`summary_lifecycle_metrics.json` has the same layout but pools every stage's requests and records
no load: it is refused, located, so it is never read as (or combined as a repetition with) a
stage. The per-request file, a JSON list, is `reportgen.formats.inference_perf_requests`'s.
The reports record no inference-perf version: the tool is named alone. Definitions
(docs/tool-formats-research.md, section 6), in seconds:

- every token of a streamed chunk gets the chunk's arrival time (`output_token_times`), so TTFT
  runs to the first chunk with text;
- `time_per_output_token`, (last token - first token) / (output tokens - 1) per request, is
  reportgen's ITL, with the client tokenizer's count unless the run set `use_server_output_tokens`;
- `inter_token_latency` pools every gap of every request's token times, zero for each extra token
  of a chunk: not reportgen's ITL, and its median is 0 when chunks count as two tokens each (a
  known artefact, reported as a warning);
- throughputs divide by `benchmark_time_seconds`, the last end - the first start over all the
  stage's requests, failed ones included.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePath
from typing import Any

from reportgen import tolerances as tol
from reportgen.errors import Problem
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.jsonfile import JsonDocument
from reportgen.model import CellStatus, LoadPoint, Scalar, SourceFile, Summary, SweepRun
from reportgen.stats import close

Report = Callable[[str, str, str], None]  # (pointer, message, severity)
_MARKS = ("benchmark_time_seconds", "load_summary", "successes", "failures")
_LATENCY = "/successes/latency"
# inference-perf's latency metric -> the reportgen quantity its statistics describe
QUANTITIES = {
    "time_to_first_token": "ttft_s",
    "time_per_output_token": "itl_s",
    "request_latency": "latency_s",
}
# inference-perf's statistic -> reportgen's name for it
_STATS = {"mean": "mean", "p90": "p90", "p95": "p95", "p99": "p99", "min": "min", "max": "max"}
_PERCENTILE = re.compile(r"p([0-9]+(?:\.[0-9]+)?)")
_RANK = {"min": -1.0, "median": 50.0, "max": 101.0}  # beside the percentiles' own ranks
_STAGE = re.compile(r"stage_([0-9]+)_lifecycle_metrics")
DEFINITIONS = (
    (
        "ttft_s",
        "inference-perf: the first output token's time - start_time, each token of a streamed "
        "chunk timed at the chunk's arrival: the first chunk with text",
    ),
    (
        "itl_s",
        "inference-perf's time_per_output_token: (last token - first token) / (output tokens - "
        "1) per request, the output tokens counted by its client tokenizer unless the run set "
        "use_server_output_tokens; its inter_token_latency statistics pool every gap of every "
        "request's output_token_times, where each extra token of a chunk repeats the chunk's "
        "time (a zero gap, and a median of 0 when chunks count as two tokens), and are not used",
    ),
    ("latency_s", "inference-perf: end_time - start_time, after the stream is read to its end"),
    (
        "per_request_tok_s",
        "not given: inference-perf writes no per-request speed, and reportgen does not invert "
        "its ITL statistics (their median can be 0, see ITL)",
    ),
    (
        "output_tok_s",
        "inference-perf: output tokens of the successful requests (its client tokenizer's count "
        "unless use_server_output_tokens) / benchmark_time_seconds, the last end_time - the "
        "first start_time over all the stage's requests, failed ones included",
    ),
)


def detect(data: dict[str, Any]) -> Detection | None:
    """An inference-perf lifecycle report has `benchmark_time_seconds`, `load_summary`,
    `successes` and `failures` at its top level."""
    if all(key in data for key in _MARKS):
        return Detection("", "inference-perf")
    return None


def version(run: dict[str, Any]) -> tuple[str, str]:
    """inference-perf does not record its version in its reports: the empty string."""
    return "", ""


def _load(
    load: dict[str, Any], label: str, report: Report
) -> tuple[str, int | None, float | None, str] | None:
    """(label, concurrency, request rate, strategy) of the stage; None for a file with no load."""
    concurrency, rate = load.get("concurrency"), load.get("requested_rate")
    if concurrency is not None:
        # a concurrency stage's requested_rate is not a rate limit: the point is its concurrency
        return f"c{concurrency}", int(concurrency), None, "concurrency limit"
    if rate is not None and rate > 0:
        return f"r{rate:g}", None, float(rate), "request rate"
    if rate is None:
        report(
            "/load_summary",
            "load_summary records no load (no requested_rate or concurrency), as in "
            "inference-perf's summary_lifecycle_metrics.json, which pools the requests of every "
            "stage; read its stage_N_lifecycle_metrics.json files, one load point each",
            "error",
        )
        return None
    stage = _STAGE.search(PurePath(label).name)
    name = f"stage-{stage.group(1)}" if stage else "stage"
    report(
        "/load_summary/requested_rate",
        f"requested_rate {rate:g} and no concurrency: the file does not record the stage's load; "
        f"the load point is labelled {name!r}, by its stage in the file name",
        "warning",
    )
    return name, None, None, "not recorded"


def _order(name: str) -> float:
    found = _PERCENTILE.fullmatch(name)
    return float(found.group(1)) if found else _RANK.get(name, -2.0)


def _in_order(metric: str, stats: dict[str, Any], report: Report) -> bool:
    """True when min, the percentiles, the median and max do not decrease; an error if not."""
    ranked = sorted((_order(k), k) for k in stats if _order(k) >= -1)
    for (_, low), (_, high) in zip(ranked, ranked[1:], strict=False):
        if stats[high] < stats[low]:
            report(
                f"{_LATENCY}/{metric}/{high}",
                f"{metric} {high} {stats[high]:g} s is below its {low} {stats[low]:g} s; "
                "percentiles must not decrease",
                "error",
            )
            return False
    return True


def _summaries(
    latency: dict[str, Any], ok: int, tokens: float | None, report: Report
) -> tuple[tuple[tuple[str, Summary], ...], list[tuple[str, str]]]:
    """The tool's statistics by reportgen quantity (seconds), and where each is."""
    found: list[tuple[str, Summary]] = []
    at: list[tuple[str, str]] = []
    for metric, quantity in QUANTITIES.items():
        stats = latency.get(metric)
        if not isinstance(stats, dict) or not _in_order(metric, stats, report):
            continue
        place = f"{_LATENCY}/{metric}"
        if quantity == "itl_s" and stats["median"] == 0 and (tokens is None or tokens >= 2):
            report(
                f"{place}/median",
                "median TPOT 0.0 s: at least half the requests got all their tokens in one "
                "chunk, so it is no inter-token latency; reportgen leaves ITL out of this load "
                "point",
                "warning",
            )
            continue
        values = {name: float(stats[key]) for key, name in _STATS.items() if key in stats}
        n = ok if quantity == "latency_s" else None  # TTFT and TPOT skip one-token requests
        found.append((quantity, Summary(**values, p50=float(stats["median"]), n=n)))
        at.append((quantity, f"{place}/median"))
        at += [
            (f"{quantity}.{name}", f"{place}/{key}") for key, name in _STATS.items() if key in stats
        ]
    return tuple(sorted(found)), sorted(at)


def _zero_itl(latency: dict[str, Any], tokens: float | None, report: Report) -> None:
    """The known artefact: a median ITL of 0 with requests of 2 or more output tokens."""
    stats = latency.get("inter_token_latency")
    if not isinstance(stats, dict) or stats["median"] != 0 or (tokens is not None and tokens < 2):
        return
    report(
        f"{_LATENCY}/inter_token_latency/median",
        f"median ITL 0.0 s (mean {stats['mean']:g} s): inference-perf's output_token_times "
        "repeat chunk times, each extra token the client tokenizer counts in a chunk adding a "
        "zero gap; reportgen's ITL is time_per_output_token, and this statistic is not used",
        "warning",
    )


def _output_tokens(raw: dict[str, Any], ok: int, report: Report) -> tuple[int, str] | None:
    """The output tokens the tool's throughput counts (server usage or its client tokenizer,
    whichever gives its output_tokens_per_sec), and by whom; a warning when neither does."""
    successes, seconds = raw["successes"], float(raw["benchmark_time_seconds"])
    shown = float(successes["throughput"]["output_tokens_per_sec"])
    counts: list[tuple[int, str]] = []
    server = (successes.get("output_tokens") or {}).get("total")
    if server is not None:
        counts.append((round(server), "server usage"))
    client = successes.get("output_len")
    if isinstance(client, dict) and ok > 0:
        counts.append((round(client["mean"] * ok), "client tokenizer"))
    if seconds <= 0 or not counts:
        return None
    for count, by in counts:
        if close(shown, count / seconds, rel=tol.AGGREGATE.rel, abs_=0.01):
            return count, by
    tried = " or ".join(f"{c} ({by}) / {seconds:g} s = {c / seconds:.6g} tok/s" for c, by in counts)
    report(
        "/successes/throughput/output_tokens_per_sec",
        f"output_tokens_per_sec {shown:g} tok/s disagrees with the output tokens / "
        f"benchmark_time_seconds: {tried}",
        "warning",
    )
    return counts[0]


def _reason(failures: dict[str, Any]) -> str:
    """Why no request succeeded: the first error message inference-perf kept, else its label."""
    for label, entry in (failures.get("by_label") or {}).items():
        messages = entry.get("messages") if isinstance(entry, dict) else None
        for message in messages if isinstance(messages, list) else ():
            text = message.get("message") if isinstance(message, dict) else message
            if isinstance(text, str) and text.strip():
                return text.strip().splitlines()[-1]
        return str(label)
    return "no request succeeded"


def _fixed(stats: Any) -> int | None:
    """A token count every successful request had."""
    if not isinstance(stats, dict) or stats.get("min") != stats.get("max"):
        return None
    value = stats.get("min")
    return int(value) if isinstance(value, int | float) and float(value).is_integer() else None


def _settings(raw: dict[str, Any], counted_by: str | None) -> tuple[tuple[str, Scalar], ...]:
    load, successes = raw["load_summary"], raw["successes"]
    found: dict[str, Any] = {
        "requests_sent": load.get("count"),
        "send_duration_s": load.get("send_duration"),
        "achieved_rate": load.get("achieved_rate"),
        "token_count_mismatches": successes.get("token_count_mismatches"),
        "output_tokens_counted_by": counted_by,
    }
    return tuple(sorted((k, v) for k, v in found.items() if isinstance(v, str | int | float)))


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[SweepRun, list[Problem]]:
    """Build the one-point `SweepRun` of a schema-valid inference-perf stage report."""
    raw: dict[str, Any] = doc.data
    problems: list[Problem] = []

    def report(pointer: str, message: str, severity: str) -> None:
        problems.append(doc.problem(base + pointer, message, severity))

    found = _load(raw["load_summary"], source.label, report)
    if found is None:
        return SweepRun(source, None, None, (), DEFINITIONS), problems
    label, concurrency, rate, strategy = found
    successes, failures = raw["successes"], raw["failures"]
    ok, failed = int(successes["count"]), int(failures["count"])
    sent = raw["load_summary"]["count"]
    if ok + failed != sent:
        report(
            "/load_summary/count",
            f"{sent} requests sent, but {ok} succeeded and {failed} failed",
            "warning",
        )
    latency = successes["latency"]
    if ok > 0 and latency["request_latency"] is None:
        report(f"{_LATENCY}/request_latency", f"null, but {ok} requests succeeded", "error")
    most = (successes.get("output_tokens") or {}).get("max")
    _zero_itl(latency, most, report)
    stats, summary_at = _summaries(latency, ok, most, report)
    tokens = _output_tokens(raw, ok, report)
    seconds = float(raw["benchmark_time_seconds"])
    status: CellStatus = "ok" if ok > 0 else "failed"
    point = LoadPoint(
        pointer=base,
        label=label,
        concurrency=concurrency,
        rate=rate,
        strategy=strategy,
        status=status,
        reason=None if status == "ok" else _reason(failures),
        duration_s=seconds if seconds > 0 else None,
        output_tokens=None if tokens is None else tokens[0],
        aggregate_tok_s=float(successes["throughput"]["output_tokens_per_sec"]),
        requests_ok=ok,
        requests_failed=failed,
        samples=(),
        summaries=stats,
        prompt_tokens=_fixed(successes.get("prompt_tokens")),
        summary_at=(
            ("aggregate_tok_s", "/successes/throughput/output_tokens_per_sec"),
            *summary_at,
        ),
    )
    run = SweepRun(
        source=source,
        engine=None,  # inference-perf is a client: its stage reports do not name the server
        model=None,  # nor the model (only its config.yaml does)
        points=(point,),
        definitions=DEFINITIONS,
        settings=_settings(raw, None if tokens is None else tokens[1]),
    )
    return run, problems


FORMAT = RunFormat(
    name="inference-perf",
    tool="inference-perf",
    tested_versions=None,  # its files do not record its version
    looks_like="an inference-perf stage_N_lifecycle_metrics.json",
    marks=tuple(f"/{key}" for key in _MARKS),
    detect=detect,
    version=version,
    parse=parse,
)
