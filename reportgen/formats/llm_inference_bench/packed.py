"""Load stage, fast path for llm-inference-bench files: bytes in, a `PackedDocument` out (or None).

msgspec decodes the file and validates while it decodes: every request sample into `_Sample`,
which states the schema's `request` definition (stricter, never laxer), and the rest as the same
plain values `document.parse_json` gives (a nested object it has no type for is parsed by `json`
with parse_json's own hooks). The samples are checked and packed in columns here; every other
check is the located path's own code, run on the document without its samples.

Nothing is reported from here. Any doubt returns None, and any problem, even a warning, raises
`GiveUp` (`PackedDocument.problem`): the caller then takes the located path, so every message users
see is that path's. The strictness rules of `json_input.document`, each also refused here:
- a byte order mark, invalid UTF-8, NaN/Infinity, 1e999, syntax errors: msgspec or the checks
  below refuse them;
- an integer of 64 bits or more (the located path says which are too long): refused;
- duplicate keys (msgspec keeps the last one): every `:` of the file is a key's separator or
  inside a string. `_Count` adds up the keys kept and the colons inside the strings kept; a
  duplicate's key and value are not kept, so a file with one has more colons than counted.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections.abc import Iterator
from operator import attrgetter
from typing import Annotated, Any, TypeAlias

import msgspec
from msgspec import Meta, Raw

from reportgen import tolerances as tol
from reportgen.formats.json_input.document import (
    FLOAT_MAX,
    Rejected,
    has_lone_surrogate,
    no_constant,
    pointer_of,
    strict_pairs,
)
from reportgen.formats.llm_inference_bench.packed_document import GiveUp, PackedDocument
from reportgen.samples import NUMPY_FROM, PackedSamples
from reportgen.stats import close

_BIG = 2**63  # an integer this large or larger goes to the located path
_Seconds = Annotated[float, Meta(ge=0, le=FLOAT_MAX)]
_Count = Annotated[int, Meta(ge=0, le=_BIG - 1)]


class _Sample(msgspec.Struct, forbid_unknown_fields=True, gc=False, kw_only=True):
    """One `request_samples[]` item: the keys llm-inference-bench 0.6/0.7 writes, every one
    present (a sample without one, or with another, takes the located path)."""

    ttft: _Seconds
    latency: _Seconds
    inter_token_latency_avg: _Seconds
    output_tokens: _Count
    completed: bool
    input_tokens: _Count | None
    output_tps_per_user: _Seconds | None
    time_to_second_token: float | None  # not read: the schema does not constrain these
    chunk_inter_token_latency_avg: float | None
    e2e_output_tps_per_user: float | None


_SAMPLE_KEYS = len(_Sample.__struct_fields__)
_SECONDS = ("ttft", "latency", "inter_token_latency_avg")
_Scalar: TypeAlias = str | int | float | bool | None
_Cell: TypeAlias = dict[str, list[_Sample] | dict[str, Raw] | _Scalar]
_Level: TypeAlias = dict[str, list[_Cell] | dict[str, Raw] | _Scalar]
_LEVEL = msgspec.json.Decoder(_Level)
_CELLS = msgspec.json.Decoder(list[_Cell])
_ESCAPED_COLON = (b"\\u003a", b"\\u003A")


class _Counter:
    """Keys kept and colons inside the strings kept, to compare with the file's colons."""

    def __init__(self) -> None:
        self.colons = 0
        self.in_strings = False  # a decoded string held a colon (it might have been escaped)

    def text(self, s: str) -> None:
        found = s.count(":")
        if found:
            self.colons += found
            self.in_strings = True

    def plain(self, value: Any) -> Any:
        """A decoded dict-level value as `json.loads` gives it."""
        if isinstance(value, Raw):
            raw = bytes(value)
            self.colons += raw.count(b":")
            try:
                text = raw.decode("utf-8")
                value = json.loads(text, object_pairs_hook=strict_pairs, parse_constant=no_constant)
            except (Rejected, ValueError, RecursionError):
                raise GiveUp("a nested value") from None
            if has_lone_surrogate(text, value):
                raise GiveUp("a lone surrogate")
            return value
        if isinstance(value, str):
            self.text(value)
        elif isinstance(value, int) and not isinstance(value, bool) and not -_BIG < value < _BIG:
            raise GiveUp("a large integer")
        elif isinstance(value, dict):
            return self.level(value)
        elif isinstance(value, list):
            raise GiveUp("a list")
        return value

    def level(self, obj: dict[str, Any]) -> dict[str, Any]:
        self.colons += len(obj)
        for key in obj:
            self.text(key)
        return {k: self.plain(v) for k, v in obj.items()}


def _pack(samples: list[_Sample], where: str, max_tokens: object) -> PackedSamples:
    """The samples' columns; gives up wherever `cells.py` would report."""
    most = FLOAT_MAX
    if isinstance(max_tokens, int | float) and not isinstance(max_tokens, bool):
        most = max_tokens
    if len(samples) >= NUMPY_FROM:
        return _pack_by_numpy(samples, where, most)
    ttfts = [s.ttft for s in samples]
    latencies = [s.latency for s in samples]
    itls = [s.inter_token_latency_avg for s in samples]
    outputs = [s.output_tokens for s in samples]
    done = [s.completed for s in samples]
    rates = [s.output_tps_per_user for s in samples]
    for i in _flagged(most, ttfts, latencies, itls, outputs, done, rates):
        raise GiveUp(f"{where}/request_samples/{i}")
    inputs = [s.input_tokens or 0 for s in samples]
    return PackedSamples(f"{where}/request_samples", ttfts, latencies, itls, inputs, outputs, done)


def _flagged(most: float, *columns: Any) -> Iterator[int]:
    """The samples `cells.py` would report a problem with (most: max_tokens)."""
    slack, rate_rel, rate_abs = tol.LATENCY_SLACK_S, tol.SAMPLE_RATE.rel, tol.SAMPLE_RATE.abs_
    for i, (ttft, latency, itl, n, completed, rate) in enumerate(zip(*columns, strict=True)):
        if not (2 <= n <= most and itl > 0) and (
            n > most or (n < 2 and itl > 0) or (n >= 2 and itl <= 0)
        ):
            yield i  # a token problem
        if itl > 0 and n >= 2 and completed and latency + slack < ttft + itl * (n - 1):
            yield i
        # a rate within rate_abs is always close enough: `close` only decides beyond it
        if (
            rate
            and itl > 0
            and abs(rate - 1 / itl) > rate_abs
            and not close(rate, 1 / itl, rel=rate_rel, abs_=rate_abs)
        ):
            yield i


def _pack_by_numpy(samples: list[_Sample], where: str, most: float) -> PackedSamples:
    """`_pack` for a long cell: numpy reads the columns and makes each of `_flagged`'s tests over
    whole columns (the same IEEE operations on the same doubles); only samples that fail one are
    then looked at one by one."""
    import numpy as np  # only for long cells: it takes ~0.1 s to import

    def column(name: str, dtype: Any) -> Any:
        values = map(attrgetter(name), samples)
        try:
            return np.fromiter(values, dtype=dtype, count=len(samples))
        except TypeError:  # a null: 0 as `cells.py` takes it
            return np.array([getattr(s, name) or 0 for s in samples], dtype=dtype)

    ttft, latency, itl = (column(k, np.float64) for k in _SECONDS)
    n, done = column("output_tokens", np.int64), column("completed", np.bool_)
    rate = column("output_tps_per_user", np.float64)
    slack, rate_abs = tol.LATENCY_SLACK_S, tol.SAMPLE_RATE.abs_
    with np.errstate(all="ignore"):  # 1/0 and overflows: those samples are masked out
        suspect = ~((n >= 2) & (n <= most) & (itl > 0))  # a token problem, maybe
        suspect |= (itl > 0) & (n >= 2) & done & (latency + slack < ttft + itl * (n - 1))
        suspect |= (rate != 0) & (itl > 0) & (np.abs(rate - 1.0 / itl) > rate_abs)
    at = np.flatnonzero(suspect)
    if at.size:
        picked = (c[at].tolist() for c in (ttft, latency, itl, n, done, rate))
        for i in _flagged(most, *picked):
            raise GiveUp(f"{where}/request_samples/{at[i]}")

    def machine(typecode: str, values: Any) -> array[Any]:
        out = array(typecode)
        out.frombytes(values.tobytes())
        return out

    inputs = column("input_tokens", np.int64)
    return PackedSamples(
        f"{where}/request_samples",
        machine("d", ttft),
        machine("d", latency),
        machine("d", itl),
        machine("q", inputs),
        machine("q", n),
        done.tobytes(),
    )


def _bench_at(top: dict[str, Any]) -> str | None:
    if "metadata" in top and "results" in top:
        return ""
    found = [
        k for k, v in top.items() if isinstance(v, dict) and {"metadata", "results"} <= v.keys()
    ]
    return found[0] if len(found) == 1 else None


def _cells(count: _Counter, cells: Any, where: str, found: list[Any]) -> list[dict[str, Any]]:
    """The plain cells of `results`, `request_samples` left empty (their samples go to `found`)."""
    if isinstance(cells, Raw):
        cells = _CELLS.decode(cells)
    if not isinstance(cells, list):
        raise GiveUp(where)
    out = []
    for i, cell in enumerate(cells):
        count.colons += len(cell)
        plain: dict[str, Any] = {}
        for key, value in cell.items():
            count.text(key)
            if isinstance(value, list):
                if key != "request_samples":
                    raise GiveUp(f"{where}/{i}/{key}")
                count.colons += _SAMPLE_KEYS * len(value)
                found.append((f"{where}/{i}", value))
                plain[key] = []
            else:
                plain[key] = count.plain(value)
        out.append(plain)
    return out


def _bench(count: _Counter, level: dict[str, Any], where: str, found: list[Any]) -> dict[str, Any]:
    count.colons += len(level)
    out = {}
    for key, value in level.items():
        count.text(key)
        if key == "results":
            out[key] = _cells(count, value, f"{where}/results", found)
        else:
            out[key] = count.plain(value)
    return out


def _document(label: str, raw: bytes) -> PackedDocument | None:
    top = _LEVEL.decode(raw)
    base = _bench_at(top)
    if base is None:
        return None
    count, found = _Counter(), []  # type: ignore[var-annotated]
    if base:
        count.colons += len(top)
        data = {}
        for key, value in top.items():
            count.text(key)
            if key == base and isinstance(value, dict):
                data[key] = _bench(count, value, pointer_of([key]), found)
            else:
                data[key] = count.plain(value)
        bench = data[base]
    else:
        data = bench = _bench(count, top, "", found)
    if raw.count(b":") != count.colons or (
        count.in_strings and any(e in raw for e in _ESCAPED_COLON)
    ):
        return None  # a duplicate key (or an escaped colon that might hide one)
    meta = bench.get("metadata")
    max_tokens = meta.get("max_tokens") if isinstance(meta, dict) else None
    samples = {}
    for where, structs in found:
        samples[where] = _pack(structs, where, max_tokens)
        structs.clear()  # each cell's structs are freed once packed
    digest = hashlib.sha256(raw).hexdigest()
    return PackedDocument(label=label, sha256=digest, text="", data=data, samples=samples)


def fast_document(label: str, raw: bytes) -> PackedDocument | None:
    """`raw` decoded by the fast path, or None when it takes the located path."""
    if not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
    try:
        return _document(label, raw)
    except (GiveUp, msgspec.DecodeError, msgspec.ValidationError, RecursionError, OverflowError):
        return None
