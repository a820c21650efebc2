"""`reportgen --version`: reportgen's version and its distribution, Python, WeasyPrint,
matplotlib and the platform, one a line, read from package metadata."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import pytest

import reportgen
from reportgen.cli import versions
from reportgen.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def _version(name: str) -> str:
    return metadata.version(name)


def test_version_prints_each_part_on_its_own_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 5
    assert lines[0].startswith(f"reportgen {reportgen.__version__} (")
    assert lines[1] == f"Python {platform.python_version()} ({platform.python_implementation()})"
    assert lines[2] == f"WeasyPrint {_version('weasyprint')}"
    assert lines[3] == f"matplotlib {_version('matplotlib')}"
    system, (libc, libc_version) = os.uname(), platform.libc_ver()
    machine = f"{system.sysname} {system.release} {system.machine}"
    assert lines[4] == (f"{machine} ({libc} {libc_version})" if libc else machine)


def test_the_first_line_names_the_distribution_or_says_it_is_not_installed() -> None:
    def lookup(found: str | None) -> Callable[[str], str | None]:
        return lambda dist: found if dist == versions.DISTRIBUTION else "1.2.3"

    ours = reportgen.__version__
    first = {
        found: versions.version_text(lookup(found)).splitlines()[0]
        for found in (ours, None, "0.0.1")
    }
    assert first[ours] == f"reportgen {ours} (reportgen-bench)"
    assert first[None] == (
        f"reportgen {ours} (not installed as reportgen-bench: run from a source checkout)"
    )
    # an install older than the code imported: both versions, so a bug report says which ran
    assert first["0.0.1"] == f"reportgen {ours} (reportgen-bench 0.0.1 installed)"


def test_a_part_that_is_not_installed_says_so() -> None:
    text = versions.version_text(lambda dist: None if dist == "matplotlib" else "9.9")
    assert "\nmatplotlib not installed\n" in text
    assert "\nWeasyPrint 9.9\n" in text


def test_the_version_has_one_home() -> None:
    """hatch reads the version from reportgen/__init__.py; pyproject.toml writes none."""
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in project
    assert '[tool.hatch.version]\npath = "reportgen/__init__.py"' in project
    assert "\nversion = " not in project


@pytest.mark.process
def test_version_imports_neither_weasyprint_nor_matplotlib() -> None:
    heavy = ["weasyprint", "matplotlib", "numpy"]
    code = (
        "import contextlib, io, json, sys\n"
        "from reportgen.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out, "
        "contextlib.suppress(SystemExit):\n"
        "    main(['--version'])\n"
        f"print(json.dumps([out.getvalue(), sorted(set({heavy!r}) & set(sys.modules))]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    printed, imported = json.loads(done.stdout)
    assert printed.splitlines()[2] == f"WeasyPrint {_version('weasyprint')}"
    assert imported == []
