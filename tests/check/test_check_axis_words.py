"""Sentences that name where their numbers were measured in an editor's words (issue 22).

- "with no context", "without context", "at zero context" name a context of 0, the decode
  matrix's first row: "16 concurrent requests together produced Nx the output of a single
  request (A vs B tok/s)" is then the decode matrix's, not the canonical runs';
- "each of 16 concurrent requests" says per request: the decode speed each request sees, not
  the throughput of all together; a second value ("against B tok/s for a single request") keeps
  the first's axes but the one its own words change;
- "going from 1 to 16 concurrent requests at 32K context raised ... Nx (A to B tok/s)": the
  ratio of the metric at the "to" value over the one at the "from" value, and each operand the
  metric at its end.

Every number here is computed from the built metrics; none is typed.
"""

from __future__ import annotations

import pytest
from helpers_articles import PAITON
from test_check_editor_sentences import _after_last_table, _items, _ratio, _v

AGGREGATE = ("decode.0.c16.aggregate_tok_s", "decode.0.c1.aggregate_tok_s")


def _no_context(words: str, wrong: str = "") -> str:
    a, b = AGGREGATE

    def v(metric: str) -> str:
        return _v(PAITON, metric, 1.37 if metric == wrong else 1.0)

    return (
        f"{words}, 16 concurrent requests together produced {_ratio(PAITON, a, b, 1)}x the output "
        f"of a single request ({v(a)} vs {v(b)} tok/s)."
    )


@pytest.mark.parametrize("words", ["With no context", "Without context", "At zero context"])
def test_no_context_names_the_context_of_zero(words: str) -> None:
    text, _ = _after_last_table(PAITON, [_no_context(words)])
    assert [(i.kind, i.message) for i in _items(PAITON, text)] == []


@pytest.mark.parametrize("wrong", AGGREGATE)
def test_a_false_operand_at_no_context_is_a_mismatch(wrong: str) -> None:
    """The sentence is the decode matrix's: a misstated operand is an error against it."""
    text, line = _after_last_table(PAITON, [_no_context("With no context", wrong)])
    items = _items(PAITON, text)
    assert [(i.kind, i.line, i.metric) for i in items] == [("mismatch", line, wrong)]


PER_REQUEST = ("decode.64K.c16.per_request_tok_s", "decode.64K.c1.per_request_tok_s")


def _each(wrong: str = "") -> str:
    a, b = (_v(PAITON, m, 1.37 if m == wrong else 1.0) for m in PER_REQUEST)
    return (
        f"At 64K context each of 16 concurrent requests still decoded at {a} tok/s, against {b} "
        "tok/s for a single request."
    )


def test_each_of_n_requests_is_the_speed_each_request_sees() -> None:
    text, _ = _after_last_table(PAITON, [_each()])
    assert [(i.kind, i.message) for i in _items(PAITON, text)] == []


@pytest.mark.parametrize("wrong", PER_REQUEST)
def test_the_second_value_keeps_the_first_ones_context(wrong: str) -> None:
    """ "against B tok/s for a single request": 64K context and per request, concurrency 1."""
    text, line = _after_last_table(PAITON, [_each(wrong)])
    items = _items(PAITON, text)
    assert [(i.kind, i.line, i.metric) for i in items] == [("mismatch", line, wrong)]


ACROSS = ("decode.32K.c1.aggregate_tok_s", "decode.32K.c16.aggregate_tok_s")


def _across(wrong: str = "", ratio_by: float = 0.0) -> str:
    low, high = (_v(PAITON, m, 1.37 if m == wrong else 1.0) for m in ACROSS)
    ratio = float(_ratio(PAITON, ACROSS[1], ACROSS[0], 1)) + ratio_by
    return (
        f"Going from 1 to 16 concurrent requests at 32K context raised total decode throughput "
        f"{ratio:.1f}x ({low} to {high} tok/s)."
    )


def test_a_ratio_from_one_axis_value_to_another_checks_with_its_operands() -> None:
    text, _ = _after_last_table(PAITON, [_across()])
    assert [(i.kind, i.message) for i in _items(PAITON, text)] == []


@pytest.mark.parametrize("wrong", ACROSS)
def test_a_false_operand_of_a_ratio_across_an_axis_is_a_mismatch(wrong: str) -> None:
    """The "from" operand is the metric at concurrency 1, the "to" one at 16."""
    text, line = _after_last_table(PAITON, [_across(wrong)])
    items = _items(PAITON, text)
    assert [(i.kind, i.line, i.metric) for i in items] == [("mismatch", line, wrong)]


def test_a_false_ratio_across_an_axis_is_a_mismatch() -> None:
    """Read as the "to" metric over the "from" one."""
    text, line = _after_last_table(PAITON, [_across(ratio_by=1.0)])
    items = _items(PAITON, text)
    high, low = ACROSS[1], ACROSS[0]
    assert [(i.kind, i.line, i.metric) for i in items] == [("mismatch", line, f"{high}/{low}")]
