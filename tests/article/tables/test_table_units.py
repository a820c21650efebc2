"""A unit a table's caption or a column header names must be the unit its numbers are shown in,
and a comparison can leave out "better" and "worse" when they mean nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reportgen.article.build import render_article
from reportgen.errors import InputError

ROOT = Path(__file__).resolve().parents[3]
SWEEP = ROOT / "tests" / "articles" / "rate-sweep"
TWO = ROOT / "tests" / "articles" / "two-engines"


def edited(tmp_path: Path, source: Path, old: str, new: str) -> Path:
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    manifest = folder / "article.toml"
    text = manifest.read_text(encoding="utf-8")
    assert old in text
    manifest.write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


def test_a_header_naming_seconds_over_milliseconds_is_a_build_error(tmp_path: Path) -> None:
    folder = edited(
        tmp_path,
        SWEEP,
        '{ metric = "load.ttft_s", header = "TTFT p50" }',
        '{ metric = "load.ttft_s", header = "TTFT p50 (s)" }',
    )
    with pytest.raises(InputError) as caught:
        render_article(folder)
    (problem,) = caught.value.problems
    assert problem.format().endswith(
        "table 'load-points': column 'TTFT p50 (s)' names s, but its numbers are in ms"
    )
    assert problem.path.endswith("article.toml") and problem.line > 1


def test_a_header_naming_the_unit_its_column_converts_to_is_fine(tmp_path: Path) -> None:
    folder = edited(
        tmp_path,
        SWEEP,
        '{ metric = "load.latency_s.p99", header = "latency p99", unit = "s", decimals = 1 }',
        '{ metric = "load.latency_s.p99", header = "latency p99 (s)", unit = "s", decimals = 1 }',
    )
    assert "latency p99 (s)" in render_article(folder).html


def test_a_caption_naming_another_unit_is_a_build_error(tmp_path: Path) -> None:
    folder = edited(tmp_path, TWO, 'unit = "(s, p99)"', 'unit = "(ms, p99)"')
    with pytest.raises(InputError, match=r"unit '\(ms, p99\)' names ms, but the cells show s"):
        render_article(folder)


def test_units_written_in_words_are_understood(tmp_path: Path) -> None:
    folder = edited(tmp_path, TWO, 'unit = "(s, p99)"', 'unit = "(seconds at p99)"')
    render_article(folder)  # no unit named: nothing to contradict


@pytest.mark.slow
def test_a_comparison_without_a_judgement_says_neither_better_nor_worse(tmp_path: Path) -> None:
    judged = render_article(TWO).html
    assert "(better)" in judged or "(worse)" in judged
    folder = tmp_path / "two"
    shutil.copytree(TWO, folder)
    manifest = folder / "article.toml"
    manifest.write_text(
        manifest.read_text(encoding="utf-8").replace(
            'show = ["delta", "ratio"] }', 'show = ["delta", "ratio"], judge = false }'
        ),
        encoding="utf-8",
    )
    html = render_article(folder).html
    assert "(better)" not in html and "(worse)" not in html
    assert html.count('data-metric="compare.') == judged.count('data-metric="compare.')
