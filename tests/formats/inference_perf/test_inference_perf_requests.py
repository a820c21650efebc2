"""inference-perf's per-request report `per_request_lifecycle_metrics.json`: one load point each,
computed from the request records, checked against the stage summary inference-perf wrote beside
it from the same requests.

The data is real: tests/data/realtools/inference-perf/{c1,c4}/, written by inference-perf 0.7.0
(COMMAND.json beside each) against a llama.cpp server, one stage each, so the stage file
`stage_0_lifecycle_metrics.json` summarises exactly the records. Every expected number is read from
those files. inference-perf writes its JSON with `json.dumps(..., indent=2)`, and so does `_text`
here (checked below: it gives back the real files byte for byte).

The examples, checked to be exactly these by the first test below:

- tests/examples/valid/inference-perf-requests-c1.json: the real c1 file, unchanged (36 KB);
- tests/examples/invalid/inference-perf-requests-*.json: the first two real c1 records with one
  breakage in the second: its start_time and end_time swapped (end-before-start), its start_time
  negated (negative-time). Their `.expected` files are `reportgen validate`'s output run in that
  folder (tests/cli/test_cli_validate.py runs them).

inference-perf's percentiles are numpy's default, linear interpolation at rank (n - 1) * p: its
p90 of the twelve c4 latencies is that to the last bit, and so are its other percentiles. reportgen
interpolates the same way, so TTFT and latency agree up to float rounding in the differences.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from reportgen.article.build import build
from reportgen.check.compare import check_article
from reportgen.formats.inference_perf import requests
from reportgen.formats.json_input.document import parse_json
from reportgen.formats.load import load, load_document
from reportgen.formats.registry import FORMATS, detect
from reportgen.init.scaffold import scaffold
from reportgen.metrics.compute import compute
from reportgen.metrics.registry import MetricValue
from reportgen.model import SweepRun

TESTS = Path(__file__).resolve().parents[2]
REAL = TESTS / "data" / "realtools" / "inference-perf"
VALID = TESTS / "examples" / "valid"
INVALID = TESTS / "examples" / "invalid"
POINTS = ("c1", "c4")
RECORDS = "per_request_lifecycle_metrics.json"
# inference-perf's statistic -> reportgen's statistic suffix
STATS = {"median": "", "mean": ".mean", "p90": ".p90", "p95": ".p95", "p99": ".p99"}
STATS |= {"min": ".min", "max": ".max"}


def _records(point: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((REAL / point / RECORDS).read_text())
    return data


def _stage(point: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REAL / point / "stage_0_lifecycle_metrics.json").read_text())
    return data


def _command(point: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REAL / point / "COMMAND.json").read_text())
    return data


def _text(records: list[dict[str, Any]]) -> str:
    return json.dumps(records, indent=2)


def _load(records: list[dict[str, Any]]) -> tuple[SweepRun | None, list[str]]:
    doc = parse_json(RECORDS, _text(records).encode(), top_list=True)
    run, problems = load_document(doc)
    assert run is None or isinstance(run, SweepRun)
    return run, [f"{p.pointer}: {p.severity}: {p.message}" for p in problems]


def _ok(records: list[dict[str, Any]]) -> SweepRun:
    run, problems = _load(records)
    assert run is not None and problems == [], problems
    return run


def _values(run: SweepRun) -> dict[str, MetricValue]:
    (point,) = run.points
    return {v.id.removeprefix(f"load.{point.label}."): v for v in compute([run]).values}


def _metrics(record: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = record["info"]["response_metrics"]
    return found


def _one(values: list[Any]) -> Any:
    """The one value every record of these runs has."""
    assert len(set(values)) == 1, values
    return values[0]


def _end_before_start() -> list[dict[str, Any]]:
    records = _records("c1")[:2]
    records[1]["start_time"], records[1]["end_time"] = (
        records[1]["end_time"],
        records[1]["start_time"],
    )
    return records


def _negative_time() -> list[dict[str, Any]]:
    records = _records("c1")[:2]
    records[1]["start_time"] = -records[1]["start_time"]
    return records


BROKEN = {
    "inference-perf-requests-end-before-start.json": _end_before_start,
    "inference-perf-requests-negative-time.json": _negative_time,
}


def test_the_examples_are_the_real_file_and_its_breakages() -> None:
    for point in POINTS:
        assert _text(_records(point)) == (REAL / point / RECORDS).read_text()
    real = (REAL / "c1" / RECORDS).read_bytes()
    assert (VALID / "inference-perf-requests-c1.json").read_bytes() == real
    assert len(real) < 60_000
    for name, made in BROKEN.items():
        assert (INVALID / name).read_text() == _text(made()), name


@pytest.mark.parametrize("point", POINTS)
def test_the_real_file_is_one_load_point_labelled_by_what_it_shows(point: str) -> None:
    result = load([REAL / point / RECORDS])
    assert result.problems == ()
    (run,) = result.runs
    assert isinstance(run, SweepRun)
    (loaded,) = run.points
    configured = _command(point)["load"]["concurrency"]
    most = dict(run.settings)["most_in_flight"]
    assert most == configured == _stage(point)["load_summary"]["concurrency"]  # reached its limit
    assert loaded.label == f"inflight{most}-records"
    assert (loaded.concurrency, loaded.rate, loaded.strategy) == (None, None, None)
    assert "not recorded" in dict(run.definitions)["concurrency"]
    assert (run.source.format, run.source.tool, run.source.format_version) == (
        "inference-perf-requests",
        "inference-perf",
        "",
    )
    stage = _stage(point)
    assert loaded.requests_ok == stage["successes"]["count"] == len(_records(point))
    assert loaded.requests_failed == stage["failures"]["count"] == 0
    assert [s.pointer for s in loaded.samples] == [f"/{i}" for i in range(len(_records(point)))]
    # the stage file's own label is another: both files of one point are never repetitions
    (staged,) = load([REAL / point / "stage_0_lifecycle_metrics.json"]).runs
    assert isinstance(staged, SweepRun) and staged.points[0].label != loaded.label


@pytest.mark.parametrize("point", POINTS)
def test_ttft_and_latency_from_the_records_are_the_stage_summarys(point: str) -> None:
    own = _stage(point)["successes"]["latency"]
    values = _values(_ok(_records(point)))
    for metric, quantity in (("time_to_first_token", "ttft_s"), ("request_latency", "latency_s")):
        for stat, suffix in STATS.items():
            found = values[f"{quantity}{suffix}"]
            assert found.source == "samples"
            assert found.value == pytest.approx(own[metric][stat], rel=1e-12)
        assert values[f"{quantity}.n"].value == _stage(point)["successes"]["count"]


@pytest.mark.parametrize("point", POINTS)
def test_itl_uses_the_server_count_and_differs_from_inference_perfs_tpot_by_its_one_token(
    point: str,
) -> None:
    records = _records(point)
    server = _one([_metrics(r)["server_usage"]["completion_tokens"] for r in records])
    client = _one([_metrics(r)["output_tokens"] for r in records])
    assert client == server + 1  # the known one-token difference
    for r in records:  # its token times repeat chunk times: the same first and last
        chunks, tokens = _metrics(r)["chunk_times"], _metrics(r)["output_token_times"]
        assert (tokens[0], tokens[-1]) == (chunks[0], chunks[-1])
    ratio = (server - 1) / (client - 1)  # inference-perf's TPOT divides by client - 1
    own = _stage(point)["successes"]["latency"]["time_per_output_token"]
    values = _values(_ok(records))
    for stat, suffix in STATS.items():
        assert values[f"itl_s{suffix}"].value * ratio == pytest.approx(own[stat], rel=1e-9)
    definition = dict(_ok(records).definitions)["itl_s"]
    assert "completion_tokens - 1" in definition and "one token more" in definition


@pytest.mark.parametrize("point", POINTS)
def test_throughput_is_the_server_tokens_over_first_start_to_last_end(point: str) -> None:
    records, stage = _records(point), _stage(point)
    run = _ok(records)
    (loaded,) = run.points
    assert loaded.duration_s == pytest.approx(stage["benchmark_time_seconds"], rel=1e-12)
    assert loaded.output_tokens == stage["successes"]["output_tokens"]["total"]
    server = sum(_metrics(r)["server_usage"]["completion_tokens"] for r in records)
    client = sum(_metrics(r)["output_tokens"] for r in records)
    own = stage["successes"]["throughput"]["output_tokens_per_sec"]  # its client count
    assert _values(run)["output_tok_s"].value == pytest.approx(own * server / client, rel=1e-9)
    # a monotonic clock: differences only, its values far below any date of the run
    run_date = dt.datetime.fromisoformat(_command(point)["date_utc"]).timestamp()
    assert max(r["end_time"] for r in records) < run_date / 1000


def test_errored_records_are_failed_requests() -> None:
    records = _records("c4")
    records[2]["error"] = {"error_type": "ClientError", "error_msg": "HTTP 500\nboom"}
    (loaded,) = _ok(records).points
    assert (loaded.requests_ok, loaded.requests_failed) == (len(records) - 1, 1)
    kept = [r for i, r in enumerate(records) if i != 2]
    assert loaded.output_tokens == sum(
        _metrics(r)["server_usage"]["completion_tokens"] for r in kept
    )
    for record in records:
        record["error"] = {"error_type": "ClientConnectorError", "error_msg": "Cannot connect"}
    (loaded,) = _ok(records).points
    assert (loaded.status, loaded.reason) == ("failed", "Cannot connect")


def test_without_server_usage_the_clients_count_is_used_and_said() -> None:
    records = _records("c1")
    _metrics(records[0])["server_usage"] = None
    run = _ok(records)
    assert run.points[0].samples[0].output_tokens == _metrics(records[0])["output_tokens"]
    assert "for 1 record without server usage" in dict(run.definitions)["itl_s"]


def test_a_success_without_chunk_times_is_one_warning() -> None:
    records = _records("c1")
    for record in records[1:3]:
        _metrics(record)["chunk_times"] = []
    run, problems = _load(records)
    assert run is not None
    assert problems == [
        "/1/info/response_metrics: warning: a successful request with no chunk_times (not "
        f"streamed?): no TTFT or ITL for it (2 of {len(records)} records, the first here)"
    ]


def test_times_that_cannot_be_are_located_errors() -> None:
    run, problems = _load(_end_before_start())
    assert run is None and len(problems) == 1 and problems[0].startswith("/1/end_time: error:")
    records = _records("c1")
    chunks = _metrics(records[3])["chunk_times"]
    chunks[0] = records[3]["start_time"] - 1
    chunks[5], chunks[6] = chunks[6], chunks[5]
    run, problems = _load(records)
    assert run is None and [p.split(": ")[0] for p in problems] == [
        "/3/info/response_metrics/chunk_times/0",
        "/3/info/response_metrics/chunk_times/6",
    ]


def test_records_of_two_stages_are_refused() -> None:
    records = _records("c1")
    for i, record in enumerate(records):
        record["stage_id"] = 0 if i < 4 else 1
    run, problems = _load(records)
    assert run is None
    (problem,) = problems
    assert problem.startswith("/4/stage_id: error: records of 2 stages (0, 1)")


def test_detection_claims_the_request_records_and_only_those() -> None:
    for point in POINTS:
        indexed = {str(i): r for i, r in enumerate(_records(point))}
        found = detect(indexed, top_list=True)
        assert found is not None and found[0] is requests.FORMAT
        assert detect(indexed) is None and detect(indexed, lines=True) is None
        others = [f for f in FORMATS if f is not requests.FORMAT]
        assert [f.name for f in others if f.detect(indexed) is not None] == []
        for record in indexed.values():
            assert detect(record) is None  # one record as an object: no object format claims it
    for path in sorted(VALID.glob("*.json*")):
        if path.name.startswith("inference-perf-requests-"):
            continue
        text = path.read_text(encoding="utf-8")
        data = json.loads(text if path.suffix == ".json" else text.splitlines()[0])
        first = data[0] if isinstance(data, list) else data
        assert requests.detect({"0": first}) is None, path.name


@pytest.mark.slow
def test_mutating_a_real_record_never_crashes() -> None:
    real = _records("c1")[:2]
    paths: list[tuple[str, ...]] = [(key,) for key in real[1]]
    paths += [("info", key) for key in real[1]["info"]]
    paths += [("info", "response_metrics", key) for key in _metrics(real[1])]
    paths += [("info", "response_metrics", "server_usage", k) for k in ("completion_tokens",)]
    wrongs: tuple[Any, ...] = ([], "x", -1, None, {}, 0)
    for path in paths:
        for wrong in wrongs:
            broken = copy.deepcopy(real)
            node = broken[1]
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = wrong
            run, problems = _load(broken)
            assert run is not None or problems, path


@pytest.mark.pdf
def test_init_builds_and_checks_an_article_from_the_real_files(tmp_path: Path) -> None:
    given = tmp_path / "given"
    given.mkdir()
    paths = []
    for point in POINTS:
        path = given / f"{point}-requests.json"
        path.write_bytes((REAL / point / RECORDS).read_bytes())
        paths.append(path)
    folder, out = tmp_path / "inference-perf-requests", tmp_path / "build"
    made = scaffold(folder, paths, title="inference-perf request records on llama.cpp")
    assert made.runs == 1 and len(made.files) == len(POINTS)
    target = build(folder, out)
    shown = {
        m["id"]: m["value"] for m in json.loads((target / "metrics.json").read_text())["metrics"]
    }
    for point in POINTS:
        (run,) = load([REAL / point / RECORDS]).runs
        assert isinstance(run, SweepRun)
        label = run.points[0].label
        own = _stage(point)["successes"]["latency"]
        for metric, quantity in (
            ("time_to_first_token", "ttft_s"),
            ("request_latency", "latency_s"),
        ):
            found = shown[f"load.{label}.{quantity}"]
            assert found == pytest.approx(own[metric]["median"], rel=1e-12)
    result = check_article(folder, build_dir=out)
    assert not result.failed, [i.message for i in result.items]


# --- other versions ------------------------------------------------------------------------------


def _as_0_5(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records as inference-perf 0.5.0 wrote them (apis/base.py at v0.5.0): the response's
    times and counts under info.response_info, the input tokens at info.input_tokens."""
    older = copy.deepcopy(records)
    for record in older:
        info = record["info"]
        info["response_info"] = info.pop("response_metrics")
        info["input_tokens"] = info.pop("request_metrics")["text"]["input_tokens"]
    return older


@pytest.mark.parametrize("point", POINTS)
def test_0_5_records_with_response_info_read_as_the_later_ones(point: str) -> None:
    later = _records(point)
    run, problems = _load(_as_0_5(later))
    assert run is not None and problems == []
    run_later, _ = _load(later)
    assert run_later is not None
    values = {v.id: v.value for v in compute([run]).values}
    assert values == {v.id: v.value for v in compute([run_later]).values}


def test_0_5_records_are_located_under_response_info() -> None:
    records = _as_0_5(_records("c1")[:2])
    records[1]["info"]["response_info"]["chunk_times"][0] = records[1]["start_time"] - 1.0
    run, problems = _load(records)
    assert run is None
    assert problems[0].startswith("/1/info/response_info/chunk_times/0: error: the first chunk")


def test_records_of_0_4_and_earlier_are_refused_naming_the_stage_files() -> None:
    """inference-perf 0.4 (apis/base.py at v0.4.0): info{input_tokens, output_tokens,
    output_token_times}, each time one streamed line or event, and no chunk times."""
    records = [
        {
            "start_time": 8801.25,
            "end_time": 8801.93,
            "request": "{}",
            "response": "",
            "info": {
                "input_tokens": 128,
                "output_tokens": 32,
                "output_token_times": [8801.31 + 0.02 * k for k in range(34)],
                "extra_info": {},
                "lora_adapter": None,
            },
            "error": None,
        }
    ]
    run, problems = _load(records)
    assert run is None
    assert problems == [f": error: {requests.EVENT_TIMES}"]
    assert "Read the stage_N_lifecycle_metrics.json files" in requests.EVENT_TIMES
