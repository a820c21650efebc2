"""`reportgen init`'s sections: the tables, charts and headlines declared in TOML for the shape
the data has (a decode matrix, a sweep of load points, or canonical runs; side by side, with delta
and ratio, when there are two runs)."""

from __future__ import annotations

from reportgen.article.source.toml import toml_string as q
from reportgen.init import llama_bench
from reportgen.init.runs import InitRun
from reportgen.metrics.registry import MetricSet, MetricValue
from reportgen.model import context_label


def _values(metrics: MetricSet, key: str, run: InitRun, many: bool) -> list[MetricValue]:
    return [
        v
        for v in metrics.values
        if v.key == key and v.stat is None and (not many or v.run == run.id)
    ]


def _sweep_axis(metrics: MetricSet, run: InitRun, many: bool) -> str:
    points = [c for c in metrics.cells if c.kind == "load" and (not many or c.run == run.id)]
    if points and all(c.rate is not None for c in points):
        return "rate"
    if points and all(c.concurrency is not None for c in points):
        return "concurrency"
    return "point"


_LOAD_COLUMNS = (
    ("load.requests", "completed"),
    ("load.failed", "failed"),
    ("load.output_tok_s", "output tok/s"),
    ("load.ttft_s", "TTFT p50"),
    ("load.ttft_s.p99", "TTFT p99"),
    ("load.itl_s", "ITL p50"),
    ("load.itl_s.p99", "ITL p99"),
    ("load.latency_s.p99", "latency p99"),
)


_MATRIX_TABLES = (
    (
        "aggregate",
        "decode.aggregate_tok_s",
        "Decode throughput, all requests together",
        "(output tok/s)",
    ),
    (
        "per-request",
        "decode.per_request_tok_s",
        "Decode speed seen by each request",
        "(tok/s, median)",
    ),
    ("ttft", "decode.ttft_s", "Time to first token", "(s, median)"),
    # the tail readers ask for, at the percentile a decode cell's few requests can carry: a cell
    # of fewer than 10 shows it as not measurable (the table is left out when none has 10)
    ("itl-p90", "decode.itl_s.p90", "Inter-token latency, slowest 10% of requests", "(ms, p90)"),
)
# Cells measured in several files (repetitions): each table of a quantity shows each cell's mean
# over them and its 95% interval (of a median over requests or a p99 as of a throughput: each
# statistic has its own), and a table of its own how many files measured it.
_SPREAD_TABLES = (
    ("repetitions", "decode.aggregate_tok_s.reps", "Repetitions of each cell", "(files)"),
)
_REPEATED = (
    "Several files measured these cells again: each is the mean of its repetitions ± the "
    "half-width of its 95% confidence interval (t-based); the table below says how many."
)
_REPEATED_POINTS = (
    "Several files measured these load points again: each time, rate and percentile is the mean "
    "of its repetitions' own ± the half-width of its 95% confidence interval (t-based)."
)
# The load-point columns that are counts of requests, shown as their median without an interval.
_COUNT_COLUMNS = ("load.requests", "load.failed")
_PREFILL_COLUMNS = (
    ("prefill.prompt_tokens", "prompt tokens"),
    ("prefill.ttft_s", "TTFT"),
    ("prefill.tok_s", "prefill tok/s"),
)
_SECTION_TITLES = {"matrix": "Decode matrix", "sweep": "Load points", "canonical": "Single runs"}
_THROUGHPUT = {"matrix": "decode.aggregate_tok_s", "sweep": "load.output_tok_s"}
_SPEED = {"matrix": "decode.per_request_tok_s", "sweep": "load.per_request_tok_s"}


def _contexts(metrics: MetricSet, key: str) -> list[int]:
    return sorted({v.context for v in metrics.values if v.key == key and v.context is not None})


def _own_tables(metrics: MetricSet, run: InitRun, many: bool) -> list[str]:
    """The tables of one run on its own (in an article of several, filtered to it)."""
    suffix, rid = (f" ({run.id})", f"-{run.id}") if many else ("", "")
    where = [f"where = {{ run = {q(run.id)} }}"] if many else []
    lines: list[str] = []
    if llama_bench.is_llama(run):  # points over depth, lengths and configurations
        return llama_bench.tables(metrics, run, many)
    if run.kind == "matrix":
        mine = [v for v in metrics.values if not many or v.run == run.id]
        have = {v.metric for v in mine}
        if all(v.gate is not None for v in mine if v.metric == "decode.itl_s.p90"):
            have.discard("decode.itl_s.p90")  # not one cell could show it
        if "prefill.tok_s" in have:
            lines += ["[[sections.table]]", f'id = "prefill{rid}"']
            lines += [f"title = {q('Prefill (one cold request)' + suffix)}", 'rows = "context"']
            lines += [*where, "columns = ["]
            lines += [f"  {{ metric = {q(m)}, header = {q(h)} }}," for m, h in _PREFILL_COLUMNS]
            lines += ["]", ""]
        tables = [*_MATRIX_TABLES]
        if "decode.aggregate_tok_s.reps" in have:
            tables += _SPREAD_TABLES
        for tid, metric, title, unit in tables:
            if metric not in have:
                continue
            lines += ["[[sections.table]]", f"id = {q(tid + rid)}", f"title = {q(title + suffix)}"]
            lines += [f"unit = {q(unit)}", f"metric = {q(metric)}", 'rows = "context"']
            if tid != "repetitions" and "decode.aggregate_tok_s.reps" in have:
                lines += [f"note = {q(_REPEATED)}", 'uncertainty = "pm"']
            lines += ['columns = "concurrency"', 'corner = "context \\\\ concurrent"', *where, ""]
        return lines
    have = {v.metric for v in metrics.values if not many or v.run == run.id}
    lines += ["[[sections.table]]", f'id = "load-points{rid}"']
    lines += [f"title = {q('One row per load point' + suffix)}"]
    lines += [f"rows = {q(_sweep_axis(metrics, run, many))}", *where]
    repeated = any(m.endswith(".reps") for m in have)
    lines += [f"note = {q(_REPEATED_POINTS)}"] if repeated else []
    lines += ["columns = ["]
    for m, h in (c for c in _LOAD_COLUMNS if c[0] in have):
        pm = ', uncertainty = "pm"' if repeated and m not in _COUNT_COLUMNS else ""
        lines.append(f"  {{ metric = {q(m)}, header = {q(h)}{pm} }},")
    return [*lines, "]", ""]


def _compare_tables(metrics: MetricSet, base: InitRun, other: InitRun) -> list[str]:
    """Side by side, with delta and ratio: per context for a matrix, by load for a sweep."""
    key = _THROUGHPUT[base.kind]
    axis = "concurrency" if base.kind == "matrix" else _sweep_axis(metrics, base, True)
    contexts: list[int | None] = [*_contexts(metrics, key)] or [None]
    lines: list[str] = []
    for ctx in contexts:
        at = f" at context {context_label(ctx)}" if ctx is not None else ""
        lines += ["[[sections.table]]", f'id = "compare{"-" + str(ctx) if ctx else ""}"']
        lines += [f"title = {q(f'{other.id} against {base.id}{at}')}", f"metric = {q(key)}"]
        lines += [f"rows = {q(axis)}", 'columns = "run"']
        lines += [f"where = {{ context = {ctx} }}"] if ctx is not None else []
        lines += [
            f"compare = {{ base = {q(base.id)}, other = {q(other.id)}, "
            'show = ["delta", "ratio"] }',
            "",
        ]
    return lines


def _interactivity(metrics: MetricSet, kind: str, first: InitRun, many: bool) -> list[str]:
    """Throughput against per-request speed; when the files give no per-request speed (a tool's
    summary without it), throughput along the load axis instead; nothing without throughput."""
    y, x = _THROUGHPUT[kind], _SPEED[kind]
    have = {v.key for v in metrics.values if v.stat is None}
    series = "run" if many else ("context" if kind == "matrix" else None)
    label = "concurrency" if kind == "matrix" else _sweep_axis(metrics, first, many)
    if y not in have:
        return []
    if x not in have:
        lines = ["[[sections.chart]]", f'id = "throughput-{kind}"', 'title = "Output throughput"']
        lines += [f"metric = {q(y)}", f"x = {q(label)}"]
        lines += [f"series = {q(series)}"] if series else []
        caption = (
            "Output tokens per second of all requests, by load "
            "(the files give no speed per request)."
        )
        return [*lines, f"caption = {q(caption)}", ""]
    lines = ["[[sections.chart]]", f'id = "interactivity-{kind}"', 'kind = "interactivity"']
    lines += ['title = "Throughput against interactivity"', f"metric = {q(y)}", f"x = {q(x)}"]
    lines += [f"label = {q(label)}"] + ([f"series = {q(series)}"] if series else [])
    contexts = _contexts(metrics, y)
    if kind == "matrix" and many and contexts:
        lines += [f"where = {{ context = {contexts[0]} }}"]
    caption = "Output tokens per second of all requests against the median speed one request sees."
    return [*lines, f"caption = {q(caption)}", ""]


def declarations(metrics: MetricSet, runs: list[InitRun]) -> list[str]:
    """Sections, tables and charts for the data's shape."""
    many = len(runs) > 1
    lines = ["[[sections]]", 'kind = "setup"', 'title = "Setup"', ""]
    for kind in ("matrix", "sweep", "canonical"):
        of_kind = [r for r in runs if r.kind == kind]
        if not of_kind:
            continue
        title = _SECTION_TITLES[kind]
        if kind == "matrix" and all(llama_bench.is_llama(r) for r in of_kind):
            title = llama_bench.SECTION_TITLE
        lines += ["[[sections]]", f"id = {q(kind)}", f"title = {q(title)}", ""]
        if kind == "canonical":
            for r in of_kind:
                for v in _values(metrics, "canonical.output_tok_s", r, many):
                    lines += ["[[sections.headline]]", f"metric = {q(v.id)}"]
                    lines += [f'caption = "output, {v.concurrency} request(s) together"', ""]
            continue
        llama = all(llama_bench.is_llama(r) for r in of_kind)  # charts of their own, no compare
        if len(of_kind) == 2 and not llama:
            lines += _compare_tables(metrics, *of_kind)
        for r in of_kind:
            lines += _own_tables(metrics, r, many)
        lines += [] if llama else _interactivity(metrics, kind, of_kind[0], many)
    return lines
