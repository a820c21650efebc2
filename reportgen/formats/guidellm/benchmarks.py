"""Parse stage for GuideLLM's `benchmarks.json` (`guidellm benchmark` / `guidellm run`, 0.4 to 0.8).

One file is one run of one or more benchmarks, each a load point at the strategy its
`config.strategy` names. Schema-valid raw JSON in, a `SweepRun` of one point per benchmark plus
semantic problems out; read from the request records when the file keeps all of the measured
ones (`requests`), else from GuideLLM's own statistics (`stats`). GuideLLM 0.2
and 0.3 wrote another layout, read by `legacy`. Layouts (docs/tool-formats-research.md,
section 3):

- 0.4: `{args, benchmarks}`, no `metadata`: the file names no version;
- 0.5 and 0.6: `{metadata{version: 1, guidellm_version}, args, benchmarks}`;
- 0.7 and 0.8: `{metadata{version: 2, guidellm_version}, config, benchmarks, ...}`.

Each benchmark has the same keys in all of them: `config.strategy`, `start_time`/`end_time` (the
measured window, epoch s), `duration`, `warmup_duration`, `cooldown_duration`, `metrics` and
`requests`. The records are every request sent, warm-up and cool-down ones too, unless GuideLLM
sampled them (`config.sample_size`, `config.sample_requests` before 0.7); its statistics are over
those overlapping the measured window, and so are reportgen's. The 0.2/0.3 layout
(`{benchmarks}` alone, each with `args` and no `config`) goes to `legacy`.

Definitions:

- `*_ms` statistics are milliseconds; `request_latency`, `duration` and every timestamp seconds;
- TTFT runs to the first streamed line with content (0.7 on: content, reasoning or a tool call;
  role-only and usage-only chunks never count), from when the request's headers start being sent
  (0.8; before, from just before the request is opened, connecting included);
- ITL is (last token - first token) / (output tokens - 1) per request, without the first token as
  reportgen's; GuideLLM's ITL statistics weight each request by its output tokens - 1, and its
  TPOT (`time_per_output_token_ms`) includes the TTFT, so it is not used;
- its medians and percentiles are the first value whose cumulative share reaches p, not
  interpolated: with records, its medians are checked here and not handed on as reportgen's;
- `output_tokens_per_second.successful.mean` is, from 0.8, the successful requests' output tokens
  inside the measured window over its `duration`; before 0.8 their output tokens over the span
  from their first token to their last, warm-up and cool-down requests that overlap the window
  counted whole, and not the `duration`. The median of that time series of rates is not used.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from reportgen.errors import Problem
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.guidellm.legacy import is_legacy
from reportgen.formats.guidellm.legacy import parse as legacy_parse
from reportgen.formats.guidellm.requests import (
    Report,
    check_statistics,
    in_window,
    request_spans,
    sample,
    token_span_rate,
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
from reportgen.formats.refusals import HEAD_BYTES
from reportgen.frozendict import FrozenDict
from reportgen.model import LoadPoint, Scalar, SourceFile, SweepRun

# setting name -> its path under the file's `config.spec` (the run's arguments)
_SETTINGS = {
    "backend": ("backend", "kind"),
    "request_format": ("backend", "request_format"),
    "profile": ("profile", "kind"),
    "data": ("data", 0, "kind"),
    "data_prompt_tokens": ("data", 0, "prompt_tokens"),
    "data_output_tokens": ("data", 0, "output_tokens"),
}
# setting name -> its key in the run's `args` (0.4 to 0.6)
_ARGS = {"backend": "backend", "request_format": "request_format", "profile": "profile"}
_TTFT_08 = (
    "GuideLLM 0.8: the first streamed line with content, reasoning or a tool call (not the first "
    "chunk: role-only and usage-only lines do not count), from when the request's headers start "
    "being sent; its median and percentiles are the first value whose cumulative share reaches "
    "p, not interpolated"
)
_TTFT_07 = (
    "GuideLLM 0.7: the first streamed line with content, reasoning or a tool call (role-only and "
    "usage-only lines do not count), from just before the request is opened (connecting "
    "included); its median and percentiles are the first value whose cumulative share reaches "
    "p, not interpolated"
)
_TTFT_04 = (
    "GuideLLM 0.4 to 0.6: the first streamed line with text (completions) or delta content "
    "(chat), from just before the request is opened (connecting included); reasoning and "
    "tool-call deltas do not count, so with a server that streams reasoning apart it includes "
    "the thinking; its median and percentiles are the first value whose cumulative share "
    "reaches p, not interpolated"
)
_RATE_08 = (
    "GuideLLM 0.8: the successful requests' output tokens inside the measured window (warmup and "
    "cooldown cut off) / the window's duration; incomplete and errored requests' tokens are "
    "left out"
)
_RATE_04 = (
    "GuideLLM 0.4 to 0.7: the successful requests' output tokens / the span from their first "
    "token to their last (requests overlapping the measured window counted whole), not the "
    "benchmark's duration; reportgen shows GuideLLM's own figure and checks it against the "
    "records when the file has them"
)
_COMMON = (
    (
        "itl_s",
        "GuideLLM: (last token - first token) / (output tokens - 1) per request, the first token "
        "excluded as in reportgen; GuideLLM's statistics of it weight each request by its output "
        "tokens - 1, reportgen's weigh each request once; GuideLLM's TPOT includes the TTFT and "
        "is not used",
    ),
    ("latency_s", "GuideLLM: request_end - request_start, written in seconds (not ms)"),
    (
        "output_tokens",
        "GuideLLM: the server's usage completion_tokens when the stream reported usage, else its "
        "count of streamed lines that carried tokens",
    ),
    (
        "failed",
        "GuideLLM's errored requests; incomplete ones (cancelled when the benchmark stopped) are "
        "neither successful nor failed",
    ),
)
# the definitions of a run by the release that wrote it: 0.8 and later, 0.7, 0.4 to 0.6
DEFINITIONS = FrozenDict((("ttft_s", _TTFT_08), *_COMMON, ("output_tok_s", _RATE_08)))
DEFINITIONS_07 = FrozenDict((("ttft_s", _TTFT_07), *_COMMON, ("output_tok_s", _RATE_04)))
DEFINITIONS_04 = FrozenDict((("ttft_s", _TTFT_04), *_COMMON, ("output_tok_s", _RATE_04)))
_RELEASE = re.compile(r"v?(\d+)\.(\d+)")
# GuideLLM's YAML report: its top-level `benchmarks:` key at the start of a line
_YAML_BENCHMARKS = re.compile(r"^benchmarks:\s*$", re.MULTILINE)
_REFUSE_01 = (
    "a GuideLLM 0.1 report (2024: `benchmarks` of reports, each with its own `benchmarks` and "
    "`args`), whose requests and statistics are laid out and defined unlike any later release's; "
    "reportgen reads GuideLLM 0.2 and later: run the benchmark again with a current GuideLLM "
    "(`pip install guidellm`) and give its benchmarks.json"
)
_REFUSE_DEV = (
    "a GuideLLM development build's report (GuideLLM's main branch of September to November "
    "2025, between 0.3 and 0.4: each benchmark with `scheduler` and `benchmarker`), a layout no "
    "release wrote and reportgen does not read; run the benchmark again with a released GuideLLM "
    "(`pip install guidellm`) and give its benchmarks.json"
)


def _release(raw: dict[str, Any]) -> tuple[int, int] | None:
    """(major, minor) of the GuideLLM that wrote the report; None when it names none (0.4). A
    version that is no x.y ("dev") in the report layout of 0.7 and 0.8 (`metadata.version` 2) is
    taken as the newest that layout's definitions tested on real files, 0.8 (the loader warns
    that the file names its version so)."""
    named = scalar_at(raw, "metadata", "guidellm_version")
    found = _RELEASE.match(str(named or ""))
    if found:
        return int(found.group(1)), int(found.group(2))
    if named is not None and scalar_at(raw, "metadata", "version") == 2:
        return 0, 8
    return None


def detect(data: dict[str, Any]) -> Detection | None:
    """A GuideLLM report: `benchmarks` with `metadata.guidellm_version`, or, as 0.2 to 0.4 wrote
    it, with no `metadata` and GuideLLM's benchmarks (`type_` "generative_benchmark"; those of
    0.2/0.3 carry `args`, read by `legacy`)."""
    benchmarks = data.get("benchmarks")
    if not isinstance(benchmarks, list):
        return None
    meta = data.get("metadata")
    if isinstance(meta, dict) and "guidellm_version" in meta:
        return Detection("", "guidellm")
    if benchmarks and all(
        isinstance(b, dict) and isinstance(b.get("benchmarks"), list) and "args" in b
        for b in benchmarks
    ):
        return Detection("", "guidellm", refusal=_REFUSE_01)
    if any(isinstance(b, dict) and "scheduler" in b and "benchmarker" in b for b in benchmarks):
        return Detection("", "guidellm", refusal=_REFUSE_DEV)
    if is_legacy(data) or any(
        isinstance(b, dict) and b.get("type_") == "generative_benchmark" for b in benchmarks
    ):
        return Detection("", "guidellm")
    return None


def version(run: dict[str, Any]) -> tuple[str, str]:
    """GuideLLM's package version, as the report records it; "" when it records none (0.2 to
    0.4 wrote no `metadata`)."""
    named = scalar_at(run, "metadata", "guidellm_version")
    return ("", "") if named is None else (str(named), "/metadata/guidellm_version")


def not_a_run_file(content: str | bytes, _data: Any = None) -> str | None:
    """What a GuideLLM file that is not a run file is, and the file to read instead, for a refusal
    message (`RunFormat.other_files`); None when `content` (the file's start) is not one.
    GuideLLM writes `benchmarks.json` (the run), `benchmarks.csv` (one row per benchmark, under
    one header row `Type,Run Id,Id,Name,...` in 0.2/0.3, two grouped ones `Run Info,Run Info,...`
    from 0.4), `benchmarks.html` (its web page, with the summary statistics as
    `window.benchmarks = ...`) and, when asked, `benchmarks.yaml` (the report as YAML)."""
    text = content if isinstance(content, str) else content[:HEAD_BYTES].decode("utf-8", "replace")
    head = text[:HEAD_BYTES].lstrip("\ufeff \t\r\n")
    lowered = head.lower()
    if lowered.startswith(("<!doctype html", "<html")) or "<html" in lowered[:2048]:
        if "window.benchmarks" in head or "guidellm" in lowered:
            return (
                "this is a GuideLLM HTML report, not a run file: reportgen reads the "
                "benchmarks.json GuideLLM writes beside it (benchmarks.html holds summary "
                "statistics for its web page, not the requests)"
            )
        return None
    if _YAML_BENCHMARKS.search(head) and "generative_benchmark" in head:
        return (
            "this is a GuideLLM YAML report, not a run file: reportgen reads the same report as "
            "JSON, the benchmarks.json GuideLLM writes when its output path ends in .json (or "
            'convert this one: python -c "import json, sys, yaml; '
            'json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout)" benchmarks.yaml > '
            "benchmarks.json)"
        )
    first = head.split("\n", 1)[0]
    cells = [c.strip().strip('"') for c in first.split(",")]
    legacy = cells[:4] == ["Type", "Run Id", "Id", "Name"]  # 0.2/0.3: one header row
    grouped = len(cells) > 3 and cells[0] == "Run Info" and "Run Info" in cells[1:3]  # 0.4 on
    if legacy or grouped:
        return (
            "this is a GuideLLM CSV report, not a run file: reportgen reads the benchmarks.json "
            "GuideLLM writes beside it (benchmarks.csv holds one row of summary statistics per "
            "benchmark, not the requests)"
        )
    return None


def _rate_check(
    bench: dict[str, Any], inside: list[tuple[int, dict[str, Any]]], at: str, report: Report
) -> None:
    """Warn when GuideLLM 0.4-0.7's output tokens per second is not its definition over the
    measured records (their tokens over the span from their first token to their last)."""
    spans = []
    for _, record in inside:
        t = record["info"]["timings"]
        first, last = t["first_token_iteration"], t["last_token_iteration"]
        if first is not None and last is not None:
            spans.append((float(first), float(last), int(record.get("output_tokens") or 0)))
    definition = "output tokens over the span from their first token to their last, GuideLLM "
    check_rate(bench, token_span_rate(spans), definition + "0.4-0.7's definition", at, report)


def _measured(bench: dict[str, Any], at: str, report: Report) -> float:
    """The seconds measured: GuideLLM's `duration`, or, when the run stopped before the window's
    planned end (a negative `cooldown_duration`: `max_requests` reached first, seen in real 0.5
    files), up to the last request's end, with a warning."""
    duration = float(bench["duration"])
    short = bench.get("cooldown_duration")
    if not isinstance(short, int | float) or short >= 0 or duration + short <= 0:
        return duration
    report(
        f"{at}/cooldown_duration",
        f"cooldown_duration is {short:.6g} s: the run stopped before the measured window's "
        f"planned end, so its duration ({duration:.6g} s) runs past the last request; "
        f"{duration + short:.6g} s, to the last request's end, is taken as the time measured",
        "warning",
    )
    return duration + float(short)


def _point(
    bench: dict[str, Any], at: str, label: str, report: Report, release: tuple[int, int] | None
) -> LoadPoint:
    """One benchmark as a load point."""
    config = bench["config"]
    strategy = config["strategy"]
    metrics = bench["metrics"]
    totals = metrics["request_totals"]
    ok, errored = int(totals["successful"]), int(totals["errored"])
    records = (bench.get("requests") or {}).get("successful")
    start, end = bench.get("start_time"), bench.get("end_time")
    inside = list(enumerate(records or ()))
    if isinstance(start, int | float) and isinstance(end, int | float):
        inside = [(j, r) for j, r in inside if in_window(r, start, end)]
    samples = tuple(sample(r, f"{at}/requests/successful/{j}", report) for j, r in inside)
    complete = records is not None and len(inside) == ok
    sampled = config.get("sample_size") is not None or config.get("sample_requests") is not None
    if records is not None and not complete and not sampled:
        kept = f"{len(inside)} request records in the measured window" if records else "no records"
        report(
            f"{at}/requests/successful",
            f"{kept}, but metrics.request_totals.successful is {ok} and config.sample_size is "
            "not set (were records removed?); GuideLLM's own statistics are used",
            "warning",
        )
    # the measured window is the whole run: every successful request's tokens are inside it
    whole = not bench.get("warmup_duration") and not bench.get("cooldown_duration")
    window_rate = release is not None and release >= (0, 8)
    if complete and (whole or not window_rate) and all(s.completed for s in samples):
        check_statistics(metrics, samples, f"{at}/metrics", report)
        if not window_rate:
            _rate_check(bench, inside, at, report)
    tokens = metrics["output_token_count"]["successful"]["total_sum"]
    point = statistics_point(
        bench,
        at,
        label=label,
        strategy=strategy,
        requests=(ok, errored),
        reason=first_error((bench.get("requests") or {}).get("errored"), "info", "error"),
        duration_s=_measured(bench, at, report),
        # before 0.8 GuideLLM's rate is not tokens over the duration: its own figure is shown
        output_tokens=round(tokens) if whole and window_rate else None,
        samples=samples if complete else (),
        with_records=complete,
        itl_counts_requests=False,
    )
    spans = request_spans(bench.get("requests") or {}, _timings)
    return replace(point, spans=spans) if complete else point


def _timings(record: Mapping[str, Any]) -> tuple[Any, Any]:
    """A 0.4+ record's [request_start, request_end] (epoch seconds), for the steady-state gate."""
    timings = (record.get("info") or {}).get("timings") or {}
    return timings.get("request_start"), timings.get("request_end")


def _model(raw: dict[str, Any]) -> str | None:
    """The model the requests named: the run's backend setting (0.7 on: `config.spec.backend`;
    0.4 to 0.6: `args.model`), else a benchmark's."""
    named = [scalar_at(raw, "config", "spec", "backend", "model"), scalar_at(raw, "args", "model")]
    named += [scalar_at(b, "config", "backend", "model") for b in raw["benchmarks"]]
    return next((m for m in named if isinstance(m, str) and m), None)


def _settings(raw: dict[str, Any]) -> FrozenDict[str, Scalar]:
    """The run's settings the file states: the report's schema version, and the backend, profile
    and data arguments (0.7 on under `config.spec`, 0.4 to 0.6 in `args`)."""
    layout = scalar_at(raw, "metadata", "version")  # the report's schema version
    settings: list[tuple[str, Scalar]] = [] if layout is None else [("report_version", layout)]
    for name, path in _SETTINGS.items():
        value = scalar_at(raw.get("config"), "spec", *path)
        if value is not None:
            settings.append((name, value))
    for name, key in _ARGS.items():
        value = scalar_at(raw, "args", key)
        if value is not None and name not in dict(settings):
            settings.append((name, value))
    return FrozenDict(sorted(settings))


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[SweepRun, list[Problem]]:
    """Build the `SweepRun` of a schema-valid GuideLLM report, one point per benchmark."""
    raw: dict[str, Any] = doc.data
    if is_legacy(raw):
        return legacy_parse(doc, base, source)
    problems: list[Problem] = []

    def report(pointer: str, message: str, severity: str) -> None:
        problems.append(doc.problem(base + pointer, message, severity))

    benchmarks = raw["benchmarks"]
    release = _release(raw)
    points: tuple[LoadPoint, ...] = ()
    if not unfit(benchmarks, "/benchmarks", report):
        labels = unique_labels([strategy_load(b["config"]["strategy"])[0] for b in benchmarks])
        points = tuple(
            _point(b, f"/benchmarks/{i}", label, report, release)
            for i, (b, label) in enumerate(zip(benchmarks, labels, strict=True))
        )
    if release is None or release < (0, 7):
        definitions = DEFINITIONS_04
    else:
        definitions = DEFINITIONS_07 if release < (0, 8) else DEFINITIONS
    run = SweepRun(
        source=source,
        engine=None,  # the file names the client's backend, not the server
        model=_model(raw),
        points=points,
        definitions=definitions,
        settings=_settings(raw),
    )
    return run, problems


FORMAT = RunFormat(
    name="guidellm",
    tool="guidellm",
    # real files of 0.2- and 0.3-era layouts (GuideLLM's own test assets), 0.5.0.dev0 and 0.8.1
    tested_versions=((0, 2), (0, 8)),
    looks_like="a GuideLLM benchmarks.json",
    marks=("/metadata/guidellm_version", "/benchmarks"),
    other_files=not_a_run_file,
    detect=detect,
    version=version,
    parse=parse,
)
