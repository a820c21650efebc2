"""Metric stage: every formula of the registry on small hand-computed runs (`reportgen.metrics`)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from helpers_runs import (
    bench_cell,
    bench_run,
    bench_sample,
    lmx_run,
    lmx_sample,
    load_canonical,
    load_matrix,
    load_ok,
    prefill_entry,
)

from reportgen.errors import InputError
from reportgen.frozendict import FrozenDict
from reportgen.metrics.compute import compute
from reportgen.metrics.registry import DEFINITIONS, CellState, MetricSet, MetricValue, metric_id
from reportgen.model import CellStatus, Run


def metrics_of(*runs: Run) -> MetricSet:
    return compute(runs)


def value(metrics: MetricSet, metric: str) -> MetricValue:
    found = metrics.get(metric)
    assert found is not None, f"{metric} not in {sorted(metrics.by_id())}"
    return found


# --- metric ids -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "where", "expected"),
    [
        (
            "decode.aggregate_tok_s",
            {"context": 8192, "concurrency": 4},
            "decode.8K.c4.aggregate_tok_s",
        ),
        (
            "decode.per_request_tok_s",
            {"context": 0, "concurrency": 1},
            "decode.0.c1.per_request_tok_s",
        ),
        ("decode.ttft_s", {"context": 1048576, "concurrency": 64}, "decode.1M.c64.ttft_s"),
        ("prefill.tok_s", {"context": 131072}, "prefill.128K.tok_s"),
        ("prefill.ttft_s", {"context": 32768}, "prefill.32K.ttft_s"),
        ("prefill.prompt_tokens", {"context": 1000}, "prefill.1K.prompt_tokens"),
        ("canonical.output_tok_s", {"concurrency": 16}, "canonical.c16.output_tok_s"),
        ("canonical.ttft_ms", {"concurrency": 1}, "canonical.c1.ttft_ms"),
    ],
)
def test_metric_id_scheme(key: str, where: dict[str, Any], expected: str) -> None:
    assert metric_id(key, **where) == expected


def test_every_definition_is_complete() -> None:
    for key, definition in DEFINITIONS.items():
        assert definition.key == key
        # a change has the unit of what it compares
        assert (definition.unit or key == "compare.delta") and definition.formula
        assert definition.title
        assert definition.version >= 1
        assert definition.reads
        metric_id(key, context=8192, concurrency=4)  # the pattern formats


# --- canonical prompt (lmx) ---------------------------------------------------------------------


def canonical_c1() -> Run:
    samples = [
        lmx_sample(0, tok_s_out=40.0, ttft_ms=200.0, tokSPrefill=600.0),
        lmx_sample(1, tok_s_out=43.0, ttft_ms=240.0, tokSPrefill=500.0),
        lmx_sample(2, tok_s_out=41.0, ttft_ms=210.0, tokSPrefill=571.4),
    ]
    return load_canonical(lmx_run(samples, tok_s_out=41.0, ttft_ms=210.0, tokSPrefill=571.4))


def test_canonical_c1_is_the_median_over_iterations() -> None:
    metrics = metrics_of(canonical_c1())
    out = value(metrics, "canonical.c1.output_tok_s")
    assert (out.value, out.unit, out.source, out.n, out.summary) == (
        41.0,
        "tok/s",
        "samples",
        3,
        41.0,
    )
    assert out.pointer == "/samples"
    assert out.concurrency == 1
    ttft = value(metrics, "canonical.c1.ttft_ms")
    assert (ttft.value, ttft.unit, ttft.source) == (210.0, "ms", "samples")
    prefill = value(metrics, "canonical.c1.prefill_tok_s")
    assert (prefill.value, prefill.n, prefill.summary) == (571.4, 3, 571.4)


def test_canonical_c1_median_of_an_even_count_interpolates() -> None:
    samples = [
        lmx_sample(0, tok_s_out=40.0, ttft_ms=100.0),
        lmx_sample(1, tok_s_out=44.0, ttft_ms=300.0),
    ]
    metrics = metrics_of(load_canonical(lmx_run(samples, tok_s_out=42.0, ttft_ms=200.0)))
    assert value(metrics, "canonical.c1.output_tok_s").value == 42.0
    assert value(metrics, "canonical.c1.ttft_ms").value == 200.0
    assert metrics.get("canonical.c1.prefill_tok_s") is None  # no sample has tokSPrefill


def test_canonical_c1_is_computed_from_samples_not_the_summary() -> None:
    samples = [lmx_sample(i, tok_s_out=50.0) for i in range(3)]
    run, problems = load_ok_with_warnings(lmx_run(samples, tok_s_out=45.0))
    assert [p.pointer for p in problems] == ["/tokSOut"]
    out = value(metrics_of(run), "canonical.c1.output_tok_s")
    assert (out.value, out.summary) == (50.0, 45.0)


def load_ok_with_warnings(data: dict[str, Any]) -> tuple[Run, list[Any]]:
    from helpers_runs import validate

    run, problems = validate(data)
    assert run is not None
    return run, problems


def test_canonical_without_samples_uses_the_summary() -> None:
    metrics = metrics_of(load_canonical(lmx_run(None, tok_s_out=39.5, ttft_ms=230.0)))
    out = value(metrics, "canonical.c1.output_tok_s")
    assert (out.value, out.source, out.pointer, out.n) == (39.5, "summary", "/tokSOut", None)
    assert value(metrics, "canonical.c1.ttft_ms").value == 230.0


def test_canonical_concurrency_n_comes_from_the_summary() -> None:
    samples = [lmx_sample(i, r, tok_s_out=38.0) for i in range(2) for r in range(4)]
    run = load_canonical(
        {"payload": lmx_run(samples, concurrency=4, tok_s_out=150.2, ttft_ms=480.0)}
    )
    metrics = metrics_of(run)
    out = value(metrics, "canonical.c4.output_tok_s")
    # lmx's per-request samples cannot give the group's window: the file's own median stands.
    assert (out.value, out.source, out.pointer) == (150.2, "summary", "/payload/tokSOut")
    assert value(metrics, "canonical.c4.ttft_ms").value == 480.0
    assert metrics.get("canonical.c1.output_tok_s") is None


def test_canonical_concurrency_n_without_ttft() -> None:
    samples = [lmx_sample(0, r) for r in range(2)]
    metrics = metrics_of(
        load_canonical(lmx_run(samples, concurrency=2, tok_s_out=75.0, ttft_ms=None))
    )
    assert value(metrics, "canonical.c2.output_tok_s").value == 75.0
    assert metrics.get("canonical.c2.ttft_ms") is None


# --- prefill -------------------------------------------------------------------------------------


def test_prefill_rate_is_prompt_tokens_over_ttft() -> None:
    prefill = {
        "8192": prefill_entry(8200, 0.5, 16400.4),  # the bench rounds; we recompute
        "131072": prefill_entry(131000, 8.0),
    }
    metrics = metrics_of(load_matrix(bench_run(prefill=prefill)))
    rate = value(metrics, "prefill.8K.tok_s")
    assert (rate.value, rate.unit, rate.source, rate.summary) == (
        16400.0,
        "tok/s",
        "fields",
        16400.4,
    )
    assert rate.pointer == "/prefill/8192"
    assert rate.context == 8192
    assert value(metrics, "prefill.8K.ttft_s").value == 0.5
    assert value(metrics, "prefill.8K.prompt_tokens").value == 8200
    assert value(metrics, "prefill.128K.tok_s").value == 16375.0
    states = [c for c in metrics.cells if c.kind == "prefill"]
    assert [(c.context, c.status, c.pointer) for c in states] == [
        (8192, "ok", "/prefill/8192"),
        (131072, "ok", "/prefill/131072"),
    ]


# --- decode ------------------------------------------------------------------------------------


def test_decode_aggregate_is_window_tokens_over_window_seconds() -> None:
    cell = bench_cell(concurrency=4, context=8192, aggregate_tps=123.4, tokens=1234, seconds=10.0)
    metrics = metrics_of(load_matrix(bench_run(cell)))
    agg = value(metrics, "decode.8K.c4.aggregate_tok_s")
    assert agg.value == pytest.approx(123.4)
    assert (agg.source, agg.summary, agg.unit) == ("fields", 123.4, "tok/s")
    assert agg.pointer == "/results/0/client_output_tokens"
    assert (agg.context, agg.concurrency) == (8192, 4)


@pytest.mark.parametrize("source", ["openai_stream_chunks_fallback", "openai_completed_usage"])
def test_decode_aggregate_from_other_token_counting_sources(source: str) -> None:
    cell = bench_cell(source=source, aggregate_tps=50.0, tokens=600, seconds=12.0)
    agg = value(metrics_of(load_matrix(bench_run(cell))), "decode.0.c1.aggregate_tok_s")
    assert (agg.value, agg.source) == (50.0, "fields")


@pytest.mark.parametrize(
    ("source", "tokens", "seconds"),
    [
        ("prometheus_fallback", 1000, 10.0),  # tokens are not the window's usage tokens
        ("openai_continuous_usage", None, 10.0),
        ("openai_continuous_usage", 1000, None),
        ("openai_continuous_usage", 0, 10.0),
    ],
)
def test_decode_aggregate_falls_back_to_the_summary(
    source: str, tokens: int | None, seconds: float | None
) -> None:
    cell = bench_cell(source=source, aggregate_tps=97.5, tokens=tokens, seconds=seconds)
    run, _ = load_ok_with_warnings(bench_run(cell))
    agg = value(metrics_of(run), "decode.0.c1.aggregate_tok_s")
    assert (agg.value, agg.source, agg.pointer) == (97.5, "summary", "/results/0/aggregate_tps")
    assert agg.summary is None


def decode_samples() -> list[dict[str, Any]]:
    return [
        bench_sample(ttft=0.5, itl=0.05),  # 20 tok/s
        bench_sample(ttft=1.0, itl=0.0625),  # 16 tok/s
        bench_sample(ttft=0.75, itl=0.04, completed=False),  # 25 tok/s, still counts
        bench_sample(ttft=2.0, itl=0.0, n=1, latency=2.1),  # 1 token: no ITL
        bench_sample(ttft=3.0, itl=0.0, n=0, latency=3.1),  # no token at all
    ]


def test_per_request_speed_is_the_median_of_inverse_itl() -> None:
    cell = bench_cell(samples=decode_samples(), output_tps_per_user_p50=20.0)
    speed = value(metrics_of(load_matrix(bench_run(cell))), "decode.0.c1.per_request_tok_s")
    assert speed.value == pytest.approx(20.0)  # median of 16, 20, 25
    assert (speed.source, speed.n, speed.summary) == ("samples", 3, 20.0)
    assert speed.pointer == "/results/0/request_samples"


def test_decode_ttft_is_the_median_over_samples() -> None:
    cell = bench_cell(samples=decode_samples(), ttft_p50=1.0)
    ttft = value(metrics_of(load_matrix(bench_run(cell))), "decode.0.c1.ttft_s")
    assert ttft.value == 1.0  # median of 0.5, 1.0, 0.75, 2.0, 3.0
    assert (ttft.source, ttft.n, ttft.summary, ttft.unit) == ("samples", 5, 1.0, "s")


def test_per_request_and_ttft_fall_back_to_the_summary_without_samples() -> None:
    cell = bench_cell(samples=[], output_tps_per_user_p50=31.5, ttft_p50=0.8)
    metrics = metrics_of(load_matrix(bench_run(cell)))
    speed = value(metrics, "decode.0.c1.per_request_tok_s")
    assert (speed.value, speed.source, speed.pointer) == (
        31.5,
        "summary",
        "/results/0/output_tps_per_user_p50",
    )
    ttft = value(metrics, "decode.0.c1.ttft_s")
    assert (ttft.value, ttft.source, ttft.pointer) == (0.8, "summary", "/results/0/ttft_p50")


def test_a_cell_without_samples_or_summary_has_only_its_aggregate() -> None:
    metrics = metrics_of(load_matrix(bench_run(bench_cell(samples=[]))))
    assert sorted(v.id for v in metrics.values if v.id.startswith("decode.")) == [
        "decode.0.c1.aggregate_tok_s"
    ]


@pytest.mark.parametrize(
    ("extra", "status"),
    [
        ({"aggregate_tps": -1}, "skipped_capacity"),
        ({"aggregate_tps": -2}, "skipped_user"),
        ({"aggregate_tps": -3}, "loop_detected"),
        ({"aggregate_tps": 0}, "error"),
        ({"aggregate_tps": None}, "failed"),
        ({"failure_reason": "stream reset by peer"}, "failed"),
    ],
)
def test_sentinel_cells_have_a_state_and_no_metric(
    extra: dict[str, Any], status: CellStatus
) -> None:
    cell = bench_cell(concurrency=8, context=32768, samples=decode_samples(), **extra)
    run = load_matrix(bench_run(bench_cell(context=32768), cell), "runs/x/m.json")
    metrics = metrics_of(run)
    assert not [v for v in metrics.values if v.id.startswith("decode.32K.c8.")]
    assert metrics.get("decode.32K.c1.aggregate_tok_s") is not None
    state = [c for c in metrics.cells if c.kind == "decode" and c.concurrency == 8]
    assert state == [
        CellState(
            kind="decode",
            context=32768,
            concurrency=8,
            status=status,
            reason=run.cells[1].reason,
            file="runs/x/m.json",
            pointer="/results/1",
            extra=FrozenDict({"meta.engine": "paiton"}),  # the file's settings, as meta. axes
        )
    ]
    assert state[0].reason


# --- provenance, ordering, clashes -------------------------------------------------------------


def test_values_carry_file_digest_and_provenance() -> None:
    reconstructed = {
        "status": "reconstructed",
        "reconstructedFrom": "published tables",
        "generator": "reportgen.reconstruct 1",
    }
    run = load_ok({**bench_run(), "dataProvenance": reconstructed}, "runs/a/matrix.json")
    for v in metrics_of(run).values:
        assert v.file == "runs/a/matrix.json"
        assert v.sha256 == run.source.sha256
        assert v.provenance == "reconstructed"
        assert v.definition is DEFINITIONS[v.key]
        assert v.unit == ("requests" if v.stat == "n" else DEFINITIONS[v.key].unit)
    for v in metrics_of(load_matrix(bench_run())).values:
        assert v.provenance == "measured"


def test_values_are_sorted_by_id_and_compute_is_pure() -> None:
    run = load_matrix(bench_run(bench_cell(concurrency=2), bench_cell(concurrency=1)))
    first, second = metrics_of(run), metrics_of(run)
    assert first == second
    ids = [v.id for v in first.values]
    assert ids == sorted(ids)
    assert first.by_id()["decode.0.c2.aggregate_tok_s"] == first.get("decode.0.c2.aggregate_tok_s")
    assert first.get("decode.0.c99.aggregate_tok_s") is None
    assert first.runs == (run,)


def test_a_cell_measured_in_several_files_is_their_median_with_its_spread() -> None:
    # Three repetitions (r1..r3) of one cell, in three files of one run.
    reps = [(1000, "a.json"), (900, "b.json"), (1200, "c.json")]
    runs = [
        load_matrix(bench_run(bench_cell(context=8192, aggregate_tps=t / 10, tokens=t)), f)
        for t, f in reps
    ]
    metrics = compute(runs)
    agg = value(metrics, "decode.8K.c1.aggregate_tok_s")
    assert (agg.value, agg.source) == (100.0, "repetitions")
    assert agg.repeats == (("a.json", 100.0), ("b.json", 90.0), ("c.json", 120.0))
    assert value(metrics, "decode.8K.c1.aggregate_tok_s.rep_min").value == 90.0
    assert value(metrics, "decode.8K.c1.aggregate_tok_s.rep_max").value == 120.0
    reps_value = value(metrics, "decode.8K.c1.aggregate_tok_s.reps")
    assert (reps_value.value, reps_value.unit) == (3.0, "repetitions")
    # each statistic is the median of the repetitions' own, with a spread of its own; a count
    # of requests (.n) has none
    assert value(metrics, "decode.8K.c1.itl_s.p99").source == "repetitions"
    p99_reps = value(metrics, "decode.8K.c1.itl_s.p99.reps")
    assert (p99_reps.value, p99_reps.stat) == (3.0, "p99.reps")
    assert metrics.get("decode.8K.c1.itl_s.n.rep_min") is None
    assert value(metrics, "decode.8K.c1.aggregate_tok_s").as_json()["repetitions"] == [
        {"file": f, "value": t / 10} for t, f in reps
    ]


def test_an_even_number_of_repetitions_takes_the_middle_two() -> None:
    runs = [
        load_matrix(bench_run(bench_cell(aggregate_tps=t / 10, tokens=t)), f"{t}.json")
        for t in (1000, 1100)
    ]
    assert value(compute(runs), "decode.0.c1.aggregate_tok_s").value == pytest.approx(105.0)


def test_a_run_setting_the_files_state_differently_is_no_one_value() -> None:
    a = load_matrix(bench_run(bench_cell(context=0), duration_per_test=60.0), "a.json")
    b = load_matrix(bench_run(bench_cell(context=8192), duration_per_test=90.0), "b.json")
    metrics = compute([a, b])
    assert metrics.get("matrix.duration_s") is None
    assert dict(metrics.varying) == {"matrix.duration_s": "the run's files state 60, 90 (2 files)"}


def test_a_server_counter_aggregate_is_counted_from_the_counter() -> None:
    cell = bench_cell(
        concurrency=4,
        aggregate_tps=250.0,
        tokens=40,  # the clients' streamed usage saw far fewer tokens than the server made
        seconds=8.0,
        source="isolated_vllm_generation_tokens",
        server_counter_name="vllm:generation_tokens_total",
        server_counter_start_value=1000.0,
        server_counter_end_value=3000.0,
    )
    run = load_matrix(bench_run(cell, version="0.4.31"))
    agg = value(metrics_of(run), "decode.0.c4.aggregate_tok_s")
    assert (agg.value, agg.source, agg.summary) == (250.0, "fields", 250.0)
    assert agg.basis == "the server's vllm:generation_tokens_total counter"
    assert agg.as_json()["basis"] == agg.basis
    assert agg.pointer == "/results/0/server_counter_end_value"


def test_a_server_counter_that_disagrees_with_the_aggregate_is_a_warning() -> None:
    cell = bench_cell(
        aggregate_tps=300.0,
        source="isolated_vllm_generation_tokens",
        server_counter_start_value=0.0,
        server_counter_end_value=2000.0,
    )
    _, problems = load_ok_with_warnings(bench_run(cell, version="0.4.31"))
    assert [p.format() for p in problems] == [
        "run.json:11:24 /results/0/aggregate_tps: warning: aggregate_tps 300 disagrees with the "
        "isolated_vllm_generation_tokens counter's (server_counter_end_value - "
        "server_counter_start_value) / measurement_seconds = 2000 / 10 = 200"
    ]


def test_runs_of_different_cells_combine() -> None:
    a = load_matrix(bench_run(bench_cell(context=0)), "a.json")
    b = load_matrix(bench_run(bench_cell(context=8192)), "b.json")
    c = load_canonical(lmx_run(), "c.json")
    metrics = compute([a, b, c])
    assert value(metrics, "decode.0.c1.aggregate_tok_s").file == "a.json"
    assert value(metrics, "decode.8K.c1.aggregate_tok_s").file == "b.json"
    assert value(metrics, "canonical.c1.output_tok_s").file == "c.json"


def test_two_contexts_with_one_label_are_an_error() -> None:
    cells = (bench_cell(context=8000), bench_cell(context=8192))  # both "8K"
    with pytest.raises(InputError) as caught:
        compute([load_matrix(bench_run(*cells))])
    assert caught.value.problems[0].message == (
        "metric decode.8K.c1.aggregate_tok_s is defined twice in this file "
        "(/results/0/client_output_tokens, /results/1/client_output_tokens)"
    )


def test_metric_values_are_frozen() -> None:
    v = metrics_of(load_matrix(bench_run())).values[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.value = 1.0  # type: ignore[misc]  # the assignment the test proves fails
