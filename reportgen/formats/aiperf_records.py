"""Parse stage for NVIDIA AIPerf's per-request export `profile_export.jsonl`: one `aiperf profile`
run, one load point, computed from the requests themselves (`reportgen.formats.aiperf` reads the
same run's summary, `profile_export_aiperf.json`, from AIPerf's own statistics).

Each line is one request (read by `reportgen.formats.jsonl`, pointers `/INDEX/...`): `metadata`
with wall-clock epoch nanoseconds (`request_start_ns`, `request_end_ns`) and the phase
(`benchmark_phase`), and `metrics.<name>{value, unit}` in AIPerf's display units (ms for times in
0.13). Per AIPerf 0.13's source:

- only `profiling` records are measured; `warmup` records are skipped and counted (a setting), and
  so are `context_overflow_skip` ones, which AIPerf itself leaves out of every metric;
- a record with `error`, or `was_cancelled`, is a failed request;
- TTFT and latency are AIPerf's own per-request values; reportgen's ITL is (latency - TTFT) /
  (output tokens - 1) with the server's usage count (`usage_completion_tokens`, AIPerf's client
  tokenizer's `output_sequence_length` only when a record lacks it). AIPerf's own per-record ITL
  divides by its client count (one token more on the real files): it is cross-checked by that
  definition and the difference is stated, not warned about;
- the duration is the last `request_end_ns` - the first `request_start_ns` of the profiling
  records (AIPerf's `benchmark_duration`; its summary throughputs divide by its longer phase
  window), the output tokens the sum of the counts used for ITL.

What the file does not record. Neither the load (concurrency limit or request rate) nor AIPerf's
version nor the model. The version: the tool is named alone, as for SGLang (`known_versions`
0.0). The load is never guessed: the point is labelled `inflight{N}-records`, N the most requests
the records show in flight at once (a setting too, `most_in_flight`), its concurrency and rate are
None, and the definitions say so. The label also keeps the point apart from the summary's `c{N}`:
an article run that lists both files of one load point would otherwise combine two measurements of
the same requests as repetitions (`reportgen.metrics.repeats`); with two labels they stay two
points. Two profiling phases in one file are refused, as by the summary importer.

Memory: the reader holds the file's bytes and every parsed record; this module adds one
`RequestSample` (about 250 bytes) a record, and warns once per kind of disagreement, not per record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from reportgen import tolerances as tol
from reportgen.errors import Problem
from reportgen.formats.aiperf import SECONDS_PER
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.jsonfile import JsonDocument
from reportgen.formats.records import most_in_flight, records_point
from reportgen.model import RequestSample, Scalar, SourceFile, SweepRun
from reportgen.stats import close

Report = Callable[[str, str, str], None]  # (pointer, message, severity)
_NS = 1e-9
DEFINITIONS = {  # reportgen quantity -> how these records define it
    "ttft_s": "AIPerf's per-request time_to_first_token: the request's start to its first "
    "response with content (or reasoning)",
    "latency_s": "AIPerf's per-request request_latency: the request's start to its last response "
    "with content",
    "per_request_tok_s": "1 / reportgen's ITL per request; AIPerf's own "
    "output_token_throughput_per_user is 1 / its ITL (client count) and is not used",
    "output_tok_s": "from the records: the output tokens of the completed requests / (the last "
    "request_end_ns - the first request_start_ns of the profiling records), which is AIPerf's "
    "benchmark_duration; AIPerf's summary divides its client count by its longer phase window",
    "failed": "AIPerf's profiling records with an error, or cancelled; warm-up records are "
    "skipped, not counted",
    "concurrency": "not recorded in AIPerf's profile_export.jsonl (nor the request rate): the load "
    "point is labelled inflight{N}-records, N the most requests the records show in flight at "
    "once, which is at most the configured concurrency, not the setting itself",
}


def detect(data: dict[str, Any]) -> Detection | None:
    """AIPerf records (a JSON Lines file's, by index): the first has `metadata.request_start_ns`
    and `metrics`."""
    first = data.get("0")
    if isinstance(first, dict) and "metrics" in first:
        meta = first.get("metadata")
        if isinstance(meta, dict) and "request_start_ns" in meta:
            return Detection("", "aiperf-records")
    return None


def version(run: dict[str, Any]) -> tuple[str, str]:
    """The records do not name AIPerf's version: the empty string (the tool is named alone)."""
    return "", ""


def _seconds(metrics: Mapping[str, Any], name: str) -> float | None:
    entry = metrics.get(name)
    return None if entry is None else float(entry["value"]) * SECONDS_PER[entry["unit"]]


def _count(metrics: Mapping[str, Any], name: str) -> int | None:
    entry = metrics.get(name)
    return None if entry is None else int(entry["value"])


Tally = dict[str, list[Any]]  # per-record finding -> [how many records, the first one's pointer]


_TALLIED = {
    "itl": "AIPerf's inter_token_latency x (its output_sequence_length - 1) is not the record's "
    "request_latency - time_to_first_token",
    "tokens": "AIPerf's client output count (output_sequence_length) differs from the server's "
    "usage_completion_tokens by more than one token",
    "latency": "request_latency is longer than request_end_ns - request_start_ns",
}


def _errors(
    at: str, meta: Mapping[str, Any], times: tuple[float | None, float | None], report: Report
) -> bool:
    """A record's timings that cannot be, as located errors; True when there are. `times`:
    (latency, TTFT) of a successful record, (0, None) of a failed one."""
    latency, ttft = times
    found = []
    if meta["request_end_ns"] < meta["request_start_ns"]:
        gap = (meta["request_start_ns"] - meta["request_end_ns"]) * _NS
        found.append(("/metadata/request_end_ns", f"{gap:.6g} s before request_start_ns"))
    if latency is None:
        found.append(("/metrics", "a successful record must have request_latency"))
    elif ttft is not None and ttft > latency:
        message = f"time_to_first_token {ttft:.6g} s is after the request_latency {latency:.6g} s"
        found.append(("/metrics/time_to_first_token/value", message))
    for pointer, message in found:
        report(at + pointer, message, "error")
    return bool(found)


def _sample(at: str, record: Mapping[str, Any], report: Report, tally: Tally) -> RequestSample:
    """One profiling record (at `at`) as a request sample in seconds; errors at their pointer."""
    meta, metrics = record["metadata"], record["metrics"]
    window = max(meta["request_end_ns"] - meta["request_start_ns"], 0) * _NS
    latency, ttft = _seconds(metrics, "request_latency"), _seconds(metrics, "time_to_first_token")
    server = _count(metrics, "usage_completion_tokens")
    client = _count(metrics, "output_sequence_length")
    out = server if server is not None else client or 0
    inputs = _count(metrics, "usage_prompt_tokens")
    inputs = _count(metrics, "input_sequence_length") if inputs is None else inputs
    done = record.get("error") is None and not meta.get("was_cancelled")
    wrong = _errors(at, meta, (latency, ttft) if done else (0.0, None), report)
    if wrong or not done or latency is None:
        return RequestSample(at, 0.0, latency or window, 0.0, inputs or 0, out, False)
    if server is None:
        tally.setdefault("client", [0, at])[0] += 1
    elif client is not None and abs(client - server) > 1:
        tally.setdefault("tokens", [0, f"{at}/metrics/output_sequence_length/value"])[0] += 1
    if latency > window + tol.LATENCY_SLACK_S:
        tally.setdefault("latency", [0, f"{at}/metrics/request_latency/value"])[0] += 1
    if ttft is None or out < 2:
        return RequestSample(at, ttft or 0.0, latency, 0.0, inputs or 0, out, True)
    own, t = _seconds(metrics, "inter_token_latency"), tol.SUMMARY_SECONDS
    decode = latency - ttft
    if (
        own is not None
        and client is not None
        and client > 1
        and not close(own * (client - 1), decode, rel=t.rel, abs_=t.abs_)
    ):
        tally.setdefault("itl", [0, f"{at}/metrics/inter_token_latency/value"])[0] += 1
    return RequestSample(at, ttft, latency, decode / (out - 1), inputs or 0, out, True)


def _reason(records: list[tuple[str, dict[str, Any]]]) -> str:
    for _, record in records:
        error = record.get("error")
        if error is not None:
            lines = str(error.get("message") or error.get("type") or "").strip().splitlines()
            if lines:
                return lines[-1]
    return "no request completed"


def _profiling(
    doc: JsonDocument, report: Report
) -> tuple[list[tuple[str, dict[str, Any]]], dict[str, int]]:
    """The measured records with their pointers, and how many of the others were skipped."""
    kept: list[tuple[str, dict[str, Any]]] = []
    skipped = {"warmup_records": 0, "context_overflow_records": 0}
    phases: dict[Any, str] = {}
    for key, record in doc.data.items():
        meta = record["metadata"]
        if meta["benchmark_phase"] != "profiling":
            skipped["warmup_records"] += 1
        elif meta.get("context_overflow_skip"):
            skipped["context_overflow_records"] += 1
        else:
            kept.append((f"/{key}", record))
            phases.setdefault(meta.get("profiling_index"), f"/{key}/metadata/profiling_index")
    if len(phases) > 1:
        second = list(phases.values())[1]
        report(
            second,
            f"{len(phases)} profiling phases; reportgen reads one load point per file",
            "error",
        )
    if not kept:
        report("", f"no profiling record: {len(doc.data)} warm-up or skipped records only", "error")
    return kept, skipped


def _definitions(tally: Tally, skipped: int) -> tuple[tuple[str, str], ...]:
    fallback = tally.get("client", [0])[0]
    records = f"{fallback} record{'' if fallback == 1 else 's'}"
    client = f" (AIPerf's client count, output_sequence_length, for {records} without it)"
    client = client if fallback else ""
    itl = (
        "reportgen: (request_latency - time_to_first_token) / (the server's "
        f"usage_completion_tokens - 1) per request{client}; AIPerf's own inter_token_latency "
        "divides by its client count - 1, one token more on the real files, so it reads slightly "
        "lower (checked by its rule, not warned about)"
    )
    tokens = (
        f"the server's usage_completion_tokens of the completed profiling records{client}; "
        "AIPerf's summary counts its client tokenizer's"
    )
    requests = "the completed profiling records" + (
        f"; {skipped} warm-up or skipped records are not counted" if skipped else ""
    )
    found = (
        *DEFINITIONS.items(),
        ("itl_s", itl),
        ("output_tokens", tokens),
        ("requests", requests),
    )
    return tuple(sorted(found))


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[SweepRun, list[Problem]]:
    """Build the one-point `SweepRun` of a schema-valid AIPerf records file."""
    problems: list[Problem] = []

    def report(pointer: str, message: str, severity: str) -> None:
        problems.append(doc.problem(base + pointer, message, severity))

    kept, skipped = _profiling(doc, report)
    tally: Tally = {}
    samples = tuple(_sample(at, record, report, tally) for at, record in kept)
    for kind, message in _TALLIED.items():
        if kind in tally:
            count, first = tally[kind]
            where = f"{count} of {len(kept)} profiling records, the first here"
            report(first, f"{message} ({where})", "warning")
    starts = [r["metadata"]["request_start_ns"] for _, r in kept]
    ends = [r["metadata"]["request_end_ns"] for _, r in kept]
    seconds = (max(ends) - min(starts)) * _NS if kept else 0.0
    most = most_in_flight(starts, ends)
    point = records_point(base, samples, seconds, most, _reason(kept))
    workers = {r["metadata"].get("worker_id") for _, r in kept} - {None}
    settings: dict[str, Scalar] = {"most_in_flight": most, "profiling_records": len(kept)}
    settings |= {k: v for k, v in skipped.items() if v} | {"workers": len(workers)}
    run = SweepRun(
        source=source,
        engine=None,  # AIPerf is a client: it does not name the server
        model=None,  # the records do not name the model
        points=(point,),
        definitions=_definitions(tally, sum(skipped.values())),
        settings=tuple(sorted(settings.items())),
    )
    return run, problems


FORMAT = RunFormat(
    name="aiperf-records",
    tool="aiperf",
    known_versions=((0, 0), (0, 0)),  # unversioned: the file does not say
    looks_like=(
        "an AIPerf profile_export.jsonl (one request a line, with metadata.request_start_ns and "
        "metrics)"
    ),
    detect=detect,
    version=version,
    parse=parse,
    lines=True,
)
