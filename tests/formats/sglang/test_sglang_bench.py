"""SGLang `bench_serving` JSONL files: one load point per record, read from the per-request
arrays when the record has them (`--output-details`) and from SGLang's statistics when not.

The data is real: tests/data/realtools/sglang/{c1,c4}/bench_serving.jsonl, one record each, written
by `python -m sglang.bench_serving` (sglang 0.5.23, COMMAND.json beside each) against a llama.cpp
server. Every expected number is read from those files. SGLang serializes a record with Python's
`json.dumps` (a bare `Infinity` included), and so does `_dumps` here: it gives back the real lines
byte for byte (checked below), so edited records are written exactly as SGLang would.

The examples, checked to be exactly these by `test_the_examples_are_the_real_files_trimmed`:

- tests/examples/valid/sglang-c1.jsonl: the real c1 file, unchanged (about 10 KB);
- tests/examples/valid/sglang-c1-c4-summary.jsonl: the c1 and c4 records one after the other, as
  SGLang appends them to one output file, trimmed to what SGLang writes without
  `--output-details` (the per-request arrays `DETAILS` dropped; about 3 KB);
- tests/examples/invalid/sglang-*.jsonl: summary records with one breakage each:
  `Infinity` as the second record's `p99_ttft_ms`, after an empty line (infinity-elsewhere), `NaN`
  as `request_rate` (nan-request-rate), the second line cut in half as a killed run leaves it
  (truncated), and the second record's `completed` written as a string (wrong-type). Their
  `.expected` files are `reportgen validate`'s output run in that folder (`BROKEN` below makes
  them).
"""

from __future__ import annotations

import copy
import json
import math
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reportgen.article.build import build
from reportgen.check.compare import check_article
from reportgen.formats.json_input.lines import parse_json_lines
from reportgen.formats.load import load, load_document
from reportgen.formats.registry import FORMATS, detect
from reportgen.formats.sglang import bench_serving
from reportgen.formats.vllm import bench_serve
from reportgen.init.scaffold import scaffold
from reportgen.metrics.compute import compute
from reportgen.metrics.lints import lint
from reportgen.model import SweepRun

TESTS = Path(__file__).resolve().parents[2]
REAL = TESTS / "data" / "realtools" / "sglang"
VALID = TESTS / "examples" / "valid"
INVALID = TESTS / "examples" / "invalid"
POINTS = ("c1", "c4")
DETAILS = ("input_lens", "output_lens", "ttfts", "itls", "generated_texts", "errors")
# SGLang's metric -> reportgen's quantity (ms in the file, s in reportgen); TPOT is reportgen's ITL
TIMES = {"ttft": "ttft_s", "tpot": "itl_s", "e2e_latency": "latency_s"}
STATS = {"mean": "mean", "median": "p50", "p90": "p90", "p95": "p95", "p99": "p99"}


def _real(point: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REAL / point / "bench_serving.jsonl").read_text())
    return data  # Python's json reads the bare Infinity as float("inf"), as SGLang wrote it


def _command(point: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REAL / point / "COMMAND.json").read_text())
    return data


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record) + "\n"  # as SGLang writes each record


def _summary(point: str, **changes: Any) -> dict[str, Any]:
    """A real record as SGLang writes it without `--output-details`, with `changes`."""
    return {k: v for k, v in _real(point).items() if k not in DETAILS} | changes


def _load(*records: dict[str, Any]) -> tuple[SweepRun | None, list[str]]:
    text = "".join(_dumps(r) for r in records)
    run, problems = load_document(parse_json_lines("run.jsonl", text.encode()))
    assert run is None or isinstance(run, SweepRun)
    return run, [f"{p.pointer}: {p.severity}: {p.message}" for p in problems]


def _ok(*records: dict[str, Any]) -> SweepRun:
    run, problems = _load(*records)
    assert run is not None and problems == [], problems
    return run


BROKEN: dict[str, Callable[[], str]] = {
    "sglang-infinity-elsewhere.jsonl": lambda: (
        _dumps(_summary("c1")) + "\n" + _dumps(_summary("c4", p99_ttft_ms=math.inf))
    ),
    "sglang-nan-request-rate.jsonl": lambda: _dumps(_summary("c1", request_rate=math.nan)),
    "sglang-truncated.jsonl": lambda: (
        _dumps(_summary("c1")) + _dumps(_summary("c4"))[: len(_dumps(_summary("c4"))) // 2]
    ),
    "sglang-wrong-type.jsonl": lambda: (
        _dumps(_summary("c1")) + _dumps(_summary("c4", completed=str(_real("c4")["completed"])))
    ),
}


def test_the_examples_are_the_real_files_trimmed() -> None:
    for point in POINTS:
        real = (REAL / point / "bench_serving.jsonl").read_text()
        assert _dumps(_real(point)) == real  # json.dumps gives SGLang's own bytes back
    real = (REAL / "c1" / "bench_serving.jsonl").read_text()
    assert (VALID / "sglang-c1.jsonl").read_text() == real
    summary = (VALID / "sglang-c1-c4-summary.jsonl").read_text()
    assert summary == _dumps(_summary("c1")) + _dumps(_summary("c4"))
    for name, made in BROKEN.items():
        assert (INVALID / name).read_text() == made(), name
    assert sum(p.stat().st_size for p in VALID.glob("sglang-*.jsonl")) < 60_000


@pytest.mark.parametrize("point", POINTS)
def test_the_real_file_is_one_load_point_at_its_concurrency(point: str) -> None:
    raw = _real(point)
    (run,) = load([REAL / point / "bench_serving.jsonl"]).runs
    assert isinstance(run, SweepRun)
    (loaded,) = run.points
    assert loaded.concurrency == raw["max_concurrency"] == _command(point)["load"]["concurrency"]
    assert (loaded.label, loaded.rate, loaded.strategy) == (point, None, "concurrency limit")
    assert math.isinf(raw["request_rate"]) and run.settings["request_rate"] == "inf"
    assert (run.source.tool, run.source.format_version, run.source.format) == (
        "sglang bench_serving",
        "",
        "sglang-bench",
    )
    assert loaded.pointer == "/0" and loaded.requests_ok == raw["completed"]
    assert (loaded.requests_failed, loaded.status) == (0, "ok")
    assert loaded.duration_s == raw["duration"]
    assert (loaded.prompt_tokens, loaded.max_tokens) == (
        raw["random_input_len"],
        raw["random_output_len"],
    )
    assert run.model is None  # a llama.cpp server: no server_info.model_path


@pytest.mark.parametrize("point", POINTS)
def test_statistics_are_sglangs_own_in_seconds(point: str) -> None:
    raw = _real(point)
    (loaded,) = _ok(raw).points
    for metric, quantity in TIMES.items():
        own = loaded.summary(quantity)
        assert own is not None and own.n == raw["completed"]
        for stat, field in STATS.items():
            key = f"{stat}_{metric}_ms"
            if key in raw:
                assert getattr(own, field) == pytest.approx(raw[key] / 1000, rel=1e-12), key
                where = quantity if field == "p50" else f"{quantity}.{field}"
                assert loaded.summary_pointer(where) == f"/0/{key}"
    assert loaded.summary("itl_s") != loaded.summary("ttft_s")
    assert loaded.summary_pointer("aggregate_tok_s") == "/0/output_throughput"


@pytest.mark.parametrize("point", POINTS)
def test_samples_are_the_arrays_in_seconds(point: str) -> None:
    raw = _real(point)
    (loaded,) = _ok(raw).points
    assert len(loaded.samples) == len(raw["ttfts"]) == raw["completed"]
    for k, s in enumerate(loaded.samples):
        gaps, out = raw["itls"][k], raw["output_lens"][k]
        assert s.pointer == f"/0/ttfts/{k}" and s.completed
        assert s.ttft_s == raw["ttfts"][k]
        assert s.latency_s == pytest.approx(raw["ttfts"][k] + sum(gaps))
        assert s.itl_s == pytest.approx(sum(gaps) / (out - 1))
        assert (s.input_tokens, s.output_tokens) == (raw["input_lens"][k], out)


@pytest.mark.parametrize("point", POINTS)
def test_metrics_from_the_records_agree_with_sglangs_medians(point: str) -> None:
    raw = _real(point)
    run = _ok(raw)
    values = {v.id: v for v in compute([run]).values}
    ttft = values[f"load.{point}.ttft_s"]
    assert ttft.source == "samples" and ttft.value == pytest.approx(statistics.median(raw["ttfts"]))
    assert ttft.summary == pytest.approx(raw["median_ttft_ms"] / 1000)
    assert ttft.summary_pointer == "/0/median_ttft_ms"
    output = values[f"load.{point}.output_tok_s"]
    assert output.value == pytest.approx(raw["total_output_tokens"] / raw["duration"])
    assert output.summary == raw["output_throughput"]
    assert values[f"load.{point}.requests"].value == raw["completed"]
    itl = values[f"load.{point}.itl_s"]
    assert itl.summary == pytest.approx(raw["median_tpot_ms"] / 1000)
    assert [f for f in lint(compute([run])) if f.id == "summary-disagrees"] == []


def test_the_server_count_is_used_and_the_retokenized_count_is_named() -> None:
    raw = _real("c1")
    run = _ok(raw)
    assert run.points[0].output_tokens == raw["total_output_tokens"]
    assert raw["total_output_tokens_retokenized"] != raw["total_output_tokens"]
    definitions = dict(run.definitions)
    assert "total_output_tokens_retokenized" in definitions["output_tokens"]
    assert "pool every chunk gap" in definitions["itl_s"]
    assert "chunk gaps" in definitions["latency_s"] and "failed" not in definitions
    # more than one token a request apart: a warning; one a request (the real files): none
    completed = raw["completed"]
    over = raw["total_output_tokens"] + completed + 1
    loaded, problems = _load(raw | {"total_output_tokens_retokenized": over})
    assert loaded is not None and len(problems) == 1
    assert problems[0].startswith("/0/total_output_tokens_retokenized: warning: ")
    assert f"{over}" in problems[0] and f"{raw['total_output_tokens']}" in problems[0]


def test_summary_records_use_sglangs_statistics_and_say_failures_are_unknown() -> None:
    (run,) = load([VALID / "sglang-c1-c4-summary.jsonl"]).runs
    assert isinstance(run, SweepRun)
    assert [p.label for p in run.points] == list(POINTS)
    assert [p.pointer for p in run.points] == ["/0", "/1"]
    assert all(p.samples == () for p in run.points)
    values = {v.id: v for v in compute([run]).values}
    for point in POINTS:
        ttft = values[f"load.{point}.ttft_s"]
        assert ttft.source == "summary"
        assert ttft.value == pytest.approx(_real(point)["median_ttft_ms"] / 1000)
    assert run.points[1].summary_pointer("ttft_s") == "/1/median_ttft_ms"
    assert "failed" in dict(run.definitions) and "latency_s" not in dict(run.definitions)
    assert "max_concurrency" not in run.settings  # the records differ: no run-wide value
    assert run.settings["backend"] == _real("c1")["backend"]


def test_repeated_loads_in_one_file_get_labels_of_their_own() -> None:
    run = _ok(_summary("c1"), _summary("c4"), _summary("c1"))
    assert [p.label for p in run.points] == ["c1-b0", "c4", "c1-b2"]
    ids = [v.id for v in compute([run]).values if v.key == "load.ttft_s" and v.stat is None]
    assert sorted(ids) == ["load.c1-b0.ttft_s", "load.c1-b2.ttft_s", "load.c4.ttft_s"]


@pytest.mark.parametrize(
    ("changes", "label", "rate", "strategy"),
    [
        ({"request_rate": 2.5, "max_concurrency": None}, "r2.5", 2.5, "poisson"),
        ({"request_rate": 2.5}, "r2.5-c1", 2.5, "poisson"),
        ({"max_concurrency": None}, "burst", None, "all at once"),
    ],
)
def test_rates_and_limits_are_labelled_as_vllms(
    changes: dict[str, Any], label: str, rate: float | None, strategy: str
) -> None:
    (point,) = _ok(_summary("c1", **changes)).points
    assert (point.label, point.rate, point.strategy) == (label, rate, strategy)


def test_a_failed_request_in_the_arrays_is_counted() -> None:
    raw = copy.deepcopy(_real("c1"))
    raw["errors"][2], raw["output_lens"][2], raw["ttfts"][2], raw["itls"][2] = "boom", 0, 0.0, []
    run, problems = _load(raw)
    assert run is not None
    assert problems == [
        f"/0/completed: warning: completed {raw['completed']} but "
        f"{raw['completed'] - 1} per-request records completed"
    ]
    (point,) = run.points
    assert point.requests_failed == 1 and not point.samples[2].completed
    # with SGLang's counts as it writes them for a failed request: no warning
    completed, output = (
        raw["completed"] - 1,
        raw["total_output_tokens"] - _real("c1")["output_lens"][2],
    )
    del raw["total_output_tokens_retokenized"]
    raw |= {"completed": completed, "request_throughput": completed / raw["duration"]}
    raw |= {"total_output_tokens": output, "output_throughput": output / raw["duration"]}
    (point,) = _ok(raw).points
    assert (point.requests_ok, point.requests_failed) == (completed, 1)


def test_no_request_completed_keeps_sglangs_error() -> None:
    raw = _summary("c1", completed=0, errors=["", "HTTP 500\nServer Error"])
    raw.pop("request_throughput")
    run, problems = _load(raw)
    assert run is not None
    (point,) = run.points
    assert (point.status, point.reason) == ("failed", "Server Error")
    assert [p for p in problems if "/0/completed: warning: completed 0 (Server Error)" in p]


def test_arrays_of_different_lengths_are_a_located_error() -> None:
    raw = copy.deepcopy(_real("c4"))
    raw["ttfts"].pop()
    run, problems = _load(_summary("c1"), raw)
    assert run is None
    assert problems == [
        f"/1/ttfts: error: the per-request arrays differ in length (errors {len(raw['errors'])}, "
        f"input_lens {len(raw['input_lens'])}, itls {len(raw['itls'])}, output_lens "
        f"{len(raw['output_lens'])}, ttfts {len(raw['ttfts'])})"
    ]


def test_a_number_too_large_is_a_located_error() -> None:
    text = _dumps(_real("c1")).replace(f"{_real('c1')['itls'][1][3]!r}", "1e999", 1)
    run, problems = load_document(parse_json_lines("run.jsonl", text.encode()))
    assert run is None
    assert [(p.pointer, p.message) for p in problems] == [
        ("/0/itls/1/3", "number too large: it does not fit a 64-bit float")
    ]
    assert problems[0].line == 1 and text[problems[0].col - 1 :].startswith("1e999")


def test_the_model_is_the_sglang_servers_model_path() -> None:
    run = _ok(_summary("c1", server_info={"model_path": "org/Model-1B", "version": "0.5.23"}))
    assert run.model == "org/Model-1B"


def test_detection_is_exclusive_both_ways() -> None:
    for point in POINTS:
        record = _real(point)
        assert bench_serve.detect(record) is None
        assert detect(record) is None  # as one JSON document: no format claims it
        found = detect({"0": record}, lines=True)
        assert found is not None and found[0] is bench_serving.FORMAT
    for path in sorted(VALID.glob("*.json")):
        data = json.loads(path.read_text())
        if isinstance(data, list):
            continue  # a top-level list (llama-bench) is never a JSON Lines record
        assert bench_serving.detect({"0": data}) is None, path.name
        found = detect({"0": data}, lines=True)  # vLLM's results appended one a line, or none
        assert found is None or found[0].name == "vllm-bench-lines", path.name
    assert "sglang-bench" in [f.name for f in FORMATS if f.lines]


@pytest.mark.sampled
@pytest.mark.parametrize("key", sorted(_summary("c1")))
def test_mutating_a_record_never_crashes(key: str) -> None:
    raw = _real("c1")
    for broken in ({**raw, key: {"x": 1}}, {k: v for k, v in raw.items() if k != key}):
        run, problems = _load(broken)
        assert run is not None or problems, key


@pytest.mark.pdf
def test_init_builds_and_checks_an_article_from_the_real_files(tmp_path: Path) -> None:
    paths = [REAL / p / "bench_serving.jsonl" for p in POINTS]
    folder, out = tmp_path / "article", tmp_path / "build"
    made = scaffold(folder, paths, title="SGLang bench_serving against llama.cpp")
    assert all(name.endswith(".jsonl") for name in made.files) and len(set(made.files)) == 2
    build(folder, out)
    built = json.loads((out / folder.name / "metrics.json").read_text())["metrics"]
    shown = {m["id"]: m["value"] for m in built}
    for point in POINTS:
        assert shown[f"load.{point}.ttft_s"] == pytest.approx(
            statistics.median(_real(point)["ttfts"])
        )
        assert shown[f"load.{point}.ttft_s"] == pytest.approx(_real(point)["median_ttft_ms"] / 1000)
    assert shown["load.c1.output_tok_s"] == pytest.approx(
        _real("c1")["total_output_tokens"] / _real("c1")["duration"]
    )
    result = check_article(folder, build_dir=out)
    assert not result.failed, [i.message for i in result.items]
