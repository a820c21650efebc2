"""The benchmark scripts (benchmarks/*.py, not a package) loaded as modules, for the tests that
check their names and pure logic without running any timing."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def bench_script(name: str) -> ModuleType:
    """benchmarks/`name`.py as the module `bench_<name>` (registered, as dataclasses need)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
