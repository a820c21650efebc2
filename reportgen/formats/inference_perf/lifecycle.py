"""Parse stage for kubernetes-sigs inference-perf's lifecycle reports (0.1 to 0.7): one
`stage_<N>_lifecycle_metrics.json` is one load point, read from inference-perf's own statistics.

Schema-valid raw JSON in, a `SweepRun` of that one point plus semantic problems out. The only
module that reads inference-perf's raw keys. Run files: a stage file, whose `load_summary`
records its `requested_rate` and, for a concurrency stage, its `concurrency`. Refused by `detect`
with the file to read instead: `summary_lifecycle_metrics.json` (the same layout, but it pools
every stage's requests and records no load, so it is never read as, or combined as a repetition
with, a stage) and the Prometheus reports (`*_prometheus_metrics.json`, the server's metrics).
The per-request file, a JSON list, is `reportgen.formats.inference_perf.requests`'s.
The reports record no inference-perf version: the tool is named alone.

Two layouts, told apart by `successes.token_count_mismatches`, which came with the change of
definitions in inference-perf 0.5.0 (May 2026, with `benchmark_time_seconds`):

- 0.5 and later: the definitions below.
- 0.4 and earlier (no `token_count_mismatches`, nor `benchmark_time_seconds`): the client timed
  every streamed line (0.1 to 0.2, blank separator lines included) or every server-sent event
  (0.3 to 0.4, the role, usage and `[DONE]` events included), not tokens. Its
  `time_per_output_token` is the mean gap between those, not a time per token (on the KubeCon
  2025 demo files, half of (latency - TTFT) / (tokens - 1)), so ITL is left out with a warning.
  TTFT is the first line or event, latency and throughput mean what they do in 0.5. The stage's
  time span is `successes.count / throughput.requests_per_sec` (inference-perf divided the one
  by the other), and statistics are `p50` rather than `median` in 0.1.

Definitions of 0.5 and later (docs/tool-formats-research.md, section 6), in seconds:

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
from itertools import pairwise
from pathlib import PurePath
from typing import Any

from reportgen import tolerances as tol
from reportgen.errors import Problem
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.json_input.document import JsonDocument
from reportgen.frozendict import FrozenDict
from reportgen.model import CellStatus, LoadPoint, Scalar, SourceFile, Summary, SweepRun
from reportgen.stats import close

Report = Callable[[str, str, str], None]  # (pointer, message, severity)
_MARKS = ("load_summary", "successes", "failures")
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
# inference-perf 0.4 and earlier (no successes.token_count_mismatches): lines or events, not tokens
EVENT_DEFINITIONS = (
    (
        "ttft_s",
        "inference-perf 0.4 and earlier: the first streamed line (0.1 to 0.2) or server-sent "
        "event (0.3 to 0.4) - start_time, whatever it carries (a role-only event counts)",
    ),
    (
        "itl_s",
        "not given: inference-perf 0.4 and earlier timed every streamed line or server-sent "
        "event, blank lines, role and [DONE] included, not every token, so its "
        "time_per_output_token is the mean gap between those, no time per token",
    ),
    ("latency_s", "inference-perf: end_time - start_time, after the stream is read to its end"),
    (
        "per_request_tok_s",
        "not given: inference-perf writes no per-request speed, and its 0.4-and-earlier "
        "time_per_output_token is no time per token",
    ),
    (
        "output_tok_s",
        "inference-perf 0.4 and earlier: output tokens of the successful requests, counted by its "
        "client tokenizer, / the last end_time - the first start_time over all the stage's "
        "requests, failed ones included; the file does not state that span, and reportgen takes "
        "it as successes.count / requests_per_sec, which inference-perf divided by it",
    ),
)


POOLED = (
    "this is inference-perf's summary_lifecycle_metrics.json: it pools the requests of every "
    "stage of the run, so it is no one load point (its load_summary records no requested_rate or "
    "concurrency). Read the stage_N_lifecycle_metrics.json files written beside it, one load "
    "point each"
)
PROMETHEUS = (
    "this is an inference-perf Prometheus report (stage_N_prometheus_metrics.json or "
    "summary_prometheus_metrics.json): the model server's own metrics scraped over the run, not "
    "the requests inference-perf timed. Read the stage_N_lifecycle_metrics.json files written "
    "beside it, one load point each"
)

_CUT = (
    "near an inference-perf stage_N_lifecycle_metrics.json, but it lacks {lacking}, which "
    "inference-perf writes in every lifecycle report beside load_summary and successes: the file "
    "was edited after inference-perf wrote it. Read the stage file as inference-perf wrote it"
)


def detect(data: dict[str, Any]) -> Detection | None:
    """An inference-perf lifecycle report has `load_summary`, `successes` and `failures` at its
    top level (and from 0.5 on `benchmark_time_seconds`). Its pooled summary and its Prometheus
    reports, of the same top level, are refused, naming the files to read instead."""
    if not all(key in data for key in _MARKS):
        if "load_summary" in data and "successes" in data:  # near: say what it lacks
            lacking = " and ".join(key for key in _MARKS if key not in data)
            return Detection("", "inference-perf", refusal=_CUT.format(lacking=lacking))
        return None
    load, successes = data["load_summary"], data["successes"]
    if isinstance(successes, dict) and "latency" not in successes and not load:
        return Detection("", "inference-perf", refusal=PROMETHEUS)
    if isinstance(load, dict) and _pooled(load):
        return Detection("", "inference-perf", refusal=POOLED)
    return Detection("", "inference-perf")


def _pooled(load: dict[str, Any]) -> bool:
    """The pooled summary's load: the schedule's delays (0.1.1 on), but no stage's send span,
    rate or concurrency. (0.1.0 wrote the count alone in both: `parse` tells by the name.)"""
    delays = "schedule_delay" in load or "schedule_accuracy" in load
    return delays and not {"send_duration", "requested_rate", "concurrency"} & load.keys()


def version(_run: dict[str, Any]) -> tuple[str, str]:
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
    name = PurePath(label).name
    stage = _STAGE.search(name)
    if rate is None and stage is None:
        pooled = name.startswith("summary_lifecycle_metrics")
        report(
            "/load_summary",
            POOLED
            if pooled
            else "load_summary records no load (no requested_rate or concurrency), as "
            "inference-perf 0.1.0 wrote both its stage files and its pooled "
            "summary_lifecycle_metrics.json: reportgen cannot tell which this is. The pooled "
            "summary is no one load point; a stage file named stage_N_lifecycle_metrics.json is "
            "read as stage N",
            "error",
        )
        return None
    shown = f"stage-{stage.group(1)}" if stage else "stage"
    report(
        "/load_summary" if rate is None else "/load_summary/requested_rate",
        (
            "load_summary records the request count only, as inference-perf 0.1.0 wrote it"
            if rate is None
            else f"requested_rate {rate:g} and no concurrency"
        )
        + f": the file does not record the stage's load; the load point is labelled {shown!r}, "
        "by its stage in the file name",
        "warning",
    )
    return shown, None, None, "not recorded"


def _order(name: str) -> float:
    found = _PERCENTILE.fullmatch(name)
    return float(found.group(1)) if found else _RANK.get(name, -2.0)


def _in_order(metric: str, stats: dict[str, Any], report: Report) -> bool:
    """True when min, the percentiles, the median and max do not decrease; an error if not."""
    ranked = sorted((_order(k), k) for k in stats if _order(k) >= -1)
    for (_, low), (_, high) in pairwise(ranked):
        if stats[high] < stats[low]:
            report(
                f"{_LATENCY}/{metric}/{high}",
                f"{metric} {high} {stats[high]:g} s is below its {low} {stats[low]:g} s; "
                "percentiles must not decrease",
                "error",
            )
            return False
    return True


def _median(stats: dict[str, Any]) -> str | None:
    """The key of the median: `median`, `p50` in 0.1, or None when the run's percentile list
    left 50 out."""
    return next((key for key in ("median", "p50") if key in stats), None)


def _summaries(
    latency: dict[str, Any], ok: int, tokens: float | None, per_event: bool, report: Report
) -> tuple[tuple[tuple[str, Summary], ...], list[tuple[str, str]]]:
    """The tool's statistics by reportgen quantity (seconds), and where each is. `per_event`:
    the 0.4-and-earlier layout, whose TPOT is no time per token (left out with a warning)."""
    found: list[tuple[str, Summary]] = []
    at: list[tuple[str, str]] = []
    for metric, quantity in QUANTITIES.items():
        stats = latency.get(metric)
        if not isinstance(stats, dict) or not _in_order(metric, stats, report):
            continue
        place, median = f"{_LATENCY}/{metric}", _median(stats)
        if quantity == "itl_s" and per_event:
            report(
                f"{place}/{median or 'mean'}",
                f"time_per_output_token {stats[median or 'mean']:g} s is no time per token: "
                "the file has no successes.token_count_mismatches, so it is of inference-perf "
                "0.4 or earlier, which timed every streamed line or server-sent event (blank "
                "lines, role and [DONE] included), not every token; reportgen leaves ITL out of "
                "this load point (inference-perf 0.5 and later time tokens)",
                "warning",
            )
            continue
        zero = median is not None and stats[median] == 0
        if quantity == "itl_s" and zero and (tokens is None or tokens >= 2):
            report(
                f"{place}/{median}",
                "median TPOT 0.0 s: at least half the requests got all their tokens in one "
                "chunk, so it is no inter-token latency; reportgen leaves ITL out of this load "
                "point",
                "warning",
            )
            continue
        values = {name: float(stats[key]) for key, name in _STATS.items() if key in stats}
        n = ok if quantity == "latency_s" else None  # TTFT and TPOT skip one-token requests
        p50 = None if median is None else float(stats[median])
        found.append((quantity, Summary(**values, p50=p50, n=n)))
        if median is not None:
            at.append((quantity, f"{place}/{median}"))
        at += [
            (f"{quantity}.{name}", f"{place}/{key}") for key, name in _STATS.items() if key in stats
        ]
    return tuple(sorted(found)), sorted(at)


def _zero_itl(latency: dict[str, Any], tokens: float | None, report: Report) -> None:
    """The known artefact: a median ITL of 0 with requests of 2 or more output tokens."""
    stats = latency.get("inter_token_latency")
    median = _median(stats) if isinstance(stats, dict) else None
    if not isinstance(stats, dict) or median is None or stats[median] != 0:
        return
    if tokens is not None and tokens < 2:
        return
    report(
        f"{_LATENCY}/inter_token_latency/{median}",
        f"median ITL 0.0 s (mean {stats['mean']:g} s): inference-perf's output_token_times "
        "repeat chunk times, each extra token the client tokenizer counts in a chunk adding a "
        "zero gap; reportgen's ITL is time_per_output_token, and this statistic is not used",
        "warning",
    )


def _seconds(raw: dict[str, Any], ok: int) -> tuple[float | None, str]:
    """The stage's time span (the last end - the first start over all its requests), and the
    key it comes from: `benchmark_time_seconds` (0.5 on), else successes.count /
    requests_per_sec, which inference-perf divided by that span; None when neither gives it."""
    if "benchmark_time_seconds" in raw:
        seconds = float(raw["benchmark_time_seconds"])
        return (seconds if seconds > 0 else None), "benchmark_time_seconds"
    rate = raw["successes"]["throughput"].get("requests_per_sec")
    if ok > 0 and isinstance(rate, int | float) and rate > 0:
        return ok / rate, "successes.count / requests_per_sec"
    return None, "successes.count / requests_per_sec"


def _output_tokens(
    raw: dict[str, Any], ok: int, span: tuple[float | None, str], report: Report
) -> tuple[int, str] | None:
    """The output tokens the tool's throughput counts (server usage or its client tokenizer,
    whichever gives its output_tokens_per_sec), and by whom; a warning when neither does."""
    successes, (seconds, span_from) = raw["successes"], span
    shown = float(successes["throughput"]["output_tokens_per_sec"])
    counts: list[tuple[int, str]] = []
    server = (successes.get("output_tokens") or {}).get("total")
    if server is not None:
        counts.append((round(server), "server usage"))
    client = successes.get("output_len")
    if isinstance(client, dict) and ok > 0:
        counts.append((round(client["mean"] * ok), "client tokenizer"))
    if seconds is None or not counts:
        return None
    for count, by in counts:
        if close(shown, count / seconds, rel=tol.AGGREGATE.rel, abs_=0.01):
            return count, by
    tried = " or ".join(f"{c} ({by}) / {seconds:g} s = {c / seconds:.6g} tok/s" for c, by in counts)
    report(
        "/successes/throughput/output_tokens_per_sec",
        f"output_tokens_per_sec {shown:g} tok/s disagrees with the output tokens / "
        f"{span_from}: {tried}",
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


def _settings(raw: dict[str, Any], counted_by: str | None) -> FrozenDict[str, Scalar]:
    load, successes = raw["load_summary"], raw["successes"]
    found: dict[str, Any] = {
        "requests_sent": load.get("count"),
        "send_duration_s": load.get("send_duration"),
        "achieved_rate": load.get("achieved_rate"),
        "token_count_mismatches": successes.get("token_count_mismatches"),
        "output_tokens_counted_by": counted_by,
    }
    return FrozenDict(sorted((k, v) for k, v in found.items() if isinstance(v, str | int | float)))


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[SweepRun, list[Problem]]:
    """Build the one-point `SweepRun` of a schema-valid inference-perf stage report."""
    raw: dict[str, Any] = doc.data
    problems: list[Problem] = []

    def report(pointer: str, message: str, severity: str) -> None:
        problems.append(doc.problem(base + pointer, message, severity))

    successes, failures = raw["successes"], raw["failures"]
    per_event = "token_count_mismatches" not in successes  # 0.4 and earlier
    definitions = FrozenDict(EVENT_DEFINITIONS if per_event else DEFINITIONS)
    found = _load(raw["load_summary"], source.label, report)
    if found is None:
        return SweepRun(
            source=source, engine=None, model=None, points=(), definitions=definitions
        ), problems
    label, concurrency, rate, strategy = found
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
    if not per_event:
        _zero_itl(latency, most, report)
    stats, summary_at = _summaries(latency, ok, most, per_event, report)
    span = _seconds(raw, ok)
    tokens = _output_tokens(raw, ok, span, report)
    status: CellStatus = "ok" if ok > 0 else "failed"
    reason = None if status == "ok" else _reason(failures)
    if status == "failed":
        report(
            "/successes/count",
            f"no request succeeded ({failed} failed: {reason}): the load point has its request "
            "counts only, no latency or throughput",
            "warning",
        )
    point = LoadPoint(
        pointer=base,
        label=label,
        concurrency=concurrency,
        rate=rate,
        strategy=strategy,
        status=status,
        reason=reason,
        duration_s=span[0],
        output_tokens=None if tokens is None else tokens[0],
        aggregate_tok_s=float(successes["throughput"]["output_tokens_per_sec"]),
        requests_ok=ok,
        requests_failed=failed,
        samples=(),
        summaries=FrozenDict(stats),
        prompt_tokens=_fixed(successes.get("prompt_tokens", successes.get("prompt_len"))),
        summary_at=FrozenDict(
            (
                ("aggregate_tok_s", "/successes/throughput/output_tokens_per_sec"),
                *summary_at,
            )
        ),
    )
    run = SweepRun(
        source=source,
        engine=None,  # inference-perf is a client: its stage reports do not name the server
        model=None,  # nor the model (only its config.yaml does)
        points=(point,),
        definitions=definitions,
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
