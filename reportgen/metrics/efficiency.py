"""Efficiency values derived from throughputs and the article's setup: per GPU, per watt and
joules per token, each with the basis it rests on."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from reportgen.metrics.registry import THROUGHPUTS, MetricValue
from reportgen.model import Setup


def efficiency(
    values: Iterable[MetricValue], setups: Mapping[str | None, Setup]
) -> Iterator[MetricValue]:
    """Per-GPU throughput, tok/s per watt and joules per token, where the run's setup says how
    many GPUs (and, for power, their cap or rated power)."""
    for v in values:
        setup = setups.get(v.run)
        if v.key not in THROUGHPUTS or v.stat is not None or setup is None or v.value <= 0:
            continue
        hw = setup.hardware
        if hw is None:
            continue
        gpus = f"{hw.gpu_count} GPU" + ("s" if hw.gpu_count != 1 else "")
        base = v.but(source="derived", n=None, summary=None)
        yield base.but(
            id=f"{v.id}_per_gpu",
            key=f"{v.key}.per_gpu",
            unit="tok/s/GPU",
            value=v.value / hw.gpu_count,
            basis=gpus,
        )
        watts, what = (
            (hw.gpu_power_cap_w, "power cap")
            if hw.gpu_power_cap_w
            else (hw.gpu_rated_power_w, "rated power")
        )
        if not watts:
            continue
        total = watts * hw.gpu_count
        basis = f"{what} {watts:,g} W x {gpus}"
        yield base.but(
            id=f"{v.id}_per_w",
            key=f"{v.key}.per_w",
            unit="tok/s/W",
            value=v.value / total,
            basis=basis,
        )
        stem = v.id.removesuffix("tok_s")
        yield base.but(
            id=f"{stem}j_per_tok",
            key=f"{v.key}.j_per_tok",
            unit="J/tok",
            value=total / v.value,
            basis=basis,
        )
