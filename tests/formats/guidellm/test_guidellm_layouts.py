"""GuideLLM's report layouts before 0.8, read by their layout: 0.4 (no `metadata`), 0.5/0.6
(`metadata.version` 1 and `args`), 0.7 (`metadata.version` 2) and 0.2/0.3 (`benchmarks` alone,
each with `args`, `request_totals` and flat request records), and GuideLLM's CSV and HTML reports,
which are named as such and refused.

The files here are written by the transforms below from the committed 0.8.1 example
(tests/examples/valid/guidellm-c1.json, six requests at concurrency 1 from GuideLLM 0.8.1 against
a llama.cpp server): each rewrites it the way the older release lays out the same run, with the
statistics that release's definitions give over the same records (computed here, from GuideLLM's
source of each era: see reportgen/formats/guidellm/benchmarks.py and guidellm_legacy.py). Three are
committed as examples (`EXAMPLES`: the two that name no version, and warn so, under invalid/),
and the first test checks they are exactly the transforms' output. The
shapes come from real files: 0.5.0.dev0 with warm-up records outside the measured window
(danielkorat/guidellm-bench), and GuideLLM's own stripped 0.2/0.3-era test asset
(vllm-project/guidellm, tests/unit/entrypoints/assets/benchmarks_stripped.json).
"""

from __future__ import annotations

import copy
import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from reportgen.article.build import render_article
from reportgen.check.compare import check_article
from reportgen.cli.main import main
from reportgen.formats.guidellm.benchmarks import (
    DEFINITIONS,
    DEFINITIONS_04,
    DEFINITIONS_07,
    not_a_run_file,
)
from reportgen.formats.guidellm.legacy import DEFINITIONS as LEGACY_DEFINITIONS
from reportgen.formats.json_input.document import parse_json
from reportgen.formats.load import load, load_document
from reportgen.formats.registry import detect
from reportgen.metrics.compute import compute
from reportgen.model import SweepRun

ROOT = Path(__file__).resolve().parents[2]
VALID = ROOT / "examples" / "valid"
INVALID = ROOT / "examples" / "invalid"
SOURCE = VALID / "guidellm-c1.json"
# the metrics blocks both layouts' importers read
READ = (
    "output_tokens_per_second",
    "output_token_count",
    "prompt_token_count",
    "time_to_first_token_ms",
    "inter_token_latency_ms",
    "request_latency",
)
NO_VERSION = (
    "/: warning: the file names no version: read by its layout, which is guidellm's as "
    "reportgen reads it (tested on real files of 0.2.x to 0.8.x)"
)


def _source() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SOURCE.read_text(encoding="utf-8"))
    return data


def _timings(record: dict[str, Any]) -> dict[str, Any]:
    return record["info"]["timings"]  # type: ignore[no-any-return]


def _distribution(stats: dict[str, Any], *, p50: bool) -> dict[str, Any]:
    kept = {k: stats[k] for k in ("mean", "median", "min", "max", "count", "total_sum")}
    names = ("p50", "p90", "p95", "p99") if p50 else ("p90", "p95", "p99")
    return {**kept, "percentiles": {p: stats["percentiles"][p] for p in names}}


def span_rate(bench: dict[str, Any]) -> float:
    """GuideLLM 0.4-0.7's output tokens per second over a benchmark's records: their tokens over
    the span from the first token to the last."""
    records = bench["requests"]["successful"]
    first = min(_timings(r)["first_token_iteration"] for r in records)
    last = max(_timings(r)["last_token_iteration"] for r in records)
    return float(sum(r["output_tokens"] for r in records) / (last - first))


def as_05(data: dict[str, Any], version: str = "0.5.0") -> dict[str, Any]:
    """The run as GuideLLM 0.5 lays it out: `metadata.version` 1, the arguments in `args`,
    `config.sample_requests`, records with the timings only, and the 0.4-0.7 output rate."""
    out = copy.deepcopy(data)
    spec = out.pop("config")["spec"]
    out.pop("conclusions", None)
    out["metadata"] = {"version": 1, "guidellm_version": version}
    out["args"] = {
        "profile": "concurrent",
        "rate": [1.0],
        "backend": "openai_http",
        "model": spec["backend"]["model"],
        "sample_requests": None,
    }
    out = {"metadata": out.pop("metadata"), **out}
    for bench in out["benchmarks"]:
        config = bench["config"]
        bench["config"] = {"strategy": config["strategy"], "sample_requests": None}
        metrics = bench["metrics"]
        bench["metrics"] = {
            "request_totals": metrics["request_totals"],
            **{k: {"successful": _distribution(metrics[k]["successful"], p50=True)} for k in READ},
        }
        for status in ("successful", "errored", "incomplete"):
            bench["requests"][status] = [
                {
                    "prompt_tokens": r["prompt_tokens"],
                    "output_tokens": r["output_tokens"],
                    "info": {
                        "status": r["info"].get("status"),
                        "timings": {
                            k: _timings(r)[k]
                            for k in (
                                "request_start",
                                "first_token_iteration",
                                "last_token_iteration",
                                "request_end",
                            )
                        },
                    },
                }
                for r in bench["requests"][status] or ()
            ]
        for key in ("scheduler_state", "scheduler_metrics", "warnings"):
            bench.pop(key, None)
        bench["metrics"]["output_tokens_per_second"]["successful"]["mean"] = span_rate(bench)
    return out


def with_warmup(data: dict[str, Any]) -> dict[str, Any]:
    """Each benchmark with a warm-up request before its measured window and a cool-down one
    after it, kept among the records as GuideLLM 0.4 and later keep them; its statistics, over
    the window, are unchanged."""
    out = copy.deepcopy(data)
    for bench in out["benchmarks"]:
        records = bench["requests"]["successful"]
        before, after = copy.deepcopy(records[0]), copy.deepcopy(records[-1])
        shift = bench["duration"] + 1.0
        for record, by in ((before, -shift), (after, shift)):
            timings = _timings(record)
            for key in timings:
                timings[key] += by
        bench["requests"]["successful"] = [before, *records, after]
        bench["warmup_duration"], bench["cooldown_duration"] = 1.0, 1.0
    return out


def legacy_rate(records: list[dict[str, Any]]) -> float:
    """GuideLLM 0.2/0.3's output tokens per second over its records: their tokens, less the one
    landing on the last end, over the first start to the last end."""
    begin = min(r["start_time"] for r in records)
    finish = max(r["end_time"] for r in records)
    return float((sum(r["output_tokens"] for r in records) - 1) / (finish - begin))


def as_legacy(data: dict[str, Any]) -> dict[str, Any]:
    """The run as GuideLLM 0.2/0.3 lays it out: `benchmarks` alone, each with `args`, `worker`,
    `request_totals` and flat records; no `percentiles.p50`, the ITL `count` in requests, and its
    own output rate and duration."""
    source = data
    benchmarks = []
    for bench in source["benchmarks"]:
        metrics = bench["metrics"]
        records = [
            {
                "type_": "generative_text_response",
                "prompt_tokens": r["prompt_tokens"],
                "output_tokens": r["output_tokens"],
                "start_time": _timings(r)["request_start"],
                "end_time": _timings(r)["request_end"],
                "first_token_time": _timings(r)["first_token_iteration"],
                "last_token_time": _timings(r)["last_token_iteration"],
            }
            for r in bench["requests"]["successful"]
        ]
        legacy = {
            k: {"successful": _distribution(metrics[k]["successful"], p50=False)} for k in READ
        }
        legacy["inter_token_latency_ms"]["successful"]["count"] = sum(
            1 for r in records if r["output_tokens"] > 1
        )
        legacy["output_tokens_per_second"]["successful"]["mean"] = legacy_rate(records)
        start = min(r["start_time"] for r in records)
        end = max(r["end_time"] for r in records)
        benchmarks.append(
            {
                "type_": "generative_benchmark",
                "args": {
                    "profile": {"type_": "concurrent"},
                    "strategy": bench["config"]["strategy"],
                },
                "worker": {
                    "backend_type": "openai_http",
                    "backend_model": source["config"]["spec"]["backend"]["model"],
                },
                "request_loader": {"data": "prompt_tokens=64,output_tokens=64"},
                "metrics": legacy,
                "start_time": start,
                "end_time": end,
                "duration": end - start,
                "request_totals": {
                    "successful": len(records),
                    "errored": 0,
                    "incomplete": 0,
                    "total": len(records),
                },
                "request_samples": None,
                "requests": {"successful": records, "errored": [], "incomplete": []},
            }
        )
    return {"benchmarks": benchmarks}


def _no_metadata(data: dict[str, Any]) -> dict[str, Any]:
    """GuideLLM 0.4 wrote {args, benchmarks}: the 0.5 layout without `metadata`."""
    out = dict(data)
    del out["metadata"]
    return out


# the committed examples: the layouts that name no version warn so, and are in invalid/
EXAMPLES = {
    VALID / "guidellm-0.5-warmup.json": lambda: with_warmup(as_05(_source())),
    INVALID / "guidellm-0.2-layout.json": lambda: as_legacy(_source()),
    INVALID / "guidellm-0.4-no-version.json": lambda: _no_metadata(as_05(_source())),
}


def _load(data: dict[str, Any]) -> tuple[SweepRun | None, list[str]]:
    run, problems = load_document(parse_json("benchmarks.json", json.dumps(data).encode()))
    assert run is None or isinstance(run, SweepRun)
    return run, [f"{p.pointer or '/'}: {p.severity}: {p.message}" for p in problems]


def _values(run: SweepRun) -> dict[str, Any]:
    return {v.id: v for v in compute([run]).values}


@pytest.mark.parametrize("path", sorted(EXAMPLES), ids=lambda p: p.name)
def test_the_examples_are_the_transforms_output(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert json.loads(text) == EXAMPLES[path]()
    assert len(text.encode()) < 30_000
    if path.parent == INVALID:  # read, with the one warning that the file names no version
        expected = path.with_suffix(".expected").read_text(encoding="utf-8")
        assert expected == f"{path.name}:1:1 {NO_VERSION}\n"


# --- 0.4 to 0.7 -----------------------------------------------------------------------------------


def test_a_05_report_is_read_from_its_records_with_its_own_output_rate() -> None:
    data = as_05(_source())
    run, problems = _load(data)
    assert run is not None and problems == []
    bench = data["benchmarks"][0]
    (point,) = run.points
    assert run.source.tool == "guidellm 0.5.0" and run.model == data["args"]["model"]
    assert run.definitions == DEFINITIONS_04
    assert run.settings["backend"] == "openai_http" and run.settings["report_version"] == 1
    assert len(point.samples) == len(bench["requests"]["successful"])
    values = _values(run)
    # before 0.8, GuideLLM's rate is not tokens over the duration: its own figure is shown
    rate = values["load.c1.output_tok_s"]
    own = bench["metrics"]["output_tokens_per_second"]["successful"]["mean"]
    assert (rate.source, rate.value) == ("summary", own)
    tokens = bench["metrics"]["output_token_count"]["successful"]["total_sum"]
    assert own > tokens / bench["duration"]  # the token span is shorter than the duration
    ttft = values["load.c1.ttft_s"]
    shown = bench["metrics"]["time_to_first_token_ms"]["successful"]
    assert ttft.source == "samples"
    assert ttft.value == pytest.approx(statistics.median(s.ttft_s for s in point.samples))
    assert min(s.ttft_s for s in point.samples) == pytest.approx(shown["min"] / 1000, rel=1e-9)


def test_warmup_and_cooldown_records_outside_the_window_are_left_out() -> None:
    """GuideLLM 0.4 and later keep every request's record, and compute over those that overlap
    the measured window: so does reportgen (a real 0.5.0.dev0 file keeps 30 records for 25)."""
    data = with_warmup(as_05(_source()))
    run, problems = _load(data)
    assert run is not None and problems == []
    (point,) = run.points
    records = data["benchmarks"][0]["requests"]["successful"]
    inside = range(1, len(records) - 1)
    assert [s.pointer for s in point.samples] == [
        f"/benchmarks/0/requests/successful/{j}" for j in inside
    ]
    assert point.requests_ok == len(point.samples)


def test_records_that_do_not_add_up_in_the_window_are_a_warning() -> None:
    data = with_warmup(as_05(_source()))
    bench = data["benchmarks"][0]
    second = _timings(bench["requests"]["successful"][2])  # [0] is the warm-up record
    bench["end_time"] = (second["request_start"] + second["request_end"]) / 2  # ends during it
    run, problems = _load(data)
    assert run is not None and run.points[0].samples == ()
    assert problems == [
        "/benchmarks/0/requests/successful: warning: 2 request records in the measured window, "
        "but metrics.request_totals.successful is 6 and config.sample_size is not set (were "
        "records removed?); GuideLLM's own statistics are used"
    ]


def test_a_run_that_stopped_before_its_window_ended_is_measured_to_its_last_request() -> None:
    """GuideLLM 0.5 plans the window from `max_seconds` and its warm-up/cool-down shares; when
    `max_requests` stops the run first, `end_time` lies past the last request and
    `cooldown_duration` is negative (-205 s in a real 0.5.0.dev0 file)."""
    data = as_05(_source())
    bench = data["benchmarks"][0]
    bench["end_time"] += 30.0
    bench["duration"] += 30.0
    bench["cooldown_duration"] = -30.0
    run, problems = _load(data)
    assert run is not None
    measured = bench["duration"] - 30.0
    assert problems == [
        "/benchmarks/0/cooldown_duration: warning: cooldown_duration is -30 s: the run stopped "
        "before the measured window's planned end, so its duration "
        f"({bench['duration']:.6g} s) runs past the last request; {measured:.6g} s, to the last "
        "request's end, is taken as the time measured"
    ]
    (point,) = run.points
    assert point.duration_s == pytest.approx(measured)
    assert len(point.samples) == 6  # the records are all in the window still
    assert _values(run)["load.c1.request_s"].value == pytest.approx(6 / measured)


def test_sampled_records_are_read_from_guidellms_statistics_without_a_warning() -> None:
    data = as_05(_source())
    bench = data["benchmarks"][0]
    bench["config"]["sample_requests"] = 2
    bench["requests"]["successful"] = bench["requests"]["successful"][:2]
    run, problems = _load(data)
    assert run is not None and problems == []
    value = _values(run)["load.c1.ttft_s"]
    median = bench["metrics"]["time_to_first_token_ms"]["successful"]["median"]
    assert (value.source, value.value) == ("summary", median / 1000)


def test_an_output_rate_that_is_not_guidellms_own_definition_is_a_located_warning() -> None:
    data = as_05(_source())
    stats = data["benchmarks"][0]["metrics"]["output_tokens_per_second"]["successful"]
    expected = stats["mean"]
    stats["mean"] = expected * 1.05
    run, problems = _load(data)
    assert run is not None
    assert problems == [
        "/benchmarks/0/metrics/output_tokens_per_second/successful/mean: warning: mean "
        f"{expected * 1.05:.6g} tok/s disagrees with the {expected:.6g} tok/s of "
        "requests.successful (output tokens over the span from their first token to their last, "
        "GuideLLM 0.4-0.7's definition)"
    ]


def test_a_04_report_names_no_version_and_is_read_with_one_warning() -> None:
    data = _no_metadata(as_05(_source()))
    run, problems = _load(data)
    assert run is not None and problems == [NO_VERSION]
    assert run.source.tool == "guidellm" and run.definitions == DEFINITIONS_04


@pytest.mark.parametrize(
    ("version", "definitions"),
    [("0.6.1", DEFINITIONS_04), ("0.7.3", DEFINITIONS_07), ("0.8.1", DEFINITIONS)],
)
def test_each_release_gets_its_own_definitions(version: str, definitions: Any) -> None:
    data = _source() if version == "0.8.1" else as_05(_source(), version)
    if version == "0.7.3":
        data["metadata"]["version"] = 2
    run, problems = _load(data)
    assert run is not None and problems == []
    assert run.definitions == definitions
    ttft = dict(run.definitions)["ttft_s"]
    assert ("reasoning or a tool call" in ttft) == (version >= "0.7")


# --- 0.2 and 0.3 ----------------------------------------------------------------------------------


def test_a_legacy_report_is_read_from_its_records() -> None:
    data = as_legacy(_source())
    run, problems = _load(data)
    assert run is not None and problems == [NO_VERSION]
    bench = data["benchmarks"][0]
    (point,) = run.points
    assert (point.label, point.concurrency, point.strategy) == ("c1", 1, "concurrent")
    assert tuple(run.definitions.items()) == LEGACY_DEFINITIONS and run.model == "tiny-llama"
    assert (point.requests_ok, point.requests_failed) == (6, 0)
    records = bench["requests"]["successful"]
    for s, r in zip(point.samples, records, strict=True):
        assert s.completed
        assert s.ttft_s == r["first_token_time"] - r["start_time"]
        assert s.latency_s == r["end_time"] - r["start_time"]
        itl = (r["last_token_time"] - r["first_token_time"]) / (r["output_tokens"] - 1)
        assert s.itl_s == pytest.approx(itl, rel=1e-12)
    values = _values(run)
    own = bench["metrics"]["output_tokens_per_second"]["successful"]["mean"]
    assert (values["load.c1.output_tok_s"].source, values["load.c1.output_tok_s"].value) == (
        "summary",
        own,
    )
    assert values["load.c1.ttft_s"].source == "samples"
    assert values["load.c1.request_s"].value == pytest.approx(6 / bench["duration"])


def test_a_legacy_report_with_its_records_stripped_is_read_from_its_statistics() -> None:
    """As in GuideLLM's own test asset: one record kept of 46, `request_samples` null."""
    data = as_legacy(_source())
    bench = data["benchmarks"][0]
    bench["requests"]["successful"] = bench["requests"]["successful"][:1]
    run, problems = _load(data)
    assert run is not None
    assert problems == [
        NO_VERSION,
        "/benchmarks/0/requests/successful: warning: 1 request records, but "
        "request_totals.successful is 6 and request_samples is null (the records were stripped "
        "or cut); GuideLLM's own statistics are used",
    ]
    values = _values(run)
    stats = bench["metrics"]["inter_token_latency_ms"]["successful"]
    itl = values["load.c1.itl_s"]
    assert (itl.source, itl.value, itl.pointer) == (
        "summary",
        stats["median"] / 1000,
        "/benchmarks/0/metrics/inter_token_latency_ms/successful/median",
    )
    assert values["load.c1.itl_s.n"].value == stats["count"] == 6  # requests, in 0.2/0.3
    assert values["load.c1.itl_s.p99"].value == stats["percentiles"]["p99"] / 1000


def test_a_legacy_median_that_is_not_guidellms_own_is_a_located_warning() -> None:
    data = as_legacy(_source())
    stats = data["benchmarks"][0]["metrics"]["time_to_first_token_ms"]["successful"]
    median = stats["median"]
    stats["median"] = median * 1.5
    _, problems = _load(data)
    assert problems == [
        NO_VERSION,
        "/benchmarks/0/metrics/time_to_first_token_ms/successful/median: warning: median "
        f"{median * 1.5:.6g} ms disagrees with the {median:.6g} ms GuideLLM's definition gives "
        "over requests.successful",
    ]


def test_a_legacy_record_without_text_is_not_completed() -> None:
    data = as_legacy(_source())
    record = data["benchmarks"][0]["requests"]["successful"][3]
    record["first_token_time"] = record["last_token_time"] = -1.0
    run, problems = _load(data)
    assert run is not None and problems == [NO_VERSION]
    samples = run.points[0].samples
    assert [s.completed for s in samples] == [True, True, True, False, True, True]


def test_legacy_timings_that_go_back_in_time_are_a_located_error() -> None:
    data = as_legacy(_source())
    record = data["benchmarks"][0]["requests"]["successful"][2]
    record["last_token_time"] = record["first_token_time"] - 0.25
    run, problems = _load(data)
    assert run is None
    assert problems == [
        NO_VERSION,
        "/benchmarks/0/requests/successful/2/last_token_time: error: last_token_time is 0.25 s "
        "before first_token_time",
    ]


def test_a_legacy_benchmark_without_its_totals_is_a_located_schema_error() -> None:
    data = as_legacy(_source())
    del data["benchmarks"][0]["request_totals"]
    assert _load(data) == (None, ["/benchmarks/0: error: 'request_totals' is required"])


def test_legacy_strategies_and_an_all_errored_benchmark() -> None:
    data = as_legacy(_source())
    bench = data["benchmarks"][0]
    failed = copy.deepcopy(bench)
    failed["args"]["strategy"] = {"type_": "constant", "rate": 2.0}
    failed["request_totals"].update(successful=0, errored=6)
    failed["requests"] = {
        "successful": [],
        "errored": [{"error": "Traceback ...\nhttpx.ReadTimeout: timed out"}],
    }
    data["benchmarks"] = [bench, failed]
    run, problems = _load(data)
    assert run is not None and problems == [NO_VERSION]
    assert [(p.label, p.rate, p.status, p.reason) for p in run.points] == [
        ("c1", None, "ok", None),
        ("r2", 2.0, "failed", "httpx.ReadTimeout: timed out"),
    ]


# --- what is not a run file -----------------------------------------------------------------------

CSV_03 = "Type,Run Id,Id,Name,Start Time,End Time,Duration,Requests Made Total\n"
CSV_07 = (
    "Run Info,Run Info,Run Info,Timings,Timings\nRun ID,Run Index,Profile,Start Time,End Time\n"
)
HTML = (
    "<!DOCTYPE html><html><head><title>GuideLLM</title></head><body><script>"
    "window.benchmarks = [];</script></body></html>"
)


YAML = "---\nbenchmarks:\n- type_: generative_benchmark\n  run_id: 93e36b31\n"


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        (CSV_03, "CSV"),
        (CSV_07, "CSV"),
        ("\ufeff" + CSV_07, "CSV"),
        (HTML, "HTML"),
        (YAML, "YAML"),
        ("args:\n  rate: null\n" + YAML[4:], "YAML"),
    ],
)
def test_guidellms_csv_and_html_reports_are_named_with_the_file_to_read(
    content: str, kind: str
) -> None:
    said = not_a_run_file(content)
    assert said is not None and said.startswith(f"this is a GuideLLM {kind} report")
    assert "report, not a run file: reportgen reads the " in said and "benchmarks.json" in said
    assert not_a_run_file(content.encode()) == said


@pytest.mark.parametrize(
    ("name", "content", "kind"),
    [
        ("benchmarks.csv", CSV_07, "CSV"),
        ("benchmarks.csv", CSV_03, "CSV"),
        ("benchmarks.html", HTML, "HTML"),
        ("benchmarks.yaml", YAML, "YAML"),
    ],
)
def test_the_loader_refuses_them_naming_them(
    tmp_path: Path, name: str, content: str, kind: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    loaded = load([path])
    assert loaded.runs == ()
    (problem,) = loaded.problems
    assert problem.message == not_a_run_file(content)
    assert problem.message.startswith(f"this is a GuideLLM {kind} report, not a run file")


@pytest.mark.parametrize(
    "content",
    [
        SOURCE.read_text(encoding="utf-8"),
        "a,b,c\n1,2,3\n",
        "<html><body>hello</body></html>",
        "benchmarks:\n- name: other\n",
        "",
    ],
)
def test_other_files_are_not_named_as_guidellm_reports(content: str) -> None:
    assert not_a_run_file(content) is None


# --- detection and end to end --------------------------------------------------------------------


def test_a_01_report_is_refused_naming_what_it_is() -> None:
    """GuideLLM 0.1 (2024) wrote a `GuidanceReport`: `benchmarks` of reports, each with its own
    `benchmarks` (of `TextGenerationBenchmark`) and `args`."""
    data = {"benchmarks": [{"benchmarks": [{"mode": "synchronous"}], "args": {"rate": None}}]}
    run, problems = _load(data)
    assert run is None
    assert problems == [
        "/: error: a GuideLLM 0.1 report (2024: `benchmarks` of reports, each with its own "
        "`benchmarks` and `args`), whose requests and statistics are laid out and defined unlike "
        "any later release's; reportgen reads GuideLLM 0.2 and later: run the benchmark again "
        "with a current GuideLLM (`pip install guidellm`) and give its benchmarks.json"
    ]


def test_a_development_builds_report_is_refused_naming_what_it_is() -> None:
    """GuideLLM's main branch between 0.3.1 and 0.4.0 wrote benchmarks with `scheduler` and
    `benchmarker` (its `benchmark/schemas.py` of October 2025); no release did."""
    bench = {"type_": "generative_benchmark", "scheduler": {"strategy": {"type_": "synchronous"}}}
    run, problems = _load({"benchmarks": [{**bench, "benchmarker": {"args": {}}}]})
    assert run is None and len(problems) == 1
    assert problems[0].startswith("/: error: a GuideLLM development build's report")
    assert problems[0].endswith(
        "run the benchmark again with a released GuideLLM (`pip install "
        "guidellm`) and give its benchmarks.json"
    )


def test_every_layout_is_detected_as_guidellm() -> None:
    source = _source()
    for data in (source, as_05(source), _no_metadata(as_05(source)), as_legacy(source)):
        found = detect(data)
        assert found is not None and found[0].name == "guidellm"


def test_init_builds_an_article_from_the_older_layouts_that_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "older"
    files = [str(path) for path in sorted(EXAMPLES)]
    code = main(["init", str(folder), "--from", *files, "--date", "2026-12-05"])
    assert code == 0, capsys.readouterr().err
    loaded = load(sorted(folder.glob("*.json")))
    assert loaded.ok, loaded.problems
    built = render_article(folder, {})
    assert 'data-metric="load.c1.output_tok_s"' in built.html
    result = check_article(folder)
    assert not result.failed, [i.message for i in result.items]
