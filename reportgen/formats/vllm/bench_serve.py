"""Parse stage for vLLM's `vllm bench serve --save-result` JSON (and the older
`benchmarks/benchmark_serving.py`, whose keys are a subset).

One file is one load point: the requests of one invocation at one request rate and concurrency
limit. Schema-valid raw JSON in, a `SweepRun` of that one point plus semantic problems out. The
only module that reads vLLM's raw keys. Definitions (docs/tool-formats-research.md, section 1):

- per-request arrays are seconds, every `*_ms` statistic milliseconds;
- vLLM's TPOT, (latency - TTFT) / (output tokens - 1) per request, is reportgen's ITL; vLLM's own
  "ITL" pools every chunk gap of every request, so it weighs long requests more and is kept as
  the tool's figure, not as reportgen's;
- `output_throughput` is all output tokens over the whole `duration`, ramp and tail included;
- each request's span, for the steady window (`reportgen.metrics.steady`), is its `start_times`
  entry (perf_counter when it was sent) to that plus its `latencies` entry (its last chunk).
  vLLM writes `start_times` with `--save-detailed` since January 2026 (pull request 32667);
  older files, and files saved without that flag, have no start times and no spans.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from reportgen import tolerances as tol
from reportgen.errors import Problem
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.json_input.document import (
    TOO_LARGE,
    JsonDocument,
    escape_pointer_token,
    unfit_numbers,
)
from reportgen.formats.records import ms_statistics, parallel_arrays
from reportgen.formats.vllm import lists
from reportgen.frozendict import FrozenDict
from reportgen.model import (
    CellStatus,
    LoadPoint,
    RequestSample,
    Scalar,
    SourceFile,
    SweepRun,
)
from reportgen.stats import close

Report = Callable[[str, str, str], None]  # (pointer, message, severity)
_MARKS = ("model_id", "num_prompts", "request_rate", "duration", "output_throughput")
# the results every vLLM result holds, beside its settings (the schema requires them)
_RESULTS = ("duration", "completed", "total_output_tokens", "output_throughput")
_ARRAYS = ("input_lens", "output_lens", "ttfts", "latencies", "itls", "errors", "start_times")
_STAT = re.compile(r"(mean|median|std|p[0-9]+(?:\.[0-9]+)?)_(ttft|tpot|itl|e2el)_ms")
# vLLM's metric -> the reportgen quantity its statistics describe
_QUANTITY = {"ttft": "ttft_s", "tpot": "itl_s", "e2el": "latency_s"}
_STATS = {"mean": "mean", "median": "p50", "p90": "p90", "p95": "p95", "p99": "p99"}
# keys of the file that are settings rather than results, kept for the article's setup
_SETTINGS = (
    "date",
    "backend",
    "endpoint_type",
    "label",
    "tokenizer_id",
    "num_prompts",
    "burstiness",
    "max_concurrency",
    "request_rate",
)
DEFINITIONS = (
    (
        "itl_s",
        "vLLM's TPOT per request, (latency - TTFT) / (output tokens - 1); vLLM's own ITL "
        "statistics pool every chunk gap of every request and are not used",
    ),
    ("ttft_s", "vLLM: the first streamed chunk that carries a choice, from just before the POST"),
    (
        "output_tok_s",
        "vLLM: all output tokens / the whole run's duration, ramp-up and tail included",
    ),
)

WARMUP = (
    "this is vllm bench sweep's warmup.json (run_number -1): the warm-up run before the measured "
    "ones, not a measurement. Read the run=K.json files in the same folder, one load point each"
)


def detect(data: dict[str, Any]) -> Detection | None:
    """A vLLM bench result has `model_id`, `num_prompts`, `request_rate`, `duration` and
    `output_throughput` at its top level. One with vLLM's settings and latency statistics but
    not its results is refused, naming the keys it lacks, and so is `vllm bench sweep`'s
    warm-up run (`run_number` -1)."""
    if all(key in data for key in _MARKS):
        if data.get("run_number") == -1:  # vllm bench sweep's warm-up run
            return Detection("", "vllm-bench", refusal=WARMUP)
        return Detection("", "vllm-bench")
    stats = sorted(key for key in data if _STAT.fullmatch(key))
    if {"model_id", "num_prompts", "request_rate"} <= data.keys() and stats:
        missing = [key for key in _RESULTS if key not in data]
        lacking = ", ".join(missing[:-1]) + " or " + missing[-1] if missing[1:] else missing[0]
        shown = "median_ttft_ms" if "median_ttft_ms" in stats else stats[0]
        return Detection(
            "",
            "vllm-bench",
            refusal=(
                f"a vLLM bench serve result without its results: it has {shown} and the other "
                f"latency statistics, but no {lacking}, which vLLM writes in every result; "
                "reportgen cannot count its requests or give its throughput. Read the result "
                "file as vLLM saved it (--save-result)"
            ),
        )
    return None


def version(_run: dict[str, Any]) -> tuple[str, str]:
    """vLLM does not record its version in the file: the empty string (the tool is named alone)."""
    return "", ""


def _label(rate: float | None, concurrency: int | None) -> str:
    if rate is None:
        return f"c{concurrency}" if concurrency is not None else "burst"
    shown = f"r{rate:g}"
    return shown if concurrency is None else f"{shown}-c{concurrency}"


def _strategy(rate: float | None, concurrency: int | None, burstiness: float) -> str:
    if rate is None:
        return "concurrency limit" if concurrency is not None else "all at once"
    return "poisson" if burstiness == 1 else f"gamma (burstiness {burstiness:g})"


def _samples(raw: dict[str, Any], at: str, report: Report) -> tuple[RequestSample, ...]:
    """Per-request records, when the file was saved with `--save-detailed`."""
    arrays = parallel_arrays(raw, _ARRAYS, ("ttfts", "latencies", "output_lens"), report)
    if arrays is None:
        return ()
    errors = arrays.get("errors") or [""] * len(arrays["ttfts"])
    inputs = arrays.get("input_lens") or [0] * len(arrays["ttfts"])
    samples = []
    for i, (ttft, latency, out) in enumerate(
        zip(arrays["ttfts"], arrays["latencies"], arrays["output_lens"], strict=True)
    ):
        completed = not errors[i] and out > 0
        if completed and latency < ttft:
            report(
                f"/latencies/{i}", f"latency {latency:g} s is below its TTFT {ttft:g} s", "error"
            )
            completed = False
        itl = (latency - ttft) / (out - 1) if completed and out > 1 else 0.0
        samples.append(
            RequestSample(
                pointer=f"{at}/ttfts/{i}",
                ttft_s=float(ttft),
                latency_s=float(latency),
                itl_s=itl,
                input_tokens=int(inputs[i]),
                output_tokens=int(out),
                completed=completed,
            )
        )
    return tuple(samples)


def _spans(
    raw: dict[str, Any], samples: tuple[RequestSample, ...]
) -> tuple[tuple[float, float], ...]:
    """Each request's (start, start + latency) on vLLM's perf_counter clock, when the file has
    `start_times` (vLLM from January 2026, with --save-detailed) beside the samples read from
    its `latencies`; () otherwise. The arrays' lengths were checked with the samples'."""
    starts = raw.get("start_times")
    if not samples or not isinstance(starts, list) or len(starts) != len(samples):
        return ()
    return tuple(
        (float(start), float(start) + float(latency))
        for start, latency in zip(starts, raw["latencies"], strict=True)
    )


def _reason(raw: dict[str, Any], failed: int) -> str:
    """Why no request completed, in vLLM's words when the file kept them (`errors`, written with
    --save-detailed and by the older benchmark_serving.py): the last line of the first error."""
    errors = [e for e in raw.get("errors") or () if isinstance(e, str) and e.strip()]
    if errors:
        return f"all {failed} requests failed, the first with: {errors[0].strip().splitlines()[-1]}"
    return f"all {failed} requests failed (the file keeps no error text)"


def _fit(raw: dict[str, Any], report: Report) -> dict[str, Any]:
    """`raw` with each number no float can hold (1e999) reported as an error and read as 0, so
    the rest of the file is still checked; the loader drops a run with errors."""
    out = dict(raw)
    for key in unfit_numbers(raw):
        report(f"/{escape_pointer_token(key)}", TOO_LARGE, "error")
        out[key] = 0
    for name in _ARRAYS:
        values = raw.get(name)
        if isinstance(values, list):
            bad = {int(k) for k in unfit_numbers({str(i): v for i, v in enumerate(values)})}
            for i in sorted(bad):
                report(f"/{name}/{i}", TOO_LARGE, "error")
            if bad:
                out[name] = [0 if i in bad else v for i, v in enumerate(values)]
    return out


def rate_and_limit(raw: dict[str, Any]) -> tuple[float | None, int | None]:
    """The record's request rate (None: every request released at once) and concurrency limit."""
    rate_raw = raw["request_rate"]
    rate = None if rate_raw == "inf" or math.isinf(float(rate_raw)) else float(rate_raw)
    return rate, raw.get("max_concurrency")


def label(raw: dict[str, Any]) -> str:
    """The load point's label: `r{rate}`, `c{limit}`, `r{rate}-c{limit}` or `burst`."""
    return _label(*rate_and_limit(raw))


def point(raw: dict[str, Any], at: str, shown_as: str, report: Report) -> LoadPoint:
    """The load point of one schema-valid result (`at`: its pointer in the file), labelled
    `shown_as`; `report` takes pointers inside the result."""
    raw = _fit(raw, report)
    rate, concurrency = rate_and_limit(raw)
    completed, prompts = int(raw["completed"]), int(raw["num_prompts"])
    failed = int(raw.get("failed", prompts - completed))
    if "failed" in raw and completed + failed != prompts:
        report(
            "/failed",
            f"completed {completed} + failed {failed} is not num_prompts {prompts}",
            "warning",
        )
    duration = float(raw["duration"])
    output = int(raw["total_output_tokens"])
    shown = float(raw["output_throughput"])
    if duration > 0 and not close(shown, output / duration, rel=tol.AGGREGATE.rel, abs_=0.01):
        report(
            "/output_throughput",
            f"output_throughput {shown:g} tok/s disagrees with total_output_tokens / duration "
            f"= {output} / {duration:g} s = {output / duration:.6g} tok/s",
            "warning",
        )
    samples = _samples(raw, at, report)
    status: CellStatus = "ok" if completed > 0 else "failed"
    reason = None if status == "ok" else _reason(raw, failed)
    if status == "failed":
        report(
            "/completed",
            f"completed 0: {reason}; the load point has its request counts only, no latency or "
            "throughput (vLLM writes 0 for the statistics of no request)",
            "warning",
        )
    summaries, summary_at = ms_statistics(raw, _STAT, _STATS, _QUANTITY, at)
    lens = raw.get("input_lens") or ()
    return LoadPoint(
        pointer=at,
        label=shown_as,
        concurrency=concurrency,
        rate=rate,
        strategy=_strategy(rate, concurrency, float(raw.get("burstiness", 1.0))),
        status=status,
        reason=reason,
        duration_s=duration if duration > 0 else None,
        output_tokens=output,
        aggregate_tok_s=shown,
        requests_ok=completed,
        requests_failed=failed,
        samples=samples,
        summaries=FrozenDict(summaries),
        prompt_tokens=lens[0] if lens and len(set(lens)) == 1 else None,
        summary_at=FrozenDict((("aggregate_tok_s", f"{at}/output_throughput"), *summary_at)),
        spans=_spans(raw, samples),
    )


def settings(raw: dict[str, Any]) -> list[tuple[str, Scalar]]:
    """The result's settings, and its `--metadata KEY=VALUE` pairs (strings vLLM did not write)."""
    found: list[tuple[str, Scalar]] = [(k, raw[k]) for k in _SETTINGS if k in raw]
    return found + [
        (k, v)
        for k, v in raw.items()
        if isinstance(v, str) and k not in _SETTINGS and k not in ("model_id",)
    ]


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[SweepRun, list[Problem]]:
    """Build the one-point `SweepRun` of a schema-valid vLLM bench result."""
    raw: dict[str, Any] = doc.data
    problems: list[Problem] = []

    def report(pointer: str, message: str, severity: str) -> None:
        problems.append(doc.problem(base + pointer, message, severity))

    run = SweepRun(
        source=source,
        engine=None,  # the file names the client's backend, not the server
        model=str(raw["model_id"]),
        points=(point(raw, base, label(raw), report),),
        definitions=FrozenDict(DEFINITIONS),
        settings=FrozenDict(sorted(settings(raw))),
    )
    return run, problems


FORMAT = RunFormat(
    name="vllm-bench",
    tool="vllm bench serve",
    tested_versions=None,  # its files do not record its version
    looks_like="a vLLM `bench serve --save-result` file",
    marks=tuple(f"/{key}" for key in _MARKS),
    other_files=lambda _text, data: lists.not_a_run_file(data) if isinstance(data, list) else None,
    detect=detect,
    version=version,
    parse=parse,
)
