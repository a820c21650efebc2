"""Parse stage for NVIDIA AIPerf's per-request export `profile_export.jsonl`: one `aiperf profile`
run, one load point, computed from the requests themselves (`reportgen.formats.aiperf.summary` reads
the same run's summary, `profile_export_aiperf.json`, from AIPerf's own statistics).

Each line is one request (read by `reportgen.formats.json_input.lines`, pointers `/INDEX/...`):
`metadata` with wall-clock epoch nanoseconds (`request_start_ns`, `request_end_ns`) and the phase
(`benchmark_phase`), and `metrics.<name>{value, unit}` in AIPerf's display units (ms for times). The
layout is the same from AIPerf 0.2 (0.1.1 wrote no per-request file) to 0.13; a record names its
phase only by `benchmark_phase` (`warmup` or `profiling`), never by `exclude_from_results`, which is
a phase's setting in the summary's configuration. Per AIPerf 0.13's source:

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
version nor the model. The version: the tool is named alone, as for SGLang (`tested_versions`
None). The load is never guessed: the point is labelled `inflight{N}-records`, N the most requests
the records show in flight at once (a setting too, `most_in_flight`), its concurrency and rate are
None, and the definitions say so. The label also keeps the point apart from the summary's `c{N}`:
an article run that lists both files of one load point would otherwise combine two measurements of
the same requests as repetitions (`reportgen.metrics.repeats`); with two labels they stay two
points. Two profiling phases in one file are refused, as by the summary importer.

The steady state: each profiling record's `request_start_ns` and `request_end_ns` (failed ones
included) are the load point's spans (`LoadPoint.spans`, in seconds from the first start), from
which `reportgen.metrics.steady` finds its warm-up and drain. Every AIPerf version that writes
this file writes both (0.2 to 0.13), so every records file has them.

Memory: the file is read one line at a time (`reportgen.formats.json_input.line_stream`) and each
record reduced at once by `Reduction` into packed columns (`reportgen.samples.Packer`): 49 bytes a
profiling record for its sample and 16 for its start and end (kept once more as the spans, in
seconds: 16 more), no Python object per record. It warns
once per kind of disagreement, not per record. `parse` feeds the same reduction from a file read
whole (`reportgen.formats.json_input.lines`).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from reportgen import tolerances as tol
from reportgen.errors import Problem
from reportgen.formats.aiperf.summary import SECONDS_PER
from reportgen.formats.base import Detection, ProblemAt, RunFormat
from reportgen.formats.json_input.document import JsonDocument
from reportgen.formats.records import most_in_flight, records_point
from reportgen.frozendict import FrozenDict
from reportgen.model import RequestSample, Scalar, SourceFile, SweepRun
from reportgen.samples import PackedSpans, Packer
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


def version(_run: dict[str, Any]) -> tuple[str, str]:
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
        return RequestSample(
            pointer=at,
            ttft_s=0.0,
            latency_s=latency or window,
            itl_s=0.0,
            input_tokens=inputs or 0,
            output_tokens=out,
            completed=False,
        )
    if server is None:
        tally.setdefault("client", [0, at])[0] += 1
    elif client is not None and abs(client - server) > 1:
        tally.setdefault("tokens", [0, f"{at}/metrics/output_sequence_length/value"])[0] += 1
    if latency > window + tol.LATENCY_SLACK_S:
        tally.setdefault("latency", [0, f"{at}/metrics/request_latency/value"])[0] += 1
    if ttft is None or out < 2:
        return RequestSample(
            pointer=at,
            ttft_s=ttft or 0.0,
            latency_s=latency,
            itl_s=0.0,
            input_tokens=inputs or 0,
            output_tokens=out,
            completed=True,
        )
    own, t = _seconds(metrics, "inter_token_latency"), tol.SUMMARY_SECONDS
    decode = latency - ttft
    if (
        own is not None
        and client is not None
        and client > 1
        and not close(own * (client - 1), decode, rel=t.rel, abs_=t.abs_)
    ):
        tally.setdefault("itl", [0, f"{at}/metrics/inter_token_latency/value"])[0] += 1
    return RequestSample(
        pointer=at,
        ttft_s=ttft,
        latency_s=latency,
        itl_s=decode / (out - 1),
        input_tokens=inputs or 0,
        output_tokens=out,
        completed=True,
    )


def _reason(record: Mapping[str, Any]) -> str | None:
    """The last line of a failed record's error message (or type), if it says anything."""
    error = record.get("error")
    if error is None:
        return None
    lines = str(error.get("message") or error.get("type") or "").strip().splitlines()
    return lines[-1] if lines else None


def _definitions(tally: Tally, skipped: int) -> FrozenDict[str, str]:
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
    return FrozenDict(sorted(found))


class Reduction:
    """One file's records reduced as they come (`add`), into the packed samples, start and end
    times of its profiling records and a few counts: a record is dropped once added."""

    def __init__(self, base: str, problem: ProblemAt) -> None:
        self.base, self.problem = base, problem
        self.found: list[Problem] = []  # the records' own problems, in record order
        self.tally: Tally = {}
        self.skipped = {"warmup_records": 0, "context_overflow_records": 0}
        self.phases: dict[Any, str] = {}  # profiling_index -> its first record's pointer
        self.samples = Packer()
        self.starts, self.ends = array("q"), array("q")
        self.workers: set[str] = set()
        self.reason: str | None = None  # the first failed profiling record's, when it says one

    def report(self, pointer: str, message: str, severity: str) -> None:
        """Record a problem of the current record, at `pointer` under the run's base."""
        self.found.append(self.problem(self.base + pointer, message, severity))

    def add(self, key: str, record: dict[str, Any]) -> None:
        """Take the schema-valid record at index `key`: skipped, or measured."""
        meta = record["metadata"]
        if meta["benchmark_phase"] != "profiling":
            self.skipped["warmup_records"] += 1
            return
        if meta.get("context_overflow_skip"):
            self.skipped["context_overflow_records"] += 1
            return
        at = f"/{key}"
        self.phases.setdefault(meta.get("profiling_index"), f"{at}/metadata/profiling_index")
        self.samples.add(int(key), _sample(at, record, self.report, self.tally))
        # int(): the schema lets an integer be written 1.7e18; the value, in 64 bits, is the same
        self.starts.append(int(meta["request_start_ns"]))
        self.ends.append(int(meta["request_end_ns"]))
        if meta.get("worker_id") is not None:
            self.workers.add(meta["worker_id"])
        self.reason = self.reason or _reason(record)

    def spans(self) -> PackedSpans:
        """Each profiling record's (start, end) in seconds from the first start: the difference
        in integer nanoseconds first, so no two times swap or merge (an epoch in ns is past what
        a double holds to the nanosecond)."""
        first = min(self.starts, default=0)
        return PackedSpans(
            ((s - first) * _NS for s in self.starts), ((e - first) * _NS for e in self.ends)
        )

    def finish(self, source: SourceFile) -> tuple[SweepRun, list[Problem]]:
        """The one-point run of the records added, and every problem found."""
        base, kept = self.base, len(self.samples)
        problems = []
        if len(self.phases) > 1:
            second = list(self.phases.values())[1]
            message = (
                f"{len(self.phases)} profiling phases; reportgen reads one load point per file"
            )
            problems.append(self.problem(base + second, message, "error"))
        if not kept:
            message = (
                f"no profiling record: {sum(self.skipped.values())} warm-up or skipped records only"
            )
            problems.append(self.problem(base, message, "error"))
        problems += self.found
        for kind, message in _TALLIED.items():
            if kind in self.tally:
                count, first = self.tally[kind]
                where = f"{count} of {kept} profiling records, the first here"
                problems.append(self.problem(base + first, f"{message} ({where})", "warning"))
        seconds = (max(self.ends) - min(self.starts)) * _NS if kept else 0.0
        most = most_in_flight(self.starts, self.ends)
        reason = self.reason or "no request completed"
        point = records_point(base, self.samples.packed(), seconds, most, reason)
        point = replace(point, spans=self.spans())
        settings: dict[str, Scalar] = {"most_in_flight": most, "profiling_records": kept}
        settings |= {k: v for k, v in self.skipped.items() if v} | {"workers": len(self.workers)}
        run = SweepRun(
            source=source,
            engine=None,  # AIPerf is a client: it does not name the server
            model=None,  # the records do not name the model
            points=(point,),
            definitions=_definitions(self.tally, sum(self.skipped.values())),
            settings=FrozenDict(sorted(settings.items())),
        )
        return run, problems


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[SweepRun, list[Problem]]:
    """Build the one-point `SweepRun` of a schema-valid AIPerf records file read whole."""
    reduction = Reduction(base, doc.problem)
    for key, record in doc.data.items():
        reduction.add(key, record)
    return reduction.finish(source)


FORMAT = RunFormat(
    name="aiperf-records",
    tool="aiperf",
    tested_versions=None,  # its files do not record its version
    looks_like="an AIPerf profile_export.jsonl (one request a line)",
    marks=("/metadata/request_start_ns", "/metrics"),
    detect=detect,
    version=version,
    parse=parse,
    lines=True,
    reduce=Reduction,
)
