"""The steady window of many requests (`reportgen.metrics.steady`): from `NUMPY_FROM` requests
numpy finds it, and must find exactly what the plain loop finds, ties between one request's end
and another's start included; and packed spans (`reportgen.samples.PackedSpans`) read as the
tuples they hold."""

from __future__ import annotations

import random

import pytest

from reportgen.metrics import steady as steady_module
from reportgen.metrics.steady import steady
from reportgen.samples import NUMPY_FROM, PackedSpans


def _closed_loop(n: int, slots: int, seed: int) -> list[tuple[float, float]]:
    """Synthetic: `slots` slots running requests back to back, each of a random whole number of
    milliseconds (so ends and starts often tie), started a few milliseconds apart."""
    rng = random.Random(seed)
    free = [k * 0.003 for k in range(slots)]
    spans = []
    for _ in range(n):
        slot = min(range(slots), key=lambda k: free[k])
        start = free[slot]
        end = start + rng.randint(5, 40) / 1000
        spans.append((start, end))
        free[slot] = end
    return spans


@pytest.mark.parametrize(("slots", "concurrency"), [(8, 8), (8, 9), (1, None), (16, None)])
def test_numpy_and_the_plain_loop_agree(
    slots: int, concurrency: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    spans = _closed_loop(NUMPY_FROM + 500, slots, seed=slots)
    by_numpy = steady(spans, concurrency)
    by_packed = steady(PackedSpans([s for s, _ in spans], [e for _, e in spans]), concurrency)
    monkeypatch.setattr(steady_module, "NUMPY_FROM", len(spans) + 1)
    by_loop = steady(spans, concurrency)
    assert by_numpy == by_loop == by_packed
    if concurrency == slots + 1:
        assert by_loop.window is None  # never that many in flight
    else:
        assert by_loop.window is not None and 0 < by_loop.inside < len(spans)


def test_packed_spans_read_as_their_tuples() -> None:
    spans = ((0.0, 1.5), (0.25, 2.0), (1.5, 3.0))
    packed = PackedSpans([s for s, _ in spans], [e for _, e in spans])
    assert len(packed) == 3 and packed[-1] == (1.5, 3.0) and packed[1:] == spans[1:]
    assert tuple(packed) == spans and packed == spans and hash(packed) == hash(spans)
    with pytest.raises(IndexError):
        packed[3]
    with pytest.raises(ValueError, match="different lengths"):
        PackedSpans([0.0], [])
