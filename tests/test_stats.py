"""Order statistics as the reference tools define them (`reportgen.stats`)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.stats import close, describe, median, percentile


@pytest.mark.parametrize(
    ("values", "p", "expected"),
    [
        ([1.0, 2.0, 3.0, 4.0], 0.5, 2.5),  # rank 1.5
        ([1.0, 2.0, 3.0, 4.0], 0.9, 3.7),  # rank 2.7
        ([1.0, 2.0, 3.0, 4.0], 0.0, 1.0),
        ([1.0, 2.0, 3.0, 4.0], 1.0, 4.0),
        ([4.0, 1.0, 3.0, 2.0], 0.25, 1.75),  # sorted first; rank 0.75
        ([10.0, 20.0], 0.99, 19.9),
        ([7.0], 0.9, 7.0),
        ([3.0, 1.0, 2.0], 0.5, 2.0),
        ([0.0, -1.0, 2.0, 4.0], 0.5, 3.0),  # 0 and -1 are "no measurement": dropped
        ([-1.0, 0.0, 5.0], 0.9, 5.0),
        ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9, 9.1),  # ints are fine
    ],
)
def test_percentile_hand_cases(values: list[float], p: float, expected: float) -> None:
    assert percentile(values, p) == pytest.approx(expected)


@pytest.mark.parametrize("values", [[], [0.0], [-1.0, -2.0, 0.0]])
def test_percentile_of_nothing_measured_is_none(values: list[float]) -> None:
    assert percentile(values, 0.5) is None
    assert median(values) is None


@pytest.mark.parametrize("p", [-0.01, 1.01, 50.0])
def test_percentile_rank_outside_0_1_is_refused(p: float) -> None:
    with pytest.raises(ValueError, match="outside"):
        percentile([1.0], p)


def test_percentile_accepts_any_iterable() -> None:
    assert percentile((x for x in (3.0, 1.0, 2.0)), 0.5) == 2.0


def test_median_is_p50() -> None:
    assert median([5.0, 1.0, 3.0, 2.0]) == 2.5


@pytest.mark.parametrize(
    ("a", "b", "rel", "abs_", "expected"),
    [
        (100.0, 100.09, 1e-3, 0.0, True),  # 0.09 <= 0.1 (relative to the larger)
        (100.0, 100.2, 1e-3, 0.0, False),
        (0.0, 0.04, 1e-3, 0.05, True),  # absolute floor
        (0.0, 0.06, 1e-3, 0.05, False),
        (-5.0, -5.0, 0.0, 0.0, True),
        (16400.0, 16400.5, 0.0, 0.51, True),
    ],
)
def test_close(a: float, b: float, rel: float, abs_: float, expected: bool) -> None:
    assert close(a, b, rel=rel, abs_=abs_) is expected
    assert close(b, a, rel=rel, abs_=abs_) is expected


values = st.lists(
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False), max_size=40
)
ranks = st.floats(min_value=0.0, max_value=1.0)


@settings(max_examples=150, deadline=None)
@given(values=values, p=ranks, q=ranks)
def test_percentile_is_monotone_in_p(values: list[float], p: float, q: float) -> None:
    low, high = sorted((p, q))
    a, b = percentile(values, low), percentile(values, high)
    if a is None or b is None:
        assert a is None and b is None
        return
    assert a <= b or math.isclose(a, b, rel_tol=1e-12)  # interpolation may round by an ulp


@settings(max_examples=150, deadline=None)
@given(values=values, p=ranks)
def test_percentile_lies_within_the_kept_values(values: list[float], p: float) -> None:
    kept = [v for v in values if v > 0]
    result = percentile(values, p)
    if not kept:
        assert result is None
        return
    assert result is not None
    lowest, highest = min(kept), max(kept)
    assert lowest <= result <= highest or math.isclose(
        result, min(max(result, lowest), highest), rel_tol=1e-12
    )
    assert percentile(values, 0.0) == min(kept)
    assert percentile(values, 1.0) == max(kept)


@settings(max_examples=150, deadline=None)
@given(values=st.lists(st.floats(min_value=1e-6, max_value=1e6), min_size=1, max_size=41))
def test_median_of_an_odd_list_is_its_middle_element(values: list[float]) -> None:
    if len(values) % 2 == 0:
        values = values[1:]
    assert median(values) == sorted(values)[len(values) // 2]


@settings(max_examples=150, deadline=None)
@given(
    values=values, p=ranks, noise=st.lists(st.floats(max_value=0.0, allow_nan=False), max_size=5)
)
def test_percentile_ignores_order_and_non_positive_values(
    values: list[float], p: float, noise: list[float]
) -> None:
    assert percentile(values + noise, p) == percentile(sorted(values, reverse=True), p)


@settings(max_examples=150, deadline=None)
@given(values=st.lists(st.floats(min_value=1e-3, max_value=1e3), min_size=1, max_size=20), p=ranks)
def test_percentile_scales_with_its_values(values: list[float], p: float) -> None:
    result = percentile(values, p)
    scaled = percentile([v * 2 for v in values], p)
    assert result is not None and scaled is not None
    assert scaled == pytest.approx(2 * result)


@settings(max_examples=150, deadline=None)
@given(value=st.floats(min_value=1e-6, max_value=1e6), count=st.integers(1, 10), p=ranks)
def test_percentile_of_a_constant_is_that_constant(value: float, count: int, p: float) -> None:
    assert percentile([value] * count, p) == value


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=1e-6, max_value=1e6), min_size=1, max_size=60))
def test_percentiles_are_numpys_linear_method(values: list[float]) -> None:
    """The percentile method the article's appendix states is numpy.percentile's default."""
    import numpy

    stats = describe(values)
    assert stats is not None
    for name, p in (("p50", 50), ("p90", 90), ("p95", 95), ("p99", 99)):
        assert stats[name] == pytest.approx(numpy.percentile(values, p, method="linear"), rel=1e-12)
    assert stats["mean"] == pytest.approx(numpy.mean(values), rel=1e-12)
    assert (stats["min"], stats["max"], stats["n"]) == (min(values), max(values), len(values))


def test_describe_leaves_out_what_is_not_a_measurement() -> None:
    assert describe([0.0, -1.0]) is None
    stats = describe([0.0, 2.0, 4.0])
    assert stats is not None and stats["n"] == 2 and stats["p50"] == 3.0
