"""The fast lane (`make test-fast`, `pytest --fast`: conftest.py): it runs only unmarked tests
and fails one that reaches WeasyPrint, Playwright or a program."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


UNMARKED = """
import subprocess
import sys

import pytest


def test_plain():
    assert True


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
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))
    pytester.makeini("[pytest]\nmarkers =\n  pdf\n  browser\n  process\n  slow\n")
    pytester.makepyfile(test_a=UNMARKED, test_b=MARKED)
    result = pytester.runpytest_subprocess("--fast", "-n", workers, "-rA", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=2)
    said = result.stdout.str()
    assert "PASSED test_a.py::test_plain" in said
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
