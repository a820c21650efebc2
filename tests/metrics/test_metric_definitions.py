"""docs/metric-definitions.md against the importers: every definition a format records (where a
tool's number differs from reportgen's) has its row, and every format is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.formats.load import load
from reportgen.formats.registry import FORMATS
from reportgen.model import MatrixRun, SweepRun

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "metric-definitions.md").read_text(encoding="utf-8")
TOOL = {f.name: f.tool for f in FORMATS}


def recorded() -> list[tuple[str, str]]:
    """(tool, metric) of every definition the valid examples' importers record."""
    found: set[tuple[str, str]] = set()
    for path in sorted((ROOT / "tests" / "examples" / "valid").iterdir()):
        for run in load([path]).runs:
            if isinstance(run, SweepRun):
                found |= {(TOOL[run.source.format], f"load.{q}") for q in run.definitions}
            elif isinstance(run, MatrixRun):  # llama-bench: whole keys
                found |= {(TOOL[run.source.format], key) for key in run.definitions}
    return sorted(found)


RECORDED = recorded()


def test_the_examples_record_definitions() -> None:
    assert len({tool for tool, _ in RECORDED}) >= 4


@pytest.mark.parametrize(("tool", "metric"), RECORDED)
def test_each_recorded_definition_has_its_row(tool: str, metric: str) -> None:
    assert f"| {tool} | `{metric}` |" in DOC, f"no row for {tool} {metric}"


@pytest.mark.parametrize("tool", sorted(TOOL.values()))
def test_every_format_is_named(tool: str) -> None:
    assert f"| {tool} |" in DOC
