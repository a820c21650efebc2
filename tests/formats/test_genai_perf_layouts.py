"""GenAI-Perf summaries of its older layouts and of runs without streaming: read by their layout.

Each is made here from the committed real 0.0.16 file (tests/examples/valid/genai-perf-c1.json)
the way GenAI-Perf's exporter of that time writes it (read in GenAI-Perf's source, the
perf_analyzer repository's genai-perf folder: `export_data/json_exporter.py`,
`metrics/statistics.py`, `profile_data_parser/llm_profile_data_parser.py`, `parser.py`)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from reportgen.formats import genai_perf
from reportgen.formats.aiperf import summary
from reportgen.formats.json_input.document import parse_json
from reportgen.formats.load import load_document
from reportgen.formats.registry import FORMATS
from reportgen.metrics.compute import compute
from reportgen.metrics.registry import MetricValue
from reportgen.model import SweepRun

VALID = Path(__file__).resolve().parents[1] / "examples" / "valid"
FLAT = VALID / "genai-perf-flat-c2.json"


def _real() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VALID / "genai-perf-c1.json").read_text())
    return data


def _load(data: dict[str, Any]) -> tuple[SweepRun | None, list[str]]:
    doc = parse_json("run.json", json.dumps(data, indent=2).encode())
    run, problems = load_document(doc)
    assert run is None or isinstance(run, SweepRun)
    return run, [f"{p.pointer or '/'}: {p.severity}: {p.message}" for p in problems]


def _values(run: SweepRun) -> dict[str, MetricValue]:
    return {v.id: v for v in compute([run]).values}


def _flat(**arguments: Any) -> dict[str, Any]:
    """GenAI-Perf 0.0.10 and 0.0.11 (Triton SDK 25.01, 25.02): the command's arguments as its
    input_config, output_token_throughput_per_request, p25 to p99 only."""
    raw = _real()
    raw["input_config"] = {
        "model": ["tiny-llama"],
        "endpoint_type": "chat",
        "service_kind": "openai",
        "streaming": True,
        "synthetic_input_tokens_mean": 127,
        "synthetic_input_tokens_stddev": 0,
        "output_tokens_mean": 64,
        "output_tokens_stddev": 0,
        "concurrency": 1,
        "request_rate": None,
        "measurement_interval": 10000,
        "prompt_source": "synthetic",
    } | arguments
    per_user = raw.pop("output_token_throughput_per_user")
    raw["output_token_throughput_per_request"] = {**per_user, "unit": "tokens/sec"}
    for metric in raw.values():
        if isinstance(metric, dict) and "p50" in metric:
            for stat in ("p1", "p5", "p10"):
                metric.pop(stat, None)
    return raw


def test_the_flat_input_config_is_read_by_its_layout() -> None:
    raw = _flat()
    assert [f.name for f in FORMATS if f.detect(raw)] == ["genai-perf"]
    run, problems = _load(raw)
    assert run is not None and problems == []
    (point,) = run.points
    assert (point.label, point.concurrency, point.rate) == ("c1", 1, None)
    assert (point.prompt_tokens, point.max_tokens, run.model) == (127, 64, "tiny-llama")
    assert dict(run.settings)["input_config_layout"] == "flat"
    values = _values(run)
    own = raw["time_to_first_token"]["p50"] / 1000
    assert values["load.c1.ttft_s"].value == pytest.approx(own, rel=1e-12)
    out = values["load.c1.output_tok_s"].value
    assert out == pytest.approx(raw["output_token_throughput"]["avg"], rel=1e-9)


def test_the_older_per_request_throughput_is_not_taken_for_the_per_user_speed() -> None:
    run, _ = _load(_flat())
    assert run is not None
    assert "load.c1.per_request_tok_s" not in _values(run)
    assert "output_token_throughput_per_request" in dict(run.definitions)["per_request_tok_s"]


def test_a_flat_request_rate_is_the_load_point() -> None:
    raw = _flat(concurrency=None, request_rate=2.5)
    run, problems = _load(raw)
    assert run is not None and problems == []
    assert (run.points[0].label, run.points[0].strategy) == ("r2.5", "request rate")
    raw["input_config"]["request_rate"] = None
    assert _load(raw)[0] is None  # neither: the flat layout names no load


def test_a_file_without_request_count_keeps_genai_perfs_throughput_alone() -> None:
    raw = _flat()
    del raw["request_count"]  # before GenAI-Perf 0.0.10 (December 2024)
    run, problems = _load(raw)
    assert run is not None and problems == []
    (point,) = run.points
    assert (point.requests_ok, point.duration_s, point.output_tokens) == (None, None, None)
    assert point.status == "ok"
    out = _values(run)["load.c1.output_tok_s"]
    assert (out.value, out.source) == (raw["output_token_throughput"]["avg"], "summary")
    assert "writes no request_count" in dict(run.definitions)["output_tok_s"]


def test_times_in_nanoseconds_are_read_in_their_unit() -> None:
    raw = _flat(model="tiny-llama")  # May 2024: one model, a string
    for metric in ("time_to_first_token", "inter_token_latency", "request_latency"):
        entry = raw[metric]
        raw[metric] = {k: (v if k == "unit" else v * 1e6) for k, v in entry.items()}
        raw[metric]["unit"] = "ns"  # GenAI-Perf's first JSON export, May 2024
    run, _ = _load(raw)
    assert run is not None and run.model == "tiny-llama"
    own = _real()["inter_token_latency"]["p50"] / 1000
    assert _values(run)["load.c1.itl_s"].value == pytest.approx(own, rel=1e-12)


def test_a_run_without_streaming_has_no_itl_and_says_what_its_ttft_is() -> None:
    raw = _real()
    raw["input_config"]["endpoint"]["streaming"] = False
    del raw["inter_token_latency"], raw["output_token_throughput_per_user"]
    raw["time_to_first_token"] = copy.deepcopy(raw["request_latency"])
    raw["input_config"]["input"]["output_tokens"]["mean"] = ""  # GenAI-Perf's unset length
    run, problems = _load(raw)
    assert run is not None and problems == []
    values = _values(run)
    assert "load.c1.itl_s" not in values
    assert values["load.c1.ttft_s"].value == values["load.c1.latency_s"].value
    definitions = dict(run.definitions)
    assert "itl_s" not in definitions and "without streaming" in definitions["ttft_s"]
    assert "per_request_tok_s" not in definitions and "load.c1.per_request_tok_s" not in values
    assert run.points[0].max_tokens is None


def test_an_unversioned_aiperf_file_is_not_taken_for_a_flat_genai_perf_one() -> None:
    raw = json.loads((VALID / "aiperf-c1.json").read_text())
    raw["input_config"] = _flat()["input_config"]
    assert genai_perf.detect(raw) is None  # AIPerf writes start_time, GenAI-Perf never does
    del raw["aiperf_version"], raw["schema_version"], raw["benchmark_id"]
    assert [f.name for f in FORMATS if f.detect(raw)] == ["aiperf"]
    assert summary.detect(_flat()) is None


def test_the_flat_example_is_the_flat_layout() -> None:
    raw = json.loads(FLAT.read_text())
    assert "perf_analyzer" not in raw["input_config"]
    run, problems = _load(raw)
    assert run is not None and problems == []
    assert run.points[0].concurrency == raw["input_config"]["concurrency"]


def test_mutating_the_flat_layout_never_crashes() -> None:
    made = _flat()
    for key in [*made, *(f"input_config/{k}" for k in made["input_config"])]:
        broken = copy.deepcopy(made)
        parent, name = (broken["input_config"], key[13:]) if "/" in key else (broken, key)
        parent[name] = {"unit": "ms"} if not isinstance(parent[name], dict) else []
        run, problems = _load(broken)
        assert run is not None or problems, key


def test_a_genai_perf_csv_is_named_with_the_file_to_read_instead() -> None:
    csv = "Metric,avg,min,max,p99,p95,p90,p75,p50,p25,p10,p5,p1\nTime To First Token (ms),1\n"
    found = genai_perf.not_a_run_file(csv)
    assert found is not None and found.startswith("this is a GenAI-Perf CSV summary")
    assert "profile_export_genai_perf.json" in found
    rising = "Metric,avg,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\nx,1\n"
    assert genai_perf.not_a_run_file(rising) is None  # AIPerf's
    assert genai_perf.not_a_run_file(FLAT.read_text()) is None
