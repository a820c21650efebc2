"""GenAI-Perf `profile_export_genai_perf.json` files: one load point each, from GenAI-Perf's own
statistics, checked on the files real GenAI-Perf 0.0.16 runs wrote
(tests/data/realtools/genai-perf/, c1 and c4)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from helpers_articles import acknowledge, replace_drafts

from reportgen.check.compare import check_article
from reportgen.cli.main import main
from reportgen.formats import genai_perf
from reportgen.formats.json_input.document import parse_json
from reportgen.formats.load import load_document
from reportgen.formats.registry import FORMATS
from reportgen.metrics.compute import compute
from reportgen.metrics.registry import MetricValue
from reportgen.model import SweepRun

TESTS = Path(__file__).resolve().parents[1]
REAL = TESTS / "data" / "realtools" / "genai-perf"
VALID = TESTS / "examples" / "valid"
POINTS = ("c1", "c4")
TIMES = {
    "time_to_first_token": "ttft_s",
    "inter_token_latency": "itl_s",
    "request_latency": "latency_s",
}
STATS = {"p50": "", "p90": ".p90", "p95": ".p95", "p99": ".p99", "avg": ".mean"}
STATS |= {"min": ".min", "max": ".max"}


def _raw(point: str) -> dict[str, Any]:
    path = REAL / point / "profile_export_genai_perf.json"
    data: dict[str, Any] = json.loads(path.read_text())
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
def test_the_real_file_is_one_load_point_at_its_stimulus(point: str) -> None:
    raw = _raw(point)
    run, problems = _load(raw)
    assert run is not None and problems == []
    (loaded,) = run.points
    stimulus = raw["input_config"]["perf_analyzer"]["stimulus"]
    command = json.loads((REAL / point / "COMMAND.json").read_text())
    assert loaded.concurrency == stimulus["concurrency"] == command["load"]["concurrency"]
    assert (loaded.label, loaded.rate, loaded.strategy) == (point, None, "concurrency limit")
    # the file records no GenAI-Perf version: the tool is named alone, as for vLLM's files
    assert (run.source.tool, run.source.format_version) == ("genai-perf", "")
    assert run.model == raw["input_config"]["model_names"][0]
    assert loaded.requests_failed == 0 and loaded.samples == ()


@pytest.mark.parametrize("point", POINTS)
def test_latencies_are_genai_perfs_own_statistics_in_seconds(point: str) -> None:
    raw = _raw(point)
    values = _values(raw)
    for metric, quantity in TIMES.items():
        assert raw[metric]["unit"] == "ms"
        for stat, suffix in STATS.items():
            found = values[f"load.{point}.{quantity}{suffix}"]
            assert found.value == pytest.approx(raw[metric][stat] / 1000, rel=1e-12)
            assert (found.source, found.pointer) == ("summary", f"/{metric}/{stat}")
            assert found.n == raw["request_count"]["avg"]  # GenAI-Perf writes no count
    per_user = raw["output_token_throughput_per_user"]
    assert per_user["unit"] == "tokens/sec/user"
    for stat, suffix in STATS.items():
        found = values[f"load.{point}.per_request_tok_s{suffix}"]
        assert found.value == pytest.approx(per_user[stat], rel=1e-12)


@pytest.mark.parametrize("point", POINTS)
def test_throughput_is_genai_perfs_and_the_duration_is_read_from_it(point: str) -> None:
    raw = _raw(point)
    values = _values(raw)
    out = values[f"load.{point}.output_tok_s"]
    assert out.value == pytest.approx(raw["output_token_throughput"]["avg"], rel=1e-9)
    assert out.summary_pointer == "/output_token_throughput/avg"
    assert values[f"load.{point}.request_s"].value == pytest.approx(
        raw["request_throughput"]["avg"], rel=1e-12
    )
    assert values[f"load.{point}.requests"].value == raw["request_count"]["avg"]
    run, _ = _load(raw)
    assert run is not None
    (loaded,) = run.points
    count = raw["request_count"]["avg"]
    assert loaded.duration_s == pytest.approx(count / raw["request_throughput"]["avg"])
    assert loaded.output_tokens == raw["output_sequence_length"]["avg"] * count


def test_the_configured_lengths_are_the_load_points_axes() -> None:
    raw = _raw("c4")
    run, _ = _load(raw)
    assert run is not None
    given = raw["input_config"]["input"]
    assert run.points[0].prompt_tokens == given["synthetic_tokens"]["mean"]
    assert run.points[0].max_tokens == given["output_tokens"]["mean"]
    raw["input_config"]["input"]["prompt_source"] = "file"
    run, _ = _load(raw)
    assert run is not None and run.points[0].prompt_tokens is None


def test_a_request_rate_stimulus_is_labelled_by_its_rate() -> None:
    raw = _raw("c1")
    raw["input_config"]["perf_analyzer"]["stimulus"] = {"request_rate": 1.5}
    run, problems = _load(raw)
    assert run is not None and problems == []
    (loaded,) = run.points
    assert (loaded.label, loaded.rate, loaded.concurrency, loaded.strategy) == (
        "r1.5",
        1.5,
        None,
        "request rate",
    )


def test_a_stimulus_that_names_no_load_is_a_located_error() -> None:
    raw = _raw("c1")
    raw["input_config"]["perf_analyzer"]["stimulus"] = {"session_concurrency": 2}
    assert _load(raw)[1] == [
        "/input_config/perf_analyzer/stimulus: error: {'session_concurrency': 2} is not a load: "
        '{"concurrency": N} with N at least 1, or {"request_rate": R} with R above 0 requests '
        "per second"
    ]


def test_a_throughput_that_disagrees_with_its_tokens_is_a_warning() -> None:
    raw = _raw("c4")
    raw["output_token_throughput"]["avg"] *= 2
    run, problems = _load(raw)
    assert run is not None
    (problem,) = problems
    assert problem.startswith("/output_token_throughput/avg: warning: output_token_throughput")
    assert "(request_count / request_throughput)" in problem


def test_no_completed_request_is_a_failed_load_point() -> None:
    raw = _raw("c1")
    raw["request_count"]["avg"] = 0
    raw["request_throughput"]["avg"] = 0.0
    raw["output_token_throughput"]["avg"] = 0.0
    run, problems = _load(raw)
    assert run is not None and problems == []
    assert (run.points[0].status, run.points[0].duration_s) == ("failed", None)


def test_detection_claims_only_genai_perf_files() -> None:
    for path in sorted(VALID.glob("*.json")):
        data = json.loads(path.read_text())
        if isinstance(data, list):
            continue  # a top-level list (llama-bench) is offered only to list formats
        claimed = [f.name for f in FORMATS if f.detect(data) is not None]
        if path.name.startswith("genai-perf-"):
            assert claimed == ["genai-perf"], path.name
        else:
            assert "genai-perf" not in claimed, path.name
    for point in POINTS:
        assert [f.name for f in FORMATS if f.detect(_raw(point))] == ["genai-perf"]
    # perf_analyzer's raw profile_export.json, written beside it, is not a summary
    raw = json.loads((REAL / "c1" / "profile_export.json").read_text())
    assert genai_perf.detect(raw) is None


def test_the_examples_are_the_real_files() -> None:
    for point in POINTS:
        real = (REAL / point / "profile_export_genai_perf.json").read_bytes()
        assert (VALID / f"genai-perf-{point}.json").read_bytes() == real


@pytest.mark.pdf
def test_init_builds_and_checks_an_article_from_the_real_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [str(REAL / p / "profile_export_genai_perf.json") for p in POINTS]
    folder, out = tmp_path / "article", tmp_path / "build"
    assert main(["init", str(folder), "--from", *files]) == 0, capsys.readouterr().err
    replace_drafts(folder)  # --strict fails on init's draft text until the author replaces it
    # and on its findings until the author reviews them: 6 and 12 requests hold no p99
    acknowledge(folder, "percentile-too-few-samples", "A p99 over 6 or 12 requests: shown so.")
    assert main(["build", str(folder), "--out", str(out)]) == 0, capsys.readouterr().err
    built = json.loads((out / folder.name / "metrics.json").read_text())["metrics"]
    shown = {m["id"]: m["value"] for m in built}
    itl = _raw("c4")["inter_token_latency"]["p50"]
    assert shown["load.c4.itl_s"] == pytest.approx(itl / 1000)
    assert main(["check", str(folder), "--build-dir", str(out), "--strict"]) == 0
    assert "PASS" in capsys.readouterr().out
    result = check_article(folder, build_dir=out, strict=True)
    assert not result.failed, [i.message for i in result.items]


def test_mutating_a_real_file_never_crashes() -> None:
    raw = _raw("c4")
    for key in list(raw):
        broken = copy.deepcopy(raw)
        broken[key] = {"unit": "ms"} if not isinstance(raw[key], dict) else []
        run, problems = _load(broken)
        assert run is not None or problems, key
