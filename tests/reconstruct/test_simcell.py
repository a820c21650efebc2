"""The decode-cell model behind the reconstructed files is physically consistent."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from reportgen.reconstruct.simcell import CellParams, simulate


@pytest.mark.parametrize("concurrency", [1, 2, 8, 16])
@pytest.mark.parametrize(
    "params",
    [
        CellParams(prefill_s=0.6, base_tok_s=60.0, stall=0.5),
        CellParams(prefill_s=2.4, base_tok_s=40.0, stall=0.0, gap_s=2.0),
    ],
)
def test_cell_model_invariants(concurrency: int, params: CellParams) -> None:
    sim = simulate(
        concurrency,
        params,
        random.Random(f"t/{concurrency}/{params}"),
        duration_s=30.0,
        max_tokens=2048,
        input_tokens=lambda: 100,
    )
    # Never more than C requests open at once, and one request at a time per stream.
    events = sorted((t, +1) for _, sent, _, _ in sim.timeline for t in [sent])
    events += [(end, -1) for *_, end in sim.timeline]
    open_now = 0
    for _, step in sorted(events, key=lambda e: (e[0], e[1])):
        open_now += step
        assert open_now <= concurrency
    for stream in range(concurrency):
        spans = sorted((s, e) for st, s, _, e in sim.timeline if st == stream)
        assert all(a_end <= b_start + 1e-9 for (_, a_end), (b_start, _) in pairwise(spans))
    # The first requests queue for prefill: their TTFT grows with their place in the queue.
    firsts = sorted(f - s for st, s, f, _ in sim.timeline[:concurrency] if f is not None)
    assert firsts[-1] >= firsts[0] + (concurrency - 1) * params.prefill_s * 0.8
    for sample in sim.samples:
        n, itl = sample["output_tokens"], sample["inter_token_latency_avg"]
        assert 1 <= n <= 2048
        if sample["completed"]:
            assert n == 2048
            # ITL is written with 6 decimals: allow its rounding times the token count.
            assert sample["latency"] + n * 1e-6 >= sample["ttft"] + itl * (n - 1)
    assert 0 < sim.measurement_s <= 30.0 + 1e-9
