"""Parse stage for GuideLLM's `benchmarks.json` (`guidellm run`, 0.8.x, report schema version 2).

One file is one run of one or more benchmarks, each a load point at the strategy its
`config.strategy` names. Schema-valid raw JSON in, a `SweepRun` of one point per benchmark plus
semantic problems out; read from the request records when the file keeps all of them
(`guidellm_requests`), else from GuideLLM's own statistics. With `guidellm_requests`, the only
module that reads GuideLLM's raw keys. Definitions (docs/tool-formats-research.md, section 3):

- `*_ms` statistics are milliseconds; `request_latency`, `duration` and every timestamp seconds;
- TTFT runs to the first streamed line with content, reasoning or a tool call (role-only and
  usage-only chunks do not count), from when the request's headers start being sent;
- ITL is (last token - first token) / (output tokens - 1) per request, without the first token as
  reportgen's; GuideLLM's ITL statistics weight each request by its output tokens - 1, and its
  TPOT (`time_per_output_token_ms`) includes the TTFT, so it is not used;
- its medians and percentiles are the first value whose cumulative share reaches p, not
  interpolated: with records, its medians are checked here and not handed on as reportgen's;
- `output_tokens_per_second.successful.mean` is the successful requests' output tokens inside the
  measured window over its `duration`; the median of that time series of rates is not used.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from reportgen.errors import Problem
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.guidellm_requests import QUANTITIES, Report, check_statistics, sample
from reportgen.formats.jsonfile import FLOAT_MAX, TOO_LARGE, JsonDocument, escape_pointer_token
from reportgen.model import CellStatus, LoadPoint, Scalar, SourceFile, Summary, SweepRun

# setting name -> its path under the file's `config.spec` (the run's arguments)
_SETTINGS = {
    "backend": ("backend", "kind"),
    "request_format": ("backend", "request_format"),
    "profile": ("profile", "kind"),
    "data": ("data", 0, "kind"),
    "data_prompt_tokens": ("data", 0, "prompt_tokens"),
    "data_output_tokens": ("data", 0, "output_tokens"),
}
# reportgen statistic -> its path in one of GuideLLM's distributions
_STATS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("mean", ("mean",)),
    ("p90", ("percentiles", "p90")),
    ("p95", ("percentiles", "p95")),
    ("p99", ("percentiles", "p99")),
    ("min", ("min",)),
    ("max", ("max",)),
)
DEFINITIONS = (
    (
        "ttft_s",
        "GuideLLM: the first streamed line with content, reasoning or a tool call (not the first "
        "chunk: role-only and usage-only lines do not count), from when the request's headers "
        "start being sent; its median and percentiles are the first value whose cumulative share "
        "reaches p, not interpolated",
    ),
    (
        "itl_s",
        "GuideLLM: (last token - first token) / (output tokens - 1) per request, the first token "
        "excluded as in reportgen; GuideLLM's statistics of it weight each request by its output "
        "tokens - 1, reportgen's weigh each request once; GuideLLM's TPOT includes the TTFT and "
        "is not used",
    ),
    ("latency_s", "GuideLLM: request_end - request_start, written in seconds (not ms)"),
    (
        "output_tok_s",
        "GuideLLM: the successful requests' output tokens inside the measured window (warmup and "
        "cooldown cut off) / the window's duration; incomplete and errored requests' tokens are "
        "left out",
    ),
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


def detect(data: dict[str, Any]) -> Detection | None:
    """A GuideLLM report has `metadata.guidellm_version` and `benchmarks`; one whose benchmarks
    are GuideLLM's but that names no version is refused."""
    meta = data.get("metadata")
    if isinstance(meta, dict) and "guidellm_version" in meta and "benchmarks" in data:
        return Detection("", "guidellm")
    benchmarks = data.get("benchmarks")
    if isinstance(benchmarks, list) and any(
        isinstance(b, dict) and b.get("type_") == "generative_benchmark" for b in benchmarks
    ):
        return Detection(
            "",
            "guidellm",
            refusal="a GuideLLM benchmarks.json with no metadata.guidellm_version (an older "
            "report layout); reportgen reads GuideLLM 0.8.x",
        )
    return None


def version(run: dict[str, Any]) -> tuple[str, str]:
    """GuideLLM's package version, as the report records it."""
    return str(run["metadata"]["guidellm_version"]), "/metadata/guidellm_version"


def _at(node: Any, *path: str | int) -> Scalar:
    """The scalar at `path` under `node` (keys and list indexes), None when there is none."""
    for key in path:
        if isinstance(node, dict) and isinstance(key, str):
            node = node.get(key)
        elif isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
        else:
            return None
    return node if isinstance(node, str | int | float | bool) else None


def _unfit(node: Any, at: str, report: Report) -> int:
    """Report every number under `node` that no 64-bit float holds (1e999); how many there were."""
    found, stack = 0, [(node, at)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict):
            stack += [(v, f"{where}/{escape_pointer_token(k)}") for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(v, f"{where}/{i}") for i, v in enumerate(value)]
        elif isinstance(value, int | float) and not -FLOAT_MAX <= value <= FLOAT_MAX:
            report(where, TOO_LARGE, "error")
            found += 1
    return found


def _load(strategy: dict[str, Any]) -> tuple[str, int | None, float | None]:
    """(label, concurrency, request rate) of a benchmark's strategy."""
    kind = str(strategy["type_"])
    if kind == "synchronous":
        return "sync", 1, None
    if kind == "concurrent":
        streams = int(strategy["streams"])
        return f"c{streams}", streams, None
    if kind == "throughput":
        return "max", None, None
    if kind in ("constant", "poisson"):
        rate = float(strategy["rate"])
        return f"r{rate:g}", None, rate
    return kind, None, None


def _unique(labels: list[str]) -> list[str]:
    """The labels, each repeated one suffixed with its benchmark's index (`r2-b3`)."""
    counts = Counter(labels)
    return [f"{label}-b{i}" if counts[label] > 1 else label for i, label in enumerate(labels)]


def _summaries(
    metrics: dict[str, Any], at: str, with_records: bool
) -> tuple[tuple[tuple[str, Summary], ...], list[tuple[str, str]]]:
    """GuideLLM's statistics in seconds, by reportgen quantity, and where each is. With records
    the median is left out: it is not reportgen's median (see the module's notes)."""
    found: list[tuple[str, Summary]] = []
    where: list[tuple[str, str]] = []
    for quantity, (metric, _unit, per_s) in QUANTITIES.items():
        stats = (metrics.get(metric) or {}).get("successful")
        if not stats or not stats["count"]:
            continue  # GuideLLM writes zeros when no request had the quantity
        place = f"{at}/{metric}/successful"
        values = {name: float(_at(stats, *path) or 0) / per_s for name, path in _STATS}
        median = None if with_records else stats["median"] / per_s
        count = None if quantity == "itl_s" else int(stats["count"])  # ITL counts tokens
        found.append((quantity, Summary(**values, p50=median, n=count)))
        where.append((quantity, f"{place}/median"))
        where += [(f"{quantity}.{name}", f"{place}/{'/'.join(path)}") for name, path in _STATS]
        if count is not None:
            where.append((f"{quantity}.n", f"{place}/count"))
    return tuple(found), sorted(where)


def _prompt_tokens(metrics: dict[str, Any]) -> int | None:
    """The prompt length, when every successful request had the same."""
    stats = (metrics.get("prompt_token_count") or {}).get("successful")
    if not stats or not stats["count"] or stats["min"] != stats["max"]:
        return None
    return int(stats["min"]) if float(stats["min"]).is_integer() else None


def _reason(bench: dict[str, Any]) -> str:
    """Why no request succeeded: the first errored request's error, in its own words."""
    for record in (bench.get("requests") or {}).get("errored") or ():
        error = _at(record, "info", "error")
        if isinstance(error, str) and error.strip():
            return error.strip().splitlines()[-1]
    return "no request completed"


def _point(bench: dict[str, Any], at: str, label: str, report: Report) -> LoadPoint:
    """One benchmark as a load point."""
    strategy = bench["config"]["strategy"]
    _, concurrency, rate = _load(strategy)
    metrics = bench["metrics"]
    totals = metrics["request_totals"]
    ok, errored = int(totals["successful"]), int(totals["errored"])
    records = (bench.get("requests") or {}).get("successful")
    samples = tuple(
        sample(r, f"{at}/requests/successful/{j}", report) for j, r in enumerate(records or ())
    )
    complete = records is not None and len(records) == ok
    if records is not None and not complete and bench["config"].get("sample_size") is None:
        report(
            f"{at}/requests/successful",
            f"{len(records)} request records, but metrics.request_totals.successful is {ok} and "
            "config.sample_size is not set; GuideLLM's own statistics are used",
            "warning",
        )
    # the measured window is the whole run: every successful request's tokens are inside it,
    # and GuideLLM's statistics are over exactly the records
    whole = not bench.get("warmup_duration") and not bench.get("cooldown_duration")
    if complete and whole and all(s.completed for s in samples):
        check_statistics(metrics, samples, f"{at}/metrics", report)
    summaries, summary_at = _summaries(metrics, f"{at}/metrics", complete)
    duration = float(bench["duration"])
    tokens = metrics["output_token_count"]["successful"]["total_sum"]
    status: CellStatus = "ok" if ok > 0 else "failed"
    return LoadPoint(
        pointer=at,
        label=label,
        concurrency=concurrency,
        rate=rate,
        strategy=str(strategy["type_"]),
        status=status,
        reason=None if ok > 0 else _reason(bench),
        duration_s=duration if duration > 0 else None,
        output_tokens=round(tokens) if whole else None,
        aggregate_tok_s=float(metrics["output_tokens_per_second"]["successful"]["mean"]),
        requests_ok=ok,
        requests_failed=errored,
        samples=samples if complete else (),
        summaries=summaries,
        prompt_tokens=_prompt_tokens(metrics),
        summary_at=(
            ("aggregate_tok_s", f"{at}/metrics/output_tokens_per_second/successful/mean"),
            *summary_at,
        ),
    )


def _model(raw: dict[str, Any]) -> str | None:
    """The model the requests named: the run's backend setting, else a benchmark's."""
    named = [_at(raw, "config", "spec", "backend", "model")]
    named += [_at(b, "config", "backend", "model") for b in raw["benchmarks"]]
    return next((m for m in named if isinstance(m, str) and m), None)


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[SweepRun, list[Problem]]:
    """Build the `SweepRun` of a schema-valid GuideLLM report, one point per benchmark."""
    raw: dict[str, Any] = doc.data
    problems: list[Problem] = []

    def report(pointer: str, message: str, severity: str) -> None:
        problems.append(doc.problem(base + pointer, message, severity))

    benchmarks = raw["benchmarks"]
    points: tuple[LoadPoint, ...] = ()
    if not _unfit(benchmarks, "/benchmarks", report):
        labels = _unique([_load(b["config"]["strategy"])[0] for b in benchmarks])
        points = tuple(
            _point(b, f"/benchmarks/{i}", label, report)
            for i, (b, label) in enumerate(zip(benchmarks, labels, strict=True))
        )
    layout = _at(raw, "metadata", "version")  # the report's schema version
    settings: list[tuple[str, Scalar]] = [] if layout is None else [("report_version", layout)]
    for name, path in _SETTINGS.items():
        value = _at(raw.get("config"), "spec", *path)
        if value is not None:
            settings.append((name, value))
    run = SweepRun(
        source=source,
        engine=None,  # the file names the client's backend, not the server
        model=_model(raw),
        points=points,
        definitions=DEFINITIONS,
        settings=tuple(sorted(settings)),
    )
    return run, problems


FORMAT = RunFormat(
    name="guidellm",
    tool="guidellm",
    tested_versions=((0, 8), (0, 8)),
    looks_like="a GuideLLM benchmarks.json",
    marks=("/metadata/guidellm_version", "/benchmarks"),
    detect=detect,
    version=version,
    parse=parse,
)
