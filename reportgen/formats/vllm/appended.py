"""Parse stage for vLLM results appended one a line: `vllm bench serve --append-result` (and
scripts that collect results the same way), read as JSON Lines.

The file's records by index in (`reportgen.formats.json_input.lines`: pointers `/INDEX/key`), a
`SweepRun` of one load point per record in file order out, each read as
`reportgen.formats.vllm.bench_serve` reads a single result, with the same definitions. Labels are
vLLM's (`r{rate}`, `c{N}`, `r{rate}-c{N}`, `burst`); where records of one file share one (the same
load run again, or another setup run at the same load), each is suffixed with its record's index,
`-b{INDEX}`, as SGLang's are. The settings and `--metadata` pairs that every record states alike are
the run's.

vLLM names such a file `.json` (it appends to the result file); reportgen reads it as JSON
Lines, which the loader does for a `.jsonl` file.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from reportgen.errors import Problem
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.json_input.document import JsonDocument, escape_pointer_token
from reportgen.formats.vllm import bench_serve
from reportgen.frozendict import FrozenDict
from reportgen.model import Scalar, SourceFile, SweepRun


def detect(data: dict[str, Any]) -> Detection | None:
    """vLLM results one a line: the first record is a vLLM bench result (`vllm.bench_serve.detect`),
    refusals included."""
    first = data.get("0")
    found = bench_serve.detect(first) if isinstance(first, dict) else None
    if found is None:
        return None
    return Detection("", "vllm-bench-lines", refusal=found.refusal)


def version(_run: dict[str, Any]) -> tuple[str, str]:
    """vLLM does not record its version in its results: the empty string."""
    return "", ""


def _labels(records: list[dict[str, Any]]) -> list[str]:
    """vLLM's labels, each one that repeats in the file suffixed with its record's index."""
    labels = [bench_serve.label(raw) for raw in records]
    counts = Counter(labels)
    return [f"{shown}-b{i}" if counts[shown] > 1 else shown for i, shown in enumerate(labels)]


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[SweepRun, list[Problem]]:
    """Build the `SweepRun` of a schema-valid file of vLLM results: one load point a record."""
    problems: list[Problem] = []

    def reporter(at: str) -> bench_serve.Report:
        def report(pointer: str, message: str, severity: str) -> None:
            problems.append(doc.problem(at + pointer, message, severity))

        return report

    places = [f"{base}/{escape_pointer_token(key)}" for key in doc.data]
    records: list[dict[str, Any]] = list(doc.data.values())
    points = tuple(
        bench_serve.point(raw, at, shown, reporter(at))
        for raw, at, shown in zip(records, places, _labels(records), strict=True)
    )
    each = [set(bench_serve.settings(raw)) for raw in records]
    shared: set[tuple[str, Scalar]] = set.intersection(*each) if each else set()
    models = {str(raw["model_id"]) for raw in records}
    run = SweepRun(
        source=source,
        engine=None,  # the file names the client's backend, not the server
        model=models.pop() if len(models) == 1 else None,
        points=points,
        definitions=FrozenDict(bench_serve.DEFINITIONS),
        settings=FrozenDict(sorted(shared)),
    )
    return run, problems


FORMAT = RunFormat(
    name="vllm-bench-lines",
    tool="vllm bench serve",
    tested_versions=None,  # its files do not record its version
    looks_like=(
        "vLLM bench serve results one a line (--append-result), read as JSON Lines "
        "(with model_id and request_rate)"
    ),
    detect=detect,
    version=version,
    parse=parse,
    lines=True,
)
