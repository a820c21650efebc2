"""The input formats reportgen reads, in the order they are tried on a file.

Adding a format: write its module (a `FORMAT` of type `reportgen.formats.base.RunFormat`), its
schema in `schemas/`, add it here, and give it example files under `tests/examples/`.
"""

from __future__ import annotations

from typing import Any

from reportgen.formats import genai_perf, lmx
from reportgen.formats.aiperf import records as aiperf_records
from reportgen.formats.aiperf import summary as aiperf_summary
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.guidellm import benchmarks as guidellm
from reportgen.formats.inference_perf import lifecycle as inference_perf
from reportgen.formats.inference_perf import requests as inference_perf_requests
from reportgen.formats.llama_bench import results as llama_bench
from reportgen.formats.llm_inference_bench import results as llm_inference_bench
from reportgen.formats.sglang import bench_serving
from reportgen.formats.vllm import appended as vllm_appended
from reportgen.formats.vllm import bench_serve as vllm_bench_serve

FORMATS: tuple[RunFormat, ...] = (
    lmx.FORMAT,
    llm_inference_bench.FORMAT,
    llama_bench.FORMAT,
    llama_bench.LINES_FORMAT,
    vllm_bench_serve.FORMAT,
    vllm_appended.FORMAT,
    bench_serving.FORMAT,
    aiperf_summary.FORMAT,
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
