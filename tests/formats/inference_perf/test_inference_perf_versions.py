"""inference-perf's stage files across its versions: read by their layout, never by a version
(the files record none).

- 0.5 and later (`successes.token_count_mismatches`, `benchmark_time_seconds`): per-token TPOT,
  tests/formats/inference_perf/test_inference_perf.py;
- 0.3 to 0.4 and 0.1.1 to 0.2 (neither key): TPOT timed streamed events or lines, so ITL is
  left out with a warning, and the stage's time span is successes.count / requests_per_sec;
  0.1 writes `p50` for the median; 0.1.0 records the request count alone in `load_summary`;
- the pooled summary and the Prometheus reports are refused, naming the files to read.

The examples (tests/examples/invalid/inference-perf-0.*.json, inference-perf-prometheus-file.json)
were written by hand for these tests, with invented numbers, in the layouts inference-perf's
source wrote at those versions. The real file, the project's own KubeCon NA 2025 demo results
(November 2025), is read from ../shared/samples/wild/ and skipped where that folder is absent.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from reportgen.article.build import build
from reportgen.check.compare import check_article
from reportgen.formats.inference_perf import lifecycle
from reportgen.formats.json_input.document import parse_json
from reportgen.formats.load import load_document
from reportgen.init.scaffold import scaffold
from reportgen.metrics.compute import compute
from reportgen.metrics.registry import MetricValue
from reportgen.model import SweepRun

TESTS = Path(__file__).resolve().parents[2]
INVALID = TESTS / "examples" / "invalid"
VALID = TESTS / "examples" / "valid"
WILD = Path(__file__).resolve().parents[4] / "shared" / "samples" / "wild"
KUBECON = WILD / "inference-perf-2025-11-kubecon-vllm-stage_2_lifecycle_metrics.json"
LATENCY = "/successes/latency"
TPOT_WARNING = "is no time per token: the file has no successes.token_count_mismatches"


def _example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((INVALID / name).read_text(encoding="utf-8"))
    return data


def _load(data: dict[str, Any], label: str) -> tuple[SweepRun | None, list[str]]:
    doc = parse_json(label, json.dumps(data).encode())
    run, problems = load_document(doc)
    assert run is None or isinstance(run, SweepRun)
    return run, [f"{p.pointer or '/'}: {p.severity}: {p.message}" for p in problems]


def _values(run: SweepRun) -> dict[str, MetricValue]:
    return {v.id: v for v in compute([run]).values}


def _the_tools_numbers_before_0_5(raw: dict[str, Any], run: SweepRun, label: str) -> None:
    """TTFT, latency and throughput are inference-perf's own; ITL is not given; the time span
    is successes.count / requests_per_sec, and the client's tokens over it give the tool's
    throughput."""
    values = _values(run)
    successes = raw["successes"]
    latency = successes["latency"]
    median = "median" if "median" in latency["time_to_first_token"] else "p50"
    for metric, quantity in (("time_to_first_token", "ttft_s"), ("request_latency", "latency_s")):
        found = values[f"load.{label}.{quantity}"]
        assert found.value == latency[metric][median]  # seconds, as written
        assert (found.source, found.pointer) == ("summary", f"{LATENCY}/{metric}/{median}")
        p90 = values[f"load.{label}.{quantity}.p90"]
        assert (p90.value, p90.pointer) == (latency[metric]["p90"], f"{LATENCY}/{metric}/p90")
    assert not [k for k in values if ".itl_s" in k or ".per_request_tok_s" in k]
    (point,) = run.points
    throughput = successes["throughput"]
    assert point.duration_s == pytest.approx(successes["count"] / throughput["requests_per_sec"])
    assert point.output_tokens == round(successes["output_len"]["mean"] * successes["count"])
    assert run.settings["output_tokens_counted_by"] == "client tokenizer"
    out = values[f"load.{label}.output_tok_s"]
    assert out.value == pytest.approx(throughput["output_tokens_per_sec"], rel=1e-6)
    assert out.summary == throughput["output_tokens_per_sec"]
    requests = values[f"load.{label}.request_s"].value
    assert requests == pytest.approx(throughput["requests_per_sec"], rel=1e-12)
    assert values[f"load.{label}.failed"].value == raw["failures"]["count"]
    assert dict(run.definitions) == dict(lifecycle.EVENT_DEFINITIONS)


# --- the real file: inference-perf of November 2025 ------------------------------------------


@pytest.mark.skipif(not KUBECON.is_file(), reason=f"no real files here: {WILD} is absent")
def test_the_kubecon_2025_stage_file_reads_with_the_tools_own_numbers() -> None:
    raw = json.loads(KUBECON.read_text(encoding="utf-8"))
    assert "benchmark_time_seconds" not in raw and "token_count_mismatches" not in raw["successes"]
    run, problems = _load(raw, KUBECON.name)
    assert run is not None
    (problem,) = problems
    assert problem.startswith(f"{LATENCY}/time_per_output_token/median: warning: ")
    assert TPOT_WARNING in problem
    rate = raw["load_summary"]["requested_rate"]
    (point,) = run.points
    assert (point.label, point.rate, point.strategy) == (f"r{rate:g}", rate, "request rate")
    _the_tools_numbers_before_0_5(raw, run, f"r{rate:g}")


@pytest.mark.skipif(not KUBECON.is_file(), reason=f"no real files here: {WILD} is absent")
def test_the_kubecon_tpot_is_per_line_about_half_the_time_per_token() -> None:
    """Why its TPOT is left out: the 2025 client timed every line of the stream, a blank one
    after each event, so its TPOT is about half of (latency - TTFT) / (tokens - 1)."""
    latency = json.loads(KUBECON.read_text(encoding="utf-8"))["successes"]["latency"]
    tokens = json.loads(KUBECON.read_text(encoding="utf-8"))["successes"]["output_len"]["median"]
    decode = latency["request_latency"]["median"] - latency["time_to_first_token"]["median"]
    per_token = decode / (tokens - 1)
    assert latency["time_per_output_token"]["median"] / per_token == pytest.approx(0.5, abs=0.05)


# --- hand-made files of the older layouts -----------------------------------------------------


def test_a_0_3_stage_file_reads_by_its_layout() -> None:
    raw = _example("inference-perf-0.3-event-tpot.json")
    run, problems = _load(raw, "stage_1_lifecycle_metrics.json")
    assert run is not None
    assert [p.split(": warning: ")[0] for p in problems] == [
        f"{LATENCY}/time_per_output_token/median"
    ]
    _the_tools_numbers_before_0_5(raw, run, "r4")


def test_a_0_1_stage_file_reads_its_p50_as_the_median() -> None:
    raw = _example("inference-perf-0.1-p50.json")
    assert "median" not in raw["successes"]["latency"]["time_to_first_token"]
    run, problems = _load(raw, "stage_0_lifecycle_metrics.json")
    assert run is not None
    (problem,) = problems
    assert problem.startswith(f"{LATENCY}/time_per_output_token/p50: warning: ")
    _the_tools_numbers_before_0_5(raw, run, "r4")
    (point,) = run.points
    assert (point.requests_ok, point.requests_failed) == (18, 2)
    assert point.prompt_tokens == 256  # from prompt_len, as 0.6 and earlier name it


def test_a_0_1_0_file_with_the_count_alone_is_read_as_its_named_stage() -> None:
    raw = _example("inference-perf-0.1-no-load.json")
    run, problems = _load(raw, "results/stage_3_lifecycle_metrics.json")
    assert run is not None and run.points[0].label == "stage-3"
    assert problems[0] == (
        "/load_summary: warning: load_summary records the request count only, as "
        "inference-perf 0.1.0 wrote it: the file does not record the stage's load; the load "
        "point is labelled 'stage-3', by its stage in the file name"
    )
    run, problems = _load(raw, "results/summary_lifecycle_metrics.json")
    assert run is None and problems == [f"/load_summary: error: {lifecycle.POOLED}"]
    run, problems = _load(raw, "renamed.json")
    assert run is None
    (problem,) = problems
    assert problem.startswith("/load_summary: error: load_summary records no load")
    assert "cannot tell which this is" in problem


def test_a_0_5_file_with_prompt_len_and_no_server_count_reads_its_tpot_as_itl() -> None:
    """0.5.0: benchmark_time_seconds and token_count_mismatches, but prompt_len and no
    output_tokens yet (server usage came in 0.6)."""
    raw = json.loads((VALID / "inference-perf-c4.json").read_text(encoding="utf-8"))
    successes = raw["successes"]
    successes["prompt_len"] = successes.pop("prompt_tokens")
    del successes["output_tokens"]
    run, problems = _load(raw, "stage_0_lifecycle_metrics.json")
    assert run is not None and problems == []
    values = _values(run)
    assert values["load.c4.itl_s"].value == successes["latency"]["time_per_output_token"]["median"]
    assert run.points[0].duration_s == raw["benchmark_time_seconds"]
    assert dict(run.definitions) == dict(lifecycle.DEFINITIONS)


def test_a_percentile_list_without_the_median_leaves_the_median_out() -> None:
    raw = _example("inference-perf-0.3-event-tpot.json")
    for stats in raw["successes"]["latency"].values():
        del stats["median"]
    run, _ = _load(raw, "stage_1_lifecycle_metrics.json")
    assert run is not None
    values = _values(run)
    assert "load.r4.ttft_s" not in values
    p90 = raw["successes"]["latency"]["time_to_first_token"]["p90"]
    assert values["load.r4.ttft_s.p90"].value == p90


def test_an_old_stage_where_no_request_succeeded_has_no_time_span() -> None:
    raw = _example("inference-perf-0.1-p50.json")
    successes = raw["successes"]
    raw["failures"]["count"] = raw["load_summary"]["count"]
    successes["count"] = 0
    successes["latency"] = {metric: None for metric in successes["latency"]}
    successes["throughput"] = {key: 0.0 for key in successes["throughput"]}
    successes["output_len"] = successes["prompt_len"] = None
    run, problems = _load(raw, "stage_0_lifecycle_metrics.json")
    assert run is not None
    (point,) = run.points
    assert (point.status, point.duration_s, point.requests_failed) == ("failed", None, 20)
    assert [p.split(": ")[0] for p in problems] == ["/successes/count"]


# --- refused, with the file to read instead ---------------------------------------------------


def test_the_prometheus_report_is_named_and_refused() -> None:
    raw = _example("inference-perf-prometheus-file.json")
    run, problems = _load(raw, "stage_0_prometheus_metrics.json")
    assert run is None and problems == [f"/: error: {lifecycle.PROMETHEUS}"]
    assert "Read the stage_N_lifecycle_metrics.json files" in lifecycle.PROMETHEUS


def test_a_0_1_1_pooled_summary_is_refused_by_its_schedule_without_a_stage_load() -> None:
    raw = _example("inference-perf-0.1-p50.json")
    delays = raw["load_summary"]["schedule_accuracy"]
    raw["load_summary"] = {"count": 20, "schedule_accuracy": delays}
    assert _load(raw, "x.json") == (None, [f"/: error: {lifecycle.POOLED}"])


def test_breaking_an_old_file_never_crashes() -> None:
    raw = _example("inference-perf-0.3-event-tpot.json")
    paths: list[tuple[str, ...]] = [(key,) for key in raw]
    paths += [("successes", key) for key in raw["successes"]]
    paths += [("successes", "throughput", key) for key in raw["successes"]["throughput"]]
    paths += [("successes", "latency", "time_to_first_token", "median")]
    for path in paths:
        wrong: object
        for wrong in ([], "x", -1, None, {}, 0):
            broken = copy.deepcopy(raw)
            node = broken
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = wrong
            run, problems = _load(broken, "stage_1_lifecycle_metrics.json")
            assert run is not None or problems, path


# --- an article of an old file ----------------------------------------------------------------


@pytest.mark.pdf
def test_an_article_of_a_0_3_stage_file_builds_checks_and_names_its_definitions(
    tmp_path: Path,
) -> None:
    source = tmp_path / "stage_1_lifecycle_metrics.json"
    source.write_bytes((INVALID / "inference-perf-0.3-event-tpot.json").read_bytes())
    folder, out = tmp_path / "article", tmp_path / "build"
    scaffold(folder, [source], title="inference-perf 0.3")
    target = build(folder, out)
    metrics = json.loads((target / "metrics.json").read_text(encoding="utf-8"))["metrics"]
    shown = {m["id"]: m["value"] for m in metrics}
    own = _example("inference-perf-0.3-event-tpot.json")["successes"]
    assert shown["load.r4.ttft_s"] == own["latency"]["time_to_first_token"]["median"]
    assert not [k for k in shown if ".itl_s" in k]
    page = (target / "index.html").read_text(encoding="utf-8")
    assert "inference-perf 0.4 and earlier timed every streamed line" in page
    result = check_article(folder, build_dir=out)
    assert not result.failed, [i.message for i in result.items]


def test_a_file_near_the_layout_names_what_it_lacks() -> None:
    raw = _example("inference-perf-no-failures.json")
    run, problems = _load(raw, "stage_0_lifecycle_metrics.json")
    assert run is None
    (problem,) = problems
    assert problem.startswith("/: error: near an inference-perf stage_N_lifecycle_metrics.json")
    assert "it lacks failures, which" in problem
    assert "load_summary" in raw and "successes" in raw  # never named as lacking
    assert lifecycle.detect({"load_summary": {}}) is None  # too far to be named
