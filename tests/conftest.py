"""Shared pytest fixtures (generic only; run-file builders live in helpers_runs.py).

A test module's fixture that builds an article, which its tests only read, is session-scoped,
not module-scoped: `--dist worksteal` hands a worker a module's tests in several pieces, between
other modules' tests, and a module-scoped build was made again for each piece (three builds of
three articles, PDFs included, for tests/check/test_check_readers.py alone).

A parametrized test marked `sampled` runs every case in `make test`; in the fast lane it runs a
seeded sample of them (`Sweep.cases`, helpers_sweeps.py), as a sweep folded into a loop does.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers_sweeps import Sweep


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The fast lane keeps a seeded sample of each `sampled` test's cases."""
    if not config.getoption("--fast"):
        return
    cases: dict[str, list[pytest.Item]] = {}
    for item in items:
        if item.get_closest_marker("sampled"):
            cases.setdefault(item.nodeid.partition("[")[0], []).append(item)
    kept = {id(i) for test, every in cases.items() for i in Sweep(test, fast=True).cases(every)}
    left = [i for every in cases.values() for i in every if id(i) not in kept]
    if left:
        config.hook.pytest_deselected(items=left)
        gone = {id(i) for i in left}
        items[:] = [i for i in items if id(i) not in gone]


@pytest.fixture
def examples_dir() -> Path:
    """The folder of example run files (`valid/`, `invalid/`)."""
    return Path(__file__).parent / "examples"


@pytest.fixture(scope="session", autouse=True)
def _chart_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """`reportgen build` run by the tests (in-process or as a subprocess) keeps its drawn charts
    in a folder of this session, never in the user's ~/.cache; the workers of one `pytest -n`
    run share it (the folder above each worker's own), so a chart one worker drew the other
    reads. Entries are written whole or not at all (article/charts/cache.py)."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = shared / "reportgen-cache"
    folder.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("REPORTGEN_CACHE_DIR", str(folder))
        yield


@pytest.fixture(scope="session")
def package_parsed() -> None:
    """Every module of reportgen read, parsed and walked once in this process (helpers_source's
    caches), for the tests that read the code: the second they share is their setup, and no one
    test's call carries it (the fast lane names a call over `SLOW_S`, conftest.py)."""
    from helpers_source import nodes, read  # here: tests/test_fast_lane.py copies this file alone

    for path in sorted((Path(__file__).resolve().parents[1] / "reportgen").rglob("*.py")):
        nodes(read(path))


@pytest.fixture
def sweep(request: pytest.FixtureRequest) -> Sweep:
    """This test's sweep: every case, or the fast lane's sample (helpers_sweeps.py)."""
    return Sweep(request.node.nodeid, fast=request.config.getoption("--fast"))
