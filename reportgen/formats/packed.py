"""Parse stage, storage: a load point's request samples packed as columns of machine numbers.

A file of a million requests would make a million `RequestSample` tuples (about 300 bytes each
with their floats, ints and pointer string). `PackedSamples` keeps the same values in `array`
columns instead, 49 bytes a request (the record's index, three float64 times, two int64 token
counts, one completed byte), and builds a `RequestSample` only when one is asked for: indexing
gives one, iterating gives them one at a time, so a metric that reads every sample never holds
more than one. Its reader fills it with `append`, then only reads it; it equals any sequence of
the same samples, a tuple of them included.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from itertools import islice
from typing import overload

from reportgen.model import RequestSample


class PackedSamples(Sequence[RequestSample]):
    """Request samples as columns; sample k's pointer is `{prefix}/{index of its record}`."""

    def __init__(self, prefix: str = "") -> None:
        self._prefix = prefix
        self._index = array("q")
        self._ttft = array("d")
        self._latency = array("d")
        self._itl = array("d")
        self._inputs = array("q")
        self._outputs = array("q")
        self._done = array("b")

    def append(self, index: int, sample: RequestSample) -> None:
        """Add `sample`, the request of record `index` (its pointer must be the one it makes)."""
        if sample.pointer != f"{self._prefix}/{index}":
            raise ValueError(f"sample at {sample.pointer!r} is not record {index}'s")
        self._index.append(index)
        self._ttft.append(sample.ttft_s)
        self._latency.append(sample.latency_s)
        self._itl.append(sample.itl_s)
        self._inputs.append(sample.input_tokens)
        self._outputs.append(sample.output_tokens)
        self._done.append(sample.completed)

    def __len__(self) -> int:
        return len(self._index)

    @overload
    def __getitem__(self, k: int) -> RequestSample: ...

    @overload
    def __getitem__(self, k: slice) -> tuple[RequestSample, ...]: ...

    def __getitem__(self, k: int | slice) -> RequestSample | tuple[RequestSample, ...]:
        if isinstance(k, slice):
            return tuple(islice(self, *k.indices(len(self))))
        return RequestSample(
            f"{self._prefix}/{self._index[k]}",
            self._ttft[k],
            self._latency[k],
            self._itl[k],
            self._inputs[k],
            self._outputs[k],
            bool(self._done[k]),
        )

    def __iter__(self) -> Iterator[RequestSample]:
        prefix = self._prefix
        return map(
            RequestSample,
            (f"{prefix}/{i}" for i in self._index),
            self._ttft,
            self._latency,
            self._itl,
            self._inputs,
            self._outputs,
            map(bool, self._done),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or len(other) != len(self):
            return False
        return all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))  # as the tuple of the same samples, which it equals

    def __repr__(self) -> str:
        return f"PackedSamples({len(self)} samples)"
