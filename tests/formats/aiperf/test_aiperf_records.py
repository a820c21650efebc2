"""AIPerf's per-request export `profile_export.jsonl`: one load point each, computed from the
requests themselves, checked against the summary AIPerf wrote beside it.

The data is real: tests/data/realtools/aiperf/{c1,c4}/profile_export.jsonl, written by AIPerf 0.13
(COMMAND.json beside each) against a llama.cpp server, with its `profile_export_aiperf.json`
summary of the same requests. Every expected number is read from those files. AIPerf writes each
record as compact JSON, and so does `_dumps` here: it gives back the real lines byte for byte
(checked below), so edited records are written as AIPerf would.

The examples, checked to be exactly these by `test_the_examples_are_the_real_files`:

- tests/examples/valid/aiperf-records-c1.jsonl: the real c1 file, unchanged (about 20 KB);
- tests/examples/invalid/aiperf-records-*.jsonl: the first two real c1 records with one breakage
  in the second: its `usage_completion_tokens` value written as a string (wrong-type), its
  `request_latency` negated (negative-latency), and the line cut in half as a killed run leaves
  it (truncated). Their `.expected` files are `reportgen validate`'s output run in that folder.

AIPerf's summary percentiles interpolate linearly at rank (n - 1) * p (its
`metric_result_from_array`, numpy's default method), as reportgen's do: so the summary's TTFT
and latency statistics are reportgen's from the records, to the last bit or nearly.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reportgen.article.build import build
from reportgen.check.compare import check_article
from reportgen.errors import InputError
from reportgen.formats.aiperf import records as aiperf_records
from reportgen.formats.json_input.lines import parse_json_lines
from reportgen.formats.load import load, load_document, parse_run_file
from reportgen.formats.registry import FORMATS, detect
from reportgen.init.scaffold import scaffold
from reportgen.metrics.compute import compute
from reportgen.metrics.registry import MetricValue
from reportgen.model import SweepRun

TESTS = Path(__file__).resolve().parents[2]
REAL = TESTS / "data" / "realtools" / "aiperf"
VALID = TESTS / "examples" / "valid"
INVALID = TESTS / "examples" / "invalid"
POINTS = ("c1", "c4")
# AIPerf's summary statistic -> reportgen's statistic suffix
STATS = {"p50": "", "p90": ".p90", "p95": ".p95", "p99": ".p99", "avg": ".mean"}
STATS |= {"min": ".min", "max": ".max"}


def _records(point: str) -> list[dict[str, Any]]:
    text = (REAL / point / "profile_export.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def _summary(point: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REAL / point / "profile_export_aiperf.json").read_text())
    return data


def _command(point: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REAL / point / "COMMAND.json").read_text())
    return data


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"


def _load(records: list[dict[str, Any]]) -> tuple[SweepRun | None, list[str]]:
    text = "".join(_dumps(r) for r in records)
    run, problems = load_document(parse_json_lines("run.jsonl", text.encode()))
    assert run is None or isinstance(run, SweepRun)
    return run, [f"{p.pointer}: {p.severity}: {p.message}" for p in problems]


def _ok(records: list[dict[str, Any]]) -> SweepRun:
    run, problems = _load(records)
    assert run is not None and problems == [], problems
    return run


def _values(run: SweepRun) -> dict[str, MetricValue]:
    (point,) = run.points
    return {v.id.removeprefix(f"load.{point.label}."): v for v in compute([run]).values}


def _edited(point: str, index: int, **metrics: Any) -> list[dict[str, Any]]:
    """The real records with record `index`'s metrics changed (None: removed)."""
    records = _records(point)
    for name, value in metrics.items():
        if value is None:
            del records[index]["metrics"][name]
        else:
            records[index]["metrics"][name]["value"] = value
    return records


def _metric(point: str, index: int, name: str) -> Any:
    return _records(point)[index]["metrics"][name]["value"]


BROKEN: dict[str, Callable[[], str]] = {
    "aiperf-records-wrong-type.jsonl": lambda: "".join(
        _dumps(r)
        for r in _edited(
            "c1", 1, usage_completion_tokens=str(_metric("c1", 1, "usage_completion_tokens"))
        )[:2]
    ),
    "aiperf-records-negative-latency.jsonl": lambda: "".join(
        _dumps(r)
        for r in _edited("c1", 1, request_latency=-_metric("c1", 1, "request_latency"))[:2]
    ),
    "aiperf-records-truncated.jsonl": lambda: (
        _dumps(_records("c1")[0]) + _dumps(_records("c1")[1])[: len(_dumps(_records("c1")[1])) // 2]
    ),
}


def test_the_examples_are_the_real_files() -> None:
    for point in POINTS:
        real = (REAL / point / "profile_export.jsonl").read_text()
        assert "".join(_dumps(r) for r in _records(point)) == real  # AIPerf's own bytes back
    real_bytes = (REAL / "c1" / "profile_export.jsonl").read_bytes()
    assert (VALID / "aiperf-records-c1.jsonl").read_bytes() == real_bytes
    assert len(real_bytes) < 60_000
    for name, made in BROKEN.items():
        assert (INVALID / name).read_text() == made(), name


@pytest.mark.parametrize("point", POINTS)
def test_the_real_file_is_one_load_point_labelled_by_what_it_shows(point: str) -> None:
    result = load([REAL / point / "profile_export.jsonl"])
    assert result.problems == ()
    (run,) = result.runs
    assert isinstance(run, SweepRun)
    (loaded,) = run.points
    configured = _command(point)["load"]["concurrency"]
    most = dict(run.settings)["most_in_flight"]
    assert isinstance(most, int) and 1 <= most <= configured
    assert most == configured  # these runs reached their limit
    assert loaded.label == f"inflight{most}-records"
    assert (loaded.concurrency, loaded.rate, loaded.strategy) == (None, None, None)
    assert "not recorded" in dict(run.definitions)["concurrency"]
    assert (run.source.tool, run.source.format_version) == ("aiperf", "")
    assert run.source.format == "aiperf-records" and run.model is None
    assert loaded.requests_ok == _summary(point)["request_count"]["avg"] == len(_records(point))
    assert loaded.requests_failed == 0 and "error_request_count" not in _summary(point)
    assert [s.pointer for s in loaded.samples] == [f"/{i}" for i in range(len(_records(point)))]


@pytest.mark.parametrize("point", POINTS)
def test_ttft_and_latency_from_the_records_are_aiperfs_statistics(point: str) -> None:
    summary = _summary(point)
    values = _values(_ok(_records(point)))
    for metric, quantity in (("time_to_first_token", "ttft_s"), ("request_latency", "latency_s")):
        assert summary[metric]["unit"] == "ms"
        for stat, suffix in STATS.items():
            found = values[f"{quantity}{suffix}"]
            assert found.source == "samples"
            assert found.value == pytest.approx(summary[metric][stat] / 1000, rel=1e-12)
        assert values[f"{quantity}.n"].value == summary[metric]["count"]


@pytest.mark.parametrize("point", POINTS)
def test_itl_uses_the_server_count_and_differs_from_aiperfs_by_its_one_token(point: str) -> None:
    summary = _summary(point)
    client, server = summary["output_sequence_length"], summary["usage_completion_tokens"]
    assert client["std"] == server["std"] == 0  # one count for every request of these runs
    assert client["avg"] == server["avg"] + 1  # the known one-token difference
    values = _values(_ok(_records(point)))
    ratio = (client["avg"] - 1) / (server["avg"] - 1)
    for stat, suffix in STATS.items():
        own = summary["inter_token_latency"][stat] / 1000
        assert values[f"itl_s{suffix}"].value == pytest.approx(own * ratio, rel=1e-9)
    speed = summary["output_token_throughput_per_user"]["p50"]
    assert values["per_request_tok_s"].value == pytest.approx(speed / ratio, rel=1e-9)
    definition = dict(_ok(_records(point)).definitions)["itl_s"]
    assert "usage_completion_tokens - 1" in definition and "one token more" in definition


@pytest.mark.parametrize("point", POINTS)
def test_throughput_is_the_server_tokens_over_first_start_to_last_end(point: str) -> None:
    records, summary = _records(point), _summary(point)
    run = _ok(records)
    (loaded,) = run.points
    starts = [r["metadata"]["request_start_ns"] for r in records]
    ends = [r["metadata"]["request_end_ns"] for r in records]
    assert loaded.duration_s == pytest.approx((max(ends) - min(starts)) / 1e9, rel=1e-15)
    # AIPerf's benchmark_duration is the same span, timed by another clock
    assert loaded.duration_s == pytest.approx(summary["benchmark_duration"]["avg"], rel=1e-6)
    assert loaded.output_tokens == summary["usage_completion_tokens"]["sum"]
    values = _values(run)
    rate = summary["usage_completion_tokens"]["sum"] / summary["benchmark_duration"]["avg"]
    assert values["output_tok_s"].value == pytest.approx(rate, rel=1e-6)
    assert values["requests"].value == summary["request_count"]["avg"]


def test_warmup_records_are_skipped_and_counted() -> None:
    warmup = _records("c4")
    for record in warmup:
        record["metadata"]["benchmark_phase"] = "warmup"
    alone, mixed = _ok(_records("c1")), _ok(warmup + _records("c1"))
    assert dict(mixed.settings)["warmup_records"] == len(warmup)
    assert f"{len(warmup)} warm-up or skipped records" in dict(mixed.definitions)["requests"]
    shown = {k: v.value for k, v in _values(mixed).items()}
    assert shown == {k: v.value for k, v in _values(alone).items()}
    assert mixed.points[0].samples[0].pointer == f"/{len(warmup)}"
    run, problems = _load(warmup)
    assert run is None and problems == [
        f": error: no profiling record: {len(warmup)} warm-up or skipped records only"
    ]


def test_errored_and_cancelled_records_are_failed_requests() -> None:
    records = _records("c4")
    records[2]["error"] = {"code": 500, "type": "ServerError", "message": "HTTP 500\nboom"}
    records[5]["metadata"]["was_cancelled"] = True
    (loaded,) = _ok(records).points
    assert (loaded.requests_ok, loaded.requests_failed) == (len(records) - 2, 2)
    assert [s.completed for s in loaded.samples].count(False) == 2
    kept = [r for i, r in enumerate(records) if i not in (2, 5)]
    assert loaded.output_tokens == sum(
        r["metrics"]["usage_completion_tokens"]["value"] for r in kept
    )
    for record in records:
        record["error"] = {"message": "Cannot connect"}
    (loaded,) = _ok(records).points
    assert (loaded.status, loaded.reason) == ("failed", "Cannot connect")


def test_without_the_server_count_the_clients_is_used_and_said() -> None:
    records = _edited("c1", 0, usage_completion_tokens=None)
    run = _ok(records)
    sample = run.points[0].samples[0]
    client = records[0]["metrics"]["output_sequence_length"]["value"]
    assert sample.output_tokens == client
    assert "for 1 record without it" in dict(run.definitions)["itl_s"]
    assert "for 1 record without it" in dict(run.definitions)["output_tokens"]


def test_counts_and_itl_that_disagree_with_aiperfs_own_are_one_warning_each() -> None:
    real = _records("c4")
    itl = [r["metrics"]["inter_token_latency"]["value"] * 2 for r in real[3:5]]
    records = _edited("c4", 3, inter_token_latency=itl[0])
    records[4]["metrics"]["inter_token_latency"]["value"] = itl[1]
    server = real[6]["metrics"]["usage_completion_tokens"]["value"]
    metrics = records[6]["metrics"]
    metrics["output_sequence_length"]["value"] = server + 2  # and AIPerf's ITL by that count:
    decode = metrics["request_latency"]["value"] - metrics["time_to_first_token"]["value"]
    metrics["inter_token_latency"]["value"] = decode / (server + 1)
    run, problems = _load(records)
    assert run is not None and len(problems) == 2, problems
    n = len(real)
    assert problems[0].startswith("/3/metrics/inter_token_latency/value: warning: AIPerf's")
    assert problems[0].endswith(f"(2 of {n} profiling records, the first here)")
    assert problems[1].startswith("/6/metrics/output_sequence_length/value: warning: AIPerf's")


def test_impossible_timings_are_located_errors() -> None:
    records = _records("c1")
    meta = records[1]["metadata"]
    meta["request_end_ns"] = meta["request_start_ns"] - 1_000_000
    records[2]["metrics"]["time_to_first_token"]["value"] = (
        10 * (records[2]["metrics"]["request_latency"]["value"])
    )
    del records[3]["metrics"]["request_latency"]
    run, problems = _load(records)
    assert run is None
    assert [p.split(": ", 2)[:2] for p in problems] == [
        ["/1/metadata/request_end_ns", "error"],
        ["/2/metrics/time_to_first_token/value", "error"],
        ["/3/metrics", "error"],
    ]
    assert "a successful record must have request_latency" in problems[2]


def test_two_profiling_phases_are_refused() -> None:
    records = _records("c1")
    records[-1]["metadata"]["profiling_index"] = 1
    run, problems = _load(records)
    assert run is None and problems == [
        f"/{len(records) - 1}/metadata/profiling_index: error: 2 profiling phases; reportgen "
        "reads one load point per file"
    ]


def test_a_number_too_large_is_a_located_error() -> None:
    text = _dumps(_records("c1")[0])
    value = _records("c1")[0]["metrics"]["time_to_first_token"]["value"]
    text = text.replace(
        f'"time_to_first_token":{{"value":{value!r}', '"time_to_first_token":{"value":1e999'
    )
    run, problems = load_document(parse_json_lines("run.jsonl", text.encode()))
    assert run is None
    assert [(p.pointer, p.message) for p in problems] == [
        ("/0/metrics/time_to_first_token/value", "number too large: it does not fit a 64-bit float")
    ]


@pytest.mark.parametrize("key", ["metadata", "metrics", "error"])
def test_mutating_a_record_never_crashes(key: str) -> None:
    broken: object
    for broken in ({"x": 1}, [], "text", None):
        records = _records("c1")
        records[0][key] = broken
        run, problems = _load(records)
        assert run is not None or problems, key


def test_detection_is_exclusive_both_ways() -> None:
    for point in POINTS:
        data = {str(i): r for i, r in enumerate(_records(point))}
        found = detect(data, lines=True)
        assert found is not None and found[0] is aiperf_records.FORMAT
        others = [f.name for f in FORMATS if f is not aiperf_records.FORMAT and f.detect(data)]
        assert others == []
    for path in sorted([*VALID.iterdir(), *INVALID.iterdir()]):
        if path.suffix not in (".json", ".jsonl"):
            continue
        try:
            data = parse_run_file(path.name, path.read_bytes(), path).data
        except InputError:
            continue  # not parseable: no format sees it
        claimed = aiperf_records.detect(data) is not None
        assert claimed == path.name.startswith("aiperf-records-"), path.name


@pytest.mark.slow
def test_a_large_synthetic_file_loads(tmp_path: Path) -> None:
    path = tmp_path / "profile_export.jsonl"
    n = write_synthetic(path, 2_000)
    (run,) = load([path]).runs
    assert isinstance(run, SweepRun)
    (loaded,) = run.points
    assert loaded.requests_ok == n and len(loaded.samples) == n
    assert dict(run.settings)["most_in_flight"] == _command("c4")["load"]["concurrency"]


def write_synthetic(path: Path, n: int) -> int:
    """`n` records made from the real c4 ones, each a request of its own: a new id, and each
    round of the real records shifted in time to follow the round before. Returns `n`."""
    real = _records("c4")
    starts = [r["metadata"]["request_start_ns"] for r in real]
    ends = [r["metadata"]["request_end_ns"] for r in real]
    span = max(ends) - min(starts) + 1
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            record = copy.deepcopy(real[i % len(real)])
            meta = record["metadata"]
            meta["request_start_ns"] += span * (i // len(real))
            meta["request_end_ns"] += span * (i // len(real))
            meta["x_request_id"] = f"synthetic-{i}"
            out.write(_dumps(record))
    return n


@pytest.mark.pdf
def test_init_builds_and_checks_an_article_from_the_real_files(tmp_path: Path) -> None:
    sources = tmp_path / "sources"
    sources.mkdir()
    paths = []
    for point in POINTS:
        path = sources / f"aiperf-{point}.jsonl"
        path.write_bytes((REAL / point / "profile_export.jsonl").read_bytes())
        paths.append(path)
    folder, out = tmp_path / "article", tmp_path / "build"
    made = scaffold(folder, paths, title="AIPerf's per-request records against llama.cpp")
    assert sorted(made.files) == sorted(p.name for p in paths) and made.runs == 1
    build(folder, out)
    built = json.loads((out / folder.name / "metrics.json").read_text())["metrics"]
    shown = {m["id"]: m["value"] for m in built}
    for point in POINTS:
        most = _command(point)["load"]["concurrency"]
        ttft = _summary(point)["time_to_first_token"]["p50"] / 1000
        assert shown[f"load.inflight{most}-records.ttft_s"] == pytest.approx(ttft, rel=1e-12)
        assert f"load.inflight{most}-records.ttft_s.rep_min" not in shown  # not combined
    result = check_article(folder, build_dir=out)
    assert not result.failed, [i.message for i in result.items]
