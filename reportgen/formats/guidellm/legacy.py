"""Parse stage for GuideLLM 0.2 and 0.3's `benchmarks.json` (`guidellm benchmark`, 2025), for
`guidellm`'s format, which hands such files here (`is_legacy`); its schema is `legacy_benchmark`
in schemas/guidellm.schema.json.

The layout before 0.4: `{benchmarks: [...]}` and nothing else, no `metadata`, so the file names
no version. Each benchmark (`type_` "generative_benchmark") has `args` (its `strategy`),
`run_stats`, `worker` (the backend and model), `request_loader`, `metrics`, `start_time`,
`end_time`, `duration`, `request_totals`, `request_samples` and `requests`. Schema-valid raw
JSON in, a `SweepRun` of one point per benchmark plus semantic problems out. Read from the
request records when the file keeps all of them (`request_samples` null and as many as
`request_totals`), else from GuideLLM's own statistics (`metrics.<name>.successful`), as in files
whose records were stripped. GuideLLM's source of that era (`benchmark/benchmark.py`,
`objects/statistics.py`, `backend/openai.py`) defines them:

- records: `start_time` (just before the POST), `first_token_time` and `last_token_time` (the
  first and last streamed lines with text, or delta content for chat; -1 when none came) and
  `end_time` (the stream's last line), epoch seconds; `output_tokens` is the server's usage when
  it reported one, else GuideLLM's tokenizer's count of the text;
- only measured requests are kept: warm-up and cool-down ones are dropped when they complete;
- `time_to_first_token_ms` = first_token_time - start_time; `inter_token_latency_ms` =
  (last - first token) / (output tokens - 1), its statistics weighted by output tokens - 1 but
  its `count` the number of requests; `request_latency` = end_time - start_time, in seconds;
  `time_per_output_token_ms` = (last - first token) / output tokens, which leaves the TTFT out
  (from 0.4 it includes it); neither TPOT is used;
- medians and percentiles: the first value whose cumulative share reaches p, as in 0.4 on (0.2
  writes no `percentiles.p50`);
- `output_tokens_per_second.successful.mean`: the successful requests' output tokens over the span
  from the first one's start to the last one's end, the last token event left out; `duration` is
  the span of every measured request, incomplete and errored ones too;
- the steady state: each successful and errored record's (start_time, end_time) is a span of the
  load point (`LoadPoint.spans`), as in 0.4 on, when the file keeps every record.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from reportgen.errors import Problem
from reportgen.formats.guidellm.requests import (
    Report,
    check_statistics,
    legacy_sample,
    request_spans,
)
from reportgen.formats.guidellm.stats import (
    check_rate,
    first_error,
    scalar_at,
    statistics_point,
    strategy_load,
    unfit,
    unique_labels,
)
from reportgen.formats.json_input.document import JsonDocument
from reportgen.frozendict import FrozenDict
from reportgen.model import LoadPoint, Scalar, SourceFile, SweepRun

DEFINITIONS = (
    (
        "ttft_s",
        "GuideLLM 0.2/0.3: the first streamed line with text (completions) or delta content "
        "(chat), from just before the request is sent (connecting included); reasoning deltas do "
        "not count; its median and percentiles are the first value whose cumulative share "
        "reaches p, not interpolated",
    ),
    (
        "itl_s",
        "GuideLLM 0.2/0.3: (last token - first token) / (output tokens - 1) per request, the first "
        "token excluded as in reportgen; GuideLLM's statistics of it weight each request by its "
        "output tokens - 1, reportgen's weigh each request once; its TPOT divides the same span by "
        "all the output tokens (from 0.4 it includes the TTFT) and is not used",
    ),
    (
        "latency_s",
        "GuideLLM 0.2/0.3: end_time - start_time, to the stream's last line, written in seconds "
        "(not ms)",
    ),
    (
        "output_tok_s",
        "GuideLLM 0.2/0.3: the successful requests' output tokens over the span from the first "
        "one's start to the last one's end, the tokens of that last instant left out (not the "
        "benchmark's duration, which spans incomplete and errored requests too); reportgen shows "
        "GuideLLM's own figure and checks it against the records when the file has them all",
    ),
    (
        "output_tokens",
        "GuideLLM 0.2/0.3: the server's usage completion_tokens when the stream reported usage, "
        "else GuideLLM's tokenizer's count of the streamed text",
    ),
    (
        "failed",
        "GuideLLM's errored requests; incomplete ones (cancelled when the benchmark stopped) are "
        "neither successful nor failed",
    ),
)
_MERGED_S = 1e-6  # GuideLLM 0.2/0.3 merges token events this close into one


def is_legacy(data: dict[str, Any]) -> bool:
    """GuideLLM 0.2/0.3: no `metadata`, and benchmarks that carry `args` but no `config`."""
    benchmarks = data.get("benchmarks")
    if "metadata" in data or not isinstance(benchmarks, list) or not benchmarks:
        return False
    return any(
        isinstance(b, dict) and "args" in b and "config" not in b and "benchmarks" not in b
        for b in benchmarks
    )


def _rate_check(
    bench: dict[str, Any], records: list[dict[str, Any]], at: str, report: Report
) -> None:
    """Warn when GuideLLM's output tokens per second is not its definition over the records: their
    output tokens, less those of the last instant, over the first start to the last end."""
    spans = [
        (float(r["start_time"]), float(r["end_time"]), int(r.get("output_tokens") or 0))
        for r in records
        if int(r.get("output_tokens") or 0) > 0
    ]
    if not spans:
        return
    begin, finish = min(s[0] for s in spans), max(s[1] for s in spans)
    if finish <= begin:
        return
    # the last token of each request lands on its end; those at the very end are not counted
    last = sum(1 for _, end, out in spans if out > 1 and finish - end <= _MERGED_S)
    expected = (sum(out for *_, out in spans) - last) / (finish - begin)
    check_rate(
        bench,
        expected,
        "output tokens over the first start to the last end, GuideLLM 0.2/0.3's definition",
        at,
        report,
    )


def _point(bench: dict[str, Any], at: str, label: str, report: Report) -> LoadPoint:
    """One benchmark as a load point."""
    strategy = bench["args"]["strategy"]
    metrics = bench["metrics"]
    totals = bench["request_totals"]
    ok, errored = int(totals["successful"]), int(totals["errored"])
    requests = bench.get("requests") or {}
    records = requests.get("successful")
    samples = tuple(
        legacy_sample(r, f"{at}/requests/successful/{j}", report)
        for j, r in enumerate(records or ())
    )
    complete = records is not None and len(records) == ok
    if records and not complete and bench.get("request_samples") is None:
        report(
            f"{at}/requests/successful",
            f"{len(records)} request records, but request_totals.successful is {ok} and "
            "request_samples is null (the records were stripped or cut); GuideLLM's own "
            "statistics are used",
            "warning",
        )
    if complete and all(s.completed for s in samples):
        check_statistics(metrics, samples, f"{at}/metrics", report)
        _rate_check(bench, list(records or ()), at, report)
    point = statistics_point(
        bench,
        at,
        label=label,
        strategy=strategy,
        requests=(ok, errored),
        reason=first_error(requests.get("errored"), "error"),
        duration_s=float(bench["duration"]),
        output_tokens=None,  # GuideLLM's rate is not tokens over the duration: its own is shown
        samples=samples if complete else (),
        with_records=complete,
        itl_counts_requests=True,
    )
    spans = request_spans(requests, lambda r: (r.get("start_time"), r.get("end_time")))
    return replace(point, spans=spans) if complete else point


def _settings(benchmarks: list[dict[str, Any]]) -> FrozenDict[str, Scalar]:
    """The run's settings as the first benchmark states them: backend, profile and data."""
    first = benchmarks[0]
    found = {
        "backend": scalar_at(first, "worker", "backend_type"),
        "profile": scalar_at(first, "args", "profile", "type_"),
        "data": scalar_at(first, "request_loader", "data"),
    }
    return FrozenDict(sorted((k, v) for k, v in found.items() if v is not None))


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[SweepRun, list[Problem]]:
    """Build the `SweepRun` of a schema-valid GuideLLM 0.2/0.3 report, one point per benchmark."""
    raw: dict[str, Any] = doc.data
    problems: list[Problem] = []

    def report(pointer: str, message: str, severity: str) -> None:
        problems.append(doc.problem(base + pointer, message, severity))

    benchmarks = raw["benchmarks"]
    points: tuple[LoadPoint, ...] = ()
    if not unfit(benchmarks, "/benchmarks", report):
        labels = unique_labels([strategy_load(b["args"]["strategy"])[0] for b in benchmarks])
        points = tuple(
            _point(b, f"/benchmarks/{i}", label, report)
            for i, (b, label) in enumerate(zip(benchmarks, labels, strict=True))
        )
    models = [scalar_at(b, "worker", "backend_model") for b in benchmarks]
    run = SweepRun(
        source=source,
        engine=None,  # the file names the client's backend, not the server
        model=next((m for m in models if isinstance(m, str) and m), None),
        points=points,
        definitions=FrozenDict(DEFINITIONS),
        settings=_settings(benchmarks),
    )
    return run, problems
