"""vLLM's `bench serve` cannot be installed here (torch with CUDA), so its importer is also run on
real output of SGLang's `bench_serving`, which descends from the same script: the record's
fields that both tools write the same way are given vLLM's names (and vLLM's `e2el` for SGLang's
`e2e_latency`), and both importers must then report the same load point.

The record is SGLang's real c1 line, read from tests/data/realtools/sglang/; nothing is typed in.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from reportgen.formats.load import load
from reportgen.metrics.compute import compute

SGLANG = Path(__file__).resolve().parents[2] / "data" / "realtools" / "sglang"
SHARED: tuple[str, ...] = ("duration", "completed", "total_input_tokens", "total_output_tokens")
SHARED += ("request_throughput", "output_throughput", "max_concurrency")
STAT = re.compile(r"(mean|median|std|p90|p95|p99)_(ttft|tpot|itl|e2e_latency)_ms")


def record(load_: str) -> dict[str, Any]:
    line = (SGLANG / load_ / "bench_serving.jsonl").read_text(encoding="utf-8").splitlines()[0]
    parsed: dict[str, Any] = json.loads(line)  # Python's json reads the bare Infinity
    return parsed


def as_vllm(raw: dict[str, Any]) -> dict[str, Any]:
    """The fields vLLM writes the same way, under vLLM's names, with vLLM's required keys."""
    out: dict[str, Any] = {key: raw[key] for key in SHARED}
    for key, value in raw.items():
        if STAT.fullmatch(key):
            out[key.replace("e2e_latency", "e2el")] = value
    out["model_id"] = "tiny-llama"
    out["num_prompts"] = raw["completed"]
    out["request_rate"] = "inf"  # vLLM writes an unbounded rate as the string "inf"
    return out


@pytest.mark.parametrize("load_", ["c1", "c4"])
def test_vllm_and_sglang_importers_agree_on_the_same_record(load_: str, tmp_path: Path) -> None:
    raw = record(load_)
    vllm = tmp_path / "vllm.json"
    vllm.write_text(json.dumps(as_vllm(raw)), encoding="utf-8")
    sglang = tmp_path / "sglang.jsonl"
    # summaries only, as the vLLM copy has them: without SGLang's per-request arrays
    summary = {
        k: v
        for k, v in raw.items()
        if k not in ("ttfts", "itls", "input_lens", "output_lens", "errors")
    }
    sglang.write_text(json.dumps(summary) + "\n", encoding="utf-8")
    by_tool = {}
    for path in (vllm, sglang):
        result = load([path])
        assert result.ok, [p.format() for p in result.problems]
        values = compute(result.runs).values
        by_tool[path.suffix] = {(v.key, v.stat): v.value for v in values}
    shared = by_tool[".json"].keys() & by_tool[".jsonl"].keys()
    for needed in (("load.output_tok_s", None), ("load.ttft_s", None), ("load.itl_s", "p99")):
        assert needed in shared
    for quantity in shared:
        assert by_tool[".json"][quantity] == pytest.approx(by_tool[".jsonl"][quantity]), quantity
