"""`reportgen init`: from run files to an article that builds and checks at once; never
overwrites, never leaves half an article behind, and never guesses what the files do not say."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest

from reportgen.article.build import render_article
from reportgen.article.source.draft import DRAFT
from reportgen.check.compare import check_article
from reportgen.cli.main import main
from reportgen.init.manifest import NO_ENGINE

ROOT = Path(__file__).resolve().parents[2]
ARTICLES = ROOT / "tests" / "articles"


def _init(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["init", *argv])
    return code, capsys.readouterr().err


@pytest.mark.slow
def test_a_matrix_file_becomes_an_article_that_builds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "new"
    src = ARTICLES / "matrix-4x4" / "bench.json"
    code, err = _init(capsys, str(folder), "--from", str(src), "--gpu", "NVIDIA L4", "--gpus", "2")
    assert code == 0, err
    assert (folder / "bench.json").read_bytes() == src.read_bytes()
    manifest = tomllib.loads((folder / "article.toml").read_text())
    assert manifest["runs"][0]["setup"]["hardware"] == {"gpu_name": "NVIDIA L4", "gpu_count": 2}
    assert manifest["runs"][0]["setup"]["model"]["hf_id"] == "example/Mid-32B"
    tables = [t["id"] for s in manifest["sections"] for t in s.get("table", [])]
    assert tables == ["prefill", "aggregate", "per-request", "ttft", "itl-p90"]
    built = render_article(folder, {})
    assert "decode.2K.c24.aggregate_tok_s_per_gpu" in built.metrics.by_id()
    # the tail table: each cell's p90 where it has the 10 requests a p90 needs, else the gate
    (tail,) = [t for t in built.tables if t.decl.id == "itl-p90"]
    p90 = {v.id: v for v in built.metrics.values if v.metric == "decode.itl_s.p90"}
    cells = [(c, p90[c.metric]) for _, row in tail.rows for c in row if c.metric in p90]
    assert {c.gated for c, _ in cells} == {True, False}
    for cell, value in cells:
        assert cell.gated == (value.gate is not None)
        assert value.n is not None and (value.n >= 10) != cell.gated, value.id
    # the out-of-memory cell is an error until the author acknowledges it; init says so
    assert "review these 3 finding(s)" in err and "[cell-invalid] 128K x 12" in err
    assert "[percentile-too-few-samples]" in err  # the tail table's cells of 6 to 8 requests
    assert check_article(folder).failed
    text = (folder / "article.toml").read_text()
    text = text.replace(
        '# [[acknowledge]]\n# lint = "cell-invalid"', '[[acknowledge]]\nlint = "cell-invalid"'
    )
    text = text.replace(
        '# cells = ["128K x 12"]\n# reason = "..."',
        'cells = ["128K x 12"]\nreason = "Out of memory, as expected."',
    )
    (folder / "article.toml").write_text(text)
    assert not check_article(folder).failed


@pytest.mark.slow
def test_without_hardware_the_article_says_it_is_not_stated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "sweep"
    files = sorted(str(p) for p in (ARTICLES / "rate-sweep").glob("*.json"))
    code, err = _init(capsys, str(folder), "--from", *files, "--date", "2026-12-01")
    assert code == 0, err
    manifest = tomllib.loads((folder / "article.toml").read_text())
    assert "hardware" not in manifest["runs"][0]["setup"]
    assert manifest["date"] == "2026-12-01"
    # vllm bench serve names no engine: init says so instead of guessing
    assert manifest["runs"][0]["setup"]["engine"]["name"] == NO_ENGINE
    built = render_article(folder, {})
    assert "not stated by the article" in built.html
    assert not any(v.key.endswith(".per_gpu") for v in built.metrics.values)
    (table,) = [t for s in manifest["sections"] for t in s.get("table", [])]
    assert table["rows"] == "rate"
    assert {"load.ttft_s.p99", "load.itl_s.p99"} <= {c["metric"] for c in table["columns"]}
    assert not check_article(folder).failed


@pytest.mark.slow
def test_two_engines_become_a_comparison(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "ab"
    files = [str(ARTICLES / "two-engines" / n) for n in ("vllm.json", "sglang.json")]
    code, err = _init(capsys, str(folder), "--from", *files)
    assert code == 0, err
    manifest = tomllib.loads((folder / "article.toml").read_text())
    assert [r["id"] for r in manifest["runs"]] == ["vllm", "sglang"]
    compares = [t for s in manifest["sections"] for t in s.get("table", []) if "compare" in t]
    assert [t["where"] for t in compares] == [{"context": 4096}, {"context": 32768}]
    assert compares[0]["compare"] == {"base": "vllm", "other": "sglang", "show": ["delta", "ratio"]}
    charts = [c for s in manifest["sections"] for c in s.get("chart", [])]
    assert charts[0]["kind"] == "interactivity" and charts[0]["series"] == "run"
    built = render_article(folder, {})
    assert "sglang.decode.4K.c16.aggregate_tok_s" in built.metrics.by_id()
    ratio = built.metrics.by_id()["compare.sglang-vs-vllm.decode.4K.c16.aggregate_tok_s.ratio"]
    by_id = built.metrics.by_id()
    assert ratio.value == pytest.approx(
        by_id["sglang.decode.4K.c16.aggregate_tok_s"].value
        / by_id["vllm.decode.4K.c16.aggregate_tok_s"].value
    )
    assert 'data-metric="compare.sglang-vs-vllm.decode.4K.c16.aggregate_tok_s.delta"' in built.html
    assert not check_article(folder).failed


def test_files_of_the_same_name_are_kept_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for engine in ("a", "b"):
        (tmp_path / engine).mkdir()
        shutil.copy(
            ARTICLES / "two-engines" / f"{'vllm' if engine == 'a' else 'sglang'}.json",
            tmp_path / engine / "bench.json",
        )
    folder = tmp_path / "both"
    code, err = _init(
        capsys,
        str(folder),
        "--from",
        str(tmp_path / "a" / "bench.json"),
        str(tmp_path / "b" / "bench.json"),
    )
    assert code == 0, err
    assert sorted(p.name for p in folder.glob("*.json")) == ["b-bench.json", "bench.json"]


def test_init_never_overwrites_an_article(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "small"
    shutil.copytree(ARTICLES / "small", folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    code, err = _init(capsys, str(folder), "--from", str(folder / "bench.json"))
    assert code == 2
    assert "article.toml:1:1 /: already exists: init never overwrites" in err
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_a_bad_run_file_is_a_located_error_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.json"
    doc = json.loads((ARTICLES / "rate-sweep" / "vllm-1qps.json").read_text())
    doc["request_rate"] = "fast"
    bad.write_text(json.dumps(doc))
    code, err = _init(capsys, str(tmp_path / "new"), "--from", str(bad))
    assert code == 2
    assert f"{bad}:1:" in err and "/request_rate: 'fast' is not a request rate" in err
    assert not (tmp_path / "new").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.json"]  # no temporary folder left


def test_init_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["init", "--help"])
    out = capsys.readouterr().out
    assert "examples:" in out and "reportgen init runs/my-article --from" in out


@pytest.mark.slow
def test_init_s_draft_text_fails_check_strict_until_it_is_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each placeholder init writes carries one marker: the intro, and an engine the files do
    not name. A plain check passes with a warning at each; --strict fails until replaced."""
    folder = tmp_path / "sweep"
    files = sorted(str(p) for p in (ARTICLES / "rate-sweep").glob("*.json"))
    assert _init(capsys, str(folder), "--from", *files)[0] == 0
    assert NO_ENGINE.startswith(DRAFT)
    manifest, intro = folder / "article.toml", folder / "intro.md"
    engine_line = manifest.read_text().splitlines().index(f'name = "{NO_ENGINE}"') + 1

    def drafts(strict: bool) -> tuple[bool, list[tuple[str, tuple[int, int] | None]]]:
        result = check_article(folder, strict=strict)
        places = zip(result.findings, result.finding_places, strict=True)
        found = [(Path(f.file).name, p) for f, p in places if f.id == "draft-text"]
        return result.failed, found

    assert drafts(strict=False) == (
        False,
        [("article.toml", (engine_line, 9)), ("intro.md", (1, 1))],
    )
    assert drafts(strict=True)[0]
    manifest.write_text(manifest.read_text().replace(NO_ENGINE, "vLLM"))
    intro.write_text(intro.read_text().replace(DRAFT, "We measured"))
    assert drafts(strict=True)[1] == []


@pytest.mark.slow
def test_repeated_load_points_get_an_interval_on_each_percentile_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three repetitions of two load points (synthetic: the rate-sweep files, their TTFTs
    scaled by 1.00, 1.03 and 1.06): init shows each quantity and percentile column as the
    repetitions' mean ± its interval, the request counts without one, and check reads it."""
    import numpy as np
    from scipy import stats as sps  # here: the workers that run no such test never import it

    from reportgen.metrics.display import display_of, format_number

    files, p99s = [], []
    for k in range(3):
        folder = tmp_path / f"r{k + 1}"
        folder.mkdir()
        for name in ("vllm-1qps.json", "vllm-2qps.json"):
            doc = json.loads((ARTICLES / "rate-sweep" / name).read_text(encoding="utf-8"))
            scale = 1 + 0.03 * k
            doc["ttfts"] = [t * scale for t in doc["ttfts"]]
            for field in [f for f in doc if f.endswith("_ttft_ms")]:
                doc[field] *= scale
            (folder / name).write_text(json.dumps(doc), encoding="utf-8")
            files.append(str(folder / name))
            if name == "vllm-2qps.json":
                p99s.append(float(np.percentile([t for t in doc["ttfts"] if t > 0], 99)))
    article = tmp_path / "article"
    assert _init(capsys, str(article), "--from", *files)[0] == 0
    manifest = tomllib.loads((article / "article.toml").read_text())
    [table] = [t for s in manifest["sections"] for t in s.get("table", [])]
    modes = {c["metric"]: c.get("uncertainty") for c in table["columns"]}
    assert modes["load.ttft_s.p99"] == modes["load.output_tok_s"] == "pm"
    assert modes["load.requests"] is None  # a count of requests: its median, no interval
    built = render_article(article, {}, charts=False)
    x = np.array(p99s)
    half = float(sps.t.ppf(0.975, len(x) - 1) * sps.sem(x))
    mean_id = next(
        v.id
        for v in built.metrics.values
        if v.metric == "load.ttft_s.p99.rep_mean" and v.rate == 2.0
    )
    shown = display_of("load.ttft_s", "p99")
    cell = built.html[built.html.index(f'data-metric="{mean_id}"') :]
    cell = cell[: cell.index("</td>")]
    assert f">{format_number(float(x.mean()), shown)}</span> \u00b1 " in cell
    assert f">{format_number(half, shown)}</span>" in cell
    assert not check_article(article, strict=False).failed
