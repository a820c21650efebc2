"""The JSON lists vLLM's own tooling writes beside its run files, named for the refusal.

A parsed JSON array in (a list, or a `JsonArrayDocument`'s `data`, its items by index "0", "1",
...), the text of a refusal out, or None for a list this module does not recognise. Each is a
table or a collection of runs, not one run: the refusal names the file, says what it holds, and
which files to read instead. The layouts, from vLLM's source:

- `vllm bench sweep serve` writes, for each parameter combination, `run=K.json` (one
  `vllm bench serve` result, with `run_number` and the sweep's parameters added) and
  `summary.json`, a list of those results (`vllm/benchmarks/sweep/serve.py`);
  `vllm bench sweep serve_sla` writes the same in `<variable>=<value>/` folders, and
  `SLA--<criteria>.json`, the list of every run of its search (`sweep/serve_sla.py`);
- the nightly and performance benchmarks (`.buildkite/nightly-benchmarks/scripts/`) collect
  each test's `results/<test name>.json` into a table whose keys are display names:
  `benchmark_results.json` (`convert-results-json-to-markdown.py`: "Test name", "GPU",
  "Median TTFT (ms)", "Output Tput (tok/s)", ...) and `<engine>_nightly_results.json`
  (`summary-nightly-results.py`, with an "Engine" column).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

# keys every vllm bench serve result has (bench_serve.py's detection marks, less model_id, which an
# SLA search's rows keep too)
_RESULT = ("num_prompts", "request_rate", "duration", "output_throughput")
_TABLE_UNIT = re.compile(r".*\((ms|s|req/s|tok/s)\)")
_SLA_VARIABLES = ("request_rate", "max_concurrency")


def _items(data: Any) -> list[Any] | None:
    """The list's items, from a list or from items keyed by index; None for anything else."""
    if isinstance(data, Sequence) and not isinstance(data, str | bytes):
        return list(data)
    if isinstance(data, Mapping) and data and all(str(k).isdigit() for k in data):
        return [data[k] for k in sorted(data, key=lambda k: int(k))]
    return None


def _is_result(item: Any) -> bool:
    return isinstance(item, Mapping) and all(key in item for key in _RESULT)


def _is_table_row(item: Any) -> bool:
    return (
        isinstance(item, Mapping)
        and "Test name" in item
        and any(isinstance(k, str) and _TABLE_UNIT.fullmatch(k) for k in item)
    )


def _runs(items: list[Mapping[str, Any]]) -> str:
    numbers = sorted({n for i in items if isinstance(n := i.get("run_number"), int)})
    if not numbers:
        return f"{len(items)} runs"
    shown = f"run={numbers[0]}.json" + (f" to run={numbers[-1]}.json" if len(numbers) > 1 else "")
    return f"{len(items)} runs, saved on their own as {shown}"


def _sweep(items: list[Mapping[str, Any]]) -> str:
    varying = [
        name
        for name in _SLA_VARIABLES
        if len({repr(i.get(name)) for i in items}) > 1 and all(name in i for i in items)
    ]
    if varying:
        name = varying[0]
        values = sorted({i[name] for i in items}, key=lambda v: (isinstance(v, str), v))
        tried = ", ".join(str(v) for v in values)
        return (
            "this is vllm bench sweep serve_sla's SLA--<criteria>.json: a list of every run of "
            f"its search over {name} ({tried}), not one run. Each run is saved on its own as "
            f"run=K.json in the {name}=<value> folder beside this file: read those, one load "
            "point each"
        )
    return (
        "this is vllm bench sweep's summary.json: a list of the "
        f"{_runs(items)} in the same folder, of one parameter combination, not one run. Read "
        "those run=K.json files, one vllm bench serve result each (listed in one article run, "
        "runs of the same load are combined as repetitions)"
    )


def _table(rows: list[Mapping[str, Any]]) -> str:
    names = [str(r["Test name"]) for r in rows if isinstance(r.get("Test name"), str)]
    serving = [n for n in names if n.startswith("serving")] or names
    example = f" (here results/{serving[0]}.json)" if serving else ""
    if any("Engine" in r for r in rows):
        made = (
            "vLLM's nightly benchmark summary, <engine>_nightly_results.json (written by "
            ".buildkite/nightly-benchmarks/scripts/summary-nightly-results.py)"
        )
    else:
        made = (
            "vLLM's benchmark summary table, benchmark_results.json (written by "
            ".buildkite/nightly-benchmarks/scripts/convert-results-json-to-markdown.py)"
        )
    return (
        f"this is {made}: {len(rows)} rows of tests under display names such as "
        '"Median TTFT (ms)", not one run. Read each serving test\'s own result file, '
        f"results/<Test name>.json{example}, the vllm bench serve output the table was made from"
    )


def not_a_run_file(data: Any) -> str | None:
    """The refusal of a JSON list vLLM's tooling writes that is not a run file, naming it and
    the files to read instead; None when the list is none of them."""
    items = _items(data)
    if not items:
        return None
    if all(_is_result(i) for i in items):
        if any("run_number" in i for i in items):
            return _sweep(items)
        return (
            f"this is a JSON list of {len(items)} vllm bench serve results, not one run: "
            "reportgen reads one result per file, as vllm bench serve --save-result writes it. "
            "Save each result as a file of its own"
        )
    if all(_is_table_row(i) for i in items):
        return _table(items)
    return None
