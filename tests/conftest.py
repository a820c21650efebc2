"""Shared pytest fixtures (generic only; run-file builders live in helpers_runs.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def examples_dir() -> Path:
    """The folder of example run files (`valid/`, `invalid/`)."""
    return Path(__file__).parent / "examples"
