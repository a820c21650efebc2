"""GuideLLM `benchmarks.json` (`guidellm run`, 0.8.1): one load point per benchmark, read from the
request records when the file keeps all of them and from GuideLLM's own statistics when not.

The data is real: tests/data/realtools/guidellm/{c1,c4}/benchmarks.json, written by GuideLLM 0.8.1
against a llama.cpp server (COMMAND.json beside each). Every expected number is read from those
files. The two valid examples are trimmed copies of them, made by `trimmed` below (and checked to
be exactly that by the first test):

- tests/examples/valid/guidellm-c1.json: c1 with all 6 request records, and only the `metrics`
  blocks reportgen reads (`READ`); the others (tokens per second, TPOT, the per-modality `text`,
  `image`, ... repeats) are dropped. The importer reads it from its records.
- tests/examples/valid/guidellm-c4-sampled.json: c4 with the per-modality blocks dropped and only
  the first 3 of its 12 records kept, `config.sample_size` set to 3 as GuideLLM writes when it
  samples records. The importer reads it from GuideLLM's statistics.

The invalid examples (tests/examples/invalid/guidellm-*.json) are `trimmed(c1, keep=1,
only_read=True)` with one breakage each: the TTFT median written as a string (wrong-type), the
benchmark's `duration` deleted (missing-key) or negated (negative-duration), and
`guidellm_version` "1.0.0" (untested-version). Their `.expected` files are `reportgen validate`'s
output, run in that folder (tests/cli/test_cli_validate.py runs them). The older layouts' examples
(guidellm-0.2-layout, guidellm-0.4-no-version, valid/guidellm-0.5-warmup) are
tests/formats/guidellm/test_guidellm_layouts.py's.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest

from reportgen.article.build import render_article
from reportgen.check.compare import check_article
from reportgen.cli.main import main
from reportgen.formats.json_input.document import parse_json
from reportgen.formats.load import load, load_document
from reportgen.formats.registry import FORMATS, detect
from reportgen.metrics.compute import compute
from reportgen.metrics.lints import lint
from reportgen.model import SweepRun

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "data" / "realtools" / "guidellm"
VALID = ROOT / "examples" / "valid"
LOADS = ("c1", "c4")
# the metrics blocks the importer reads
READ = (
    "request_totals",
    "output_tokens_per_second",
    "output_token_count",
    "prompt_token_count",
    "time_to_first_token_ms",
    "inter_token_latency_ms",
    "request_latency",
)
MODALITIES = ("text", "image", "video", "audio", "tool_call")
# GuideLLM writes its statistics unrounded, from the same timings: they agree to float precision
REL = 1e-9
# reportgen quantity -> (GuideLLM's metric, units per second)
QUANTITIES = {
    "ttft_s": ("time_to_first_token_ms", 1000.0),
    "itl_s": ("inter_token_latency_ms", 1000.0),
    "latency_s": ("request_latency", 1.0),
}


def trimmed(path: Path, *, keep: int, only_read: bool) -> str:
    """A real file, smaller: the first `keep` successful records of each benchmark (with
    `config.sample_size` set when records are dropped), and its `metrics` cut to `READ`
    (`only_read`) or without the per-modality blocks. Serialized as GuideLLM does."""
    data = json.loads(path.read_text(encoding="utf-8"))
    for bench in data["benchmarks"]:
        metrics = bench["metrics"]
        drop = [k for k in metrics if (k not in READ if only_read else k in MODALITIES)]
        for key in drop:
            del metrics[key]
        records = bench["requests"]["successful"]
        if len(records) > keep:
            bench["requests"]["successful"] = records[:keep]
            bench["config"]["sample_size"] = keep
    return json.dumps(data)


EXAMPLES = {
    "guidellm-c1.json": (REAL / "c1" / "benchmarks.json", 6, True),
    "guidellm-c4-sampled.json": (REAL / "c4" / "benchmarks.json", 3, False),
}


def _real(load_name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REAL / load_name / "benchmarks.json").read_text())
    return data


def _load(data: dict[str, Any]) -> tuple[SweepRun | None, list[str]]:
    run, problems = load_document(parse_json("benchmarks.json", json.dumps(data).encode()))
    assert run is None or isinstance(run, SweepRun)
    return run, [f"{p.pointer or '/'}: {p.severity}: {p.message}" for p in problems]


def _loaded(data: dict[str, Any]) -> SweepRun:
    run, problems = _load(data)
    assert run is not None and problems == [], problems
    return run


def _first_reaching(pairs: list[tuple[float, float]], p: float) -> float:
    """GuideLLM's percentile, written here from its definition: the first value, ascending, at
    which the cumulative share of the weights reaches p."""
    pairs = sorted(pairs)
    total = sum(w for _, w in pairs)
    shares = itertools.accumulate(w / total for _, w in pairs)
    return next((v for (v, _), s in zip(pairs, shares, strict=True) if s >= p), pairs[-1][0])


# --- the examples are the real files, trimmed -------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_the_examples_are_the_real_files_trimmed(name: str) -> None:
    source, keep, only_read = EXAMPLES[name]
    text = (VALID / name).read_text(encoding="utf-8")
    assert text == trimmed(source, keep=keep, only_read=only_read)
    assert len(text.encode()) < 60_000


# --- the real files ---------------------------------------------------------------------------


@pytest.mark.parametrize("load_name", LOADS)
def test_each_benchmark_is_a_load_point_labelled_by_its_strategy(load_name: str) -> None:
    data = _real(load_name)
    run = _loaded(data)
    assert len(run.points) == len(data["benchmarks"])
    for point, bench in zip(run.points, data["benchmarks"], strict=True):
        strategy = bench["config"]["strategy"]
        assert strategy["type_"] == "concurrent"
        assert point.label == f"c{strategy['streams']}" == load_name
        assert (point.concurrency, point.rate, point.strategy) == (
            strategy["streams"],
            None,
            "concurrent",
        )
        assert point.duration_s == bench["duration"]
        metrics = bench["metrics"]
        assert point.output_tokens == metrics["output_token_count"]["successful"]["total_sum"]
        assert point.requests_ok == metrics["request_totals"]["successful"]
        assert point.requests_failed == metrics["request_totals"]["errored"]
        assert len(point.samples) == len(bench["requests"]["successful"])
        assert point.prompt_tokens == metrics["prompt_token_count"]["successful"]["min"]
    assert run.source.tool == f"guidellm {data['metadata']['guidellm_version']}"
    assert run.model == data["config"]["spec"]["backend"]["model"]
    assert run.engine is None
    assert dict(run.definitions).keys() >= {"ttft_s", "itl_s", "latency_s", "output_tok_s"}


@pytest.mark.parametrize("load_name", LOADS)
def test_each_sample_is_its_records_own_timings(load_name: str) -> None:
    """TTFT, ITL and latency per request as GuideLLM computed them itself; ITL leaves the first
    token out, and GuideLLM's TPOT, which does not, is not ITL."""
    data = _real(load_name)
    (point,) = _loaded(data).points
    records = data["benchmarks"][0]["requests"]["successful"]
    for s, record in zip(point.samples, records, strict=True):
        t = record["info"]["timings"]
        assert s.completed
        # TTFT runs to the first line with content: llama.cpp's role-only first chunk is before it
        assert t["first_request_iteration"] < t["first_token_iteration"]
        assert s.ttft_s == t["first_token_iteration"] - t["request_start"]
        assert s.ttft_s == pytest.approx(record["time_to_first_token_ms"] / 1000, rel=REL)
        assert s.itl_s == pytest.approx(record["inter_token_latency_ms"] / 1000, rel=REL)
        assert s.latency_s == pytest.approx(record["request_latency"], rel=REL)
        out = record["output_tokens"]
        assert s.itl_s == pytest.approx(
            (t["last_token_iteration"] - t["first_token_iteration"]) / (out - 1), rel=REL
        )
        tpot = record["time_per_output_token_ms"] / 1000
        assert tpot == pytest.approx((t["last_token_iteration"] - t["request_start"]) / out)
        assert tpot > s.itl_s
        assert (s.output_tokens, s.input_tokens) == (out, record["prompt_tokens"])


@pytest.mark.parametrize("load_name", LOADS)
def test_metrics_from_the_records_agree_with_guidellms_own_statistics(load_name: str) -> None:
    """mean, min, max and n from the records match GuideLLM's own to float precision (REL); its
    medians and percentiles, which are not interpolated, are what its definition gives over the
    same samples."""
    data = _real(load_name)
    run = _loaded(data)
    (point,) = run.points
    values = {v.id: v for v in compute([run]).values}
    metrics = data["benchmarks"][0]["metrics"]
    records = data["benchmarks"][0]["requests"]["successful"]
    same_length = len({r["output_tokens"] for r in records}) == 1
    assert same_length  # so GuideLLM's token weighting of ITL weighs each request alike here
    for quantity, (metric, per_s) in QUANTITIES.items():
        own = metrics[metric]["successful"]
        stem = f"load.{point.label}.{quantity}"
        assert values[stem].source == "samples"
        for stat in ("mean", "min", "max"):
            assert values[f"{stem}.{stat}"].value == pytest.approx(own[stat] / per_s, rel=REL)
        if quantity != "itl_s":  # GuideLLM counts ITL in tokens, not requests
            assert values[f"{stem}.n"].value == own["count"]
        weight = (lambda s: s.output_tokens - 1) if quantity == "itl_s" else (lambda _s: 1)
        pairs = [(getattr(s, quantity), float(weight(s))) for s in point.samples]
        assert _first_reaching(pairs, 0.5) == pytest.approx(own["median"] / per_s, rel=REL)
        for p in ("p90", "p95", "p99"):
            found = _first_reaching(pairs, int(p[1:]) / 100)
            assert found == pytest.approx(own["percentiles"][p] / per_s, rel=REL)
        # reportgen's median interpolates, GuideLLM's does not: it is not handed on to compare
        assert point.summary(quantity) is not None and point.summary(quantity).p50 is None  # type: ignore[union-attr]
        lowest, highest = min(v for v, _ in pairs), max(v for v, _ in pairs)
        assert lowest <= values[stem].value <= highest
    assert [f.id for f in lint(compute([run])) if f.id == "summary-disagrees"] == []


@pytest.mark.parametrize("load_name", LOADS)
def test_output_throughput_is_guidellms_own(load_name: str) -> None:
    data = _real(load_name)
    run = _loaded(data)
    bench = data["benchmarks"][0]
    value = {v.id: v for v in compute([run]).values}[f"load.{load_name}.output_tok_s"]
    own = bench["metrics"]["output_tokens_per_second"]["successful"]["mean"]
    tokens = bench["metrics"]["output_token_count"]["successful"]["total_sum"]
    assert value.source == "fields" and value.value == pytest.approx(tokens / bench["duration"])
    assert value.value == pytest.approx(own, rel=REL)
    assert value.summary == own
    assert value.summary_pointer == "/benchmarks/0/metrics/output_tokens_per_second/successful/mean"


def test_a_median_that_is_not_guidellms_own_is_a_located_warning() -> None:
    data = _real("c1")
    stats = data["benchmarks"][0]["metrics"]["time_to_first_token_ms"]["successful"]
    median, mean = stats["median"], stats["mean"]
    stats.update(median=median * 1.2, mean=mean * 0.5)
    run, problems = _load(data)
    assert run is not None
    where = "/benchmarks/0/metrics/time_to_first_token_ms/successful"
    assert problems == [
        f"{where}/median: warning: median {median * 1.2:.6g} ms disagrees with the {median:.6g} "
        "ms GuideLLM's definition gives over requests.successful",
        f"{where}/mean: warning: mean {mean * 0.5:.6g} ms disagrees with the {mean:.6g} ms of "
        "requests.successful",
    ]


# --- the trimmed, sampled example: GuideLLM's statistics ---------------------------------------


def test_a_file_with_sampled_records_is_read_from_guidellms_statistics() -> None:
    data = json.loads((VALID / "guidellm-c4-sampled.json").read_text())
    run = _loaded(data)
    (point,) = run.points
    assert point.samples == () and point.requests_ok == 12  # from metrics.request_totals
    values = {v.id: v for v in compute([run]).values}
    where = "/benchmarks/0/metrics/time_to_first_token_ms/successful"
    own = data["benchmarks"][0]["metrics"]["time_to_first_token_ms"]["successful"]
    median = values["load.c4.ttft_s"]
    assert (median.source, median.pointer, median.value) == (
        "summary",
        f"{where}/median",
        own["median"] / 1000,
    )
    p99 = values["load.c4.ttft_s.p99"]
    assert (p99.pointer, p99.value) == (
        f"{where}/percentiles/p99",
        own["percentiles"]["p99"] / 1000,
    )
    assert values["load.c4.ttft_s.n"].value == own["count"]
    latency = data["benchmarks"][0]["metrics"]["request_latency"]["successful"]
    assert values["load.c4.latency_s"].value == latency["median"]  # seconds already
    assert "load.c4.per_request_tok_s" not in values  # GuideLLM has no 1 / ITL statistic


def test_records_missing_without_a_sample_size_are_a_warning() -> None:
    data = json.loads((VALID / "guidellm-c4-sampled.json").read_text())
    data["benchmarks"][0]["config"]["sample_size"] = None
    _, problems = _load(data)
    assert problems == [
        "/benchmarks/0/requests/successful: warning: 3 request records in the measured window, "
        "but metrics.request_totals.successful is 12 and config.sample_size is not set (were "
        "records removed?); GuideLLM's own statistics are used"
    ]


def test_timings_that_go_back_in_time_are_a_located_error() -> None:
    data = json.loads((VALID / "guidellm-c1.json").read_text())
    timings = data["benchmarks"][0]["requests"]["successful"][2]["info"]["timings"]
    timings["last_token_iteration"] = timings["first_token_iteration"] - 0.25
    run, problems = _load(data)
    assert run is None
    assert problems == [
        "/benchmarks/0/requests/successful/2/info/timings/last_token_iteration: error: "
        "last_token_iteration is 0.25 s before first_token_iteration"
    ]


# --- strategies, failures, versions -------------------------------------------------------------


def test_every_strategy_gets_a_label_unique_in_the_run() -> None:
    data = json.loads((VALID / "guidellm-c4-sampled.json").read_text())
    bench = data["benchmarks"][0]
    strategies: list[dict[str, Any]] = [
        {"type_": "synchronous"},
        {"type_": "throughput", "max_concurrency": 512},
        {"type_": "constant", "rate": 2.5},
        {"type_": "poisson", "rate": 2.5},
        {"type_": "poisson", "rate": 0.75},
        {"type_": "concurrent", "streams": 8},
    ]
    data["benchmarks"] = [copy.deepcopy(bench) for _ in strategies]
    for b, strategy in zip(data["benchmarks"], strategies, strict=True):
        b["config"]["strategy"] = strategy
    run = _loaded(data)
    assert [(p.label, p.concurrency, p.rate, p.strategy) for p in run.points] == [
        ("sync", 1, None, "synchronous"),
        ("max", None, None, "throughput"),
        ("r2.5-b2", None, 2.5, "constant"),
        ("r2.5-b3", None, 2.5, "poisson"),
        ("r0.75", None, 0.75, "poisson"),
        ("c8", 8, None, "concurrent"),
    ]
    assert [p.pointer for p in run.points] == [f"/benchmarks/{i}" for i in range(6)]


def test_a_concurrent_strategy_needs_its_streams() -> None:
    data = json.loads((VALID / "guidellm-c1.json").read_text())
    del data["benchmarks"][0]["config"]["strategy"]["streams"]
    assert _load(data) == (
        None,
        ["/benchmarks/0/config/strategy: error: 'streams' is required"],
    )


def test_a_benchmark_where_every_request_errored_keeps_the_error() -> None:
    data = json.loads((VALID / "guidellm-c1.json").read_text())
    bench = data["benchmarks"][0]
    totals = bench["metrics"]["request_totals"]
    totals.update(successful=0, errored=totals["successful"])
    errored = bench["requests"]["successful"]
    for record in errored:
        record["info"].update(status="errored", error="httpx.ConnectError: connection refused")
    bench["requests"].update(successful=[], errored=errored)
    run, problems = _load(data)
    assert run is not None and problems == []
    (point,) = run.points
    assert (point.status, point.reason) == ("failed", "httpx.ConnectError: connection refused")
    found = [f for f in lint(compute([run])) if f.id == "cell-invalid"]
    assert [f.cell for f in found] == ["c1"]


@pytest.mark.parametrize("version", ["0.8.0", "0.8.1"])
def test_known_versions_load(version: str) -> None:
    data = json.loads((VALID / "guidellm-c1.json").read_text())
    data["metadata"]["guidellm_version"] = version
    assert _loaded(data).source.format_version == version


@pytest.mark.parametrize("version", ["0.9.0", "1.0.0", "v1.2.3"])
def test_other_versions_are_read_by_their_layout_with_one_warning(version: str) -> None:
    data = json.loads((VALID / "guidellm-c1.json").read_text())
    data["metadata"]["guidellm_version"] = version
    run, problems = _load(data)
    assert run is not None and run.source.tool == f"guidellm {version}"
    assert problems == [
        f"/metadata/guidellm_version: warning: written by guidellm {version}, outside the versions "
        "reportgen was tested on with real files (0.2.x to 0.8.x); read by its layout, which "
        "validated: "
        "compare a few of its numbers with the tool's own output"
    ]


def test_a_report_that_names_no_version_is_read_by_its_layout_and_says_so() -> None:
    """GuideLLM 0.4 wrote no `metadata`: such a file is read as 0.4 to 0.7 are (GuideLLM's own
    output rate, which before 0.8 is not tokens over the duration), with one warning."""
    data = json.loads((VALID / "guidellm-c1.json").read_text())
    del data["metadata"]
    run, problems = _load(data)
    assert run is not None and run.source.tool == "guidellm"
    (point,) = run.points
    own = data["benchmarks"][0]["metrics"]["output_tokens_per_second"]["successful"]["mean"]
    # this file is 0.8.1's: its rate is not 0.4-0.7's, and the records say so
    assert problems == [
        "/: warning: the file names no version: read by its layout, which is guidellm's as "
        "reportgen reads it (tested on real files of 0.2.x to 0.8.x)",
        "/benchmarks/0/metrics/output_tokens_per_second/successful/mean: warning: mean "
        f"{own:.6g} tok/s disagrees with the 88.1161 tok/s of requests.successful (output tokens "
        "over the span from their first token to their last, GuideLLM 0.4-0.7's definition)",
    ]
    assert point.output_tokens is None
    assert point.aggregate_tok_s == own
    assert dict(run.definitions)["output_tok_s"].startswith("GuideLLM 0.4 to 0.7:")


def test_a_number_too_large_is_a_located_error() -> None:
    data = json.loads((VALID / "guidellm-c1.json").read_text())
    data["benchmarks"][0]["requests"]["successful"][1]["info"]["timings"]["request_end"] = "HUGE"
    text = json.dumps(data).replace('"HUGE"', "1e999").encode()
    run, problems = load_document(parse_json("benchmarks.json", text))
    assert run is None
    assert [(p.pointer, p.message) for p in problems] == [
        (
            "/benchmarks/0/requests/successful/1/info/timings/request_end",
            "number too large: it does not fit a 64-bit float",
        )
    ]


# --- detection -----------------------------------------------------------------------------------


def test_detection_claims_guidellm_files_and_only_those() -> None:
    for path in sorted(VALID.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, list):
            continue  # a top-level list (llama-bench) is offered only to list formats
        found = detect(data)
        assert found is not None, path.name
        assert (found[0].name == "guidellm") == path.name.startswith("guidellm-"), path.name
    others = [f for f in FORMATS if f.name != "guidellm"]
    for path in [REAL / n / "benchmarks.json" for n in LOADS] + sorted(VALID.glob("guidellm-*")):
        data = json.loads(path.read_text(encoding="utf-8"))
        assert [f.name for f in others if f.detect(data) is not None] == [], path
        found = detect(data)
        assert found is not None and found[0].name == "guidellm"


# --- end to end: init, build, check ---------------------------------------------------------------


def test_init_builds_an_article_from_the_real_files_that_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "guidellm"
    files = [str(REAL / n / "benchmarks.json") for n in LOADS]
    code = main(["init", str(folder), "--from", *files, "--date", "2026-12-03"])
    assert code == 0, capsys.readouterr().err
    assert load(sorted(folder.glob("*.json"))).ok
    built = render_article(folder, {})
    by_id = built.metrics.by_id()
    for n in LOADS:
        own = _real(n)["benchmarks"][0]["metrics"]["output_tokens_per_second"]["successful"]
        assert by_id[f"load.{n}.output_tok_s"].value == pytest.approx(own["mean"], rel=REL)
        assert f'data-metric="load.{n}.output_tok_s"' in built.html
    assert math.isfinite(by_id["load.c4.ttft_s.p99"].value)
    result = check_article(folder)
    assert not result.failed, [i.message for i in result.items]


def test_a_version_that_is_no_x_y_z_is_read_by_the_layout_and_said() -> None:
    data = json.loads((VALID / "guidellm-c1.json").read_text())
    data["metadata"]["guidellm_version"] = "dev"
    run, problems = _load(data)
    assert run is not None and run.source.tool == "guidellm dev"
    assert problems == [
        "/metadata/guidellm_version: warning: the file names its version as 'dev': read by its "
        "layout, which is guidellm's as reportgen reads it (tested on real files of 0.2.x to "
        "0.8.x)"
    ]
