"""Shared pytest fixtures (generic only; run-file builders live in helpers_runs.py).

A test module's fixture that builds an article, which its tests only read, is session-scoped,
not module-scoped: `--dist worksteal` hands a worker a module's tests in several pieces, between
other modules' tests, and a module-scoped build was made again for each piece (three builds of
three articles, PDFs included, for tests/check/test_check_readers.py alone).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers_sweeps import Sweep


@pytest.fixture
def examples_dir() -> Path:
    """The folder of example run files (`valid/`, `invalid/`)."""
    return Path(__file__).parent / "examples"


@pytest.fixture(scope="session", autouse=True)
def _chart_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """`reportgen build` run by the tests (in-process or as a subprocess) keeps its drawn charts
    in a folder of this session, never in the user's ~/.cache."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("REPORTGEN_CACHE_DIR", str(tmp_path_factory.mktemp("reportgen-cache")))
        yield


@pytest.fixture
def sweep(request: pytest.FixtureRequest) -> Sweep:
    """This test's sweep: every case, or the fast lane's sample (helpers_sweeps.py)."""
    return Sweep(request.node.nodeid, fast=request.config.getoption("--fast"))
