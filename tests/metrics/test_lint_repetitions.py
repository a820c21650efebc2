"""Repetition lints (`reportgen.metrics.lints.repetitions`): a repetition left out of a cell's
median, or kept in it with far fewer requests, is named; clean repetitions give no finding."""

from __future__ import annotations

from lint_builders import cell_of, findings, matrix, with_cell

from reportgen.metrics.compute import compute

K8 = 8192


def test_clean_repetitions_have_no_repetition_finding() -> None:
    found = findings(matrix("r1.json"), matrix("r2.json"), matrix("r3.json"))
    assert not [f for f in found if f.id.startswith("repetition-")]


def test_a_failed_repetition_is_listed_as_left_out_with_its_reason() -> None:
    reason = "the server restarted"
    failed = with_cell(
        matrix("r3.json"), K8, 2, status="error", reason=reason, aggregate_tok_s=None
    )
    runs = (matrix("r1.json"), matrix("r2.json"), failed)
    found = findings(*runs)
    [left] = [f for f in found if f.id == "repetition-left-out"]
    assert (left.file, left.cell, left.severity) == ("r3.json", "8K x 2", "warning")
    assert left.pointer == cell_of(failed, K8, 2).pointer
    assert "the server restarted" in left.message
    assert "median of 2 repetitions of 3" in left.evidence
    # the finding marks the combined value, which rests on the two that were measured
    metrics = compute(runs)
    value = metrics.get("decode.8K.c2.aggregate_tok_s")
    assert value is not None and value.id in left.metrics
    assert [f for f, _ in value.repeats] == ["r1.json", "r2.json"]
    # and each statistic with a spread of its own, which rests on the same two
    p99 = metrics.get("decode.8K.c2.itl_s.p99")
    assert p99 is not None and p99.id in left.metrics and len(p99.repeats) == 2
    assert metrics.get("decode.8K.c2.itl_s.p99.reps") is not None
    assert "decode.8K.c2.itl_s.n" not in left.metrics  # a count of requests has no spread
    assert "cell-invalid" in {f.id for f in found}  # the failure itself is still an error


def test_a_repetition_with_far_fewer_requests_is_named_but_kept() -> None:
    short = with_cell(matrix("r3.json"), K8, 2, n=2)
    runs = (matrix("r1.json"), matrix("r2.json"), short)
    [f] = [found for found in findings(*runs) if found.id == "repetition-short"]
    assert (f.file, f.cell) == ("r3.json", "8K x 2")
    assert "2 request samples" in f.evidence and "median count is 6" in f.evidence
    metrics = compute(runs)
    value = metrics.get("decode.8K.c2.aggregate_tok_s")
    assert value is not None and len(value.repeats) == 3
    for stat in ("p90", "p99", "mean"):  # the lint is on each statistic of the cell too
        assert f"decode.8K.c2.ttft_s.{stat}" in f.metrics


def test_one_file_alone_is_no_repetition() -> None:
    failed = with_cell(matrix("r1.json"), K8, 2, status="error", reason="x", aggregate_tok_s=None)
    assert not [f for f in findings(failed) if f.id == "repetition-left-out"]
