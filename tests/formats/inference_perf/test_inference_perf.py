"""kubernetes-sigs inference-perf lifecycle reports: one stage file is one load point, read from
inference-perf's own statistics (seconds), checked on the files real inference-perf 0.7.0 wrote
against a llama.cpp server (tests/data/realtools/inference-perf/{c1,c4}/, COMMAND.json beside).

Every expected number is read from those files. The examples are made from them:

- tests/examples/valid/inference-perf-{c1,c4}.json: the real `stage_0_lifecycle_metrics.json`
  with one key dropped, `successes.latency.inter_token_latency` (`trimmed` below; the first test
  checks it). The real ITL statistics carry the known artefact (median 0.0), which is a warning,
  and a valid example must load without one; reportgen does not read them for any value.
- tests/examples/invalid/inference-perf-zero-median-itl.json: the real c4 stage file, byte for
  byte: its one line is that warning. inference-perf-summary-file.json: the real c4
  `summary_lifecycle_metrics.json`, refused (it records no load). The others are `trimmed(c1)`
  with one breakage each: `time_to_first_token` deleted (missing-ttft), `benchmark_time_seconds`
  set to the load summary's `send_duration` (throughput-disagrees), and the TTFT p90 and p95
  swapped (percentiles-out-of-order). Their `.expected` files are `reportgen validate`'s output
  in that folder (tests/cli/test_cli_validate.py runs them).
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import statistics
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from reportgen.article.build import build
from reportgen.check.compare import check_article
from reportgen.formats.inference_perf import lifecycle
from reportgen.formats.json_input.document import parse_json
from reportgen.formats.load import load, load_document
from reportgen.formats.registry import FORMATS, detect
from reportgen.init.scaffold import scaffold
from reportgen.metrics.compute import compute
from reportgen.metrics.lints import lint
from reportgen.metrics.registry import MetricValue
from reportgen.model import SweepRun

TESTS = Path(__file__).resolve().parents[2]
REAL = TESTS / "data" / "realtools" / "inference-perf"
VALID = TESTS / "examples" / "valid"
INVALID = TESTS / "examples" / "invalid"
POINTS = ("c1", "c4")
STAGE = "stage_0_lifecycle_metrics.json"
LATENCY = "/successes/latency"
# inference-perf's metric -> reportgen's quantity (both in seconds)
TIMES = {
    "time_to_first_token": "ttft_s",
    "time_per_output_token": "itl_s",
    "request_latency": "latency_s",
}
STATS = {"median": "", "mean": ".mean", "p90": ".p90", "p95": ".p95", "p99": ".p99"}
STATS |= {"min": ".min", "max": ".max"}


def _path(point: str, name: str = STAGE) -> Path:
    return REAL / point / name


def _raw(point: str, name: str = STAGE) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_path(point, name).read_text())
    return data


def _records(point: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(
        _path(point, "per_request_lifecycle_metrics.json").read_text()
    )
    return data


def _command(point: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_path(point, "COMMAND.json").read_text())
    return data


def trimmed(point: str) -> dict[str, Any]:
    """The real stage file without its (artefact-carrying) inter_token_latency statistics."""
    data = _raw(point)
    del data["successes"]["latency"]["inter_token_latency"]
    return data


def _load(data: dict[str, Any], label: str = STAGE) -> tuple[SweepRun | None, list[str]]:
    doc = parse_json(label, json.dumps(data, indent=2).encode())
    run, problems = load_document(doc)
    assert run is None or isinstance(run, SweepRun)
    return run, [f"{p.pointer or '/'}: {p.severity}: {p.message}" for p in problems]


def _loaded(data: dict[str, Any]) -> SweepRun:
    run, problems = _load(data)
    assert run is not None and problems == [], problems
    return run


def _values(data: dict[str, Any]) -> dict[str, MetricValue]:
    return {v.id: v for v in compute([_loaded(data)]).values}


# --- the examples are the real files -----------------------------------------------------------


@pytest.mark.parametrize("point", POINTS)
def test_the_valid_examples_are_the_real_files_trimmed(point: str) -> None:
    text = (VALID / f"inference-perf-{point}.json").read_text(encoding="utf-8")
    assert text == json.dumps(trimmed(point), indent=2)  # as inference-perf writes its JSON
    assert _path(point).read_text(encoding="utf-8") == json.dumps(_raw(point), indent=2)


def test_the_real_copies_among_the_invalid_examples_are_byte_for_byte() -> None:
    for example, real in (
        ("inference-perf-zero-median-itl.json", _path("c4")),
        ("inference-perf-summary-file.json", _path("c4", "summary_lifecycle_metrics.json")),
    ):
        assert (INVALID / example).read_bytes() == real.read_bytes()


# --- the real stage files ----------------------------------------------------------------------


@pytest.mark.parametrize("point", POINTS)
def test_the_stage_file_is_one_load_point_at_its_concurrency(point: str) -> None:
    raw = trimmed(point)
    run = _loaded(raw)
    (loaded,) = run.points
    concurrency = raw["load_summary"]["concurrency"]
    assert concurrency == _command(point)["load"]["concurrency"]
    assert (loaded.label, loaded.concurrency, loaded.rate) == (f"c{concurrency}", concurrency, None)
    assert (loaded.strategy, loaded.status, loaded.samples) == ("concurrency limit", "ok", ())
    assert loaded.requests_ok == raw["successes"]["count"] == _command(point)["load"]["requests"]
    assert loaded.requests_failed == raw["failures"]["count"]
    prompt = raw["successes"]["prompt_tokens"]
    assert loaded.prompt_tokens == prompt["min"] == prompt["max"]
    assert (run.engine, run.model) == (None, None)


@pytest.mark.parametrize("point", POINTS)
def test_the_files_record_no_version_so_the_tool_is_named_alone(point: str) -> None:
    run = _loaded(trimmed(point))
    assert (run.source.tool, run.source.format_version) == ("inference-perf", "")
    recorded = _command(point)["tool_version"]  # the harness's record, not the tool's
    for name in (STAGE, "summary_lifecycle_metrics.json", "per_request_lifecycle_metrics.json"):
        assert recorded not in _path(point, name).read_text()


@pytest.mark.parametrize("point", POINTS)
def test_latencies_are_inference_perfs_own_statistics_in_seconds(point: str) -> None:
    raw = trimmed(point)
    values = _values(raw)
    for metric, quantity in TIMES.items():
        own = raw["successes"]["latency"][metric]
        for stat, suffix in STATS.items():
            found = values[f"load.{point}.{quantity}{suffix}"]
            assert found.value == own[stat]  # seconds in, seconds out: not scaled at all
            assert found.unit == "s"
            assert (found.source, found.pointer) == ("summary", f"{LATENCY}/{metric}/{stat}")
    assert values[f"load.{point}.latency_s"].n == raw["successes"]["count"]


@pytest.mark.parametrize("point", POINTS)
def test_itl_is_the_per_request_tpot_and_per_request_speed_is_not_given(point: str) -> None:
    raw = _raw(point)
    run, _ = _load(raw)
    assert run is not None
    values = {v.id: v for v in compute([run]).values}
    latency = raw["successes"]["latency"]
    assert values[f"load.{point}.itl_s"].value == latency["time_per_output_token"]["median"]
    assert values[f"load.{point}.itl_s"].value != latency["inter_token_latency"]["median"]
    assert not [k for k in values if "per_request_tok_s" in k]
    definitions = dict(run.definitions)
    assert "time_per_output_token" in definitions["itl_s"]
    assert "inter_token_latency" in definitions["itl_s"]
    assert "not given" in definitions["per_request_tok_s"]


@pytest.mark.parametrize("point", POINTS)
def test_throughput_is_inference_perfs_over_benchmark_time_seconds(point: str) -> None:
    raw = trimmed(point)
    run = _loaded(raw)
    (loaded,) = run.points
    successes, seconds = raw["successes"], raw["benchmark_time_seconds"]
    assert loaded.duration_s == seconds
    # the tool counts output tokens with its client tokenizer here, not the server's usage
    client = round(successes["output_len"]["mean"] * successes["count"])
    assert client != successes["output_tokens"]["total"]
    assert loaded.output_tokens == client
    assert run.settings["output_tokens_counted_by"] == "client tokenizer"
    values = {v.id: v for v in compute([run]).values}
    out = values[f"load.{point}.output_tok_s"]
    own = successes["throughput"]["output_tokens_per_sec"]
    assert out.value == pytest.approx(own, rel=1e-12)
    assert (out.summary, out.summary_pointer) == (
        own,
        "/successes/throughput/output_tokens_per_sec",
    )
    requests = values[f"load.{point}.request_s"].value
    assert requests == pytest.approx(successes["throughput"]["requests_per_sec"], rel=1e-12)
    assert values[f"load.{point}.requests"].value == successes["count"]
    assert values[f"load.{point}.failed"].value == raw["failures"]["count"]
    assert values[f"load.{point}.concurrency"].value == raw["load_summary"]["concurrency"]


# --- the zero-median ITL artefact --------------------------------------------------------------


@pytest.mark.parametrize("point", POINTS)
def test_the_real_files_zero_median_itl_is_a_located_warning(point: str) -> None:
    raw = _raw(point)
    own = raw["successes"]["latency"]["inter_token_latency"]
    assert own["median"] == 0.0 < own["mean"]
    run, problems = _load(raw)
    assert run is not None  # a warning: the load point stands, its ITL from TPOT
    (problem,) = problems
    assert problem.startswith(
        f"{LATENCY}/inter_token_latency/median: warning: median ITL 0.0 s (mean {own['mean']:g} s)"
    )
    assert "output_token_times repeat chunk times" in problem
    # the cause, in the per-request records: every chunk time twice, so half the gaps are zero
    for record in _records(point):
        times = record["info"]["response_metrics"]
        chunks, tokens = times["chunk_times"], times["output_token_times"]
        assert tokens == [t for t in chunks for _ in range(2)]


def test_a_zero_median_tpot_leaves_itl_out_with_a_warning() -> None:
    raw = trimmed("c1")
    tpot = raw["successes"]["latency"]["time_per_output_token"]
    for key in tpot:
        tpot[key] = 0.0
    run, problems = _load(raw)
    assert run is not None
    (problem,) = problems
    assert problem.startswith(f"{LATENCY}/time_per_output_token/median: warning: median TPOT 0.0")
    values = {v.id for v in compute([run]).values}
    assert "load.c1.ttft_s" in values
    assert not [v for v in values if "itl_s" in v or "per_request_tok_s" in v]


# --- the definitions, against the per-request records -----------------------------------------


@pytest.mark.parametrize("point", POINTS)
def test_the_recorded_definitions_reproduce_the_tools_medians_from_its_records(point: str) -> None:
    """TTFT = first token time - start, latency = end - start, TPOT = (last - first token) /
    (client output tokens - 1), and the ITL statistics over the pooled gaps, each a difference
    on the records' monotonic clock (which is not epoch: far below the run's date)."""
    records = _records(point)
    own = _raw(point)["successes"]["latency"]
    ttft, latency, tpot, gaps = [], [], [], []
    for r in records:
        assert r["error"] is None
        times = r["info"]["response_metrics"]
        tokens, n = times["output_token_times"], times["output_tokens"]
        ttft.append(tokens[0] - r["start_time"])
        latency.append(r["end_time"] - r["start_time"])
        tpot.append((tokens[-1] - tokens[0]) / (n - 1))
        gaps += [b - a for a, b in pairwise(tokens)]
    for metric, found in (
        ("time_to_first_token", ttft),
        ("request_latency", latency),
        ("time_per_output_token", tpot),
        ("inter_token_latency", gaps),
    ):
        assert statistics.median(found) == pytest.approx(own[metric]["median"], rel=1e-12, abs=0)
        assert statistics.fmean(found) == pytest.approx(own[metric]["mean"], rel=1e-9)
    starts = [r["start_time"] for r in records]
    ends = [r["end_time"] for r in records]
    assert max(ends) - min(starts) == pytest.approx(
        _raw(point)["benchmark_time_seconds"], rel=1e-12
    )
    run_date = dt.datetime.fromisoformat(_command(point)["date_utc"]).timestamp()
    assert max(ends) < run_date / 1000  # a monotonic clock, never read as a date


# --- the other files, and other loads ----------------------------------------------------------


@pytest.mark.parametrize("point", POINTS)
def test_the_summary_file_is_refused_by_its_name_with_the_files_to_read(point: str) -> None:
    raw = _raw(point, "summary_lifecycle_metrics.json")
    assert "requested_rate" not in raw["load_summary"]
    for label in ("summary_lifecycle_metrics.json", "renamed.json"):  # by its layout, not name
        run, problems = _load(raw, label)
        assert run is None
        assert problems == [f"/: error: {lifecycle.POOLED}"]
    assert "this is inference-perf's summary_lifecycle_metrics.json" in lifecycle.POOLED
    assert "Read the stage_N_lifecycle_metrics.json files" in lifecycle.POOLED


def test_the_per_request_file_is_its_own_formats_not_this_ones() -> None:
    path = _path("c4", "per_request_lifecycle_metrics.json")
    result = load([path])
    assert result.problems == ()
    (run,) = result.runs
    # read by tests/formats/inference_perf/test_inference_perf_requests.py
    assert run.source.format == "inference-perf-requests"


def test_a_request_rate_stage_is_labelled_by_its_rate() -> None:
    raw = trimmed("c1")
    del raw["load_summary"]["concurrency"]
    rate = raw["load_summary"]["requested_rate"]
    (loaded,) = _loaded(raw).points
    assert (loaded.label, loaded.rate, loaded.concurrency, loaded.strategy) == (
        f"r{rate:g}",
        rate,
        None,
        "request rate",
    )


def test_a_stage_without_a_recorded_load_is_labelled_by_its_stage_with_a_warning() -> None:
    raw = trimmed("c4")
    del raw["load_summary"]["concurrency"]
    raw["load_summary"]["requested_rate"] = -1  # as a stage with no rate writes it
    run, problems = _load(raw, "runs/stage_3_lifecycle_metrics.json")
    assert run is not None
    assert (run.points[0].label, run.points[0].concurrency, run.points[0].rate) == (
        "stage-3",
        None,
        None,
    )
    (problem,) = problems
    assert problem.startswith("/load_summary/requested_rate: warning: requested_rate -1 and no")
    run, _ = _load(raw, "renamed.json")
    assert run is not None and run.points[0].label == "stage"


def test_a_stage_where_every_request_failed_keeps_inference_perfs_words() -> None:
    raw = trimmed("c1")
    sent = raw["load_summary"]["count"]
    raw["successes"]["count"] = 0
    for metric in raw["successes"]["latency"]:
        raw["successes"]["latency"][metric] = None  # as inference-perf writes no statistics
    raw["successes"]["output_len"] = None
    raw["successes"]["output_tokens"] = {"total": 0.0}
    raw["successes"]["throughput"] = {key: 0.0 for key in raw["successes"]["throughput"]}
    raw["failures"]["count"] = sent
    message = "Cannot connect to host 127.0.0.1:9"
    raw["failures"]["by_label"] = {
        "Connection Error": {"count": sent, "messages": [{"message": message}]}
    }
    run, problems = _load(raw)
    assert run is not None
    assert problems == [
        f"/successes/count: warning: no request succeeded ({sent} failed: {message}): the load "
        "point has its request counts only, no latency or throughput"
    ]
    (loaded,) = run.points
    assert (loaded.status, loaded.reason, loaded.requests_failed) == ("failed", message, sent)
    values = {v.id: v.value for v in compute([run]).values}
    assert values == {"load.c1.concurrency": 1.0, "load.c1.requests": 0.0, "load.c1.failed": sent}
    (finding,) = [f for f in lint(compute([run])) if f.id == "cell-invalid"]
    assert finding.cell == "c1" and message in finding.message
    raw["successes"]["count"] = 1
    null = f"{LATENCY}/request_latency: error: null, but 1 requests succeeded"
    assert null in _load(raw)[1]


def test_a_request_count_that_does_not_add_up_is_a_warning() -> None:
    raw = trimmed("c4")
    raw["load_summary"]["count"] += 1
    sent = raw["load_summary"]["count"]
    assert _load(raw)[1] == [
        f"/load_summary/count: warning: {sent} requests sent, but {sent - 1} succeeded and 0 failed"
    ]


def test_other_percentile_lists_load() -> None:
    raw = trimmed("c4")  # the percentiles are configurable: here without p90 to p99
    for metric in TIMES:
        for key in ("p90", "p95", "p99"):
            del raw["successes"]["latency"][metric][key]
    values = _values(raw)
    assert "load.c4.ttft_s.p90" not in values
    own = raw["successes"]["latency"]["time_to_first_token"]["median"]
    assert values["load.c4.ttft_s"].value == own


# --- detection ---------------------------------------------------------------------------------


def test_detection_claims_inference_perf_files_and_only_those() -> None:
    for path in sorted(VALID.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, list):
            continue  # a top-level list (llama-bench) is offered only to list formats
        found = detect(data)
        assert found is not None, path.name
        assert (found[0].name == "inference-perf") == path.name.startswith("inference-perf-")
    others = [f for f in FORMATS if f.name != "inference-perf"]
    mine = [_path(p, n) for p in POINTS for n in (STAGE, "summary_lifecycle_metrics.json")]
    mine += [
        p
        for p in sorted(VALID.glob("inference-perf-*.json"))
        + sorted(INVALID.glob("inference-perf-*.json"))
        if not p.name.startswith("inference-perf-requests-")  # a list: the request records' format
    ]
    for path in mine:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert [f.name for f in others if f.detect(data) is not None] == [], path
        assert lifecycle.detect(data) is not None, path


@pytest.mark.slow
def test_mutating_a_real_file_never_crashes() -> None:
    raw = _raw("c4")
    paths: list[tuple[str, ...]] = [(key,) for key in raw]
    paths += [("successes", key) for key in raw["successes"]]
    paths += [("successes", "latency", key) for key in raw["successes"]["latency"]]
    paths += [("load_summary", key) for key in raw["load_summary"]]
    wrongs: tuple[Any, ...] = ([], "x", -1, None, {})
    for path in paths:
        for wrong in wrongs:
            broken = copy.deepcopy(raw)
            node = broken
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = wrong
            run, problems = _load(broken)
            assert run is not None or problems, path


# --- end to end: init, build, check ------------------------------------------------------------

# A manifest written by hand for these files (the test below checks `reportgen init`'s own).
MANIFEST = """title = "inference-perf on a llama.cpp server"
date = "2026-12-03"

[[runs]]
files = ["c1.json", "c4.json"]

[runs.setup.model]
hf_id = "local/tiny-llama"

[runs.setup.engine]
name = "llama.cpp server"

[[key_results]]
metric = "load.c4.output_tok_s"
caption = "the most output"

[[sections]]
kind = "setup"
title = "Setup"

[[sections]]
id = "sweep"
title = "Load points"

[[sections.table]]
id = "load-points"
title = "One row per load point"
rows = "concurrency"
columns = [
  { metric = "load.requests", header = "completed" },
  { metric = "load.output_tok_s", header = "output tok/s" },
  { metric = "load.ttft_s", header = "TTFT p50" },
  { metric = "load.ttft_s.p99", header = "TTFT p99" },
  { metric = "load.itl_s", header = "ITL p50" },
  { metric = "load.latency_s.p99", header = "latency p99" },
]
"""


def _built_values(target: Path) -> dict[str, Any]:
    shown = json.loads((target / "metrics.json").read_text())["metrics"]
    return {m["id"]: m["value"] for m in shown}


def _assert_the_tools_values(shown: dict[str, Any]) -> None:
    for point in POINTS:
        own = _raw(point)["successes"]
        for metric, quantity in TIMES.items():
            expected = own["latency"][metric]["median"]
            assert shown[f"load.{point}.{quantity}"] == pytest.approx(expected, rel=1e-12)
        throughput = own["throughput"]["output_tokens_per_sec"]
        assert shown[f"load.{point}.output_tok_s"] == pytest.approx(throughput, rel=1e-12)


@pytest.mark.pdf
def test_an_article_of_the_real_files_builds_and_checks(tmp_path: Path) -> None:
    folder, out = tmp_path / "inference-perf", tmp_path / "build"
    folder.mkdir()
    for point in POINTS:
        (folder / f"{point}.json").write_bytes(_path(point).read_bytes())
    (folder / "article.toml").write_text(MANIFEST, encoding="utf-8")
    target = build(folder, out)
    _assert_the_tools_values(_built_values(target))
    result = check_article(folder, build_dir=out)
    assert not result.failed, [i.message for i in result.items]


@pytest.mark.pdf
def test_init_builds_and_checks_an_article_from_the_real_files(tmp_path: Path) -> None:
    folder, out = tmp_path / "inference-perf", tmp_path / "build"
    made = scaffold(folder, [_path(p) for p in POINTS], title="inference-perf on llama.cpp")
    assert made.runs == 1 and len(made.files) == len(POINTS)
    # no per-request speed in these files: a throughput chart, not an interactivity one
    manifest = (folder / "article.toml").read_text(encoding="utf-8")
    assert 'kind = "interactivity"' not in manifest and 'metric = "load.output_tok_s"' in manifest
    _assert_the_tools_values(_built_values(build(folder, out)))
    result = check_article(folder, build_dir=out)
    assert not result.failed, [i.message for i in result.items]
