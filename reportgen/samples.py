"""Request samples packed in columns: the per-request data of a decode cell, on the ground floor.

A bench file can hold hundreds of thousands of request samples. `PackedSamples` keeps them as
columns of machine numbers (`array`), not one Python object per request, and is still a sequence
of `RequestSample` (each built when asked for, with its pointer). The sorted series the metrics
and the format's cross-checks both need are sorted once and kept (`series`). `PackedSpans` keeps
each request's start and end the same way, for a load point's steady window.
"""

from __future__ import annotations

from abc import abstractmethod
from array import array
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from itertools import compress
from operator import le, lt
from typing import Literal, TypeVar, overload

from reportgen.model import RequestSample
from reportgen.stats import Ascending

Series = Literal["ttft_s", "itl_s", "per_request_tok_s", "latency_s"]
_POSITIVE = partial(lt, 0)  # v -> 0 < v: what the percentiles keep
_DECODING = partial(le, 2)  # n -> 2 <= n: a request with an inter-token latency
# From this many samples in a cell, numpy sorts and checks them: the same floats, several times
# faster, once it is imported (~0.1 s, so not for the small files of most articles).
NUMPY_FROM = 1000


def _floats(values: Iterable[float]) -> array[float]:
    """Machine doubles (`values` themselves when they already are)."""
    return values if isinstance(values, array) and values.typecode == "d" else array("d", values)


def _ints(values: Iterable[int]) -> Sequence[int]:
    """Machine integers, or a tuple for the rare count too large for 64 bits."""
    if isinstance(values, array) and values.typecode == "q":
        return values
    kept = values if isinstance(values, list | tuple) else list(values)
    try:
        return array("q", kept)
    except OverflowError:
        return tuple(kept)


T = TypeVar("T")


class _Packed(Sequence[T]):
    """A sequence kept as columns: equal to another of its kind with the same columns, and to
    the tuple of its items, as the tuple it stands for is."""

    __slots__ = ()

    @abstractmethod
    def _columns(self) -> tuple[object, ...]:
        """The columns that make the sequence: what two of a kind are equal and hashed by."""

    def __eq__(self, other: object) -> bool:
        if isinstance(other, type(self)):
            return self._columns() == other._columns()
        if isinstance(other, tuple):
            return tuple(self) == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))


class PackedSamples(_Packed[RequestSample]):
    """The request samples of one cell or load point, column by column. Sample k's pointer is
    `{pointer}/{k}` (`pointer`: the samples array's), or `{pointer}/{records[k]}` when `records`
    gives each sample's record (a per-request export, whose skipped records keep their index)."""

    __slots__ = (
        "_sorted",
        "completed",
        "input_tokens",
        "itl_s",
        "latency_s",
        "output_tokens",
        "pointer",
        "records",
        "ttft_s",
    )

    def __init__(
        self,
        pointer: str,
        ttft_s: Iterable[float],
        latency_s: Iterable[float],
        itl_s: Iterable[float],
        input_tokens: Iterable[int],
        output_tokens: Iterable[int],
        completed: Iterable[int],  # 1 (or True): the request completed
        records: Iterable[int] | None = None,
    ) -> None:
        self.pointer = pointer
        self.records = None if records is None else _ints(records)
        self.ttft_s = _floats(ttft_s)
        self.latency_s = _floats(latency_s)
        self.itl_s = _floats(itl_s)
        self.input_tokens = _ints(input_tokens)
        self.output_tokens = _ints(output_tokens)
        self.completed = bytes(completed)
        self._sorted: dict[str, Ascending] = {}
        sizes = {len(c) for c in (self.latency_s, self.itl_s, self.input_tokens, self.completed)}
        sizes.add(len(self.output_tokens))
        if self.records is not None:
            sizes.add(len(self.records))
        if sizes != {len(self.ttft_s)}:
            raise ValueError("request sample columns of different lengths")

    @classmethod
    def of(cls, pointer: str, samples: Iterable[RequestSample]) -> PackedSamples:
        """`samples` packed (`pointer`: where their array is in the file)."""
        rows = tuple(samples)
        return cls(
            pointer,
            (s.ttft_s for s in rows),
            (s.latency_s for s in rows),
            (s.itl_s for s in rows),
            (s.input_tokens for s in rows),
            (s.output_tokens for s in rows),
            (s.completed for s in rows),
        )

    def __len__(self) -> int:
        return len(self.ttft_s)

    @overload
    def __getitem__(self, index: int) -> RequestSample: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[RequestSample]: ...

    def __getitem__(self, index: int | slice) -> RequestSample | Sequence[RequestSample]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        i = range(len(self))[index]  # IndexError, and negative indexes, as a tuple does
        return RequestSample(
            pointer=f"{self.pointer}/{i if self.records is None else self.records[i]}",
            ttft_s=self.ttft_s[i],
            latency_s=self.latency_s[i],
            itl_s=self.itl_s[i],
            input_tokens=self.input_tokens[i],
            output_tokens=self.output_tokens[i],
            completed=bool(self.completed[i]),
        )

    def __iter__(self) -> Iterator[RequestSample]:
        return (self[i] for i in range(len(self)))

    def _columns(self) -> tuple[object, ...]:
        return (
            self.pointer,
            self.records,
            self.ttft_s,
            self.latency_s,
            self.itl_s,
            self.input_tokens,
            self.output_tokens,
            self.completed,
        )

    def __repr__(self) -> str:
        return f"PackedSamples({self.pointer!r}, {len(self)} samples)"

    def series(self, name: Series) -> Ascending:
        """The positive values of one series, sorted (computed once):

        - `ttft_s`: every request's time to first token;
        - `itl_s`: the inter-token latency of the requests with at least 2 output tokens;
        - `per_request_tok_s`: 1 / `itl_s`, request by request;
        - `latency_s`: the latency of the completed requests.
        """
        found = self._sorted.get(name)
        if found is None:
            found = self._sorted[name] = self._sort(name)
        return found

    def _sort(self, name: Series) -> Ascending:
        if len(self) >= NUMPY_FROM and isinstance(self.output_tokens, array):
            return Ascending(_sorted_by_numpy(self, name))
        if name == "per_request_tok_s":
            # 1/x falls as x grows: the reversed sorted ITLs give the rates in order, and the
            # same floats as sorting the rates themselves.
            return Ascending([1 / x for x in reversed(self.series("itl_s"))])
        if name == "ttft_s":
            return Ascending(sorted(filter(_POSITIVE, self.ttft_s)))
        if name == "itl_s":
            decoding = compress(self.itl_s, map(_DECODING, self.output_tokens))
            return Ascending(sorted(filter(_POSITIVE, decoding)))
        return Ascending(sorted(filter(_POSITIVE, compress(self.latency_s, self.completed))))


def _sorted_by_numpy(samples: PackedSamples, name: Series) -> list[float]:
    """`PackedSamples.series` sorted by numpy: the same floats, in the same order (a sorted list
    of numbers without NaN is unique), ten times faster for a long series."""
    import numpy as np  # only for long series: it takes ~0.1 s to import

    if name == "per_request_tok_s":  # as in `_sort`, each 1/x an IEEE division as Python's
        with np.errstate(all="ignore"):  # 1/x overflows to inf for a subnormal x, as in Python
            rates: list[float] = (1.0 / np.array(samples.series("itl_s"))[::-1]).tolist()
        return rates
    if name == "ttft_s":
        values = np.frombuffer(samples.ttft_s, dtype=np.float64)
        keep = values > 0
    elif name == "itl_s":
        tokens = samples.output_tokens
        assert isinstance(tokens, array)  # (not the tuple of a count too large for 64 bits)
        values = np.frombuffer(samples.itl_s, dtype=np.float64)
        keep = (values > 0) & (np.frombuffer(tokens, dtype=np.int64) >= 2)
    else:
        values = np.frombuffer(samples.latency_s, dtype=np.float64)
        keep = (values > 0) & (np.frombuffer(samples.completed, dtype=np.uint8) != 0)
    kept = values[keep]
    kept.sort()
    found: list[float] = kept.tolist()
    return found


class Packer:
    """Columns filled one sample at a time, for a reader that streams its records: `add` each
    sample of record `index`, then `packed` them (no Python object kept per sample)."""

    def __init__(self, pointer: str = "") -> None:
        self.pointer = pointer  # where the records are: sample k's is `{pointer}/{records[k]}`
        self.records, self.ttft_s, self.latency_s, self.itl_s = (
            array("q"),
            array("d"),
            array("d"),
            array("d"),
        )
        self.input_tokens, self.output_tokens, self.completed = array("q"), array("q"), array("b")

    def __len__(self) -> int:
        return len(self.records)

    def add(self, index: int, sample: RequestSample) -> None:
        """Add `sample`, the request of record `index` (its pointer must be the one it makes)."""
        if sample.pointer != f"{self.pointer}/{index}":
            raise ValueError(f"sample at {sample.pointer!r} is not record {index}'s")
        self.records.append(index)
        self.ttft_s.append(sample.ttft_s)
        self.latency_s.append(sample.latency_s)
        self.itl_s.append(sample.itl_s)
        self.input_tokens.append(sample.input_tokens)
        self.output_tokens.append(sample.output_tokens)
        self.completed.append(sample.completed)

    def packed(self) -> PackedSamples:
        """The samples added, as `PackedSamples` (the columns are shared, not copied)."""
        return PackedSamples(
            self.pointer,
            self.ttft_s,
            self.latency_s,
            self.itl_s,
            self.input_tokens,
            self.output_tokens,
            self.completed,
            self.records,
        )


class PackedSpans(_Packed[tuple[float, float]]):
    """Each request's (start, end) in seconds (`LoadPoint.spans`), as two columns of machine
    doubles: a file of a million requests keeps 16 bytes a request, not a tuple each."""

    __slots__ = ("ends", "starts")

    def __init__(self, starts: Iterable[float], ends: Iterable[float]) -> None:
        self.starts, self.ends = _floats(starts), _floats(ends)
        if len(self.starts) != len(self.ends):
            raise ValueError("span columns of different lengths")

    def __len__(self) -> int:
        return len(self.starts)

    @overload
    def __getitem__(self, index: int) -> tuple[float, float]: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[tuple[float, float]]: ...

    def __getitem__(
        self, index: int | slice
    ) -> tuple[float, float] | Sequence[tuple[float, float]]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        i = range(len(self))[index]  # IndexError, and negative indexes, as a tuple does
        return self.starts[i], self.ends[i]

    def __iter__(self) -> Iterator[tuple[float, float]]:
        return zip(self.starts, self.ends, strict=True)

    def _columns(self) -> tuple[object, ...]:
        return self.starts, self.ends

    def __repr__(self) -> str:
        return f"PackedSpans({len(self)} requests)"


def packed(samples: Sequence[RequestSample], pointer: str = "") -> PackedSamples:
    """`samples` as `PackedSamples` (themselves when they already are)."""
    if isinstance(samples, PackedSamples):
        return samples
    return PackedSamples.of(pointer, samples)
