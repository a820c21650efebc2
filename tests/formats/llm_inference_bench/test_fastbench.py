"""The fast path for llm-inference-bench files (`reportgen.formats.llm_inference_bench.packed`)
against the located path (`parse_run_file` + `load_document`): the same run when it accepts a file,
and it accepts no file the located path has a problem with (each strictness rule of `jsonfile`, one
by one)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from helpers_bench import bench_script
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.errors import InputError, Problem, cap_problems
from reportgen.formats.llm_inference_bench.packed import fast_document
from reportgen.formats.load import fast_run, load, load_document, parse_run_file
from reportgen.model import MatrixRun, Run
from reportgen.samples import NUMPY_FROM, PackedSamples

ROOT = Path(__file__).resolve().parents[3]
MATRIX = ROOT / "runs" / "paiton-kimi-k3.1-pro" / "matrix.json"
GENERATE = bench_script("validate_bench").generate


def located(raw: bytes) -> tuple[Run | None, list[Problem]]:
    """What the located path makes of `raw`."""
    try:
        doc = parse_run_file("f.json", raw, Path("f.json"))
    except InputError as exc:
        return None, list(exc.problems)
    return load_document(doc)


def small_bench(seed: int = 3) -> dict[str, Any]:
    """A consistent bench document with a few samples per cell (every key the bench writes): a
    copy of its own, to change as the test likes."""
    doc: dict[str, Any] = json.loads(_small_bench(seed))
    return doc


@cache
def _small_bench(seed: int) -> str:
    """The document as JSON text, generated once per seed (the seeded generator costs about
    0.1 s a document; a copy from the text, half a millisecond)."""
    doc: dict[str, Any] = GENERATE(2, seed=seed)
    doc["results"] = [c for c in doc["results"] if c["concurrency"] <= 4]
    for row in doc["summary_table"].values():
        for c in [c for c in row if int(c) > 4]:
            del row[c]
    return json.dumps(doc)


def dumps(doc: Any) -> bytes:
    return json.dumps(doc, indent=1).encode()


@pytest.mark.parametrize("seed", [3, 11])
def test_a_consistent_file_loads_by_the_fast_path_as_by_the_located_one(seed: int) -> None:
    raw = dumps(small_bench(seed))
    run, problems = located(raw)
    assert problems == [] and isinstance(run, MatrixRun)
    fast = fast_run("f.json", raw)
    assert fast is not None
    assert fast == run
    cell = fast.cells[5]
    assert isinstance(cell.samples, PackedSamples) and len(cell.samples) == 2 * cell.concurrency
    assert list(cell.samples) == list(run.cells[5].samples)  # every sample, pointer and all
    assert cell.samples[0].pointer == f"{cell.pointer}/request_samples/0"


def test_the_bundled_wrapped_matrix_loads_by_the_fast_path() -> None:
    raw = MATRIX.read_bytes()
    run, problems = located(raw)
    fast = fast_run(MATRIX.name, raw)
    assert fast is not None and problems == [] and run is not None
    assert fast == run.__class__(**{**vars(run), "source": fast.source})
    assert fast.source == run.source.__class__(**{**vars(run.source), "label": MATRIX.name})


def _sample_text(raw: bytes) -> int:
    """Offset of the first request sample's first key."""
    return raw.index(b'"ttft"', raw.index(b'"request_samples"'))


def _cell_text(raw: bytes) -> int:
    return raw.index(b'"concurrency"', raw.index(b'"results"'))


# (name, how to spoil the bytes of a consistent file): each leaves a file the located path
# has at least one problem with.
SPOILED: dict[str, Callable[[bytes], bytes]] = {
    "duplicate key in a sample": lambda r: (
        r[: _sample_text(r)] + b'"ttft": 1.0, ' + r[_sample_text(r) :]
    ),
    "duplicate key in a cell": lambda r: (
        r[: _cell_text(r)] + b'"concurrency": 3, ' + r[_cell_text(r) :]
    ),
    "duplicate samples key": lambda r: (
        r[: _cell_text(r)] + b'"request_samples": [], ' + r[_cell_text(r) :]
    ),
    "duplicate top-level key": lambda r: r[:1] + b'"prefill": {}, ' + r[1:],
    "duplicate key in metadata": lambda r: r.replace(
        b'"engine": "vllm"', b'"engine": "x", "engine": "vllm"'
    ),
    "duplicate key nested in a leaf": lambda r: r[:1] + b'"extra": {"a": 1, "a": 2}, ' + r[1:],
    "duplicate key beside an escaped colon": lambda r: (
        r[:1] + b'"x\\u003ay": 1, "prefill": {}, ' + r[1:]
    ),
    "NaN": lambda r: r.replace(b'"latency": ', b'"latency": NaN, "x": ', 1),
    "Infinity in a leaf": lambda r: r[:1] + b'"extra": [Infinity], ' + r[1:],
    "1e999": lambda r: (
        r[: _sample_text(r)] + r[_sample_text(r) :].replace(b'"ttft": ', b'"ttft": 1e999, "y": ', 1)
    ),
    "byte order mark": lambda r: b"\xef\xbb\xbf" + r,
    "invalid UTF-8": lambda r: r[:1] + b'"extra": "\xff", ' + r[1:],
    "trailing data": lambda r: r + b" {}",
    "truncated": lambda r: r[: len(r) // 2],
    "far too long an integer": lambda r: r[:1] + b'"extra": ' + b"9" * 5000 + b", " + r[1:],
    "too large an output_tokens": lambda r: r.replace(
        b'"output_tokens": ', b'"output_tokens": 1' + b"0" * 30 + b', "z": ', 1
    ),
    "too many output tokens": lambda r: r.replace(b'"max_tokens": 1024', b'"max_tokens": 3'),
    "negative ttft": lambda r: r.replace(b'"ttft": ', b'"ttft": -', 1),
    "float output_tokens": lambda r: re.sub(rb'("output_tokens": [0-9]+)', rb"\1.5", r, count=1),
    "unknown version": lambda r: r.replace(b'"version": "0.7.7"', b'"version": "9.0.0"'),
    "summary_table disagrees": lambda r: r.replace(
        b'"summary_table": {', b'"summary_table": {"99": {"1": 5.0}, ', 1
    ),
}


@pytest.mark.sampled
@pytest.mark.parametrize("name", sorted(SPOILED))
def test_a_file_with_a_problem_takes_the_located_path(name: str, tmp_path: Path) -> None:
    raw = SPOILED[name](dumps(small_bench()))
    _run, problems = located(raw)
    assert problems, f"{name}: the spoiled file should have a problem"
    assert fast_run("f.json", raw) is None
    path = tmp_path / "f.json"
    path.write_bytes(raw)
    result = load([path], label_root=tmp_path)  # load gives the located path's own problems
    assert list(result.problems) == cap_problems(problems)  # (its first 100, and a count)


def test_a_sample_with_a_key_the_bench_does_not_write_takes_the_located_path() -> None:
    doc = small_bench()
    doc["results"][0]["request_samples"][0]["note"] = "a: b"
    raw = dumps(doc)
    assert fast_document("f.json", raw) is None
    run, problems = located(raw)
    assert problems == [] and run is not None  # valid all the same, just not for the fast path


_FLOATS = st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ttft=_FLOATS,
    latency=_FLOATS,
    itl=_FLOATS,
    n=st.integers(min_value=0, max_value=2000),
    rate=st.one_of(st.none(), _FLOATS),
    completed=st.booleans(),
    index=st.sampled_from([0, 1]),
    extra=st.sampled_from(
        ["", '"k": 1, ', '"k": "v:w", ', '"ttft": 2, ', '"k": {"a": 1, "a": 1}, ']
    ),
)
def test_fast_and_located_paths_agree(
    ttft: float,
    latency: float,
    itl: float,
    n: int,
    rate: float | None,
    completed: bool,
    index: int,
    extra: str,
) -> None:
    doc = small_bench()
    sample = doc["results"][3]["request_samples"][index]
    sample.update(
        ttft=ttft,
        latency=latency,
        inter_token_latency_avg=itl,
        output_tokens=n,
        output_tps_per_user=rate,
        completed=completed,
    )
    raw = dumps(doc)
    at = raw.index(b'"ttft"', raw.index(b'"request_samples"'))
    raw = raw[:at] + extra.encode() + raw[at:]
    run, problems = located(raw)
    fast = fast_run("f.json", raw)
    if problems:  # whatever the located path finds, the fast path must not accept the file
        assert fast is None
    assert fast is None or fast == run


@cache
def long_cells() -> bytes:
    """A consistent bench file whose concurrency-512 cells hold more than NUMPY_FROM samples."""
    doc = GENERATE(4, seed=5)
    doc["results"] = [c for c in doc["results"] if c["concurrency"] in (1, 2, 512)]
    for row in doc["summary_table"].values():
        for c in [c for c in row if c not in ("1", "2", "512")]:
            del row[c]
    return dumps(doc)


@pytest.mark.slow
def test_long_cells_are_checked_and_sorted_by_numpy_to_the_same_result() -> None:
    raw = long_cells()
    run, problems = located(raw)
    fast = fast_run("f.json", raw)
    assert problems == [] and isinstance(fast, MatrixRun) and fast == run
    long = [c.samples for c in fast.cells if len(c.samples) >= NUMPY_FROM]
    assert len(long) == 8
    for samples in long:
        assert isinstance(samples, PackedSamples)
        decoding = [s.itl_s for s in samples if s.output_tokens >= 2]
        assert samples.series("ttft_s") == sorted(v for v in samples.ttft_s if v > 0)
        assert samples.series("itl_s") == sorted(v for v in decoding if v > 0)
        assert samples.series("per_request_tok_s") == sorted(1 / v for v in decoding if v > 0)
        done = [s.latency_s for s in samples if s.completed]
        assert samples.series("latency_s") == sorted(v for v in done if v > 0)


LONG_SPOILED = {
    "latency shorter than its tokens": (rb'"latency": [0-9.]+', b'"latency": 0.5'),
    "rate disagrees with the ITL": (
        rb'"output_tps_per_user": [0-9.]+',
        b'"output_tps_per_user": 1.0',
    ),
    "more tokens than max_tokens": (rb'"output_tokens": [0-9]+', b'"output_tokens": 5000'),
    "no ITL with tokens": (rb'"inter_token_latency_avg": [0-9.]+', b'"inter_token_latency_avg": 0'),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(LONG_SPOILED))
def test_a_problem_in_a_long_cell_takes_the_located_path(name: str) -> None:
    pattern, new = LONG_SPOILED[name]
    raw = long_cells()
    at = raw.index(b'"concurrency": 512')
    sample = raw.index(b'"ttft"', raw.index(b'"request_samples"', at))
    found = re.search(pattern, raw[sample:])
    assert found is not None
    start = sample + found.start()
    raw = raw[:start] + new + raw[sample + found.end() :]
    _run, problems = located(raw)
    assert any(p.severity in ("error", "warning") for p in problems), name
    assert fast_run("f.json", raw) is None
