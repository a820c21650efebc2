"""Cost per million tokens from a declared GPU-hour price (pure: throughputs and a price in,
cost values out).

cost per million output tokens = gpu_hour_usd x GPUs / (3600 x output tok/s) x 1e6; per million
total tokens the same with (input + output) tok/s, where the cell's completed requests state
their input tokens. Every cost carries the price's source and date in its basis, and the page
shows them beside every cost.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from reportgen.metrics.registry import DEFINITIONS, MetricValue
from reportgen.model import MatrixRun, RequestSample, Run, Scalar, Setup, SweepRun

Place = tuple[str, Scalar, Scalar, Scalar]  # (file, context, concurrency, point)


@dataclass(frozen=True)
class Price:
    """A declared price of one GPU for one hour, with where it comes from and when."""

    gpu_hour_usd: float
    source: str
    date: str

    def words(self) -> str:
        """The price as the page states it beside a cost."""
        return f"{self.gpu_hour_usd:,.2f} USD per GPU-hour ({self.source}, {self.date})"


def usd_per_mtok(gpu_hour_usd: float, gpus: int, tok_s: float) -> float:
    """The cost of a million tokens made at `tok_s` by `gpus` GPUs at `gpu_hour_usd` each."""
    return gpu_hour_usd * gpus / (3600.0 * tok_s) * 1e6


def costs(
    values: Iterable[MetricValue],
    price: Price,
    setups: Mapping[str | None, Setup],
    input_share: Mapping[Place, float] | None = None,
) -> Iterator[MetricValue]:
    """The cost per million output tokens of every output throughput whose run states its GPUs
    (`<cell>.usd_per_mtok`), and per million total tokens (`<cell>.usd_per_mtok_total`) where
    `input_share` gives the throughput's place the ratio of input to output tokens."""
    shares = input_share or {}
    for v in values:
        setup = setups.get(v.run)
        hw = None if setup is None else setup.hardware
        if (
            f"{v.key}.usd_per_mtok" not in DEFINITIONS
            or v.stat is not None
            or hw is None
            or v.value <= 0
        ):
            continue
        gpus = hw.gpu_count
        stem = v.id.removesuffix("output_tok_s").removesuffix("aggregate_tok_s")
        base = v.but(source="derived", n=None, summary=None, summary_pointer=None)
        basis = f"{price.words()} x {gpus} GPU" + ("s" if gpus != 1 else "")
        yield base.but(
            id=f"{stem}usd_per_mtok",
            key=f"{v.key}.usd_per_mtok",
            unit="USD/Mtok",
            value=usd_per_mtok(price.gpu_hour_usd, gpus, v.value),
            basis=basis,
        )
        share = shares.get((v.file, v.context, v.concurrency, v.point))
        if share is not None:
            yield base.but(
                id=f"{stem}usd_per_mtok_total",
                key=f"{v.key}.usd_per_mtok_total",
                unit="USD/Mtok",
                value=usd_per_mtok(price.gpu_hour_usd, gpus, v.value * (1.0 + share)),
                basis=f"{basis}; input tokens {share:.4g} x output tokens",
            )


def input_shares(runs: Iterable[Run]) -> dict[Place, float]:
    """Each decode cell's and load point's input tokens over its output tokens, summed over its
    completed requests, where its requests state both (a file of summaries alone has none)."""
    out: dict[Place, float] = {}
    for run in runs:
        label = run.source.label
        groups: list[tuple[Place, Sequence[RequestSample]]]
        if isinstance(run, MatrixRun):
            groups = [
                ((label, c.context_tokens, c.concurrency, c.point), c.samples) for c in run.cells
            ]
        elif isinstance(run, SweepRun):
            groups = [((label, None, p.concurrency, p.label), p.samples) for p in run.points]
        else:
            continue
        for place, samples in groups:
            tokens_in = tokens_out = 0
            for s in samples:
                if s.completed:
                    tokens_in += s.input_tokens
                    tokens_out += s.output_tokens
            if tokens_in > 0 and tokens_out > 0:
                out[place] = tokens_in / tokens_out
    return out
