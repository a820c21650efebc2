"""AIPerf summaries of every released layout, 0.1.1 to 0.13: read by their layout, never refused
for their version, with the window AIPerf's own throughput divides by.

Each older layout is made here from the committed real 0.13 file (tests/examples/valid/
aiperf-c1.json) the way AIPerf's exporter of that version writes it (read in AIPerf's source,
`aiperf/exporters/*json_exporter.py` and `common/models/export_models.py` of each release), and
`../shared/samples/wild/` holds a real file of the unversioned layout that other people
committed."""

from __future__ import annotations

import copy
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from reportgen.errors import InputError
from reportgen.formats.aiperf import summary
from reportgen.formats.json_input.document import TOO_LARGE, parse_json
from reportgen.formats.load import load, load_document
from reportgen.formats.registry import FORMATS
from reportgen.metrics.compute import compute
from reportgen.metrics.registry import MetricValue
from reportgen.model import SweepRun

VALID = Path(__file__).resolve().parents[2] / "examples" / "valid"
WILD = Path(__file__).resolve().parents[4] / "shared" / "samples" / "wild"
UNVERSIONED = WILD / "aiperf-unversioned-2026-01-gptoss20b.json"
NO_VERSION = (
    "/: warning: the file names no version: read by its layout, which is aiperf's as reportgen "
    "reads it (tested on real files of 0.8.x to 0.13.x)"
)
# AIPerf's metrics that every layout writes the same way, apart from where they are
METRICS = (
    "request_count",
    "time_to_first_token",
    "inter_token_latency",
    "request_latency",
    "output_token_throughput",
    "output_token_throughput_per_user",
    "output_sequence_length",
    "total_osl",
    "benchmark_duration",
)


def _real() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VALID / "aiperf-c1.json").read_text())
    return data


def _load(data: dict[str, Any]) -> tuple[SweepRun | None, list[str]]:
    doc = parse_json("run.json", json.dumps(data, indent=2).encode())
    run, problems = load_document(doc)
    assert run is None or isinstance(run, SweepRun)
    return run, [f"{p.pointer or '/'}: {p.severity}: {p.message}" for p in problems]


def _values(run: SweepRun) -> dict[str, MetricValue]:
    return {v.id: v for v in compute([run]).values}


def _user_config(concurrency: int | None = 1, **loadgen: Any) -> dict[str, Any]:
    """AIPerf 0.1 to 0.8's `UserConfig` as its exporter writes it (only what was set)."""
    load = {"concurrency": concurrency, "request_count": 6, "warmup_request_count": 2}
    return {
        "endpoint": {"model_names": ["tiny-llama"], "type": "chat", "streaming": True},
        "input": {"prompt": {"input_tokens": {"mean": 128}, "output_tokens": {"mean": 64}}},
        "loadgen": {k: v for k, v in (load | loadgen).items() if v is not None},
        "cli_command": "aiperf profile -m tiny-llama --concurrency 1",
    }


def _by_benchmark_duration(raw: dict[str, Any]) -> None:
    """Set the throughput as AIPerf before 0.12 computes it: total_osl / benchmark_duration."""
    raw["output_token_throughput"]["avg"] = (
        raw["total_osl"]["avg"] / raw["benchmark_duration"]["avg"]
    )


def _unversioned() -> dict[str, Any]:
    """AIPerf 0.2 and 0.3: the metrics at the top level, no version, the `UserConfig`, a null
    for a metric without a value."""
    raw = _real()
    for key in ("schema_version", "aiperf_version", "benchmark_id", "run_info", "is_complete"):
        del raw[key]
    raw["input_config"] = _user_config()
    raw["error_request_count"] = None
    _by_benchmark_duration(raw)
    return raw


def _records() -> dict[str, Any]:
    """AIPerf 0.1.1: the metrics inside `records` by tag, TTFT as `ttft`, the output token total
    as `benchmark_token_count`, each with its `tag` and `header`."""
    raw = _unversioned()
    del raw["error_request_count"]
    names = {"time_to_first_token": "ttft", "total_osl": "benchmark_token_count"}
    records = {}
    for key in METRICS:
        tag = names.get(key, key)
        records[tag] = {"tag": tag, "header": tag.replace("_", " ").title(), **raw.pop(key)}
    raw["records"] = records
    return raw


def _phased(*phases: dict[str, Any]) -> dict[str, Any]:
    """AIPerf 0.10 (layout 1.3): its phases, its throughput over benchmark_duration."""
    raw = _real()
    raw["schema_version"], raw["aiperf_version"] = "1.3", "0.10.0"
    raw["input_config"]["phases"] = list(phases)
    _by_benchmark_duration(raw)
    return raw


WARMUP_0_10 = {
    "name": "warmup",
    "type": "concurrency",
    "requests": 2,
    "concurrency": 1,
    "exclude_from_results": True,
}
PROFILING_0_10 = {"name": "profiling", "type": "concurrency", "requests": 6, "concurrency": 1}


def test_a_file_that_names_no_version_is_read_by_its_layout_and_says_so() -> None:
    raw = _unversioned()
    assert [f.name for f in FORMATS if f.detect(raw)] == ["aiperf"]
    assert summary.version(raw) == ("", "")
    run, problems = _load(raw)
    assert run is not None and problems == [NO_VERSION]
    (point,) = run.points
    assert (point.label, point.concurrency, point.strategy) == ("c1", 1, "concurrency limit")
    assert (run.source.tool, run.source.format_version, run.model) == ("aiperf", "", "tiny-llama")
    assert (point.prompt_tokens, point.max_tokens) == (128, 64)
    assert dict(run.settings)["warmup_request_count"] == 2
    assert "schema_version" not in dict(run.settings)


def test_before_layout_1_4_the_throughput_divides_by_benchmark_duration() -> None:
    raw = _unversioned()
    run, _ = _load(raw)
    assert run is not None
    (point,) = run.points
    assert point.duration_s == raw["benchmark_duration"]["avg"]
    out = _values(run)["load.c1.output_tok_s"]
    assert out.value == pytest.approx(raw["output_token_throughput"]["avg"], rel=1e-12)
    assert "benchmark_duration, the first request sent" in dict(run.definitions)["output_tok_s"]
    # the same file with AIPerf 0.12's throughput (over the phase window) is said to disagree
    raw["output_token_throughput"]["avg"] = _real()["output_token_throughput"]["avg"]
    run, problems = _load(raw)
    assert run is not None
    assert problems[1].startswith("/output_token_throughput/avg: warning: output_token_throughput")
    assert "(benchmark_duration)" in problems[1]


def test_from_layout_1_4_the_throughput_divides_by_the_phase_window() -> None:
    raw = _real()
    run, problems = _load(raw)
    assert run is not None and problems == []
    start, end = (dt.datetime.fromisoformat(raw[k]) for k in ("start_time", "end_time"))
    assert run.points[0].duration_s == (end - start).total_seconds()
    assert "start_time to end_time (layout 1.4" in dict(run.definitions)["output_tok_s"]


def test_the_records_layout_of_aiperf_0_1_is_read_by_its_tags() -> None:
    raw = _records()
    assert [f.name for f in FORMATS if f.detect(raw)] == ["aiperf"]
    run, problems = _load(raw)
    assert run is not None and problems == [NO_VERSION]
    values = _values(run)
    ttft = values["load.c1.ttft_s"]
    assert ttft.value == pytest.approx(raw["records"]["ttft"]["p50"] / 1000, rel=1e-12)
    assert ttft.pointer == "/records/ttft/p50"
    assert run.points[0].output_tokens == raw["records"]["benchmark_token_count"]["avg"]
    out = values["load.c1.output_tok_s"]
    assert out.value == pytest.approx(raw["records"]["output_token_throughput"]["avg"])
    assert out.summary_pointer == "/records/output_token_throughput/avg"
    del raw["records"]["ttft"]
    assert _load(raw)[1] == ["/records: error: 'ttft' is required"]


def test_the_user_config_of_aiperf_0_8_names_the_load() -> None:
    raw = _real()
    raw["schema_version"], raw["aiperf_version"] = "1.1", "0.8.0"
    del raw["run_info"]
    raw["input_config"] = _user_config(8, request_rate=2.5, arrival_pattern="constant")
    _by_benchmark_duration(raw)
    run, problems = _load(raw)
    assert run is not None and problems == []  # 0.8 is among the versions tested on real files
    (point,) = run.points
    assert (point.label, point.rate, point.concurrency, point.strategy) == (
        "r2.5-c8",
        2.5,
        8,
        "constant rate",
    )
    assert dict(run.settings)["cli_command"] == raw["input_config"]["cli_command"]
    raw["input_config"]["input"]["file"] = "trace.jsonl"  # a custom dataset: lengths vary
    run, _ = _load(raw)
    assert run is not None and run.points[0].prompt_tokens is None


@pytest.mark.parametrize(
    "warmup",
    [
        WARMUP_0_10,  # 0.9 to 0.11: named warmup, no kind
        {**WARMUP_0_10, "name": "warm", "kind": "warmup"},  # 0.12 on: its kind says so
        {**WARMUP_0_10, "name": "storm", "kind": "profiling"},  # excluded by AIPerf's mark
    ],
)
def test_a_phase_left_out_of_the_results_is_skipped(warmup: dict[str, Any]) -> None:
    raw = _phased(warmup, PROFILING_0_10)
    run, problems = _load(raw)
    assert run is not None and problems == []  # 0.10 is within the versions tested
    (point,) = run.points
    assert (point.label, point.concurrency) == ("c1", 1)
    assert dict(run.settings)["skipped_phases"] == 1


def test_two_measured_phases_are_a_located_error_naming_them() -> None:
    raw = _phased(PROFILING_0_10, {**PROFILING_0_10, "name": "second", "kind": "profiling"})
    assert _load(raw) == (
        None,
        [
            "/input_config/phases: error: 2 measured phases (profiling, second); reportgen reads "
            "one load point per file: AIPerf's statistics in one summary cannot be split by phase"
        ],
    )


def test_an_unknown_layout_version_is_read_with_a_warning() -> None:
    raw = _real()
    raw["schema_version"] = "2.0"
    run, problems = _load(raw)
    assert run is not None
    assert problems == [
        "/schema_version: warning: AIPerf's file layout version '2.0' is not one reportgen has "
        "seen (1.0 to 1.4); read by its layout, which validated: compare a few of its numbers "
        "with AIPerf's own output"
    ]


def test_a_pre_release_summary_is_refused_saying_what_it_is() -> None:
    raw = {
        "input_config": {"endpoint": {"type": "openai", "streaming": True}},
        "records": {
            "Time to First Token": {"name": "Time to First Token", "unit": "ms", "avg": 30.0},
        },
        "was_cancelled": False,
        "start_time": "2025-06-26T20:43:27.296047",
        "end_time": "2025-06-26T20:43:33.964405",
    }
    assert _load(raw) == (None, [f"/: error: {summary.PRERELEASE}"])
    assert "0.1.1 or later" in summary.PRERELEASE


def test_a_genai_perf_file_is_not_taken_for_an_unversioned_aiperf_one() -> None:
    raw = json.loads((VALID / "genai-perf-c1.json").read_text())
    assert summary.detect(raw) is None
    raw["input_config"] = _user_config()  # still no start_time: GenAI-Perf never writes one
    assert summary.detect(raw) is None


def test_an_aiperf_csv_is_named_with_the_file_to_read_instead() -> None:
    csv = "Metric,avg,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\nTime to First Token (ms),1\n"
    found = summary.not_a_run_file(csv)
    assert found is not None
    assert found.startswith("this is an AIPerf CSV summary (profile_export_aiperf.csv)")
    assert "profile_export_aiperf.json" in found.split(";")[1]
    assert summary.not_a_run_file("\ufeff" + csv.replace("Metric", "metric")) == found
    assert summary.not_a_run_file((VALID / "aiperf-c1.json").read_text()) is None
    assert summary.not_a_run_file("Metric,Value\nRequest Count,6\n") is None
    # AIPerf 0.8 on writes a sum column; the percentiles still rise
    assert summary.not_a_run_file(csv.replace("max,", "max,sum,")) == found
    # GenAI-Perf's CSV lists them falling, from p99: it is GenAI-Perf's to name
    falling = "Metric,avg,min,max,p99,p95,p90,p75,p50,p25\nTime To First Token (ms),1\n"
    assert summary.not_a_run_file(falling) is None


@pytest.mark.slow
def test_mutating_an_old_layout_never_crashes() -> None:
    for made in (_unversioned(), _records()):
        for key in list(made):
            broken = copy.deepcopy(made)
            broken[key] = {"unit": "ms"} if not isinstance(made[key], dict) else []
            run, problems = _load(broken)
            assert run is not None or problems, key


@pytest.mark.skipif(
    not UNVERSIONED.is_file(), reason=f"the real unversioned AIPerf file is not at {WILD}"
)
def test_the_real_unversioned_file_gives_its_own_headline_numbers() -> None:
    raw = json.loads(UNVERSIONED.read_text())
    result = load([UNVERSIONED])
    assert [f"{p.pointer or '/'}: {p.severity}: {p.message}" for p in result.problems] == [
        NO_VERSION
    ]
    (run,) = result.runs
    assert isinstance(run, SweepRun)
    (point,) = run.points
    assert point.concurrency == raw["input_config"]["loadgen"]["concurrency"]
    values = _values(run)
    label = point.label
    for metric, quantity in (("time_to_first_token", "ttft_s"), ("inter_token_latency", "itl_s")):
        assert raw[metric]["unit"] == "ms"
        own = raw[metric]["p50"] / 1000
        assert values[f"load.{label}.{quantity}"].value == pytest.approx(own, rel=1e-12)
    own_rate = raw["output_token_throughput"]["avg"]
    assert values[f"load.{label}.output_tok_s"].value == pytest.approx(own_rate, rel=1e-9)
    assert values[f"load.{label}.requests"].value == raw["request_count"]["avg"]


def test_the_0_8_example_divides_by_benchmark_duration_and_names_rate_and_cap() -> None:
    raw = json.loads((VALID / "aiperf-0.8-r2-c8.json").read_text())
    run, problems = _load(raw)
    assert run is not None and problems == []
    (point,) = run.points
    assert (point.label, point.strategy) == ("r2-c8", "constant rate")
    assert point.duration_s == raw["benchmark_duration"]["avg"]
    assert point.output_tokens == raw["total_osl"]["avg"]
    out = _values(run)["load.r2-c8.output_tok_s"]
    assert out.value == pytest.approx(raw["output_token_throughput"]["avg"], rel=1e-12)


def test_a_file_that_counts_no_request_is_an_error_not_an_empty_point() -> None:
    raw = _unversioned()
    for key in ("request_count", "time_to_first_token", "inter_token_latency"):
        raw[key] = None  # AIPerf 0.2 and 0.3 write null for a metric without a value
    assert _load(raw) == (
        None,
        [
            NO_VERSION,
            "/: error: no request counted: request_count and error_request_count are both "
            "missing, null or 0, so the file measured nothing",
        ],
    )


@pytest.mark.parametrize(
    ("given", "label", "strategy"),
    [
        ({"fixed_schedule": True}, "fixed-schedule", "fixed_schedule"),
        ({}, "unstated", "not stated in the file (no concurrency or request rate)"),
    ],
)
def test_a_user_config_without_a_load_is_labelled_by_what_it_says(
    given: dict[str, Any], label: str, strategy: str
) -> None:
    raw = _unversioned()
    raw["input_config"] = _user_config(None)
    raw["input_config"]["input"] |= given
    run, problems = _load(raw)
    assert run is not None and problems == [NO_VERSION]
    (point,) = run.points
    assert (point.label, point.strategy, point.concurrency, point.rate) == (
        label,
        strategy,
        None,
        None,
    )


@pytest.mark.parametrize(
    "pointer",
    ["/input_config/input/prompt/input_tokens/mean", "/input_config/loadgen/concurrency"],
)
def test_an_integer_no_float_holds_is_a_located_error_not_a_crash(pointer: str) -> None:
    """Found by hypothesis: a configured length or concurrency of 10**400 crashed the reader."""
    raw = json.loads((VALID / "aiperf-0.8-r2-c8.json").read_bytes())
    node = raw
    *parents, last = pointer.strip("/").split("/")
    for key in parents:
        node = node[key]
    node[last] = "HUGE"
    text = json.dumps(raw).replace('"HUGE"', "1" + "0" * 400).encode()
    with pytest.raises(InputError) as caught:
        parse_json("aiperf.json", text)
    (problem,) = caught.value.problems
    assert (problem.pointer, problem.message) == (pointer, TOO_LARGE)
