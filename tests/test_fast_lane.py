"""The fast lane (`make test-fast`, `pytest --fast`: conftest.py) and the sweeps folded into loops
(helpers_sweeps.py): the lane runs only unmarked tests, fails one that reaches WeasyPrint,
Playwright or a program and names one that took over `SLOW_S`; a sweep judges every case, or in
the lane a seeded sample, and names every case it finds wrong in one failure."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers_sweeps import FAST_LEAST, Sweep

ROOT = Path(__file__).resolve().parents[1]


def test_a_sweep_judges_every_case_outside_the_fast_lane() -> None:
    cases = list(range(100))
    assert Sweep("t", fast=False).cases(cases) == cases
    assert Sweep("t", fast=True).cases(cases, sample=False) == cases


def test_the_fast_lane_judges_a_seeded_sample_in_order() -> None:
    cases = list(range(100))
    sample = Sweep("tests/test_x.py::test_y", fast=True).cases(cases)
    assert len(sample) == 13 and sample == sorted(sample) and set(sample) < set(cases)
    assert Sweep("tests/test_x.py::test_y", fast=True).cases(cases) == sample  # every run
    assert Sweep("tests/test_x.py::test_z", fast=True).cases(cases) != sample  # its own seed
    short = list(range(FAST_LEAST))
    assert Sweep("t", fast=True).cases(short) == short


def test_a_sweep_names_every_wrong_case_and_goes_on_after_an_error() -> None:
    judged: list[int] = []

    def wrong(case: int) -> str | None:
        judged.append(case)
        if case == 2:
            raise ValueError("no two")
        return "odd" if case % 2 else None

    with pytest.raises(pytest.fail.Exception) as failed:
        Sweep("t", fast=False).judge(range(6), wrong, lambda case: f"case {case}")
    assert judged == list(range(6))
    assert str(failed.value).splitlines() == [
        "4 of 6 cases are wrong:",
        "- case 1: odd",
        "- case 2: ValueError: no two",
        "- case 3: odd",
        "- case 5: odd",
    ]
    Sweep("t", fast=False).judge(range(6), lambda _case: None)  # nothing wrong: passes


UNMARKED = """
import subprocess
import sys
import time

import pytest


def test_plain():
    assert True


def test_long():
    time.sleep(0.4)


def test_imports_weasyprint_and_swallows_the_error():
    try:
        import weasyprint  # noqa: F401
    except ImportError:
        pass


def test_starts_python():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


@pytest.mark.pdf
def test_marked_pdf():
    import weasyprint  # noqa: F401
"""

MARKED = """
import pytest


@pytest.mark.slow
def test_slow():
    assert True
"""


@pytest.mark.process
@pytest.mark.parametrize("workers", ["0", "1"])
def test_the_fast_lane_fails_an_unmarked_test_that_reaches_weasyprint_or_a_program(
    pytester: pytest.Pytester, workers: str
) -> None:
    conftest = (ROOT / "conftest.py").read_text(encoding="utf-8")
    assert "\nSLOW_S = 1.0\n" in conftest
    # the bar lowered, so that test_long names a slow test in 0.4 s, not in over 1 s
    pytester.makeconftest(conftest.replace("\nSLOW_S = 1.0\n", "\nSLOW_S = 0.3\n"))
    pytester.makeini("[pytest]\nmarkers =\n  pdf\n  browser\n  process\n  slow\n")
    pytester.makepyfile(test_a=UNMARKED, test_b=MARKED)
    result = pytester.runpytest_subprocess("--fast", "-n", workers, "-rA", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=2)
    said = result.stdout.str()
    assert "PASSED test_a.py::test_plain" in said
    # named to be marked slow, and only it
    assert re.search(r"\n\d\.\d\d s test_a\.py::test_long\n", said), said
    assert not re.search(r"\d s test_a\.py::test_(plain|starts|imports)", said)
    assert "mark each of these @pytest.mark.slow" in said
    assert "test_marked_pdf" not in said and "test_slow" not in said  # deselected
    assert "test_a.py::test_imports_weasyprint_and_swallows_the_error imports weasyprint" in said
    assert "mark it @pytest.mark.pdf" in said
    assert "test_a.py::test_starts_python starts python" in said
    assert "mark it @pytest.mark.process" in said


@pytest.mark.process
def test_modules_with_a_marked_test_are_collected_first(pytester: pytest.Pytester) -> None:
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))
    pytester.makeini("[pytest]\nmarkers =\n  pdf\n  browser\n  process\n  slow\n")
    pytester.makepyfile(test_a="def test_plain():\n    pass\n", test_b=MARKED)
    result = pytester.runpytest_subprocess("--collect-only", "-q", "-p", "no:cacheprovider")
    ids = [line for line in result.stdout.lines if "::" in line]
    assert ids == ["test_b.py::test_slow", "test_a.py::test_plain"]


SAMPLED = """
import pytest


@pytest.mark.sampled
@pytest.mark.parametrize("case", range(40))
def test_sampled(case):
    assert case >= 0


@pytest.mark.parametrize("case", range(40))
def test_whole(case):
    assert case >= 0
"""


@pytest.mark.process
def test_the_fast_lane_runs_a_seeded_sample_of_a_sampled_test(pytester: pytest.Pytester) -> None:
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))
    pytester.makeini("[pytest]\nmarkers =\n  pdf\n  browser\n  process\n  slow\n  sampled\n")
    tests = pytester.mkdir("t")
    for name in ("conftest.py", "helpers_sweeps.py"):
        (tests / name).write_text((ROOT / "tests" / name).read_text(encoding="utf-8"))
    (tests / "test_s.py").write_text(SAMPLED)
    runs = []
    for lane in ([], ["--fast"], ["--fast"]):
        result = pytester.runpytest_subprocess(*lane, "-rA", "-p", "no:cacheprovider", "t")
        runs.append(sorted(line for line in result.stdout.lines if "PASSED" in line))
    every, sample, again = runs
    assert len(every) == 80
    assert sample == again  # seeded: the same cases on every run
    sampled = [line for line in sample if "test_sampled" in line]
    assert len(sampled) == FAST_LEAST and set(sampled) < set(every)
    assert len(sample) - len(sampled) == 40  # an unmarked test keeps every case
