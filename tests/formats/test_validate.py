"""Validate stage: format detection, schema and semantic checks, normalization.

Covers `reportgen.runfiles`, `reportgen.bench` and `reportgen.lmx`, called directly on small dicts
built by `helpers_runs`.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from helpers_runs import (
    VALID,
    bench_cell,
    bench_run,
    bench_sample,
    edited,
    lmx_run,
    lmx_sample,
    load_canonical,
    load_matrix,
    load_ok,
    messages,
    prefill_entry,
    to_bytes,
    validate,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.cli.inputs import load_arguments, run_paths
from reportgen.errors import InputError, Problem
from reportgen.formats.base import Detection
from reportgen.formats.json_input.document import parse_json
from reportgen.formats.load import load, load_document
from reportgen.formats.registry import detect
from reportgen.metrics.compute import compute
from reportgen.model import CanonicalRun, MatrixRun, Run, SweepRun

TOO_LARGE = "number too large: it does not fit a 64-bit float"


def errors_of(data: Any) -> list[str]:
    run, problems = validate(data)
    assert run is None, "a file with errors yields no run"
    return messages(problems)


def warnings_of(data: Any) -> list[str]:
    run, problems = validate(data)
    assert run is not None, messages(problems)
    assert all(p.severity == "warning" for p in problems)
    return messages(problems)


# --- format detection -----------------------------------------------------------------------


BENCH, LMX = "llm-inference-bench", "lmx-speed-test"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (bench_run(), (BENCH, Detection("", BENCH))),
        ({"cli": "lmx", "matrix": bench_run()}, (BENCH, Detection("/matrix", BENCH, "lmx-matrix"))),
        ({"a/b~": bench_run()}, (BENCH, Detection("/a~1b~0", BENCH, "lmx-matrix"))),
        (lmx_run(), (LMX, Detection("", LMX))),
        ({"payload": lmx_run()}, (LMX, Detection("/payload", LMX, "lmx-matrix"))),
        ({"throughput": 41.0}, None),
        ({"metadata": {}}, None),
    ],
)
def test_detect(data: dict[str, Any], expected: tuple[str, Detection] | None) -> None:
    found = detect(data)
    assert (None if found is None else (found[0].name, found[1])) == expected


def test_two_wrapped_runs_are_detected_and_refused() -> None:
    found = detect({"a": bench_run(), "b": bench_run()})
    assert found is not None and found[0].name == BENCH
    assert (
        found[1].refusal
        == "llm-inference-bench results under 2 keys (/a, /b); a run file holds one run"
    )


def test_unknown_format_is_one_located_error() -> None:
    assert errors_of({"throughput": 41.0}) == [
        "/: not a run file reportgen knows: JSON of no layout it reads; it reads the run files "
        "of lmx, llm-inference-bench, llama-bench, vllm bench serve, sglang bench_serving, "
        "aiperf, genai-perf, guidellm or inference-perf (docs/metric-definitions.md names each "
        "file)"
    ]


def test_two_wrapped_runs_are_named() -> None:
    assert errors_of({"a": bench_run(), "b/c": bench_run()}) == [
        "/: llm-inference-bench results under 2 keys (/a, /b~1c); a run file holds one run"
    ]


def test_wrapped_bench_keeps_scalar_wrapper_metadata() -> None:
    data = {"cli": "lmx 0.1.60", "exit": 0, "ok": True, "none": None, "args": ["-c", "4"]}
    run = load_matrix({**data, "matrix": bench_run()})
    wrapper = (("cli", "lmx 0.1.60"), ("exit", 0), ("none", None), ("ok", True))
    assert tuple(run.source.wrapper.items()) == wrapper
    assert run.source.tool == "llm-inference-bench 0.7.7"


def test_wrapped_bench_problems_carry_the_wrapping_key() -> None:
    data = {"cli": "lmx", "lmx/matrix": bench_run(bench_cell(ttft_p50=-1.2))}
    assert errors_of(data) == [
        "/lmx~1matrix/results/0/ttft_p50: -1.2 is less than the minimum of 0"
    ]


def test_payload_wrapped_lmx_reports_inner_pointers() -> None:
    assert errors_of({"payload": lmx_run(tokSOut="fast")}) == [
        "/payload/tokSOut: 'fast' is not of type 'number'"
    ]


def test_unknown_extra_keys_are_kept_and_ignored() -> None:
    cell = bench_cell(usage_update_count=12, measurement_started_monotonic=1.5, novel={"x": [1]})
    data = bench_run(cell, event_log=[{"t": 0}], hardware_run_summary="x")
    data["startup_diagnostics"] = {"anything": [None, "goes"]}
    load_matrix(data)
    load_canonical(lmx_run(outputText="...", hardware={"gpuName": "MI355X"}, peakVramGb=200.5))


# --- versions ------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["0.4.31", "0.6.0", "0.6.2", "0.7.7", "0.7.8", "0.7.99-dev"])
def test_known_bench_versions_load(version: str) -> None:
    assert load_matrix(bench_run(version=version)).source.format_version == version


@pytest.mark.parametrize("version", ["0.9.1", "0.8.0", "1.0.0", "0.3.9", "0.2.0"])
def test_untested_bench_versions_are_read_with_one_warning(version: str) -> None:
    assert warnings_of(bench_run(version=version)) == [
        f"/metadata/version: warning: written by llm-inference-bench {version}, outside the "
        "versions "
        "reportgen was tested on with real files (0.4.x to 0.7.x); read by its layout, which "
        "validated: compare a few of its numbers with the tool's own output"
    ]


def test_a_bench_file_naming_no_version_or_another_string_is_read_and_says_so() -> None:
    assert warnings_of(bench_run(version="latest")) == [
        "/metadata/version: warning: the file names its version as 'latest': read by its "
        "layout, which is llm-inference-bench's as reportgen reads it (tested on real files of "
        "0.4.x to 0.7.x)"
    ]
    unversioned = bench_run()
    del unversioned["metadata"]["version"]
    assert warnings_of(unversioned) == [
        "/metadata: warning: the file names no version: read by its layout, which is "
        "llm-inference-bench's as reportgen reads it (tested on real files of 0.4.x to 0.7.x)"
    ]


@pytest.mark.parametrize(
    ("provenance", "tool"),
    [
        ({"cli": "lmx 0.1.60"}, "lmx 0.1.60"),
        ({"cli": "lmx v0.1.49 (linux/amd64)"}, "lmx 0.1.49"),
        ({"cli": "lmx", "cliVersion": "v0.1.60"}, "lmx 0.1.60"),
    ],
)
def test_lmx_version_comes_from_provenance(provenance: dict[str, str], tool: str) -> None:
    run = load_canonical({**lmx_run(), "provenance": provenance})
    assert run.source.tool == tool


@pytest.mark.parametrize("cli", ["lmx 0.2.0", "lmx 0.0.9"])
def test_untested_lmx_versions_are_read_with_one_warning(cli: str) -> None:
    version = cli.split()[1]
    assert warnings_of(lmx_run(cli=cli)) == [
        f"/provenance/cli: warning: written by lmx {version}, outside the versions reportgen was "
        "tested on with real files (0.1.x); read by its layout, which validated: compare a few "
        "of its numbers with the tool's own output"
    ]


def test_an_lmx_file_naming_no_version_is_read_and_says_so() -> None:
    assert warnings_of(lmx_run(cli="lmx dev build")) == [
        "/provenance/cli: warning: the file names its version as 'unknown': read by its layout, "
        "which is lmx's as reportgen reads it (tested on real files of 0.1.x)"
    ]


# --- provenance ----------------------------------------------------------------------------------

RECONSTRUCTED = {
    "status": "reconstructed",
    "reconstructedFrom": "the published tables",
    "generator": "reportgen.reconstruct 1",
}


def test_provenance_defaults_to_measured() -> None:
    assert load_matrix(bench_run()).source.provenance.status == "measured"


@pytest.mark.parametrize(
    "make",
    [
        lambda p: {**bench_run(), "dataProvenance": p},
        lambda p: {"cli": "lmx", "dataProvenance": p, "matrix": bench_run()},
        lambda p: {**lmx_run(), "dataProvenance": p},
        lambda p: {"dataProvenance": p, "payload": lmx_run()},
    ],
    ids=["bench", "wrapped-bench", "lmx", "payload-lmx"],
)
def test_reconstructed_provenance_is_read_and_checked(make: Any) -> None:
    run = load_ok(make(RECONSTRUCTED))
    assert run.source.provenance.status == "reconstructed"
    assert run.source.provenance.reconstructed_from == "the published tables"
    assert run.source.provenance.generator == "reportgen.reconstruct 1"
    missing = {k: v for k, v in RECONSTRUCTED.items() if k != "reconstructedFrom"}
    assert [m.split(": ", 1)[1] for m in errors_of(make(missing))] == [
        "'reconstructedFrom' is required"
    ]
    assert errors_of(make("reconstructed"))[0].endswith("'reconstructed' is not of type 'object'")


# --- schema problems -------------------------------------------------------------------------


def test_every_schema_problem_is_reported_sorted_by_pointer() -> None:
    sample = bench_sample()
    del sample["inter_token_latency_avg"]
    data = bench_run(
        bench_cell(samples=[sample]),
        bench_cell(context=-1, aggregate_tps=-4),
    )
    data["results"][0]["concurrency"] = "4"
    del data["results"][0]["aggregate_source"]
    assert errors_of(data) == [
        "/results/0: 'aggregate_source' is required",
        "/results/0/concurrency: '4' is not of type 'integer'",
        "/results/0/request_samples/0: 'inter_token_latency_avg' is required",
        "/results/1/aggregate_tps: -4 is less than the minimum of -3",
        "/results/1/context_tokens: -1 is less than the minimum of 0",
    ]


@pytest.mark.parametrize(
    ("pointer", "value", "message"),
    [
        ("/results/0/ttft_p50", -1.2, "-1.2 is less than the minimum of 0"),
        ("/results/0/request_samples/0/ttft", -0.5, "-0.5 is less than the minimum of 0"),
        ("/results/0/request_samples/0/completed", "yes", "'yes' is not of type 'boolean'"),
        ("/results/0/request_samples/0/output_tokens", 2.5, "2.5 is not of type 'integer'"),
        ("/results/0/concurrency", True, "True is not of type 'integer'"),
        ("/metadata/max_tokens", 0, "0 is less than the minimum of 1"),
        ("/prefill/8192/ttft_seconds", 0, "0 is less than or equal to the minimum of 0"),
        ("/summary_table/8192/1", "50", "'50' is not of type 'number', 'null'"),
    ],
)
def test_typed_fields_are_range_checked(pointer: str, value: Any, message: str) -> None:
    data = bench_run(
        bench_cell(context=8192),
        prefill={"8192": prefill_entry()},
        summary_table={"8192": {"1": 100.0}},
        max_tokens=64,
    )
    assert errors_of(edited(data, pointer, value)) == [f"{pointer}: {message}"]


def test_context_keys_must_be_numbers() -> None:
    data = bench_run(prefill={"8K": prefill_entry()})
    assert errors_of(data) == [
        "/prefill: '8K' is not a context length in tokens, written in digits (like \"8192\")"
    ]


# --- bench semantic checks ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("aggregate", "status"),
    [(-1, "skipped_capacity"), (-2, "skipped_user"), (-3, "loop_detected"), (0, "error")],
)
def test_sentinels_become_statuses_not_throughputs(aggregate: float, status: str) -> None:
    (cell,) = load_matrix(bench_run(bench_cell(aggregate_tps=aggregate))).cells
    assert cell.status == status
    assert cell.aggregate_tok_s is None
    assert cell.reason


@pytest.mark.parametrize(
    ("extra", "status", "reason"),
    [
        ({"failure_reason": "stream reset"}, "failed", "stream reset"),
        ({"aggregate_tps": None}, "failed", "no aggregate throughput recorded"),
        ({"loop_detected": True}, "loop_detected", None),
        ({"failure_reason": None, "loop_detected": False}, "ok", None),
    ],
)
def test_failed_and_looping_cells(extra: dict[str, Any], status: str, reason: str | None) -> None:
    (cell,) = load_matrix(bench_run(bench_cell(**extra))).cells
    assert cell.status == status
    if reason:
        assert cell.reason == reason
    assert (cell.aggregate_tok_s is None) == (status != "ok")


def test_a_negative_aggregate_that_is_no_sentinel_is_an_error() -> None:
    assert errors_of(bench_run(bench_cell(aggregate_tps=-1.5))) == [
        "/results/0/aggregate_tps: -1.5 is neither a throughput nor a status sentinel (-1 skipped "
        "for KV capacity, -2 skipped by user, -3 loop detected, 0 error)"
    ]


@pytest.mark.parametrize(
    "family",
    [
        "ttft",
        "inter_token_latency",
        "output_tps_per_user",
        "request_latency",
        "time_to_second_token",
    ],
)
def test_percentiles_must_not_decrease(family: str) -> None:
    cell = bench_cell(samples=[])
    cell.update({f"{family}_p50": 2.0, f"{family}_p90": 1.0})
    assert errors_of(bench_run(cell)) == [
        f"/results/0/{family}_p90: {family}_p90 1.0 is below {family}_p50 2.0; percentiles must "
        "not decrease"
    ]


def test_equal_or_partial_percentiles_are_fine() -> None:
    cell = bench_cell(samples=[], ttft_p50=1.0, ttft_p90=1.0, request_latency_p50=1.0)
    cell.update(request_latency_p99=2.0, inter_token_latency_p90=None, inter_token_latency_p99=0.1)
    load_matrix(bench_run(cell))


def test_p99_is_compared_with_p50_when_p90_is_absent() -> None:
    cell = bench_cell(samples=[], ttft_p50=1.0, ttft_p99=0.5)
    assert errors_of(bench_run(cell)) == [
        "/results/0/ttft_p99: ttft_p99 0.5 is below ttft_p50 1.0; percentiles must not decrease"
    ]


def test_itl_needs_two_output_tokens() -> None:
    one = bench_sample(n=1, itl=0.01, latency=0.3)
    assert errors_of(bench_run(bench_cell(samples=[bench_sample(), one]))) == [
        "/results/0/request_samples/1/inter_token_latency_avg: inter-token latency 0.01 with 1 "
        "output token(s); ITL needs at least 2 tokens"
    ]


def test_zero_or_one_token_samples_without_itl_are_fine() -> None:
    samples = [bench_sample(n=0, itl=0, latency=0.3), bench_sample(n=1, itl=0, latency=0.3)]
    load_matrix(bench_run(bench_cell(samples=samples)))


def test_itl_must_be_positive_with_two_tokens() -> None:
    assert errors_of(bench_run(bench_cell(samples=[bench_sample(n=2, itl=0, latency=1)]))) == [
        "/results/0/request_samples/0/inter_token_latency_avg: inter-token latency 0 with 2 output "
        "tokens; it must be positive"
    ]


def test_output_tokens_may_not_exceed_max_tokens() -> None:
    samples = [bench_sample(n=64), bench_sample(n=65)]
    assert errors_of(bench_run(bench_cell(samples=samples), max_tokens=64)) == [
        "/results/0/request_samples/1/output_tokens: 65 output tokens exceed metadata.max_tokens 64"
    ]
    load_matrix(bench_run(bench_cell(samples=samples)))  # no max_tokens: nothing to check


def test_latency_cannot_end_before_the_last_token() -> None:
    # ttft 0.25 + 32 x 0.0625 = 2.25 s for the last token.
    short = bench_sample(latency=2.2)
    assert errors_of(bench_run(bench_cell(samples=[short]))) == [
        "/results/0/request_samples/0/latency: latency 2.2 s is shorter than ttft + ITL x "
        "(output_tokens - 1) = 2.25 s; the last token cannot arrive after the request completed"
    ]


def test_latency_check_allows_clock_granularity_and_skips_open_streams() -> None:
    samples = [bench_sample(latency=2.2485), bench_sample(completed=False, latency=0)]
    load_matrix(bench_run(bench_cell(samples=samples)))


def test_per_sample_rate_disagreeing_with_itl_is_a_warning() -> None:
    samples = [bench_sample(output_tps_per_user=16.0), bench_sample(output_tps_per_user=17.0)]
    assert warnings_of(bench_run(bench_cell(samples=samples))) == [
        "/results/0/request_samples/1/output_tps_per_user: warning: output_tps_per_user 17 "
        "disagrees with 1 / inter_token_latency_avg = 16"
    ]


def two_samples() -> list[dict[str, Any]]:
    return [bench_sample(ttft=0.5, itl=0.05), bench_sample(ttft=1.0, itl=0.0625)]


@pytest.mark.parametrize(
    ("key", "agrees", "disagrees", "what"),
    [
        ("ttft_p50", 0.75, 0.5, "the median TTFT of its samples (0.75)"),
        ("ttft_p90", 0.95, 1.0, "the p90 TTFT of its samples (0.95)"),
        ("inter_token_latency_p50", 0.05625, 0.06, "the median ITL of its samples (0.05625)"),
        ("output_tps_per_user_p50", 18.0, 18.5, "the median 1/ITL of its samples (18)"),
    ],
)
def test_cell_summary_is_cross_checked_against_its_samples(
    key: str, agrees: float, disagrees: float, what: str
) -> None:
    assert warnings_of(bench_run({**bench_cell(samples=two_samples()), key: agrees})) == []
    assert warnings_of(bench_run({**bench_cell(samples=two_samples()), key: disagrees})) == [
        f"/results/0/{key}: warning: {key} {disagrees:g} disagrees with {what}"
    ]


def test_summary_of_a_cell_without_a_throughput_is_not_cross_checked() -> None:
    cell = bench_cell(aggregate_tps=-1, samples=two_samples(), ttft_p50=9.0, tokens=1)
    assert warnings_of(bench_run(cell)) == []


def test_aggregate_is_cross_checked_against_tokens_over_window() -> None:
    assert warnings_of(bench_run(bench_cell(aggregate_tps=100.0, tokens=1000, seconds=10.0))) == []
    assert warnings_of(bench_run(bench_cell(aggregate_tps=120.0, tokens=1000, seconds=10.0))) == [
        "/results/0/aggregate_tps: warning: aggregate_tps 120 disagrees with "
        "client_output_tokens / measurement_seconds = 1000 / 10 = 100"
    ]


def test_duplicate_and_contradictory_cells() -> None:
    a, b = bench_cell(concurrency=2, context=8192), bench_cell(concurrency=2, context=8192)
    c = bench_cell(
        concurrency=2, context=8192, aggregate_tps=90.0, tokens=900, effective_concurrency=2
    )
    assert errors_of(bench_run(a, b, c)) == [
        "/results/1: duplicate cell context 8K x concurrency 2 (same as /results/0)",
        "/results/2: contradictory cells for context 8K x concurrency 2: /results/0 and /results/2 "
        "differ in aggregate_tps, client_output_tokens, effective_concurrency",
    ]


def test_same_context_other_concurrency_is_no_duplicate() -> None:
    load_matrix(bench_run(bench_cell(concurrency=1), bench_cell(concurrency=2)))


def matrix_with_table(table: dict[str, dict[str, float | None]]) -> dict[str, Any]:
    return bench_run(
        bench_cell(concurrency=1, context=8192),
        bench_cell(concurrency=2, context=8192, aggregate_tps=-1),
        summary_table=table,
    )


def test_summary_table_agreeing_with_results() -> None:
    run = load_matrix(matrix_with_table({"8192": {"1": 100.0, "2": None}}))
    assert run.summary_table == ((8192, 1, 100.0), (8192, 2, None))


@pytest.mark.parametrize(
    ("row", "warning"),
    [
        (
            {"1": 104.0},
            "/summary_table/8192/1: warning: summary_table shows 104 but /results/0/aggregate_tps "
            "is 100",
        ),
        (
            {"1": None},
            "/summary_table/8192/1: warning: summary_table shows null but "
            "/results/0/aggregate_tps is 100",
        ),
        (
            {"2": 30.0},
            "/summary_table/8192/2: warning: summary_table shows 30 but /results/1 measured no "
            "throughput (skipped: the context x concurrency does not fit the KV cache)",
        ),
        (
            {"4": 70.0},
            "/summary_table/8192/4: warning: summary_table has 70 for a cell not in results",
        ),
    ],
)
def test_summary_table_disagreeing_with_results_is_a_warning(
    row: dict[str, float | None], warning: str
) -> None:
    assert warnings_of(matrix_with_table({"8192": row})) == [warning]


def test_summary_table_allows_rounding_and_sentinel_nulls_or_zeros() -> None:
    load_matrix(matrix_with_table({"8192": {"1": 100.04, "2": 0}}))
    load_matrix(matrix_with_table({"8192": {"2": -1}}))
    load_matrix(matrix_with_table({"8192": {"4": None}}))


def test_prefill_rate_is_cross_checked() -> None:
    ok = bench_run(prefill={"8192": prefill_entry(8200, 0.5, 16400.4)})  # rounded by the bench
    assert warnings_of(ok) == []
    bad = bench_run(prefill={"8192": prefill_entry(8200, 0.5, 12000)})
    assert warnings_of(bad) == [
        "/prefill/8192/tok_per_sec: warning: tok_per_sec 12000 disagrees with prompt_tokens / "
        "ttft_seconds = 8200 / 0.5 = 16400"
    ]


def _parsed_and_loaded(text: bytes) -> tuple[Run | None, list[Problem]]:
    """An integer no float holds is refused as the file is parsed (every reader would fail on
    it); 1e999 reads as infinity and is refused by the format, at the same place."""
    try:
        return load_document(parse_json("run.json", text))
    except InputError as exc:
        return None, list(exc.problems)


@pytest.mark.parametrize(
    ("pointer", "literal"),
    [
        ("/results/0/aggregate_tps", "1e999"),
        ("/results/0/client_output_tokens", "1" + "0" * 400),
        ("/results/0/measurement_seconds", "2" + "0" * 320),
        ("/results/0/ttft_p50", "1e400"),
        ("/results/0/request_samples/0/latency", "9e999"),
        ("/results/0/request_samples/0/output_tokens", "3" + "0" * 400),
        ("/results/0/request_samples/0/output_tps_per_user", "1e309"),
        ("/prefill/8192/prompt_tokens", "1" + "0" * 400),
        ("/prefill/8192/tok_per_sec", "1e999"),
        ("/metadata/duration_per_test", "1e999"),
        ("/summary_table/8192/1", "1e999"),
    ],
)
def test_numbers_too_large_for_a_float_are_located_errors(pointer: str, literal: str) -> None:
    data = bench_run(
        bench_cell(context=8192, ttft_p50=0.25),
        prefill={"8192": prefill_entry()},
        summary_table={"8192": {"1": 100.0}},
    )
    text = to_bytes(edited(data, pointer, "HUGE")).replace(b'"HUGE"', literal.encode())
    run, problems = _parsed_and_loaded(text)
    assert run is None
    assert [m for m in messages(problems) if "warning" not in m] == [f"{pointer}: {TOO_LARGE}"]


def test_matrix_run_is_normalized() -> None:
    cells = [
        bench_cell(concurrency=2, context=8192, samples=two_samples(), effective_concurrency=1.9),
        bench_cell(concurrency=1, context=0, num_errors=None),
        bench_cell(concurrency=1, context=8192, num_errors=2, aggregate_tps=-3),
    ]
    prefill = {"8192": prefill_entry(8200, 0.5, samples=3), "0": prefill_entry(10, 0.05)}
    run = load_matrix(bench_run(*cells, prefill=prefill, max_tokens=64, duration_per_test=30))
    assert (run.engine, run.max_tokens, run.duration_s) == ("paiton", 64, 30.0)
    assert run.contexts == (0, 8192)
    assert run.concurrencies == (1, 2)
    assert [p.context_key for p in run.prefill] == ["0", "8192"]
    assert run.prefill[1].samples == 3
    assert run.prefill[1].pointer == "/prefill/8192"
    first = run.cells[0]
    assert (first.pointer, first.concurrency, first.context_tokens) == ("/results/0", 2, 8192)
    assert (first.window_output_tokens, first.measurement_s) == (1000, 10.0)
    assert first.effective_concurrency == 1.9
    assert first.samples[1].pointer == "/results/0/request_samples/1"
    assert (first.samples[1].ttft_s, first.samples[1].itl_s) == (1.0, 0.0625)
    assert [c.num_errors for c in run.cells] == [0, 0, 2]
    assert run.cells[2].status == "loop_detected"


# --- lmx semantic checks --------------------------------------------------------------------


def iterations(count: int, per: int = 1) -> list[dict[str, Any]]:
    return [lmx_sample(i, r, tok_s_out=40.0 + i) for i in range(count) for r in range(per)]


def test_sample_count_must_match_concurrency() -> None:
    samples = iterations(2, per=2)
    del samples[3]
    assert errors_of(lmx_run(samples, concurrency=2, tok_s_out=150.0)) == [
        "/samples/2: iteration 1 has 1 request sample(s) but engineFlags.concurrency is 2: each "
        "iteration sends that many requests"
    ]


def test_output_tokens_may_not_exceed_max_tokens_lmx() -> None:
    samples = [lmx_sample(0, output_tokens=256), lmx_sample(1, output_tokens=300)]
    assert errors_of(lmx_run(samples)) == [
        "/samples/1/outputTokens: 300 output tokens exceed engineFlags.maxTokens 256"
    ]


def test_a_repeated_request_is_an_error() -> None:
    samples = [lmx_sample(0, 0), lmx_sample(0, 1), lmx_sample(0, 1)]
    assert errors_of(lmx_run(samples, concurrency=3, iterations=1)) == [
        "/samples/2: iteration 0 request 1 repeats /samples/1"
    ]


def test_iteration_count_disagreeing_with_flags_is_a_warning() -> None:
    assert warnings_of(lmx_run(iterations(2), iterations=3, tok_s_out=40.5)) == [
        "/samples: warning: 2 iterations in samples but engineFlags.iterations is 3"
    ]


def test_prefill_rate_of_each_sample_is_cross_checked() -> None:
    good = lmx_sample(0, promptTokens=100, tokSPrefill=500.0)  # 100 tokens / 0.2 s
    inherited = lmx_sample(1, tokSPrefill=500.04)  # uses the file's promptTokens
    bad = lmx_sample(2, promptTokens=100, tokSPrefill=400.0)
    data = lmx_run([good, inherited, bad], promptTokens=100, tok_s_out=40.0)
    assert warnings_of(data) == [
        "/samples/2/tokSPrefill: warning: tokSPrefill 400 disagrees with promptTokens / TTFT = "
        "100 / 0.2 s = 500"
    ]


def test_summary_is_cross_checked_against_the_median_of_samples_at_concurrency_1() -> None:
    samples = [lmx_sample(0, tok_s_out=40.0, ttft_ms=190.0), lmx_sample(1, tok_s_out=43.0)]
    assert warnings_of(lmx_run(samples, tok_s_out=41.5, ttft_ms=195.0)) == []  # medians
    assert warnings_of(lmx_run(samples, tok_s_out=41.0, ttft_ms=180.0)) == [
        "/tokSOut: warning: tokSOut 41 disagrees with the median of its samples (41.5)",
        "/ttftMs: warning: ttftMs 180 disagrees with the median of its samples (195)",
    ]


def test_lmx_rounding_to_one_decimal_is_tolerated() -> None:
    samples = [lmx_sample(0, tok_s_out=40.04), lmx_sample(1, tok_s_out=40.0), lmx_sample(2)]
    assert warnings_of(lmx_run(samples, tok_s_out=40.0)) == []


def test_concurrent_summary_is_not_compared_with_per_request_samples() -> None:
    load_canonical(lmx_run(iterations(2, per=4), concurrency=4, tok_s_out=150.0))


def test_canonical_run_is_normalized() -> None:
    samples = [lmx_sample(0, tokSPrefill=600.0), lmx_sample(1, tok_s_out=41.0)]
    data = lmx_run(
        samples,
        tok_s_out=40.5,
        engineVersion="1.4",
        quantization="fp8",
        promptTokens=120,
        outputTokens=256,
        warnings=["slow"],
        promptSha256="9000edaa",
        peakVramGb=210.5,
        tokSOutSource="inter_token",
    )
    data["engineFlags"].update(promptSource="reasoning-v1", commandSnippet="serve", extra={"a": 1})
    run = load_canonical(data)
    assert (run.hf_id, run.engine_name, run.engine_version) == (
        "moonshotai/Kimi-K3.1-Pro",
        "paiton",
        "1.4",
    )
    assert (run.concurrency, run.max_tokens, run.iterations, run.prompt_id) == (
        1,
        256,
        2,
        "reasoning-v1",
    )
    assert (run.prompt_tokens, run.output_tokens, run.warnings) == (120, 256, ("slow",))
    assert run.summary.tok_s_out == 40.5
    assert run.summary.tok_s_out_source == "inter_token"
    assert run.engine_flags["commandSnippet"] == "serve"
    assert "extra" not in run.engine_flags
    assert tuple(run.evidence.items()) == (("peakVramGb", 210.5), ("promptSha256", "9000edaa"))
    assert run.samples[0].pointer == "/samples/0"
    assert (run.samples[0].prompt_tokens, run.samples[0].tok_s_prefill) == (120, 600.0)
    assert run.samples[1].tok_s_prefill is None


def test_payload_sample_pointers_include_the_wrapper() -> None:
    run = load_canonical({"payload": lmx_run([lmx_sample(0)])})
    assert run.samples[0].pointer == "/payload/samples/0"


@pytest.mark.parametrize(
    ("pointer", "literal"),
    [
        ("/tokSOut", "1e999"),
        ("/promptTokens", "1" + "0" * 400),
        ("/engineFlags/maxTokens", "1" + "0" * 400),
        ("/samples/1/tokSOut", "1e999"),
        ("/samples/0/promptTokens", "1" + "0" * 400),
    ],
)
def test_lmx_numbers_too_large_are_located_errors(pointer: str, literal: str) -> None:
    data = lmx_run([lmx_sample(0), lmx_sample(1)], promptTokens=100)
    text = to_bytes(edited(data, pointer, "HUGE")).replace(b'"HUGE"', literal.encode())
    run, problems = _parsed_and_loaded(text)
    assert run is None
    assert [m for m in messages(problems) if "warning" not in m] == [f"{pointer}: {TOO_LARGE}"]


# --- load(): files and folders ----------------------------------------------------------------


def write(path: Path, data: Any) -> Path:
    path.write_bytes(to_bytes(data) if not isinstance(data, bytes) else data)
    return path


def test_load_reads_folders_sorted_and_reports_every_file(tmp_path: Path) -> None:
    write(tmp_path / "b.json", bench_run(bench_cell(ttft_p50=-1)))
    write(tmp_path / "a.json", lmx_run())
    write(tmp_path / "c.json", b"{")
    write(tmp_path / "notes.txt", b"not a run")
    (tmp_path / "sub.json").mkdir()
    files, problems = run_paths([tmp_path])
    assert [p.name for p in files] == ["a.json", "b.json", "c.json"] and problems == []
    result = load(files, label_root=tmp_path)
    assert not result.ok
    assert [type(r) for r in result.runs] == [CanonicalRun]
    assert [p.format() for p in result.problems] == [
        "b.json:23:19 /results/0/ttft_p50: -1 is less than the minimum of 0",
        "c.json:1:2 /: file ends in the middle of a value (truncated?)",
    ]


def test_load_reports_an_unreadable_file_and_an_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = load_arguments([tmp_path / "missing.json", tmp_path / "empty"])
    assert [(Path(p.path).name, p.message) for p in result.problems] == [
        ("empty", "no run files (*.json, *.jsonl) found"),
        ("missing.json", "cannot read file: No such file or directory"),
    ]


def test_load_with_only_warnings_is_ok(tmp_path: Path) -> None:
    path = write(tmp_path / "w.json", bench_run(bench_cell(aggregate_tps=120.0)))
    result = load([path])
    assert result.ok
    assert len(result.runs) == 1
    assert [p.severity for p in result.problems] == ["warning"]
    assert result.problems[0].path == str(path)


def test_valid_examples_load_with_no_problem() -> None:
    result = load_arguments([VALID])
    assert result.problems == ()
    assert len(result.runs) == len([*VALID.glob("*.json"), *VALID.glob("*.jsonl")])
    assert {type(r) for r in result.runs} == {CanonicalRun, MatrixRun, SweepRun}


# --- fuzzing: mutated valid files never crash the validator ------------------------------------

SEEDS = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(VALID.glob("*.json"))]
PLACEHOLDER = "@@MUTANT@@"
LITERALS = [
    "NaN",
    "Infinity",
    "-Infinity",
    "1e999",
    "-1e999",
    "1" + "0" * 400,
    "9" * 5000,
    "[" * 3000 + "]" * 3000,
    '{"a": ' * 2000 + "1" + "}" * 2000,
]


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            out += paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out += paths(child, (*prefix, index))
    return out


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def mutated_files(draw: st.DrawFn) -> bytes:
    """A valid example with a few structural mutations, serialized (some as raw JSON text)."""
    data = json.loads(json.dumps(draw(st.sampled_from(SEEDS))))
    literal = draw(st.sampled_from(LITERALS))
    duplicate_of: str | None = None
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(paths(data)))
        if not path:
            continue
        *parent_path, last = path
        parent: Any = data
        for token in parent_path:
            parent = parent[token]
        kind = draw(
            st.sampled_from(["delete", "replace", "literal", "duplicate", "wrap", "negate"])
        )
        if kind == "delete":
            del parent[last]
        elif kind == "replace":
            parent[last] = draw(json_values)
        elif kind == "literal":
            parent[last] = PLACEHOLDER
        elif kind == "duplicate" and isinstance(parent, dict):
            parent[PLACEHOLDER] = draw(json_values)
            duplicate_of = last
        elif kind == "wrap":
            parent[last] = {"value": parent[last]} if draw(st.booleans()) else [parent[last]]
        elif kind == "negate" and isinstance(parent[last], int | float):
            parent[last] = -parent[last] - draw(st.sampled_from([0, 1, 1.5, 4]))
    text = json.dumps(data, indent=2)
    text = text.replace(f'"{PLACEHOLDER}":', json.dumps(duplicate_of or "k") + ":")
    return text.replace(json.dumps(PLACEHOLDER), literal).encode()


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=mutated_files())
def test_mutated_files_give_problems_never_a_crash(raw: bytes) -> None:
    try:
        doc = parse_json("run.json", raw)
    except InputError as exc:
        assert exc.problems  # noqa: PT017 -- raising is one allowed outcome
        return
    run, problems = load_document(doc)
    for problem in problems:
        assert problem.line >= 1 and problem.col >= 1
        assert problem.pointer == "" or problem.pointer.startswith("/")
        problem.format().encode("utf-8")
    if run is None:
        assert any(p.severity == "error" for p in problems)
        return
    assert all(p.severity == "warning" for p in problems)
    for value in compute([run]).values:
        assert math.isfinite(value.value), value
