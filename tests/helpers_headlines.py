"""A real run file's own headline numbers, read from the tool's own summary fields, and the
comparison with what reportgen computes for the same load point.

The readers here are written apart from reportgen's importers, from each tool's documented keys,
so that agreement means something: the tool's own median TTFT, its median ITL or TPOT (in the
definition reportgen's `itl_s` follows for that tool) and its output throughput, per load point
(or llama-bench's avg_ts per test). Used by tests/formats/test_wild_files.py on
../shared/samples/wild/ and by tests/realfiles/try_files.py on files found in public repositories.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportgen.errors import Problem
from reportgen.metrics.registry import MetricValue

Raw = Any


@dataclass(frozen=True)
class Headline:
    """One number a file states about one of its load points, in reportgen's units."""

    pointer: str  # the load point's JSON pointer in the file (reportgen's metrics name it too)
    quantity: str  # the last part of reportgen's metric id: ttft_s, itl_s, output_tok_s, ...
    value: float
    where: str  # the file's own key, for messages


@dataclass(frozen=True)
class Agreement:
    """A headline beside the value reportgen computed for the same point and quantity."""

    headline: Headline
    metric: MetricValue | None
    explained: str | None = None  # reportgen's located warning at the headline's own field

    @property
    def accounted(self) -> bool:
        """Agrees to 1%, or reportgen gives no value and says why at the file's own field."""
        return self.agrees() or (self.metric is None and self.explained is not None)

    @property
    def ratio(self) -> float | None:
        """reportgen's value over the file's; None when reportgen has none."""
        if self.metric is None or self.headline.value == 0:
            return None
        return self.metric.value / self.headline.value

    def agrees(self, rel: float = 0.01) -> bool:
        """Within `rel` of the file's own number."""
        return self.ratio is not None and abs(self.ratio - 1) <= rel


def _records(path: Path) -> list[Raw]:
    """The file's JSON documents one after another (one, JSON Lines records, or outputs appended
    to one file); where that fails, the items of an array cut short, or each line that parses
    (a tool's log lines mixed in are skipped): the file's own numbers, as far as they go."""
    text = path.read_text(encoding="utf-8")
    decoder = json.JSONDecoder(parse_constant=lambda _c: math.inf)
    found: list[Raw] = []
    at = 0
    try:
        while True:
            while at < len(text) and text[at].isspace():
                at += 1
            if at >= len(text):
                return found
            value, at = decoder.raw_decode(text, at)
            found.append(value)
    except json.JSONDecodeError:
        pass
    if text.lstrip().startswith("["):  # an array cut short: its complete items
        items: list[Raw] = []
        at = text.index("[") + 1
        while True:
            while at < len(text) and text[at] in " \t\r\n,":
                at += 1
            try:
                value, at = decoder.raw_decode(text, at)
            except json.JSONDecodeError:
                return [items]
            items.append(value)
    lines = []
    for line in text.splitlines():
        try:
            lines.append(decoder.decode(line))
        except json.JSONDecodeError:
            continue
    return lines


def _number(node: Raw, *path: str | int) -> float | None:
    for key in path:
        if isinstance(node, dict) and isinstance(key, str):
            node = node.get(key)
        elif isinstance(node, list) and isinstance(key, int) and key < len(node):
            node = node[key]
        else:
            return None
    return float(node) if isinstance(node, int | float) and not isinstance(node, bool) else None


def _stated(
    pointer: str, node: Raw, spec: tuple[tuple[str, tuple[str | int, ...], float], ...]
) -> Iterator[Headline]:
    """Each (quantity, path, divisor) of `spec` that the node states."""
    for quantity, path, per in spec:
        value = _number(node, *path)
        if value is not None:
            yield Headline(pointer, quantity, value / per, "/".join(map(str, path)))


def _guidellm(doc: Raw) -> Iterator[Headline]:
    for i, bench in enumerate(doc.get("benchmarks") or ()):
        metrics = bench.get("metrics") or {}
        yield from _stated(
            f"/benchmarks/{i}",
            metrics,
            (
                ("ttft_s", ("time_to_first_token_ms", "successful", "median"), 1e3),
                ("itl_s", ("inter_token_latency_ms", "successful", "median"), 1e3),
                ("output_tok_s", ("output_tokens_per_second", "successful", "mean"), 1),
            ),
        )


def _aiperf_like(doc: Raw) -> Iterator[Headline]:
    """AIPerf's and GenAI-Perf's statistics, at the top level or (AIPerf 0.1) under `records`,
    where TTFT is named `ttft`."""
    records = doc.get("records") if isinstance(doc.get("records"), dict) else None
    table = records if records is not None else doc
    ttft = "ttft" if records is not None else "time_to_first_token"
    for head in _stated(
        "",
        table,
        (
            ("ttft_s", (ttft, "p50"), 1e3),
            ("itl_s", ("inter_token_latency", "p50"), 1e3),
            ("output_tok_s", ("output_token_throughput", "avg"), 1),
        ),
    ):
        yield (
            head
            if records is None
            else Headline("", head.quantity, head.value, f"records/{head.where}")
        )


def _inference_perf(doc: Raw) -> Iterator[Headline]:
    latency = ("successes", "latency")
    yield from _stated(
        "",
        doc,
        (
            ("ttft_s", (*latency, "time_to_first_token", "median"), 1),
            ("itl_s", (*latency, "time_per_output_token", "median"), 1),
            ("output_tok_s", ("successes", "throughput", "output_tokens_per_sec"), 1),
        ),
    )


def _serving(pointer: str, doc: Raw) -> Iterator[Headline]:
    """vLLM's and SGLang's bench result: the TPOT median is reportgen's ITL for both."""
    yield from _stated(
        pointer,
        doc,
        (
            ("ttft_s", ("median_ttft_ms",), 1e3),
            ("itl_s", ("median_tpot_ms",), 1e3),
            ("output_tok_s", ("output_throughput",), 1),
        ),
    )


def _llama_bench(tests: list[Raw]) -> Iterator[Headline]:
    for i, test in enumerate(tests):
        rate = _number(test, "avg_ts")
        if rate is not None:
            yield Headline(f"/{i}", "tok_s", rate, "avg_ts")


def headlines(path: Path, tool: str) -> list[Headline]:
    """The file's own headline numbers; `tool` is reportgen's format name for it."""
    records = _records(path)
    doc = records[0] if len(records) == 1 else records
    readers: dict[str, Callable[[], Iterator[Headline]]] = {
        "guidellm": lambda: _guidellm(doc),
        "aiperf": lambda: _aiperf_like(doc),
        "genai-perf": lambda: _aiperf_like(doc),
        "inference-perf": lambda: _inference_perf(doc),
        "vllm-bench": lambda: _serving("", doc),
        "sglang-bench": lambda: (h for i, r in enumerate(records) for h in _serving(f"/{i}", r)),
        "vllm-bench-lines": lambda: (
            h for i, r in enumerate(records) for h in _serving(f"/{i}", r)
        ),
        "llama-bench": lambda: _llama_bench(
            [t for r in records for t in (r if isinstance(r, list) else [r])]
        ),
    }
    return list(readers[tool]()) if tool in readers else []


def _quantity(metric: MetricValue) -> str:
    return metric.id.rsplit(".", 1)[-1]


def agreements(
    found: list[Headline], metrics: list[MetricValue], problems: Iterable[Problem] = ()
) -> list[Agreement]:
    """Each headline with reportgen's metric of the same load point and quantity: the one metric
    at or under that point's pointer (a value read from a summary field points at the field)
    whose id ends with the quantity (for llama-bench's avg_ts, the one tok/s metric of the
    test)."""
    out = []
    for headline in found:
        fits = [
            m
            for m in metrics
            if (m.pointer == headline.pointer or m.pointer.startswith(headline.pointer + "/"))
            and m.stat is None
            and (
                _quantity(m) == headline.quantity
                or (headline.quantity == "tok_s" and m.unit == "tok/s")
            )
        ]
        field = f"{headline.pointer}/{headline.where}"
        said = next((p.message for p in problems if p.pointer == field), None)
        out.append(Agreement(headline, fits[0] if len(fits) == 1 else None, said))
    return out
