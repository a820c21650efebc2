"""Parse stage for llama.cpp's `llama-bench -o json`: offline prompt-processing and
token-generation speed, measured in-process with no server and no HTTP.

llama-bench loads the GGUF itself and times each test `-r` times. Its JSON is a top-level array
of tests (`RunFormat.top_list`: the loader hands them over by index, so `/1/avg_ts` is the file's
own pointer). Every test repeats the build, model and settings fields; `n_prompt`, `n_gen` and
`n_depth` (tokens already in the KV cache, filled untimed) say what it timed, `samples_ns` each
repetition's time, `avg_ns` their mean (an integer: llama-bench divides in uint64), and `avg_ts`
the mean of the repetitions' rates, (n_prompt + n_gen) x 1e9 / samples_ns[i].

One file is one `MatrixRun` of one configuration:

- a prompt-processing test (`-p`, n_gen 0) is a `PrefillPoint` at context n_prompt + n_depth,
  prompt_tokens n_prompt, ttft_s avg_ns / 1e9: the time to process the prompt in-process, which
  is not a served TTFT (no HTTP, no queue, no tokenizing, no first token sampled). Its own rate is
  left out (`tok_s` None): reportgen's prefill rate is n_prompt / ttft_s, the rate at the mean
  time, and avg_ts the mean of the rates, higher by about the square of the repetitions'
  coefficient of variation (0.9% on the real file), so the summary cross-check would flag every
  noisy test; avg_ts is checked against the samples here instead;
- a token-generation test (`-n`, n_prompt 0) is a `DecodeCell` at context n_depth and concurrency
  1 (one sequence: n_batch and n_ubatch are prompt batch sizes), its aggregate avg_ts from the
  source "llama-bench", with no request samples;
- a combined test (`-pg`, both above 0) has one rate for prefill and decode together: it is left
  out with a warning. A test with both 0 timed no token: an error.

Warnings at the field: avg_ns against the mean of samples_ns (`AVG_NS`), avg_ts against the mean
of the samples' rates (`AVG_TS`). A file whose tests differ in a setting (two models, `-t 1,2`)
is refused, and so are two tests of one cell: the file must be split, one configuration each.

Version: llama-bench writes `build_number` and `build_commit`, the two numbers llama.cpp's own
`--version` prints ("version: 4521 (3edfa7d3)"). The tool's version is that build as its release
tag and commit, "b4521 (3edfa7d3)", and empty when the build did not know it (0 and "unknown", as
a build from a source archive without git metadata writes). The engine is "llama.cpp", the model
the GGUF's file name (else `model_type`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reportgen.errors import Problem, has_errors
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.jsonfile import JsonDocument, escape_pointer_token
from reportgen.model import (
    CellSummary,
    DecodeCell,
    MatrixRun,
    PrefillPoint,
    SourceFile,
    context_label,
)
from reportgen.stats import close
from reportgen.tolerances import Tolerance

Report = Callable[[str, str, str], None]  # (pointer, message, severity)
SOURCE = "llama-bench"  # the decode cells' aggregate_source: llama-bench's own avg_ts
# avg_ns is the integer part of the samples' mean; avg_ts is written with 6 decimals
AVG_NS = Tolerance(rel=0.0, abs_=1.0)
AVG_TS = Tolerance(rel=1e-5, abs_=1e-5)
# what a test measured; every other key is a setting all tests of a file share
_MEASURED = frozenset(
    {
        "n_prompt",
        "n_gen",
        "n_depth",
        "test_time",
        "avg_ns",
        "stddev_ns",
        "avg_ts",
        "stddev_ts",
        "samples_ns",
        "samples_ts",
    }
)
_ABSENT = object()


def detect(data: dict[str, Any]) -> Detection | None:
    """llama-bench tests (a top-level array's items, by index) have `n_prompt` and `n_gen`."""
    if any(isinstance(t, dict) and "n_prompt" in t and "n_gen" in t for t in data.values()):
        return Detection("", "llama-bench")
    return None


def _build(test: dict[str, Any]) -> str:
    number, commit = test.get("build_number") or 0, str(test.get("build_commit") or "")
    parts = [f"b{number}"] if number else []
    if commit and commit != "unknown":
        parts.append(f"({commit})" if parts else commit)
    return " ".join(parts)


def version(run: dict[str, Any]) -> tuple[str, str]:
    """The build the first test names, as "b4521 (3edfa7d3)"; "" when the build did not know."""
    return _build(run["0"]), "/0/build_number"


def _shown(value: object) -> str:
    return "absent" if value is _ABSENT else repr(value)


def _same_settings(tests: list[tuple[str, dict[str, Any]]], report: Report) -> None:
    """An error for each test whose settings differ from the first test's."""
    first_at, first = tests[0]
    for at, test in tests[1:]:
        keys = sorted((first.keys() | test.keys()) - _MEASURED)
        differ = [k for k in keys if first.get(k, _ABSENT) != test.get(k, _ABSENT)]
        if not differ:
            continue
        key = differ[0]
        report(
            f"{at}/{escape_pointer_token(key)}",
            f"settings differ from {first_at}'s ({', '.join(differ)}; {key} "
            f"{_shown(test.get(key, _ABSENT))} here, {_shown(first.get(key, _ABSENT))} there): "
            "a run file holds one model and one set of settings; split the file, one "
            "configuration each",
            "error",
        )


def _check_samples(test: dict[str, Any], at: str, report: Report) -> None:
    """avg_ns and avg_ts against the repetitions' own times, as llama-bench computes them."""
    samples, avg_ns, avg_ts = test["samples_ns"], test["avg_ns"], test["avg_ts"]
    mean_ns = sum(samples) / len(samples)
    if not close(avg_ns, mean_ns, rel=AVG_NS.rel, abs_=AVG_NS.abs_):
        report(
            f"{at}/avg_ns",
            f"avg_ns {avg_ns} disagrees with the mean of samples_ns ({mean_ns:.1f} ns)",
            "warning",
        )
    tokens = test["n_prompt"] + test["n_gen"]
    if not tokens:
        return
    rate = sum(tokens * 1e9 / s for s in samples) / len(samples)
    if not close(avg_ts, rate, rel=AVG_TS.rel, abs_=AVG_TS.abs_):
        report(
            f"{at}/avg_ts",
            f"avg_ts {avg_ts} disagrees with the mean of its repetitions' rates, "
            f"(n_prompt + n_gen) x 1e9 / samples_ns: {rate:.6f} tok/s "
            f"(tolerance {AVG_TS.rel:g} relative)",
            "warning",
        )


def _kind(test: dict[str, Any], at: str, report: Report) -> str | None:
    """ "prefill" or "decode"; None (reported) for a test reportgen does not read."""
    n_prompt, n_gen = test["n_prompt"], test["n_gen"]
    if n_prompt and n_gen:
        report(
            at,
            f"a combined test (-pg: {n_prompt} prompt tokens, then {n_gen} generated) times "
            "prefill and decode in one rate; reportgen reads prompt-processing (n_gen 0) and "
            "token-generation (n_prompt 0) tests only, and leaves it out",
            "warning",
        )
        return None
    if not n_prompt and not n_gen:
        report(
            at,
            "n_prompt and n_gen are both 0: the test timed no token, so it is neither a "
            "prompt-processing (n_gen 0) nor a token-generation (n_prompt 0) test",
            "error",
        )
        return None
    return "prefill" if n_prompt else "decode"


def _prefill(test: dict[str, Any], at: str, context: int) -> PrefillPoint:
    return PrefillPoint(
        pointer=at,
        context_key=str(context),
        context_tokens=context,
        prompt_tokens=int(test["n_prompt"]),
        ttft_s=test["avg_ns"] / 1e9,
        tok_s=None,  # avg_ts is a mean of rates, not n_prompt / ttft_s (see the docstring)
        samples=len(test["samples_ns"]),
        prompt_tokens_key="n_prompt",
        ttft_key="avg_ns",
        basis="llama-bench's in-process prompt time (avg_ns): no server, HTTP, queue or sampling",
    )


def _decode(test: dict[str, Any], at: str, context: int) -> DecodeCell:
    return DecodeCell(
        pointer=at,
        context_tokens=context,
        concurrency=1,
        status="ok",
        reason=None,
        aggregate_tok_s=float(test["avg_ts"]),
        aggregate_source=SOURCE,
        measurement_s=None,
        window_output_tokens=None,
        effective_concurrency=None,
        num_errors=0,
        summary=CellSummary(ttft_p50_s=None, output_tps_per_user_p50=None, itl_p50_s=None),
        samples=(),
        aggregate_key="avg_ts",
    )


def _model(test: dict[str, Any]) -> str | None:
    path = str(test.get("model_filename") or "").replace("\\", "/")
    return path.rsplit("/", 1)[-1] or test.get("model_type") or None


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[MatrixRun, list[Problem]]:
    """Build the `MatrixRun` of a schema-valid llama-bench file (its tests by index)."""
    problems: list[Problem] = []

    def report(pointer: str, message: str, severity: str) -> None:
        problems.append(doc.problem(pointer, message, severity))

    tests = [(f"{base}/{key}", test) for key, test in doc.data.items()]
    _same_settings(tests, report)
    prefill: list[PrefillPoint] = []
    cells: list[DecodeCell] = []
    seen: dict[tuple[str, int], str] = {}
    for at, test in tests:
        _check_samples(test, at, report)
        kind = _kind(test, at, report)
        if kind is None:
            continue
        depth = int(test.get("n_depth") or 0)
        context = depth + (test["n_prompt"] if kind == "prefill" else 0)
        first = seen.setdefault((kind, context), at)
        if first != at:
            what = "prompt processing" if kind == "prefill" else "token generation"
            report(
                at,
                f"a second {what} test at context {context_label(context)} (the first is "
                f"{first}): a run holds one test of each; split the file, one each",
                "error",
            )
        elif kind == "prefill":
            prefill.append(_prefill(test, at, context))
        else:
            cells.append(_decode(test, at, context))
    if not prefill and not cells and not has_errors(problems):
        report("", "no prompt-processing or token-generation test to read", "error")
    first_test = tests[0][1]
    run = MatrixRun(
        source=source,
        engine="llama.cpp",
        model=_model(first_test),
        duration_s=None,
        max_tokens=None,
        contexts=tuple(sorted({c.context_tokens for c in cells})),
        concurrencies=(1,) if cells else (),
        prefill=tuple(sorted(prefill, key=lambda p: p.context_tokens)),
        cells=tuple(sorted(cells, key=lambda c: c.context_tokens)),
        summary_table=(),
    )
    return run, problems


FORMAT = RunFormat(
    name="llama-bench",
    tool="llama-bench",
    tested_versions=None,  # its files do not record its version
    looks_like="a llama.cpp `llama-bench -o json` file (a list of tests)",
    marks=("/n_prompt", "/n_gen", "/avg_ts", "/samples_ns", "/build_commit"),
    detect=detect,
    version=version,
    parse=parse,
    top_list=True,
)
