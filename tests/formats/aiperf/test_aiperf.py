"""AIPerf `profile_export_aiperf.json` files: one load point each, from AIPerf's own statistics,
checked on the files real AIPerf 0.13 runs wrote (tests/data/realtools/aiperf/, c1 and c4)."""

from __future__ import annotations

import copy
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from helpers_articles import acknowledge, replace_drafts

from reportgen.check.compare import check_article
from reportgen.cli.main import main
from reportgen.formats.aiperf import summary
from reportgen.formats.json_input.document import parse_json
from reportgen.formats.load import load_document
from reportgen.formats.registry import FORMATS
from reportgen.metrics.compute import compute
from reportgen.metrics.registry import MetricValue
from reportgen.model import SweepRun

TESTS = Path(__file__).resolve().parents[2]
REAL = TESTS / "data" / "realtools" / "aiperf"
VALID = TESTS / "examples" / "valid"
POINTS = ("c1", "c4")
# AIPerf's metric -> reportgen's metric, for the latencies (ms in the file, s in reportgen)
TIMES = {
    "time_to_first_token": "ttft_s",
    "inter_token_latency": "itl_s",
    "request_latency": "latency_s",
}
STATS = {"p50": "", "p90": ".p90", "p95": ".p95", "p99": ".p99", "avg": ".mean"}
STATS |= {"min": ".min", "max": ".max"}


def _raw(point: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REAL / point / "profile_export_aiperf.json").read_text())
    return data


def _command(point: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REAL / point / "COMMAND.json").read_text())
    return data


def _load(data: dict[str, Any]) -> tuple[SweepRun | None, list[str]]:
    doc = parse_json("run.json", json.dumps(data, indent=2).encode())
    run, problems = load_document(doc)
    assert run is None or isinstance(run, SweepRun)
    return run, [f"{p.pointer or '/'}: {p.severity}: {p.message}" for p in problems]


def _values(data: dict[str, Any]) -> dict[str, MetricValue]:
    run, problems = _load(data)
    assert run is not None and problems == [], problems
    return {v.id: v for v in compute([run]).values}


@pytest.mark.parametrize("point", POINTS)
def test_the_real_file_is_one_load_point_at_its_concurrency(point: str) -> None:
    raw = _raw(point)
    run, problems = _load(raw)
    assert run is not None and problems == []
    (phase,) = raw["input_config"]["phases"]
    (loaded,) = run.points
    assert loaded.concurrency == phase["concurrency"] == _command(point)["load"]["concurrency"]
    assert (loaded.label, loaded.rate, loaded.strategy) == (point, None, "concurrency limit")
    assert run.source.tool == f"aiperf {raw['aiperf_version']}"
    assert run.source.format_version == _command(point)["tool_version"]
    assert run.model == raw["input_config"]["models"]["items"][0]["name"]
    assert loaded.samples == ()  # the summary has no per-request records


@pytest.mark.parametrize("point", POINTS)
def test_latencies_are_aiperfs_own_statistics_in_seconds(point: str) -> None:
    raw = _raw(point)
    values = _values(raw)
    for metric, quantity in TIMES.items():
        assert raw[metric]["unit"] == "ms"
        for stat, suffix in STATS.items():
            found = values[f"load.{point}.{quantity}{suffix}"]
            assert found.value == pytest.approx(raw[metric][stat] / 1000, rel=1e-12)
            assert (found.source, found.pointer) == ("summary", f"/{metric}/{stat}")
            assert found.n == raw[metric]["count"]


@pytest.mark.parametrize("point", POINTS)
def test_per_request_speed_is_output_token_throughput_per_user(point: str) -> None:
    raw = _raw(point)
    own = raw["output_token_throughput_per_user"]
    assert own["unit"] == "tokens/sec/user"
    values = _values(raw)
    for stat, suffix in STATS.items():
        found = values[f"load.{point}.per_request_tok_s{suffix}"]
        assert found.value == pytest.approx(own[stat], rel=1e-12)


@pytest.mark.parametrize("point", POINTS)
def test_throughput_is_aiperfs_over_the_phase_window(point: str) -> None:
    raw = _raw(point)
    values = _values(raw)
    out = values[f"load.{point}.output_tok_s"]
    assert out.value == pytest.approx(raw["output_token_throughput"]["avg"], rel=1e-6)
    assert (out.summary, out.summary_pointer) == (
        raw["output_token_throughput"]["avg"],
        "/output_token_throughput/avg",
    )
    assert values[f"load.{point}.request_s"].value == pytest.approx(
        raw["request_throughput"]["avg"], rel=1e-6
    )
    assert values[f"load.{point}.requests"].value == raw["request_count"]["avg"]
    assert values[f"load.{point}.failed"].value == raw.get("error_request_count", {"avg": 0})["avg"]
    run, _ = _load(raw)
    assert run is not None
    (loaded,) = run.points
    start, end = (dt.datetime.fromisoformat(raw[k]) for k in ("start_time", "end_time"))
    assert loaded.duration_s == (end - start).total_seconds()
    assert loaded.output_tokens == raw["total_osl"]["avg"]
    # AIPerf's benchmark_duration (first request to last response) is not what it divides by
    assert raw["benchmark_duration"]["unit"] == "sec"
    assert raw["benchmark_duration"]["avg"] < loaded.duration_s
    assert run.settings["benchmark_duration_s"] == raw["benchmark_duration"]["avg"]


def test_the_configured_lengths_are_the_load_points_axes() -> None:
    raw = _raw("c1")
    run, _ = _load(raw)
    assert run is not None
    prompts = raw["input_config"]["datasets"][0]["prompts"]
    assert run.points[0].prompt_tokens == prompts["isl"]["mean"]
    assert run.points[0].max_tokens == prompts["osl"]["mean"]
    raw["input_config"]["datasets"][0]["prompts"]["isl"]["stddev"] = 10.0
    run, _ = _load(raw)
    assert run is not None and run.points[0].prompt_tokens is None


def test_a_request_rate_phase_is_labelled_by_its_rate() -> None:
    raw = _raw("c1")
    raw["input_config"]["phases"] = [
        {"name": "warmup", "kind": "warmup", "type": "concurrency", "concurrency": 1},
        {"name": "profiling", "kind": "profiling", "type": "poisson", "rate": 2.5},
    ]
    run, problems = _load(raw)
    assert run is not None and problems == []
    (loaded,) = run.points
    assert (loaded.label, loaded.rate, loaded.concurrency, loaded.strategy) == (
        "r2.5",
        2.5,
        None,
        "poisson",
    )


def test_two_profiling_phases_are_a_located_error() -> None:
    raw = _raw("c1")
    raw["input_config"]["phases"] *= 2
    message = (
        "2 measured phases (profiling, profiling); reportgen reads one load point per file: "
        "AIPerf's statistics in one summary cannot be split by phase"
    )
    assert _load(raw) == (None, [f"/input_config/phases: error: {message}"])


def test_a_run_where_every_request_failed_keeps_aiperfs_words() -> None:
    raw = _raw("c1")
    for key in (*TIMES, "request_count", "output_token_throughput_per_user"):
        del raw[key]
    raw["error_request_count"] = {"unit": "requests", "avg": 6.0}
    raw["error_summary"] = [
        {"error_details": {"type": "ClientOSError", "message": "Cannot connect"}, "count": 6}
    ]
    run, problems = _load(raw)
    assert run is not None and problems == []
    (loaded,) = run.points
    assert (loaded.status, loaded.reason, loaded.requests_failed) == ("failed", "Cannot connect", 6)
    del raw["error_request_count"]
    assert _load(raw)[1] == ["/: error: 'error_request_count' is required"]


def test_a_throughput_that_disagrees_with_tokens_over_the_window_is_a_warning() -> None:
    raw = _raw("c4")
    raw["output_token_throughput"]["avg"] = raw["benchmark_duration"]["avg"]
    run, problems = _load(raw)
    assert run is not None
    (problem,) = problems
    assert problem.startswith("/output_token_throughput/avg: warning: output_token_throughput")
    assert f"{raw['total_osl']['avg']:g} output tokens (total_osl)" in problem


def test_end_time_before_start_time_is_a_located_error() -> None:
    raw = _raw("c1")
    raw["start_time"], raw["end_time"] = raw["end_time"], raw["start_time"]
    assert _load(raw)[1] == [
        f"/end_time: error: end_time {raw['end_time']} is not after start_time"
    ]
    raw["end_time"] = "2026-13-03T08:39:15"
    (problem,) = _load(raw)[1]
    assert problem.startswith("/start_time: error: start_time or end_time is not a date and time")


def test_a_cancelled_run_is_a_warning() -> None:
    raw = _raw("c1")
    raw["was_cancelled"] = True
    assert _load(raw)[1] == ["/was_cancelled: warning: the run was cancelled before it finished"]


@pytest.mark.parametrize(
    ("version", "untested"), [("0.13.2", False), ("0.8.0", False), ("0.7.0", True)]
)
def test_versions_outside_those_tested_are_read_with_one_warning(
    version: str, untested: bool
) -> None:
    raw = _raw("c1")
    raw["aiperf_version"] = version
    run, problems = _load(raw)
    assert run is not None and run.source.format_version == version
    assert problems == (
        [
            f"/aiperf_version: warning: written by aiperf {version}, outside the versions "
            "reportgen was tested on with real files (0.8.x to 0.13.x); read by its layout, "
            "which validated: compare a few of its numbers with the tool's own output"
        ]
        if untested
        else []
    )


def test_detection_claims_only_aiperf_files() -> None:
    for path in sorted(VALID.glob("*.json")):
        data = json.loads(path.read_text())
        if isinstance(data, list):
            continue  # a top-level list (llama-bench) is offered only to list formats
        claimed = [f.name for f in FORMATS if f.detect(data) is not None]
        if path.name.startswith("aiperf-"):
            assert claimed == ["aiperf"], path.name
        else:
            assert "aiperf" not in claimed, path.name
    for point in POINTS:
        assert [f.name for f in FORMATS if f.detect(_raw(point))] == ["aiperf"]
    assert summary.detect({"schema_version": "1.4", "benchmark_id": "x"}) is not None


def test_the_examples_are_the_real_files() -> None:
    for point in POINTS:
        real = (REAL / point / "profile_export_aiperf.json").read_bytes()
        assert (VALID / f"aiperf-{point}.json").read_bytes() == real


@pytest.mark.pdf
def test_init_builds_and_checks_an_article_from_the_real_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [str(REAL / p / "profile_export_aiperf.json") for p in POINTS]
    folder, out = tmp_path / "article", tmp_path / "build"
    assert main(["init", str(folder), "--from", *files]) == 0, capsys.readouterr().err
    replace_drafts(folder)  # --strict fails on init's draft text until the author replaces it
    # and on its findings until the author reviews them: 6 and 12 requests hold no p99
    acknowledge(folder, "percentile-too-few-samples", "A p99 over 6 or 12 requests: shown so.")
    assert main(["build", str(folder), "--out", str(out)]) == 0, capsys.readouterr().err
    built = json.loads((out / folder.name / "metrics.json").read_text())["metrics"]
    shown = {m["id"]: m["value"] for m in built}
    assert shown["load.c4.ttft_s.p99"] == pytest.approx(
        _raw("c4")["time_to_first_token"]["p99"] / 1000
    )
    assert main(["check", str(folder), "--build-dir", str(out), "--strict"]) == 0
    assert "PASS" in capsys.readouterr().out
    result = check_article(folder, build_dir=out, strict=True)
    assert not result.failed, [i.message for i in result.items]


@pytest.mark.slow
def test_mutating_a_real_file_never_crashes() -> None:
    raw = _raw("c4")
    for key in list(raw):
        broken = copy.deepcopy(raw)
        broken[key] = {"unit": "ms"} if not isinstance(raw[key], dict) else []
        run, problems = _load(broken)
        assert run is not None or problems, key
