"""`reportgen init`'s tables and charts for llama-bench runs: prompt processing and token
generation laid out over what the tests vary.

In: the metrics of the article's runs and one llama-bench run (`InitRun`, tool "llama-bench").
Out: TOML lines declaring, for each kind of test the run has (prompt processing: `prefill.tok_s`;
token generation: `decode.aggregate_tok_s`), grid tables over the points' axes
(`reportgen.formats.llama_bench.results`): rows along `meta.n_depth` when the depth varies (else the
test's length), one column per configuration (`meta.config`) when the tests hold several, else
per length (`meta.n_prompt` / `meta.n_gen`). With several configurations and several lengths,
one table per length. A line chart along depth follows each table whose rows are the depth.
"""

from __future__ import annotations

from reportgen.article.source.toml import toml_string as q
from reportgen.init.runs import InitRun
from reportgen.metrics.registry import MetricSet, MetricValue
from reportgen.model import Scalar

TOOL = "llama-bench"
SECTION_TITLE = "Prompt processing and token generation"
DEPTH, CONFIG = "meta.n_depth", "meta.config"
# kind -> (metric, length axis, title, what the length is, llama-bench's name of a test)
_KINDS = (
    (
        "pp",
        "prefill.tok_s",
        "meta.n_prompt",
        "Prompt processing",
        "prompt",
        "n_prompt tokens of one sequence processed in-process after n_depth tokens already in "
        "the KV cache: llama-bench's avg_ts, the mean of the repetitions' rates.",
    ),
    (
        "tg",
        "decode.aggregate_tok_s",
        "meta.n_gen",
        "Token generation",
        "generated",
        "n_gen tokens generated one at a time for one sequence after n_depth tokens already in "
        "the KV cache: llama-bench's avg_ts, the mean of the repetitions' rates.",
    ),
)
_WORDS = {DEPTH: "depth", CONFIG: "configuration"}


def is_llama(run: InitRun) -> bool:
    """True for an article run of llama-bench files."""
    return run.tool == TOOL


def _axis_values(values: list[MetricValue], axis: str) -> list[Scalar]:
    found = {v.coord(axis) for v in values}
    return sorted((x for x in found if x is not None), key=lambda x: (str(type(x)), x))


def _layout(values: list[MetricValue], length: str) -> tuple[str, str, list[Scalar]]:
    """(rows, columns, the lengths to split tables by; [None] for one table)."""
    depths, lengths = _axis_values(values, DEPTH), _axis_values(values, length)
    configs = _axis_values(values, CONFIG)
    rows = DEPTH if len(depths) > 1 or len(lengths) <= 1 else length
    one: list[Scalar] = [None]
    if len(configs) > 1:
        return rows, CONFIG, lengths if rows != length and len(lengths) > 1 else one
    return rows, (length if rows != length else DEPTH), one


def tables(metrics: MetricSet, run: InitRun, many: bool) -> list[str]:
    """The tables (and charts along depth) of one llama-bench run."""
    suffix, rid = (f" ({run.id})", f"-{run.id}") if many else ("", "")
    lines: list[str] = []
    for short, metric, length, title, said, note in _KINDS:
        values = [
            v
            for v in metrics.values
            if v.metric == metric and (not many or v.run == run.id) and v.stat is None
        ]
        if not values:
            continue
        rows, columns, split = _layout(values, length)
        words = {**_WORDS, length: said}
        for at in split:
            where = [f"run = {q(run.id)}"] if many else []
            tid, named = f"{short}{rid}", f"{title}, tok/s by {words[rows]}"
            if at is not None:
                where.append(f"{q(length)} = {at}")
                tid, named = f"{short}{at}{rid}", f"{title} of {short}{at}, tok/s by {words[rows]}"
            lines += ["[[sections.table]]", f"id = {q(tid)}", f"title = {q(named + suffix)}"]
            lines += ['unit = "(tok/s)"', f"note = {q(note)}", f"metric = {q(metric)}"]
            lines += [f"rows = {q(rows)}", f"columns = {q(columns)}"]
            corner = f"{words[rows]} \\ {words[columns]}"
            lines += [f"corner = {q(corner)}"]
            lines += [f"where = {{ {', '.join(where)} }}"] if where else []
            lines += [""]
            if rows != DEPTH:
                continue
            lines += ["[[sections.chart]]", f"id = {q(f'{tid}-by-depth')}", f"title = {q(named)}"]
            lines += [f"metric = {q(metric)}", f"x = {q(DEPTH)}", f"series = {q(columns)}"]
            lines += ['x_label = "tokens already in the KV cache (n_depth)"']
            lines += [f"y_label = {q(title.lower() + ' (tok/s)')}", f"legend = {q(words[columns])}"]
            lines += [f"where = {{ {', '.join(where)} }}"] if where else []
            lines += [""]
    return lines
