"""Parse stage for kubernetes-sigs inference-perf's per-request report
`per_request_lifecycle_metrics.json` (0.5 to 0.7; 0.5 names `info.response_metrics`
`info.response_info`, with the same keys and meaning; the records of 0.4 and earlier are
refused, see `EVENT_TIMES`): one file is one load point, computed from the requests
themselves (`reportgen.formats.inference_perf.lifecycle` reads a stage's own statistics instead).

The file is a top-level JSON array of request records (`RunFormat.top_list`: the loader hands them
over by index, so `/3/end_time` is the file's own pointer). Each record has `start_time` and
`end_time`, `info.response_metrics` with `chunk_times[]`, `output_token_times[]`, the client
tokenizer's `output_tokens` and the server's `server_usage`, and `error` (null, or
{error_type, error_msg} for a failed request). Per inference-perf's source:

- every time is `time.perf_counter()`: seconds on a monotonic clock whose origin is arbitrary (the
  machine's uptime on the real files), so reportgen only ever takes differences of them, never a
  date;
- `chunk_times` holds the arrival of each streamed chunk that carried content (role-only and
  usage-only chunks are left out by its stream parser), so TTFT here is the first content chunk's
  time - start_time, which is also inference-perf's first output token;
- `output_token_times` gives every token its chunk's time, so when the client tokenizer counts
  two tokens a chunk each chunk time appears twice: a known artefact, and the reason reportgen
  reads chunk times only;
- reportgen's ITL is (last chunk - first chunk) / (the server's completion_tokens - 1), the
  client's `output_tokens` only for a record without server usage (the definition then says how
  many). inference-perf's own time_per_output_token divides by its client count - 1, one token
  more on the real files;
- the duration is the last end_time - the first start_time over every record, failed ones
  included, which is inference-perf's benchmark_time_seconds.

The steady state: every record's (start_time, end_time), failed ones included, are the load
point's spans (`LoadPoint.spans`), from which `reportgen.metrics.steady` finds its warm-up and
drain; every version this importer reads (0.5 to 0.7) writes both. A 0.7 file of several stages
pools them, and so does its steady window: read one stage per file for a window that means one
load.

What the file does not record: the load (concurrency or request rate), the model, the version
(the tool is named alone, `tested_versions` None), and in 0.7 the stage of each record, so a run of
several stages pools them all; records that name two stages (`stage_id`, later versions) are
refused. The load is never guessed: the point is labelled `inflight{N}-records`, N the most
requests the records show in flight at once (a setting too), its concurrency and rate are None.
The label also keeps the point apart from the stage file's concurrency or rate label, so an article
run listing both files of one load point does not combine two readings of the same requests as
repetitions (`reportgen.metrics.repeats`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from reportgen.errors import Problem
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.json_input.document import JsonDocument
from reportgen.formats.records import most_in_flight, records_point
from reportgen.frozendict import FrozenDict
from reportgen.model import RequestSample, Scalar, SourceFile, SweepRun

Report = Callable[[str, str, str], None]  # (pointer, message, severity)
Tally = dict[str, list[Any]]  # per-record finding -> [how many records, the first one's pointer]
_TALLIED = {
    "unstreamed": "a successful request with no chunk_times (not streamed?): no TTFT or ITL for it",
}
DEFINITIONS = {  # reportgen quantity -> how these records define it
    "ttft_s": "inference-perf's per-request records: the first chunk_times entry - start_time, "
    "the first streamed chunk that carried content (its first output token), on its monotonic "
    "clock",
    "latency_s": "inference-perf's per-request records: end_time - start_time, after the stream "
    "is read to its end",
    "per_request_tok_s": "1 / reportgen's ITL per request; inference-perf writes no per-request "
    "speed",
    "output_tok_s": "from the records: the output tokens of the requests without error / (the "
    "last end_time - the first start_time over every record, failed ones included), which is "
    "inference-perf's benchmark_time_seconds; its own throughput counts its client tokenizer's "
    "tokens unless the run set use_server_output_tokens",
    "failed": "inference-perf's per-request records with an error",
    "concurrency": "not recorded in inference-perf's per_request_lifecycle_metrics.json (nor the "
    "request rate, nor in 0.7 the stage): the load point is labelled inflight{N}-records, N the "
    "most requests the records show in flight at once, which is at most the configured "
    "concurrency, not the setting itself",
}

EVENT_TIMES = (
    "inference-perf request records of 0.4 or earlier (info.output_token_times, no "
    "info.response_metrics): that client timed every streamed line or server-sent event (blank "
    "lines, role and [DONE] included), not the chunks that carried text, so the records do not say "
    "when each token arrived. Read the stage_N_lifecycle_metrics.json files written beside it "
    "(TTFT, latency and throughput, one load point each)"
)


def detect(data: dict[str, Any]) -> Detection | None:
    """inference-perf request records (a top-level array's items, by index): the first has
    `start_time`, `end_time` and `info.response_metrics`. Records of 0.4 and earlier
    (`info.output_token_times`, which timed lines or events) are refused, naming the stage files."""
    first = data.get("0")
    if isinstance(first, dict) and "start_time" in first and "end_time" in first:
        info = first.get("info")
        if isinstance(info, dict) and ("response_metrics" in info or "response_info" in info):
            return Detection("", "inference-perf-requests")
        if isinstance(info, dict) and "output_token_times" in info:
            return Detection("", "inference-perf-requests", refusal=EVENT_TIMES)
    return None


def version(_run: dict[str, Any]) -> tuple[str, str]:
    """The records do not name inference-perf's version: the empty string."""
    return "", ""


def _counted(metrics: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """(server completion tokens, server prompt tokens), None where usage does not say."""
    usage = metrics.get("server_usage")
    if not isinstance(usage, dict):
        return None, None
    return usage.get("completion_tokens"), usage.get("prompt_tokens")


def _inputs(info: Mapping[str, Any], server: int | None) -> int:
    if server is not None:
        return server
    text = (info.get("request_metrics") or {}).get("text") or {}
    found = text.get("input_tokens", info.get("input_tokens"))
    return int(found) if found is not None else 0


def _response(info: Mapping[str, Any]) -> str:
    """The key of the response's times and counts: `response_metrics`, or in 0.5
    `response_info` (the same keys, meaning the same)."""
    return "response_metrics" if "response_metrics" in info else "response_info"


def _errors(at: str, record: Mapping[str, Any], chunks: list[float], report: Report) -> bool:
    """A record's times that cannot be, as located errors; True when there are."""
    start, end = record["start_time"], record["end_time"]
    if end < start:
        report(f"{at}/end_time", f"{start - end:.6g} s before start_time", "error")
        return True
    where = f"{at}/info/{_response(record['info'])}/chunk_times"
    found = []
    if chunks and chunks[0] < start:
        found.append((f"{where}/0", f"the first chunk is {start - chunks[0]:.6g} s before start"))
    if chunks and chunks[-1] > end:
        last = f"{where}/{len(chunks) - 1}"
        found.append((last, f"the last chunk is {chunks[-1] - end:.6g} s after end_time"))
    back = next((i for i in range(1, len(chunks)) if chunks[i] < chunks[i - 1]), None)
    if back is not None:
        found.append((f"{where}/{back}", "chunk times must not decrease (a monotonic clock)"))
    for pointer, message in found:
        report(pointer, message, "error")
    return bool(found)


def _sample(at: str, record: Mapping[str, Any], report: Report, tally: Tally) -> RequestSample:
    """One record (at `at`) as a request sample in seconds; errors at their pointer."""
    info = record["info"]
    response = f"{at}/info/{_response(info)}"
    metrics = info.get(_response(info)) or {}
    chunks = list(metrics.get("chunk_times") or [])
    server, prompt = _counted(metrics)
    out = server if server is not None else int(metrics.get("output_tokens") or 0)
    inputs = _inputs(info, prompt)
    latency = max(record["end_time"] - record["start_time"], 0.0)
    done = record.get("error") is None
    if _errors(at, record, chunks, report) or not done:
        return RequestSample(
            pointer=at,
            ttft_s=0.0,
            latency_s=latency,
            itl_s=0.0,
            input_tokens=inputs,
            output_tokens=out if done else 0,
            completed=False,
        )
    if server is None:
        tally.setdefault("client", [0, response])[0] += 1
    if not chunks:
        tally.setdefault("unstreamed", [0, response])[0] += 1
        return RequestSample(
            pointer=at,
            ttft_s=0.0,
            latency_s=latency,
            itl_s=0.0,
            input_tokens=inputs,
            output_tokens=out,
            completed=True,
        )
    ttft = chunks[0] - record["start_time"]
    itl = (chunks[-1] - chunks[0]) / (out - 1) if out >= 2 and len(chunks) >= 2 else 0.0
    return RequestSample(
        pointer=at,
        ttft_s=ttft,
        latency_s=latency,
        itl_s=itl,
        input_tokens=inputs,
        output_tokens=out,
        completed=True,
    )


def _reason(records: list[tuple[str, dict[str, Any]]]) -> str:
    """Why no request succeeded: the first error's message (its last line), else its type."""
    for _, record in records:
        error = record.get("error")
        if isinstance(error, dict):
            text = str(error.get("error_msg") or error.get("error_type") or "").strip()
            if text:
                return text.splitlines()[-1]
    return "no request succeeded"


def _one_stage(records: list[tuple[str, dict[str, Any]]], report: Report) -> None:
    """An error when the records name more than one stage (later versions write stage_id)."""
    first: dict[Any, str] = {}
    for at, record in records:
        stage = record.get("stage_id")
        if stage is not None:
            first.setdefault(stage, f"{at}/stage_id")
    if len(first) > 1:
        stages = ", ".join(str(s) for s in first)
        report(
            list(first.values())[1],
            f"records of {len(first)} stages ({stages}); reportgen reads one load point per "
            "file: read the stage_N_lifecycle_metrics.json files, one stage each",
            "error",
        )


def _definitions(tally: Tally) -> FrozenDict[str, str]:
    fallback = tally.get("client", [0])[0]
    records = f"{fallback} record{'' if fallback == 1 else 's'}"
    client = f" (the client tokenizer's output_tokens for {records} without server usage)"
    client = client if fallback else ""
    itl = (
        "reportgen, from inference-perf's per-request records: (the last chunk_times entry - the "
        f"first) / (the server's completion_tokens - 1) per request{client}; inference-perf's own "
        "time_per_output_token divides by its client tokenizer's count - 1 (one token more on the "
        "real files), and its output_token_times repeat chunk times, so they are not read"
    )
    tokens = (
        f"the server's completion_tokens of the requests without error{client}; inference-perf's "
        "stage summary counts its client tokenizer's unless the run set use_server_output_tokens"
    )
    found = (*DEFINITIONS.items(), ("itl_s", itl), ("output_tokens", tokens))
    return FrozenDict(sorted(found))


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[SweepRun, list[Problem]]:
    """Build the one-point `SweepRun` of a schema-valid inference-perf per-request file."""
    problems: list[Problem] = []

    def report(pointer: str, message: str, severity: str) -> None:
        problems.append(doc.problem(base + pointer, message, severity))

    records = [(f"/{key}", record) for key, record in doc.data.items()]
    _one_stage(records, report)
    tally: Tally = {}
    samples = tuple(_sample(at, record, report, tally) for at, record in records)
    for kind, message in _TALLIED.items():
        if kind in tally:
            count, first = tally[kind]
            report(
                first, f"{message} ({count} of {len(records)} records, the first here)", "warning"
            )
    starts = [float(r["start_time"]) for _, r in records]
    ends = [float(r["end_time"]) for _, r in records]
    seconds = max(ends) - min(starts)  # differences on the monotonic clock only
    most = most_in_flight(starts, ends)
    point = records_point(base, samples, seconds, most, _reason(records))
    point = replace(point, spans=tuple(zip(starts, ends, strict=True)))
    settings: dict[str, Scalar] = {"most_in_flight": most, "records": len(records)}
    run = SweepRun(
        source=source,
        engine=None,  # inference-perf is a client: its records do not name the server
        model=None,  # nor the model (only its config.yaml does)
        points=(point,),
        definitions=_definitions(tally),
        settings=FrozenDict(sorted(settings.items())),
    )
    return run, problems


FORMAT = RunFormat(
    name="inference-perf-requests",
    tool="inference-perf",
    tested_versions=None,  # its files do not record its version
    looks_like="an inference-perf per_request_lifecycle_metrics.json (a list of requests)",
    marks=("/start_time", "/end_time", "/info/response_metrics"),
    detect=detect,
    version=version,
    parse=parse,
    top_list=True,
)
