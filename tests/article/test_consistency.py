"""The article's setup against its run files, and physics across cells: located findings."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reportgen.article.build import render_article
from reportgen.check.compare import check_article

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "tests" / "articles" / "small"
PAITON = ROOT / "runs" / "paiton-kimi-k3.1-pro"


def _copy(tmp_path: Path, edit: tuple[str, str]) -> Path:
    folder = tmp_path / "small"
    shutil.copytree(SMALL, folder)
    manifest = folder / "article.toml"
    text = manifest.read_text()
    assert edit[0] in text
    manifest.write_text(text.replace(*edit, 1))
    return folder


def test_an_engine_the_run_files_contradict_is_an_error_naming_both_places(
    tmp_path: Path,
) -> None:
    folder = _copy(tmp_path, ('name = "vLLM"', 'name = "SGLang"'))
    result = check_article(folder)
    assert result.failed
    found = [f for f in result.findings if f.id == "setup-contradicts-data"]
    assert {f.file.rsplit("/", 1)[-1] for f in found} == {"bench.json", "canonical.json"}
    for f in found:
        assert "article.toml says 'SGLang'" in f.evidence
        assert f"{folder / 'article.toml'}:" in f.message  # the manifest's place, with its line
    assert found[0].pointer in ("/metadata/engine", "/engineName")


@pytest.mark.slow
def test_a_declared_alias_is_accepted(tmp_path: Path) -> None:
    folder = _copy(tmp_path, ('name = "vLLM"', 'name = "vLLM (our fork)"'))
    manifest = folder / "article.toml"
    text = manifest.read_text().replace(
        'build = "0.11.0"', 'build = "0.11.0"\n\n[runs.setup.aliases]\nengine = ["vllm"]'
    )
    manifest.write_text(text)
    assert [f.id for f in render_article(folder, {}).findings].count("cell-invalid") == 1
    assert not [f for f in render_article(folder, {}).findings if f.id == "setup-contradicts-data"]


def test_an_expected_failed_cell_passes_and_an_unexpected_one_fails(tmp_path: Path) -> None:
    assert not check_article(SMALL).failed  # its failed cell is acknowledged, with a reason
    blocks = (SMALL / "article.toml").read_text().split("\n[[acknowledge]]\n")
    folder = tmp_path / "small"
    shutil.copytree(SMALL, folder)
    (folder / "article.toml").write_text(blocks[0])
    result = check_article(folder)
    assert result.failed
    assert [f.cell for f in result.findings if f.id == "cell-invalid"] == ["4K x 32"]


@pytest.mark.slow
def test_aggregate_far_above_concurrency_times_median_speed_is_explained() -> None:
    built = render_article(PAITON, {})
    found = [f for f in built.findings if f.id == "aggregate-above-median-speed"]
    assert [f.cell for f in found] == ["32K x 16", "64K x 16"]
    for f in found:
        assert "includes the stalls while the other requests prefilled" in f.message
        agg = built.metrics.get(f.metrics[0])
        speed = built.metrics.get(f.metrics[1])
        assert agg is not None and speed is not None
        assert agg.value > 16 * speed.value * 1.25
