"""Repository-wide pytest options, and the fast lane (`pytest --fast`, `make test-fast`).

A test that needs more than this process is marked with what it needs (pyproject.toml registers
the marks): `pdf` (renders a PDF with WeasyPrint, or reads one with poppler's tools or check's
pypdf child), `browser` (opens a page in headless Chromium), `process` (starts a program, such
as a fresh `reportgen build`, or works through a forked worker) and `slow` (0.2 s of CPU or more
on its own: a whole article built with its charts or bootstrap, a page with its charts read,
timing tests that grow their input until the curve shows, long reconstructions). `make test`
runs every test. `--fast` runs only the unmarked ones, for the edit-run loop, and keeps that
lane honest (`FastLane`): an unmarked test that imports WeasyPrint or Playwright (itself, or in
a worker it forks, which inherits the refusal) or starts a program fails, named, with the mark
it needs, however the code under test handles the refusal; one whose call takes over `SLOW_S`
is named at the end, to be marked slow.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from collections.abc import Callable, Generator, Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from typing import Any

import pytest

pytest_plugins = ["pytester"]  # tests/test_fast_lane.py runs the fast lane on files of its own

# What each mark says a test needs; any of them keeps the test out of the fast lane.
NEEDS = ("pdf", "browser", "process", "slow")
# A test of the fast lane whose own call takes longer is named at the end, to be marked slow.
# The lane's tests take under 0.2 s each; the bar is five times that, so that neither a busy
# machine nor a first import (scipy.stats: 0.4 s warm, 1.4 s from a cold disk) names a test.
SLOW_S = 1.0
# The collector's thresholds in each test process (Python's default: 700, 10, 10). A pytest
# worker is one long-lived process that holds the package, every test module and the session's
# built articles; at the default its collector runs every 700 allocations and its older passes
# walk that heap again and again. In a warm process, check reading the bundled article's page
# took 0.13 s at the default and 0.06 s at these, its PDF 1.1 s and 0.8 s; the suite took 0.92x
# the wall time (docs/development.md). A one-shot `reportgen build` or `check` keeps the
# default: its heap is small, and timed both ways it took the same.
GC_THRESHOLDS = (20_000, 20, 20)
# Packages the fast lane refuses to import, and the mark a test that needs one takes.
PACKAGES = {"weasyprint": "pdf", "playwright": "browser"}
# Programs and the mark a test that starts one takes; any other program is `process`.
PROGRAMS = {"pdftotext": "pdf", "pdftoppm": "pdf", "chromium": "browser"}
# Marks given here rather than in the file: tests/test_check_mutations.py is held unchanged (issue
# 23: it guards the refactor of check's readers). It builds the measured article, PDF included.
MARKED_HERE = {"test_check_mutations.py": ("pdf",)}
# Started by libraries on their own, not by the test: matplotlib lists the machine's fonts once,
# when it builds its font cache on a fresh machine.
ALLOWED = frozenset({"fc-list"})


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the golden files under tests/golden/ from the current output",
    )
    parser.addoption(
        "--fast",
        action="store_true",
        default=False,
        help=f"the fast lane: run only tests marked none of {', '.join(NEEDS)}, and fail any of "
        "them that imports WeasyPrint or Playwright or starts a program",
    )


def pytest_configure(config: pytest.Config) -> None:
    gc.set_threshold(*GC_THRESHOLDS)
    if config.getoption("--fast"):
        config.pluginmanager.register(FastLane(), "fastlane")


def pytest_itemcollected(item: pytest.Item) -> None:
    for mark in MARKED_HERE.get(item.path.name, ()):
        item.add_marker(mark)


def _marked(item: pytest.Item) -> bool:
    return any(item.get_closest_marker(need) for need in NEEDS)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Modules with a marked test run first, each module's tests together: on every core
    (`-n auto --dist worksteal`, Makefile) the long tests start while there is other work for
    the second core, instead of ending on one of them alone, and a module's fixtures are
    mostly made once."""
    heavy = {getattr(item, "module", None) for item in items if _marked(item)}
    items.sort(key=lambda item: getattr(item, "module", None) not in heavy)


def pytest_collection_finish(session: pytest.Session) -> None:  # noqa: ARG001 -- pytest's hook signature
    """What collecting made (the test modules, their parametrize tables, the imported package)
    lives until the end: moved out of the garbage collector's sight, its full passes stop walking
    it again and again. About 8% of the unit lane's CPU time (tests/check and tests/formats,
    three interleaved runs each way, 2 cores)."""
    gc.collect()
    gc.freeze()


class Refused(ImportError):
    """What the fast lane raises where an unmarked test reaches past this process."""


def _argv(args: Any) -> list[str]:
    """The words of a `subprocess.Popen(args)` command (split at spaces when it is a string)."""
    if isinstance(args, (str, bytes, os.PathLike)):
        return os.fsdecode(args).split()
    return [os.fsdecode(a) for a in args]


class FastLane:
    """`--fast`: deselects every marked test, and refuses what only a marked test may do.

    Each refusal raises `Refused` where it happens and is also kept, so a test whose code
    catches the error (a build that falls back, a worker that reports failure) still fails."""

    def __init__(self) -> None:
        self.test = "collection"
        self.refusals: list[str] = []
        self.in_test = False  # processes are refused in a test's phases, not pytest's own
        self._popen_init = subprocess.Popen.__init__
        self.slow: list[tuple[float, str]] = []  # (seconds, test) of calls over SLOW_S

    # -- refusing ----------------------------------------------------------------------------
    def refuse(self, what: str, mark: str) -> Refused:
        message = (
            f"{self.test} {what}; the fast lane (pytest --fast) runs no test that does: mark it "
            f"@pytest.mark.{mark} (conftest.py)"
        )
        self.refusals.append(message)
        return Refused(message)

    def find_spec(
        self, name: str, _path: Sequence[str] | None = None, _target: Any = None
    ) -> ModuleSpec | None:
        """A meta path finder: refuses the packages in PACKAGES, finds nothing else."""
        top = name.partition(".")[0]
        if top in PACKAGES:
            raise self.refuse(f"imports {name}", PACKAGES[top])
        return None

    def _guarded_popen(self) -> Callable[..., None]:
        lane, original = self, self._popen_init

        def __init__(popen: subprocess.Popen[Any], args: Any, *rest: Any, **kw: Any) -> None:
            argv = _argv(args)
            program = Path(argv[0]).name if argv else ""
            if lane.in_test and program not in ALLOWED:
                # check reads a PDF's text in a child Python (reportgen/check/readers/pdftext.py)
                pdf = any(a.startswith("reportgen.") and a.endswith(".pdftext") for a in argv)
                mark = "pdf" if pdf else "process"
                raise lane.refuse(f"starts {program}", PROGRAMS.get(program, mark))
            original(popen, args, *rest, **kw)

        return __init__

    # -- pytest hooks --------------------------------------------------------------------------
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if session.config.pluginmanager.has_plugin("dsession"):
            return  # pytest-xdist's controller: it starts the workers, which run the tests
        early = sorted(p for p in PACKAGES if p in sys.modules)
        assert not early, f"the fast lane starts with {early} already imported"
        sys.meta_path.insert(0, self)
        subprocess.Popen.__init__ = self._guarded_popen()  # type: ignore[method-assign]

    def pytest_sessionfinish(self) -> None:
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        subprocess.Popen.__init__ = self._popen_init  # type: ignore[method-assign]

    def pytest_collectstart(self, collector: pytest.Collector) -> None:
        self.test = collector.nodeid or "collection"

    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        marked = [item for item in items if _marked(item)]
        if marked:
            config.hook.pytest_deselected(items=marked)
            items[:] = [item for item in items if not _marked(item)]

    def _phase(self, item: pytest.Item) -> Generator[None, None, None]:
        """One phase of a test (setup, call, teardown): it fails if anything was refused in it,
        even when the code under test caught the refusal."""
        self.test, self.refusals, self.in_test = item.nodeid, [], True
        try:
            yield
        except BaseException:
            if not self.refusals:
                raise
        finally:
            self.in_test = False
        if self.refusals:
            pytest.fail("\n".join(self.refusals), pytrace=False)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        return (yield from self._phase(item))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        return (yield from self._phase(item))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, None, None]:
        return (yield from self._phase(item))

    # -- keeping the lane fast -----------------------------------------------------------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Each call over SLOW_S (on every core, the workers' reports reach this process)."""
        if report.when == "call" and report.duration > SLOW_S:
            self.slow.append((report.duration, report.nodeid))

    def pytest_terminal_summary(self, terminalreporter: Any, config: pytest.Config) -> None:
        if not self.slow or hasattr(config, "workerinput"):
            return
        terminalreporter.write_sep("-", f"tests of the fast lane that took over {SLOW_S} s")
        for seconds, test in sorted(self.slow, reverse=True):
            terminalreporter.write_line(f"{seconds:.2f} s {test}")
        terminalreporter.write_line(
            "the fast lane is for tests under 0.2 s: mark each of these @pytest.mark.slow, "
            "unless this machine was busy"
        )
