"""Service-level objectives: attainment, goodput and the highest load that meets them (pure:
load points, the metrics computed from them and the article's `[slo]` in, metric values out).

A per-request objective judges each request of a load point: a request meets the SLOs when it
completed and every per-request objective holds for it; a failed request is a miss. Attainment
is the requests that meet over every request the tool counted (completed + failed); request
goodput the requests that meet over the load point's measured window, token goodput their
output tokens over that window. These need each request, so they come only from a file's
per-request records, never from its summary statistics.

A percentile objective judges the load point's own percentile, the value its tables show
(`load.ttft_s.p99`): from the records where the file has them, else from the tool's summary
statistics, so a file with summaries alone is still judged on it. A load point meets the SLOs
when every percentile objective holds and its attainment reaches the declared share; the
highest load of a run that meets them is `slo.max_concurrency` (or `slo.max_rate`).

A verdict is no better than the percentile it judges: one judged by a percentile the article
shows as not measurable (`reportgen.metrics.gates`) is computed but carries that gate, and so
is the load point's overall verdict unless an objective that can be judged already misses, and
the highest load that meets them when a verdict it rests on is gated.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from reportgen.frozendict import FrozenDict
from reportgen.metrics.registry import CellState, Gate, MetricSet, MetricValue
from reportgen.model import LoadPoint, RequestSample, SweepRun

# objective name -> (the request's quantity, the factor from seconds to the name's unit, words)
QUANTITIES: dict[str, tuple[str, float, str]] = {
    "ttft_ms": ("ttft_s", 1000.0, "TTFT"),
    "itl_ms": ("itl_s", 1000.0, "ITL"),
    "e2e_s": ("latency_s", 1.0, "end-to-end latency"),
}
PERCENTILES = (50, 90, 95, 99)  # the percentiles reportgen computes of a load point
# Values that exist only where a file has per-request records (a table says why one is absent).
PER_REQUEST_KEYS = frozenset({"load.slo_attainment", "load.goodput_req_s", "load.goodput_tok_s"})
VERDICT_KEYS = frozenset({"load.slo_met", *(f"load.slo_{n.split('_')[0]}_met" for n in QUANTITIES)})
SLO_KEYS = PER_REQUEST_KEYS | VERDICT_KEYS
# How a verdict is written, in a table or a sentence: 1 (met) or 0 (missed).
VERDICT_WORDS = {1.0: "meets", 0.0: "misses"}
NO_RECORDS = (
    "not derivable: the run file holds the tool's summary statistics, not each request, and an "
    "attainment share or goodput needs each request"
)


def verdict_word(value: float) -> str:
    """A verdict's value (1 or 0) as the article writes it: "meets" or "misses"."""
    return VERDICT_WORDS[1.0 if value else 0.0]


def verdict_value(text: str) -> float | None:
    """The value a written verdict stands for ("meets" 1, "misses" 0, any case); None for other
    text."""
    word = text.strip().lower()
    return next((v for v, w in VERDICT_WORDS.items() if w == word), None)


@dataclass(frozen=True)
class Objective:
    """One objective: `name` (ttft_ms, itl_ms, e2e_s) at most `limit` (in the name's unit), at
    percentile `percentile` of the load point's requests, or for each request (None)."""

    name: str
    limit: float
    percentile: int | None = None

    @property
    def quantity(self) -> str:
        """The request's quantity the objective judges ("ttft_s")."""
        return QUANTITIES[self.name][0]

    @property
    def limit_s(self) -> float:
        """The limit in seconds."""
        return self.limit / QUANTITIES[self.name][1]

    @property
    def verdict_key(self) -> str:
        """The registry key of a percentile objective's verdict: `load.slo_ttft_met`."""
        return f"load.slo_{self.name.split('_')[0]}_met"

    def words(self) -> str:
        """The objective as the page states it: "TTFT p90 <= 1,000 ms"."""
        quantity, _, unit = QUANTITIES[self.name][2], None, self.name.rsplit("_", 1)[1]
        where = "each request" if self.percentile is None else f"p{self.percentile}"
        return f"{quantity} {where} \u2264 {self.limit:,g} {unit}"


@dataclass(frozen=True)
class Slo:
    """The article's `[slo]`: its objectives and the share of requests that must meet them."""

    objectives: tuple[Objective, ...]
    attainment: float

    @property
    def per_request(self) -> tuple[Objective, ...]:
        return tuple(o for o in self.objectives if o.percentile is None)

    @property
    def at_percentile(self) -> tuple[Objective, ...]:
        return tuple(o for o in self.objectives if o.percentile is not None)

    def words(self) -> str:
        """Every objective and the attainment, as one sentence's worth of text."""
        parts = "; ".join(o.words() for o in self.objectives)
        return f"{parts}; at least {self.attainment:.0%} of requests meeting every per-request one"


def request_meets(r: RequestSample, objectives: Sequence[Objective]) -> bool:
    """Whether one request meets every per-request objective: it completed, and each quantity
    is within its limit. A request without an inter-token latency (one output token) has no
    gap between tokens to be late, so an ITL objective does not judge it."""
    if not r.completed:
        return False
    for o in objectives:
        if o.quantity == "itl_s" and not r.decoded:
            continue
        if getattr(r, o.quantity) > o.limit_s:
            return False
    return True


@dataclass(frozen=True, kw_only=True)
class Judged:
    """One load point judged: requests counted (completed + failed), those that meet every
    per-request objective and their output tokens (None: the file has no per-request records);
    each percentile objective's verdict (None: the file has no such percentile) and the gate
    of the percentile it was judged by (None: shown as measured); the overall verdict and its
    gate."""

    total: int | None
    good: int | None
    good_tokens: int | None
    duration_s: float | None
    verdicts: tuple[tuple[Objective, bool | None], ...]
    meets: bool | None
    gates: FrozenDict[Objective, Gate] = FrozenDict()
    meets_gate: Gate | None = None


def has_records(point: LoadPoint) -> bool:
    """Whether the load point's records hold each request the tool counted as completed."""
    done = sum(1 for r in point.samples if r.completed)
    return done > 0 and (point.requests_ok is None or done == point.requests_ok)


def judge(
    point: LoadPoint,
    slo: Slo,
    percentile: dict[Objective, float | None],
    gates: dict[Objective, Gate] | None = None,
) -> Judged:
    """`point` judged against `slo`; `percentile` gives each percentile objective the load
    point's value of it (seconds), None where there is none; `gates` the gate of each that the
    article shows as not measurable."""
    verdicts = tuple(
        (o, None if percentile.get(o) is None else percentile[o] <= o.limit_s)  # type: ignore[operator]
        for o in slo.at_percentile
    )
    gated = {o: g for o, g in (gates or {}).items() if o in slo.at_percentile}
    total = good = tokens = None
    if point.status != "ok":
        total, good, tokens = (point.requests_ok or 0) + point.requests_failed, 0, 0
        verdicts = tuple((o, False) for o, _ in verdicts)
        gated = {}  # a load point that did not finish misses, whatever its percentiles
    elif has_records(point):
        samples = list(point.samples)
        done = sum(1 for r in samples if r.completed)
        total = done + max(point.requests_failed, len(samples) - done)
        met = [r for r in samples if request_meets(r, slo.per_request)]
        good, tokens = len(met), sum(r.output_tokens for r in met)
    elif not slo.per_request and point.requests_ok is not None:  # the counts are enough
        total, good = point.requests_ok + point.requests_failed, point.requests_ok
    meets = _meets(verdicts, total, good, slo.attainment)
    return Judged(
        total=total,
        good=good,
        good_tokens=tokens,
        duration_s=point.duration_s,
        verdicts=verdicts,
        meets=meets,
        gates=FrozenDict(gated),
        meets_gate=_meets_gate(verdicts, gated, total, good, slo.attainment, meets),
    )


def _meets(
    verdicts: Sequence[tuple[Objective, bool | None]],
    total: int | None,
    good: int | None,
    attainment: float,
) -> bool | None:
    if any(v is False for _, v in verdicts):
        return False  # a percentile missed: no attainment can save it
    if total is None or good is None or any(v is None for _, v in verdicts):
        return None
    return total > 0 and good / total >= attainment


def _meets_gate(
    verdicts: Sequence[tuple[Objective, bool | None]],
    gated: dict[Objective, Gate],
    total: int | None,
    good: int | None,
    attainment: float,
    meets: bool | None,
) -> Gate | None:
    """The gate of the overall verdict: none when it is unknown, or when something judged on
    measurable values already misses; else the gate of the first verdict it rests on that is
    gated."""
    if meets is None or not gated:
        return None
    if any(v is False and o not in gated for o, v in verdicts):
        return None
    if total and good is not None and good / total < attainment:
        return None  # the attainment misses, whatever the percentiles say
    return next(g for o, _ in verdicts if (g := gated.get(o)) is not None)


def highest(loads: Iterable[tuple[float, bool | None]]) -> float | None:
    """The highest load that meets the SLOs, when every higher load is known to miss them;
    None when none meets, or when a higher load cannot be judged."""
    for load, meets in sorted(loads, key=lambda x: -x[0]):
        if meets is None:
            return None
        if meets:
            return load
    return None


def _derived(base: MetricValue, key: str, value: float, unit: str, basis: str) -> MetricValue:
    stem = base.id.removesuffix("failed")
    return base.but(
        id=f"{stem}{key.split('.', 1)[1]}",
        key=key,
        value=value,
        unit=unit,
        source="derived",
        n=None,
        summary=None,
        summary_pointer=None,
        stat=None,
        repeats=(),
        basis=basis,
    )


def _point_values(base: MetricValue, judged: Judged, slo: Slo) -> Iterator[MetricValue]:
    where = f"{slo.words()}; failed requests count as misses"
    if judged.total and judged.good is not None:
        share = f"{judged.good} of {judged.total} requests (completed + failed) meet them"
        yield _derived(base, "load.slo_attainment", judged.good / judged.total, "share", share)
        if judged.good_tokens is not None and judged.duration_s:
            window = f"{share}, over the {judged.duration_s:g} s window; {where}"
            yield _derived(
                base, "load.goodput_req_s", judged.good / judged.duration_s, "req/s", window
            )
            yield _derived(
                base, "load.goodput_tok_s", judged.good_tokens / judged.duration_s, "tok/s", window
            )
    for o, verdict in judged.verdicts:
        if verdict is not None:
            value = _derived(base, o.verdict_key, float(verdict), "verdict", o.words())
            yield value.but(gate=judged.gates.get(o))
    if judged.meets is not None:
        value = _derived(base, "load.slo_met", float(judged.meets), "verdict", where)
        yield value.but(gate=judged.meets_gate)


def _points_of(run: SweepRun) -> dict[str, LoadPoint]:
    return {p.pointer: p for p in run.points}


def slo_values(metrics: MetricSet, slo: Slo) -> list[MetricValue]:
    """Every load point's attainment, goodput and verdicts, and each run's highest load that
    meets the SLOs (`slo.max_concurrency`, or `slo.max_rate` for a sweep of rates)."""
    points = {
        run.source.label: _points_of(run) for run in metrics.runs if isinstance(run, SweepRun)
    }
    out: list[MetricValue] = []
    by_run: dict[str | None, list[tuple[CellState, MetricValue, Judged]]] = {}
    for cell in (c for c in metrics.cells if c.kind == "load"):
        point = points.get(cell.file, {}).get(cell.pointer)
        base = metrics.find("load.failed", run=cell.run, point=cell.point)
        if point is None or base is None or base.repeats:
            continue  # a cell measured in several files: judged by none of them alone
        found = {o: _percentile(metrics, o, cell.run, cell.point) for o in slo.at_percentile}
        values = {o: None if v is None else v.value for o, v in found.items()}
        gates = {o: _verdict_gate(o, v.gate) for o, v in found.items() if v and v.gate}
        judged = judge(point, slo, values, gates)
        out += _point_values(base, judged, slo)
        by_run.setdefault(cell.run, []).append((cell, base, judged))
    for judged_points in by_run.values():
        out += _max_load(judged_points, slo)
    return out


def _percentile(
    metrics: MetricSet, o: Objective, run: str | None, point: str | None
) -> MetricValue | None:
    stat = "" if o.percentile == 50 else f".p{o.percentile}"
    return metrics.find(f"load.{o.quantity}{stat}", run=run, point=point)


def _verdict_gate(o: Objective, gate: Gate) -> Gate:
    """The gate of a verdict judged by a percentile with `gate`: of the same kind, naming it."""
    name = f"{QUANTITIES[o.name][2]} p{o.percentile}"
    return replace(gate, reason=f"the {name} it judges is not measurable ({gate.reason})")


def _max_load(
    judged: Sequence[tuple[CellState, MetricValue, Judged]], slo: Slo
) -> Iterator[MetricValue]:
    for axis, key, unit in (
        ("concurrency", "slo.max_concurrency", "requests"),
        ("rate", "slo.max_rate", "req/s"),
    ):
        coords = [(c.coord(axis), b, j) for c, b, j in judged]
        if not coords or any(not isinstance(x, int | float) for x, _, _ in coords):
            continue
        loads = sorted(((float(x), b, j) for x, b, j in coords), key=lambda t: -t[0])  # type: ignore[arg-type]
        best = highest((x, j.meets) for x, _, j in loads)
        if best is None:
            return
        base = next(b for x, b, _ in loads if x == best)
        # the load found is no firmer than the verdicts at and above it
        gate = next(
            (
                replace(g, reason=f"at {_load(b)}, {g.reason}")
                for x, b, j in loads
                if x >= best and (g := j.meets_gate) is not None
            ),
            None,
        )
        basis = (
            f"the highest {axis} whose load point meets {slo.words()}, every higher one "
            "missing them; judged at "
            + ", ".join(b.id.removesuffix(".failed") for _, b, _ in coords)
        )
        # a run's value, not a load point's: no place of its own
        yield _derived(base, key, best, unit, basis).but(
            gate=gate,
            id=f"{base.run}.{key}" if base.id.startswith(f"{base.run}.") else key,
            context=None,
            concurrency=None,
            point=None,
            rate=None,
            extra=FrozenDict(),
        )
        return


def _load(base: MetricValue) -> str:
    """The load point of `base` as a reader names it (its point label, else its id)."""
    return base.point or base.id.removesuffix(".failed")


def with_slo(metrics: MetricSet, slo: Slo | None) -> MetricSet:
    """`metrics` with the values of `slo_values` added (unchanged without an `[slo]`)."""
    if slo is None:
        return metrics
    added = slo_values(metrics, slo)
    return MetricSet(
        values=tuple(sorted((*metrics.values, *added), key=lambda v: v.id)),
        cells=metrics.cells,
        runs=metrics.runs,
        varying=metrics.varying,
        read_warnings=metrics.read_warnings,
    )
