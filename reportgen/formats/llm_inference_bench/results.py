"""Parse stage for llm-inference-bench `benchmark_results.json` (bare or inside a wrapper).

Schema-valid raw JSON in, a `MatrixRun` plus semantic problems out. This is the only module that
reads the bench's raw keys; sentinels become cell statuses here and never reach the metrics.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from reportgen import tolerances as tol
from reportgen.errors import Problem
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.json_input.document import (
    JsonDocument,
    pointer_of,
    split_pointer,
    unfit_numbers,
)
from reportgen.formats.llm_inference_bench.cells import Report, decode_cell, fit, opt_float
from reportgen.formats.llm_inference_bench.packed_document import GiveUp, PackedDocument
from reportgen.model import (
    DecodeCell,
    MatrixRun,
    PrefillPoint,
    SourceFile,
    context_label,
)
from reportgen.samples import PackedSamples
from reportgen.stats import close


def _check_duplicates(cells: list[DecodeCell], raw: list[dict[str, Any]], report: Report) -> None:
    first: dict[tuple[int, int], int] = {}
    for i, cell in enumerate(cells):
        key = (cell.context_tokens, cell.concurrency)
        if key not in first:
            first[key] = i
            continue
        j = first[key]
        label = f"context {context_label(key[0])} x concurrency {key[1]}"
        if raw[i] == raw[j]:
            report(cell.pointer, f"duplicate cell {label} (same as {cells[j].pointer})", "error")
        else:
            differ = sorted(
                k for k in raw[i].keys() | raw[j].keys() if raw[i].get(k) != raw[j].get(k)
            )
            report(
                cell.pointer,
                f"contradictory cells for {label}: {cells[j].pointer} and {cell.pointer} differ in "
                + ", ".join(differ),
                "error",
            )


def _check_summary_table(
    table: Mapping[str, Mapping[str, float | None]],
    cells: list[DecodeCell],
    where: str,
    report: Report,
) -> tuple[tuple[int, int, float | None], ...]:
    by_key = {(c.context_tokens, c.concurrency): c for c in cells}
    flat = []
    for ctx_key, row in table.items():
        for c_key, value in fit(dict(row), f"{where}/{ctx_key}", report).items():
            at = f"{where}/{ctx_key}/{c_key}"
            key = (int(ctx_key), int(c_key))
            flat.append((key[0], key[1], value))
            cell = by_key.get(key)
            if cell is None:
                if value is not None:
                    report(at, f"summary_table has {value:g} for a cell not in results", "warning")
                continue
            if cell.aggregate_tok_s is None:
                if value is not None and value > 0:
                    report(
                        at,
                        f"summary_table shows {value:g} but {cell.pointer} measured no "
                        f"throughput ({cell.reason})",
                        "warning",
                    )
            elif value is None or not close(
                value, cell.aggregate_tok_s, rel=tol.SUMMARY_TABLE.rel, abs_=tol.SUMMARY_TABLE.abs_
            ):
                shown = "null" if value is None else f"{value:g}"
                report(
                    at,
                    f"summary_table shows {shown} but {cell.pointer}/aggregate_tps is "
                    f"{cell.aggregate_tok_s:g}",
                    "warning",
                )
    return tuple(sorted(flat))


def _prefill(
    raw: Mapping[str, dict[str, Any]], where: str, report: Report
) -> Iterator[PrefillPoint]:
    for key, entry in raw.items():
        at = f"{where}/{key}"
        if unfit_numbers(entry):
            fit(entry, at, report)
            continue
        tokens, ttft, rate = entry["prompt_tokens"], entry["ttft_seconds"], entry.get("tok_per_sec")
        if rate is not None and not close(
            rate, tokens / ttft, rel=tol.PREFILL_RATE.rel, abs_=tol.PREFILL_RATE.abs_
        ):
            report(
                f"{at}/tok_per_sec",
                f"tok_per_sec {rate:g} disagrees with prompt_tokens / ttft_seconds = "
                f"{tokens} / {ttft:g} = {tokens / ttft:.6g}",
                "warning",
            )
        samples = entry.get("samples")
        yield PrefillPoint(
            pointer=at,
            context_key=key,
            context_tokens=int(key),
            prompt_tokens=int(tokens),
            ttft_s=float(ttft),
            tok_s=None if rate is None else float(rate),
            samples=samples if isinstance(samples, int) else None,
        )


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many acyclic objects.

    Whenever the surviving objects grow by a quarter, CPython's collector traverses every object
    alive, the whole parsed document included: building 200,000 request samples would pay for
    several traversals that cannot find anything (JSON values and the run model hold no cycles).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _packed(packed: Mapping[str, PackedSamples] | None, where: str) -> PackedSamples | None:
    """The cell's samples as the fast path packed them (None: the located path reads them)."""
    if packed is None:
        return None
    if where not in packed:
        raise GiveUp(where)
    return packed[where]


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[MatrixRun, list[Problem]]:
    """Build the `MatrixRun` for the bench result at pointer `base` of a schema-valid document."""
    raw: dict[str, Any] = doc.data
    for token in split_pointer(base):
        raw = raw[token]
    problems: list[Problem] = []

    def report(pointer: str, message: str, severity: str) -> None:
        problems.append(doc.problem(pointer, message, severity))

    # Every pointer below, in problems and in the model, is absolute in the file (base included).
    meta = fit(raw["metadata"], f"{base}/metadata", report)
    max_tokens = meta.get("max_tokens")
    packed = doc.samples if isinstance(doc, PackedDocument) else None
    with _gc_paused():
        cells = [
            decode_cell(
                fit(c, f"{base}/results/{i}", report),
                f"{base}/results/{i}",
                max_tokens,
                report,
                _packed(packed, f"{base}/results/{i}"),
            )
            for i, c in enumerate(raw["results"])
        ]
    _check_duplicates(cells, raw["results"], report)
    summary = _check_summary_table(
        raw.get("summary_table") or {}, cells, f"{base}/summary_table", report
    )
    prefill = tuple(
        sorted(
            _prefill(raw.get("prefill") or {}, f"{base}/prefill", report),
            key=lambda p: p.context_tokens,
        )
    )
    run = MatrixRun(
        source=source,
        engine=meta.get("engine"),
        model=meta.get("model"),
        duration_s=opt_float(meta, "duration_per_test"),
        max_tokens=max_tokens,
        contexts=tuple(sorted({c.context_tokens for c in cells})),
        concurrencies=tuple(sorted({c.concurrency for c in cells})),
        prefill=prefill,
        cells=tuple(cells),
        summary_table=summary,
        settings_pointer=f"{base}/metadata",
    )
    return run, problems


def _is_bench(value: Any) -> bool:
    return isinstance(value, dict) and "metadata" in value and "results" in value


def detect(data: dict[str, Any]) -> Detection | None:
    """A bench result has `metadata` and `results`, bare or under exactly one wrapping key (as
    `lmx speed-test matrix` writes it)."""
    if _is_bench(data):
        return Detection("", "llm-inference-bench")
    wrapped = [k for k, v in data.items() if _is_bench(v)]
    if len(wrapped) == 1:
        return Detection(pointer_of([wrapped[0]]), "llm-inference-bench", "lmx-matrix")
    if len(wrapped) > 1:
        keys = ", ".join(pointer_of([k]) for k in wrapped)
        return Detection(
            "",
            "llm-inference-bench",
            refusal=f"llm-inference-bench results under {len(wrapped)} keys ({keys}); "
            "a run file holds one run",
        )
    return None


def version(run: dict[str, Any]) -> tuple[str, str]:
    """The bench's version, `metadata.version`; "" when the file names none (it is then read by
    its layout, with a warning)."""
    if "version" not in run["metadata"]:
        return "", "/metadata"
    return str(run["metadata"]["version"]), "/metadata/version"


FORMAT = RunFormat(
    name="llm-inference-bench",
    tool="llm-inference-bench",
    tested_versions=((0, 4), (0, 7)),
    looks_like="an llm-inference-bench benchmark_results.json (bare or inside one wrapping key)",
    marks=("/metadata", "/results", "/summary_table", "/prefill"),
    detect=detect,
    version=version,
    parse=parse,
)
