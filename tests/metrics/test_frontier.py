"""The frontier (membership against a brute force), its values at fixed interactivity (against
scipy's PCHIP directly, monotone, never extrapolated) and cost per million tokens (against
numpy)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from reportgen.metrics.cost import Place, Price, costs, usd_per_mtok
from reportgen.metrics.frontier import (
    FrontierPoint,
    at_level,
    frontier,
    levels_of,
    on_frontier,
    ratio,
)
from reportgen.metrics.registry import MetricValue
from reportgen.model import Hardware, Setup


def _value(id_: str, value: float, key: str = "decode.aggregate_tok_s.per_gpu") -> MetricValue:
    return MetricValue(
        id=id_,
        key=key,
        value=value,
        unit="tok/s/GPU",
        source="derived",
        file="synthetic.json",
        sha256="0" * 64,
        provenance="synthetic",
        pointer="/results/0",
        context=4096,
        concurrency=1,
    )


def _points(pairs: list[tuple[float, float]]) -> list[FrontierPoint]:
    return [
        FrontierPoint(x, y, _value(f"x{i}", x), _value(f"y{i}", y))
        for i, (x, y) in enumerate(pairs)
    ]


def _brute(pairs: list[tuple[float, float]]) -> list[bool]:
    return [
        not any(ox > x and oy > y for j, (ox, oy) in enumerate(pairs) if j != i)
        for i, (x, y) in enumerate(pairs)
    ]


def test_frontier_membership_matches_a_brute_force_on_random_series() -> None:
    rng = random.Random(26)
    wrong = []
    for case in range(300):
        n = rng.randint(1, 25)
        # coarse values so that ties in x and in y happen often
        pairs = [(float(rng.randint(1, 12)), float(rng.randint(1, 12))) for _ in range(n)]
        if on_frontier(pairs) != _brute(pairs):
            wrong.append((case, pairs))
    assert not wrong, wrong[:3]


def test_the_frontier_is_sorted_by_x_and_falls() -> None:
    pairs = [(10.0, 500.0), (30.0, 300.0), (20.0, 350.0), (25.0, 200.0), (5.0, 100.0)]
    front = frontier(_points(pairs))
    assert [(p.x, p.y) for p in front] == [(10.0, 500.0), (20.0, 350.0), (30.0, 300.0)]


def test_a_level_between_points_is_scipys_pchip_through_the_frontier() -> None:
    pairs = [(18.6, 615.0), (23.8, 393.0), (29.1, 238.0), (34.1, 133.0), (35.9, 36.0)]
    front = frontier(_points(pairs))
    xs = np.array([p.x for p in front])
    ys = np.array([p.y for p in front])
    from scipy.interpolate import PchipInterpolator

    reference = PchipInterpolator(xs, ys)
    for level in (18.6, 20.0, 25.5, 30.0, 35.0, 35.9):
        got = at_level(front, level)
        assert got is not None
        assert got == pytest.approx(float(reference(level)), rel=1e-12)


def test_the_interpolation_is_monotone_along_a_falling_frontier() -> None:
    front = frontier(_points([(10.0, 900.0), (12.0, 880.0), (20.0, 300.0), (40.0, 290.0)]))
    grid = np.linspace(10.0, 40.0, 301)
    got = [at_level(front, float(x)) for x in grid]
    assert all(v is not None for v in got)
    steps = np.diff(np.array(got, dtype=float))
    assert (steps <= 1e-9).all(), "PCHIP overshot between frontier points"


def test_a_level_outside_the_frontier_is_unreachable() -> None:
    front = frontier(_points([(20.0, 500.0), (40.0, 200.0)]))
    assert at_level(front, 19.99) is None
    assert at_level(front, 40.01) is None
    assert at_level(front, 20.0) == 500.0
    assert at_level(frontier(_points([(30.0, 100.0)])), 31.0) is None
    assert at_level((), 30.0) is None


def test_levels_and_their_ratio_and_cost_are_metric_values() -> None:
    price = Price(2.5, "an example price", "2026-11-01")
    a = levels_of(
        "a",
        frontier(_points([(20.0, 400.0), (60.0, 100.0)])),
        (30.0, 70.0),
        per_gpu=True,
        price=price,
    )
    b = levels_of(
        "b", frontier(_points([(10.0, 900.0), (50.0, 300.0)])), (30.0, 70.0), per_gpu=True
    )
    at30 = a[0].throughput
    assert at30 is not None and at30.id == "frontier.a.at_30.tok_s_per_gpu"
    assert a[1].throughput is None and a[1].span == (20.0, 60.0)  # 70 is past its last point
    assert a[0].cost is not None
    assert a[0].cost.value == pytest.approx(2.5 / (3600.0 * at30.value) * 1e6)
    assert "an example price" in (a[0].cost.basis or "") and "2026-11-01" in (a[0].cost.basis or "")
    r = ratio(b[0], a[0])
    assert r is not None and r.id == "frontier.a-vs-b.at_30.ratio"
    assert b[0].throughput is not None
    assert r.value == pytest.approx(at30.value / b[0].throughput.value)
    assert ratio(b[1], a[1]) is None


def test_cost_per_million_tokens_against_numpy() -> None:
    rng = np.random.default_rng(26)
    prices = rng.uniform(0.5, 10.0, 50)
    gpus = rng.integers(1, 9, 50)
    tok_s = rng.uniform(5.0, 5000.0, 50)
    expected = prices * gpus / (3600.0 * tok_s) * 1e6
    got = [
        usd_per_mtok(float(p), int(g), float(t))
        for p, g, t in zip(prices, gpus, tok_s, strict=True)
    ]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_costs_of_each_output_throughput_with_its_gpus_and_input_share() -> None:
    setup = Setup(
        hardware=Hardware(gpu_name="GPU", gpu_count=4),
        hf_id="example/model",
        checkpoint=None,
        quantization=None,
        engine_name="engine",
        engine_build=None,
        engine_description=None,
    )
    value = _value("decode.4K.c1.aggregate_tok_s", 800.0, key="decode.aggregate_tok_s")
    share: dict[Place, float] = {(value.file, value.context, value.concurrency, value.point): 3.0}
    out = {v.id: v for v in costs([value], Price(2.0, "src", "2026-01-02"), {None: setup}, share)}
    tokens = np.array([800.0, 800.0 * 4.0])  # output; output + input (3x output)
    expected = 2.0 * 4 / (3600.0 * tokens) * 1e6
    assert out["decode.4K.c1.usd_per_mtok"].value == pytest.approx(expected[0])
    assert out["decode.4K.c1.usd_per_mtok_total"].value == pytest.approx(expected[1])
    assert all(v.unit == "USD/Mtok" for v in out.values())
