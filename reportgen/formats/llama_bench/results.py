"""Parse stage for llama.cpp's `llama-bench`: offline prompt-processing and token-generation
speed, measured in-process with no server and no HTTP. In: a schema-valid file's tests by index
(`-o json`, a top-level array, `RunFormat.top_list`; `-o jsonl`, one test a line, `LINES_FORMAT`;
or several outputs back to back, tests among log lines, or an array llama-bench stopped writing,
`reportgen.formats.llama_bench.concatenated`),
so `/1/avg_ts` is the file's own pointer. Out: one `MatrixRun` and the problems found.

llama-bench loads the GGUF itself and times each test `-r` times. Every test repeats the build,
model and settings fields; `n_prompt`, `n_gen` and `n_depth` (tokens already in the KV cache,
filled untimed; absent before build ~5400, read as 0) say what it timed, `samples_ns` each
repetition's time, `avg_ns` their mean (an integer: llama-bench divides in uint64), and `avg_ts`
the mean of the repetitions' rates, (n_prompt + n_gen) x 1e9 / samples_ns[i].

Every test is a point of one `MatrixRun`:

- a prompt-processing test (`-p`, n_gen 0) is a `PrefillPoint` at context n_prompt + n_depth,
  prompt_tokens n_prompt, cached_tokens n_depth, ttft_s avg_ns / 1e9: the time to process the
  prompt in-process, which is not a served TTFT (no HTTP, no queue, no tokenizing, no first token
  sampled). Its rate is llama-bench's own avg_ts (`rate_key`), the mean of the repetitions'
  rates as every llama-bench user reads it, checked against samples_ns here. It is not n_prompt /
  ttft_s, the rate at the mean time: that is lower by about the square of the repetitions'
  coefficient of variation, 0.08% at most on the real 84-test sweep but 8% on a real test whose
  five repetitions held one twice as slow as the others;
- a token-generation test (`-n`, n_prompt 0) is a `DecodeCell` at context n_depth and
  concurrency 1 (one sequence: n_batch and n_ubatch are prompt batch sizes), its aggregate avg_ts
  from the source "llama-bench", with no request samples;
- a combined test (`-pg`, both above 0) has one rate for prefill and decode together: it is left
  out with a warning. A test with both 0 timed no token: an error.

Sweeps. llama-bench is run with comma lists (`-p 512,1024 -n 128,256 -d 0,4096 -fa 0,1 -ngl
99 -m a.gguf,b.gguf`), and its outputs are appended to one file by shell loops. Why one run whose
points carry their configuration, rather than one run per configuration: a file is one source
(one digest, one label), the article's runs are what its author compares (engines, machines),
and the lints follow a line along depth within one configuration. So each point carries:

- its `meta.KEY` axes (`settings`): meta.n_prompt, meta.n_gen and meta.n_depth always; when the
  tests hold more than one configuration, meta.config (a label of what varies: "fa 1, n_ubatch
  512", in llama-bench's own column heads) and each varying setting as itself (meta.flash_attn,
  meta.model, meta.build, meta.repeat, ...; `reportgen.formats.llama_bench.configs`). A table
  "generation speed by depth, one column per configuration" is rows = "meta.n_depth", columns =
  "meta.config";
- a `point` that keeps its metric ids apart, only as long as it must: the test's name as
  llama-bench prints it ("pp512", "tg128") when the file's tests of that kind hold more than one
  length, then the configuration's token ("fa1-n_ubatch512") when there are several. The id puts
  it before the metric's name: `decode.4K.c1.tg128-fa1.aggregate_tok_s`, `prefill.1K.pp512.tok_s`.
  A file of one configuration and one length per kind keeps the plain ids (`prefill.512.tok_s`,
  `decode.4K.c1.aggregate_tok_s`). Since each id then names one test, two configurations at one
  depth, or prompts of 512 at depth 512 and 1024 at depth 0, never collide.

Warnings at the field: avg_ns against the mean of samples_ns (`AVG_NS`), avg_ts against the mean
of the samples' rates (`AVG_TS`). A test without samples_ns is read from avg_ns and avg_ts alone.

Version: llama-bench writes `build_number` and `build_commit`, the two numbers llama.cpp's own
`--version` prints ("version: 4521 (3edfa7d3)"). The tool's version is the first test's build as
its release tag and commit, "b4521 (3edfa7d3)", and empty when the build did not know it (0 and
"unknown", as a build from a source archive without git metadata writes). Builds of one file that
differ (runs appended by a loop across builds) are a varying setting, `meta.build`. No version is
refused: builds 6865 to 7951 were read on real files, and older ones that lack `n_depth` or carry
`cuda`, `vulkan`, `metal`, `gpu_blas` or `blas` booleans instead of `backends` and `gpu_info` are
read by the same keys. The engine is "llama.cpp", the model the GGUF's file name (else
`model_type`), or none when the file's tests measure several models (each point's meta.model).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from reportgen.errors import Problem, has_errors
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.json_input.document import JsonDocument, escape_pointer_token
from reportgen.formats.llama_bench.concatenated import how_read, other_file
from reportgen.formats.llama_bench.configs import (
    Configuration,
    Sweep,
    build_name,
    model_name,
    sweep,
)
from reportgen.frozendict import FrozenDict
from reportgen.model import (
    CellSummary,
    DecodeCell,
    MatrixRun,
    PrefillPoint,
    Scalar,
    SourceFile,
)
from reportgen.stats import close
from reportgen.tolerances import Tolerance

Report = Callable[[str, str, str], None]  # (pointer, message, severity)
SOURCE = "llama-bench"  # the decode cells' aggregate_source: llama-bench's own avg_ts
# avg_ns is the integer part of the samples' mean; avg_ts is written with 6 decimals
AVG_NS = Tolerance(rel=0.0, abs_=1.0)
AVG_TS = Tolerance(rel=1e-5, abs_=1e-5)
BASIS = (
    "llama-bench's in-process prompt processing (avg_ns; avg_ts, the mean of the repetitions' "
    "rates): no server, HTTP, queue or sampling"
)


def _is_test(value: object) -> bool:
    return isinstance(value, dict) and "n_prompt" in value and "n_gen" in value


# Where llama-bench's numbers differ from the served ones the registry defines (shown in the
# article's appendix; docs/metric-definitions.md has the rows).
DEFINITIONS = (
    (
        "prefill.ttft_s",
        "llama-bench: avg_ns of a prompt-processing test, the mean time of its repetitions to "
        "process n_prompt tokens in-process after n_depth tokens already in the KV cache; not a "
        "served TTFT (no HTTP, queue, tokenizing or first sampled token)",
    ),
    (
        "prefill.tok_s",
        "llama-bench: avg_ts, the mean of the repetitions' rates (n_prompt x 1e9 / samples_ns), "
        "not prompt tokens / TTFT",
    ),
    (
        "decode.aggregate_tok_s",
        "llama-bench: avg_ts of a token-generation test, the mean of the repetitions' rates (n_gen "
        "x 1e9 / samples_ns) for one sequence after n_depth tokens in the KV cache; no streamed "
        "usage and no window",
    ),
)


def detect(data: dict[str, Any]) -> Detection | None:
    """llama-bench tests (a top-level array's items or a JSON Lines file's records, by index)
    have `n_prompt` and `n_gen`. A first record that holds one under a key is another tool's
    record around llama-bench's: refused, saying which file to read."""
    if any(_is_test(t) for t in data.values()):
        return Detection("", "llama-bench")
    first = next(iter(data.values()), None)
    if not isinstance(first, dict):
        return None
    inner = [k for k, v in first.items() if _is_test(v)]
    if not inner:
        return None
    others = ", ".join(sorted(k for k in first if k not in inner)[:4])
    return Detection(
        "",
        "llama-bench",
        refusal=f"/0/{escape_pointer_token(inner[0])} holds a llama-bench test inside another "
        f"tool's record (beside {others}): reportgen reads llama-bench's own output, the file "
        "`llama-bench -o json` or `-o jsonl` wrote (a wrapper often keeps it beside this one, "
        "as its raw runs); give reportgen that file",
    )


def version(run: dict[str, Any]) -> tuple[str, str]:
    """The build the first test names, as "b4521 (3edfa7d3)"; "" when the build did not know."""
    return build_name(run["0"]), "/0/build_number"


def _check_samples(test: dict[str, Any], at: str, report: Report) -> None:
    """avg_ns and avg_ts against the repetitions' own times, as llama-bench computes them."""
    samples, avg_ns, avg_ts = test.get("samples_ns"), test["avg_ns"], test["avg_ts"]
    if not samples:
        return  # nothing to check them against
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


def _point(kind: str, test: dict[str, Any], shape: Sweep, config: Configuration) -> str | None:
    """What keeps this test's ids apart from the file's other tests of its kind and context:
    its length as llama-bench names the test ("pp512", "tg128") when the lengths vary, then its
    configuration's token when there are several; None when nothing need be said."""
    parts = []
    if kind == "prefill" and shape.prompts_vary:
        parts.append(f"pp{test['n_prompt']}")
    if kind == "decode" and shape.gens_vary:
        parts.append(f"tg{test['n_gen']}")
    if shape.several:
        parts.append(config.token)
    return "-".join(parts) or None


def _axes(test: dict[str, Any], config: Configuration) -> FrozenDict[str, Scalar]:
    lengths: tuple[tuple[str, Scalar], ...] = (
        ("meta.n_prompt", test["n_prompt"]),
        ("meta.n_gen", test["n_gen"]),
        ("meta.n_depth", test.get("n_depth") or 0),
    )
    return FrozenDict(lengths) | config.settings


def _prefill(test: dict[str, Any], at: str, point: str | None, axes: Any) -> PrefillPoint:
    depth = int(test.get("n_depth") or 0)
    context = int(test["n_prompt"]) + depth
    samples = test.get("samples_ns")
    return PrefillPoint(
        pointer=at,
        context_key=str(context),
        context_tokens=context,
        prompt_tokens=int(test["n_prompt"]),
        ttft_s=test["avg_ns"] / 1e9,
        tok_s=float(test["avg_ts"]),  # the value itself: a mean of rates (see the docstring)
        samples=len(samples) if samples else None,
        prompt_tokens_key="n_prompt",
        ttft_key="avg_ns",
        basis=BASIS,
        point=point,
        settings=axes,
        cached_tokens=depth,
        rate_key="avg_ts",
    )


def _decode(test: dict[str, Any], at: str, point: str | None, axes: Any) -> DecodeCell:
    return DecodeCell(
        pointer=at,
        context_tokens=int(test.get("n_depth") or 0),
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
        point=point,
        settings=axes,
    )


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[MatrixRun, list[Problem]]:
    """Build the `MatrixRun` of a schema-valid llama-bench file (its tests by index)."""
    problems: list[Problem] = []

    def report(pointer: str, message: str, severity: str) -> None:
        problems.append(doc.problem(pointer, message, severity))

    problems += how_read(doc)  # log lines left out, an array cut short
    tests = [(f"{base}/{key}", test) for key, test in doc.data.items()]
    shape = sweep([t for _, t in tests])
    prefill: list[PrefillPoint] = []
    cells: list[DecodeCell] = []
    for (at, test), config in zip(tests, shape.configurations, strict=True):
        _check_samples(test, at, report)
        kind = _kind(test, at, report)
        if kind is None:
            continue
        point, axes = _point(kind, test, shape, config), _axes(test, config)
        if kind == "prefill":
            prefill.append(_prefill(test, at, point, axes))
        else:
            cells.append(_decode(test, at, point, axes))
    if not prefill and not cells and not has_errors(problems):
        report("", "no prompt-processing or token-generation test to read", "error")
    models = {model_name(t) for _, t in tests}
    run = MatrixRun(
        source=source,
        engine="llama.cpp",
        model=models.pop() if len(models) == 1 else None,
        duration_s=None,
        max_tokens=None,
        contexts=tuple(sorted({c.context_tokens for c in cells})),
        concurrencies=(1,) if cells else (),
        prefill=tuple(sorted(prefill, key=lambda p: (p.context_tokens, p.point or ""))),
        cells=tuple(sorted(cells, key=lambda c: (c.context_tokens, c.point or ""))),
        summary_table=(),
        definitions=FrozenDict(DEFINITIONS),
    )
    return run, problems


FORMAT = RunFormat(
    name="llama-bench",
    tool="llama-bench",
    tested_versions=None,  # its version is a build number (b7951), not major.minor.patch
    looks_like="a llama.cpp `llama-bench -o json` file (a list of tests)",
    marks=("/n_prompt", "/n_gen", "/avg_ts", "/samples_ns", "/build_commit"),
    other_files=other_file,
    detect=detect,
    version=version,
    parse=parse,
    top_list=True,
)
# `-o jsonl`: the same tests, one a line (a `.jsonl` file)
LINES_FORMAT = replace(
    FORMAT,
    looks_like="a llama.cpp `llama-bench -o jsonl` file (one test a line)",
    top_list=False,
    lines=True,
)
