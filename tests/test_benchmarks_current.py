"""The benchmark scripts (`make bench`) time reportgen's own functions where the build calls
them. A move inside reportgen must not leave them patching names that no longer exist: import
each script and check every function it instruments or calls is still there."""

from __future__ import annotations

import importlib

import pytest
from helpers_bench import bench_script as script


@pytest.mark.pdf
def test_every_stage_the_build_benchmark_times_exists() -> None:
    build_bench = script("build_bench")
    for stage, module, dotted in build_bench._STAGES:
        found: object = importlib.import_module(module)
        for name in dotted.split("."):
            found = getattr(found, name, None)
        assert callable(found), (stage, module, dotted)


def test_the_validate_benchmark_calls_the_loader_and_the_parser() -> None:
    validate_bench = script("validate_bench")
    assert callable(validate_bench.load_runs)
    assert callable(validate_bench.fast_document)
    assert callable(validate_bench.load_document)
    assert callable(validate_bench.validate.check)
