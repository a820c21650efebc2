"""The Makefile's choice of the interpreter `.venv` is made from: the distribution's python3 when
it is 3.11 or newer and can make a virtualenv, else the python3 on PATH; PYTHON=... wins."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.process  # runs make

ROOT = Path(__file__).resolve().parents[1]


def _chosen(*variables: str) -> str:
    """The PYTHON that `make` would make `.venv` with, given these `NAME=value` variables."""
    make = shutil.which("make")
    assert make is not None, "make is what the README's two commands run"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHON", "MAKEFLAGS", "MFLAGS")}
    result = subprocess.run(
        [make, "-s", "-C", str(ROOT), "--eval", "chosen: ; @echo $(PYTHON)", "chosen", *variables],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def _interpreter(tmp_path: Path, version: tuple[int, int]) -> Path:
    """This Python, started through a script that makes it say it is `version`."""
    script = tmp_path / f"python{version[0]}.{version[1]}"
    code = f"import sys; sys.version_info = {version!r}; exec(sys.argv[1])"
    run = f'exec "{sys.executable}" -c "{code}" "$2"'
    script.write_text(f'#!/bin/sh\n[ "$1" = -c ] || exit 2\n{run}\n')
    script.chmod(0o755)
    return script


def test_a_system_python_of_3_11_or_newer_makes_the_venv(tmp_path: Path) -> None:
    newer = _interpreter(tmp_path, (3, 12))
    assert _chosen(f"SYSTEM_PYTHON={newer}") == str(newer)


def test_an_older_or_missing_system_python_leaves_the_one_on_path(tmp_path: Path) -> None:
    assert _chosen(f"SYSTEM_PYTHON={_interpreter(tmp_path, (3, 10))}") == "python3"
    assert _chosen(f"SYSTEM_PYTHON={tmp_path / 'absent'}") == "python3"


def test_python_given_is_the_one_used(tmp_path: Path) -> None:
    newer = _interpreter(tmp_path, (3, 12))
    assert _chosen(f"SYSTEM_PYTHON={newer}", "PYTHON=python3.13") == "python3.13"
