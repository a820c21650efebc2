"""The input formats reportgen reads, in the order they are tried on a file.

Adding a format: write its module (a `FORMAT` of type `reportgen.formats.base.RunFormat`), its
schema in `schemas/`, add it here, and give it example files under `tests/examples/`.
"""

from __future__ import annotations

from typing import Any

from reportgen.formats import (
    aiperf,
    aiperf_records,
    genai_perf,
    guidellm,
    inference_perf,
    inference_perf_requests,
    llama_bench,
    llm_inference_bench,
    lmx,
    sglang_bench,
    vllm_bench,
    vllm_bench_lines,
)
from reportgen.formats.base import Detection, RunFormat

FORMATS: tuple[RunFormat, ...] = (
    lmx.FORMAT,
    llm_inference_bench.FORMAT,
    llama_bench.FORMAT,
    llama_bench.LINES_FORMAT,
    vllm_bench.FORMAT,
    vllm_bench_lines.FORMAT,
    sglang_bench.FORMAT,
    aiperf.FORMAT,
    aiperf_records.FORMAT,
    genai_perf.FORMAT,
    guidellm.FORMAT,
    inference_perf.FORMAT,
    inference_perf_requests.FORMAT,
)


def detect(
    data: dict[str, Any], *, lines: bool = False, top_list: bool = False
) -> tuple[RunFormat, Detection] | None:
    """The first format that recognises the document, with where its run is; None if none.
    `lines`: the document is a JSON Lines file's records, offered to JSON Lines formats only;
    `top_list`: a top-level array's items, offered to the formats that read one only."""
    for fmt in FORMATS:
        found = fmt.detect(data) if (fmt.lines, fmt.top_list) == (lines, top_list) else None
        if found is not None:
            return fmt, found
    return None


def known_tools() -> str:
    """Every tool whose run files reportgen reads, in a phrase: 'X, Y or Z'."""
    tools = list(dict.fromkeys(f.tool for f in FORMATS))
    return ", ".join(tools[:-1]) + " or " + tools[-1] if len(tools) > 1 else tools[0]
