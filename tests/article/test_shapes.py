"""Articles of other shapes than the bundled one: a 4 x 4 matrix with an out-of-memory and a
skipped cell, a vLLM rate sweep with p99 columns, and a two-engine comparison with a missing cell.

Each builds, checks clean (strict) against its own build, and shows what its data says. Their
goldens are in tests/golden/ (see test_build.py); their run files come from
tests/articles/generate.py, which must reproduce them byte for byte.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy
import pytest

from reportgen.article.build import Built, render_article
from reportgen.article.page.numbers import number_html
from reportgen.check.compare import check_article

ROOT = Path(__file__).resolve().parents[2]
ARTICLES = ROOT / "tests" / "articles"
SHAPES = ("matrix-4x4", "rate-sweep", "two-engines", "three-configs")


@pytest.fixture(scope="session")
def built() -> dict[str, Built]:
    return {name: render_article(ARTICLES / name, {}) for name in SHAPES}


def _cells(html: str, table: str) -> list[list[str]]:
    """The text of each body row of a table (row label first), tags stripped."""
    body = html.split(f'data-table="{table}"', 1)[1].split("</tbody>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", body.split("<tbody>", 1)[1], re.S)
    strip = re.compile(r"<sup[^>]*>.*?</sup>|<[^>]+>")
    return [
        [strip.sub("", c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r, re.S)]
        for r in rows
    ]


@pytest.mark.process
def test_the_generator_reproduces_the_committed_run_files(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(ARTICLES / "generate.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.json"))
    assert len(written) == 23
    for rel in written:
        assert (tmp_path / rel).read_bytes() == (ARTICLES / rel).read_bytes(), rel


@pytest.mark.slow
@pytest.mark.parametrize("name", SHAPES)
def test_each_shape_checks_clean_against_its_own_build(name: str) -> None:
    result = check_article(ARTICLES / name, strict=True)
    assert not result.failed, [i.message for i in result.items]
    assert sum(s.matched for s in result.sources) > 20
    assert all(f.acknowledged for f in result.findings)  # each one reviewed, with a reason


@pytest.mark.slow
@pytest.mark.parametrize("name", SHAPES)
def test_each_shape_is_labelled_synthetic_in_the_files_own_words(
    name: str, built: dict[str, Built]
) -> None:
    html = built[name].html
    assert 'id="synthetic-notice"' in html
    note = json.loads(next((ARTICLES / name).glob("*.json")).read_text())["dataProvenance"]
    assert note["status"] == "synthetic"
    assert note["note"] in html.replace("&#39;", "'")


# --- the 4 x 4 matrix --------------------------------------------------------------------------


def test_matrix_rows_and_columns_come_from_the_data(built: dict[str, Built]) -> None:
    rows = _cells(built["matrix-4x4"].html, "aggregate")
    assert [r[0] for r in rows] == ["2K", "16K", "64K", "128K"]
    assert rows[3][3:] == ["failed", "skipped"]
    head = built["matrix-4x4"].html.split('data-table="aggregate"', 1)[1].split("</thead>")[0]
    assert re.findall(r'<th scope="col">(\d+)</th>', head) == ["3", "6", "12", "24"]


def test_a_long_engine_error_is_written_out_once_and_referred_to_elsewhere(
    built: dict[str, Built],
) -> None:
    html = built["matrix-4x4"].html
    reason = json.loads((ARTICLES / "matrix-4x4" / "bench.json").read_text())["results"][14][
        "failure_reason"
    ]
    # once in the first table's note, once where the prose asks for it ({{ ....reason }})
    assert html.count(reason.removesuffix(".")) == 2
    assert html.count('as in <a href="#note-1">') >= 3  # the other tables and the chart
    quality = html.split('id="data-quality"', 1)[1].split("</section>", 1)[0]
    assert reason not in quality and 'the reason in <a href="#note-1">' in quality


def test_per_gpu_throughput_is_the_aggregate_over_the_gpu_count(built: dict[str, Built]) -> None:
    by_id = built["matrix-4x4"].metrics.by_id()
    agg = by_id["decode.2K.c24.aggregate_tok_s"]
    per_gpu = by_id["decode.2K.c24.aggregate_tok_s_per_gpu"]
    assert per_gpu.value == agg.value / 2 and per_gpu.basis == "2 GPUs"
    # rated power only: the basis says so
    assert by_id["decode.2K.c24.aggregate_tok_s_per_w"].basis == "rated power 700 W x 2 GPUs"


def test_counts_show_beside_each_p99(built: dict[str, Built]) -> None:
    # no cell of the matrix holds the requests a p99 needs: each shows the words, and its
    # count in the gate's note
    rows = _cells(built["matrix-4x4"].html, "ttft-p99")
    n = built["matrix-4x4"].metrics.by_id()["decode.2K.c3.ttft_s.n"].value
    assert n < 100 and rows[0][1] == "not measurable"
    assert f"Not measurable: {n:.0f} requests, p99 needs 100." in built["matrix-4x4"].html


# --- the rate sweep ----------------------------------------------------------------------------


def _vllm(rate: str) -> dict[str, object]:
    doc: dict[str, object] = json.loads(
        (ARTICLES / "rate-sweep" / f"vllm-{rate}qps.json").read_text()
    )
    return doc


def test_a_rate_sweep_has_one_row_per_load_point_with_p99_columns(
    built: dict[str, Built],
) -> None:
    rows = _cells(built["rate-sweep"].html, "load-points")
    assert [r[0] for r in rows] == ["0.5/s", "1/s", "2/s", "4/s", "8/s"]
    header = built["rate-sweep"].html.split('data-table="load-points"', 1)[1].split("</thead>")[0]
    assert "TTFT p99 (ms)" in header and "latency p99 (s)" in header


def test_p99_is_numpy_percentile_over_the_requests_and_agrees_with_vllm(
    built: dict[str, Built],
) -> None:
    by_id = built["rate-sweep"].metrics.by_id()
    doc = _vllm("4")
    ttfts = [t for t, e in zip(doc["ttfts"], doc["errors"], strict=True) if not e]  # type: ignore[call-overload]
    p99 = by_id["load.r4.ttft_s.p99"]
    assert p99.source == "samples"
    assert p99.value == pytest.approx(float(numpy.percentile(ttfts, 99)), rel=1e-12)
    assert p99.value * 1000 == pytest.approx(doc["p99_ttft_ms"], rel=1e-5)  # vLLM's own
    # vLLM's TPOT is reportgen's ITL: both are (latency - TTFT) / (tokens - 1) per request
    assert by_id["load.r4.itl_s"].value * 1000 == pytest.approx(doc["median_tpot_ms"], rel=1e-4)


def test_failed_requests_mark_the_load_points_latencies(built: dict[str, Built]) -> None:
    rows = _cells(built["rate-sweep"].html, "load-points")
    assert rows[4][2] == "2"  # failed
    html = built["rate-sweep"].html.split('data-table="load-points"', 1)[1].split("</figure>")[0]
    assert "Load points with failed requests" in html
    # the failed requests gate the row's statistics (not its counts); the latencies keep the
    # lint's mark beside the gate's note, the throughput has the gate's note alone
    row = html.split('scope="row">8/s</th>', 1)[1].split("</tr>", 1)[0]
    marks = re.findall(
        r'<span class="gated">not measurable</span><sup class="fn">([^<]*)</sup>', row
    )
    notes = re.findall(r'<sup>([a-z])</sup> <span id="note-\d+">Not measurable: ([^<]*)<', html)
    (mark,) = (letter for letter, words in notes if words.endswith("did not complete."))
    assert marks == [mark] + [mark + "*"] * 5
    assert 'data-metric="load.r8.failed"' in row
    # one finding for the fact: the failed requests' lint, not a second one for the gate
    assert [f.id for f in built["rate-sweep"].findings if f.cell == "r8"] == [
        "load-requests-failed"
    ]


def test_a_chart_leaves_a_gated_point_out_and_says_why(built: dict[str, Built]) -> None:
    html = built["rate-sweep"].html
    figure = html[html.index('id="chart-ttft-tail"') :].split("</figure>", 1)[0]
    by_id = built["rate-sweep"].metrics.by_id()
    caption = figure[figure.index("</svg>") :]
    # 8/s: two requests failed; 4/s: too few requests ran in the steady state for a p99
    for rate, kind in (("r8", "incomplete"), ("r4", "not-steady")):
        gate = by_id[f"load.{rate}.ttft_s.p99"].gate
        assert gate is not None and gate.kind == kind
        assert f"at {rate[1:]}/s (" in caption
        assert gate.reason in caption
    # three of the five rates drawn: the line's vertices, and its markers
    line = figure[figure.index('<g id="chart-ttft-tail-line">') :].split("</defs>", 1)
    path = re.search(r'<path d="([^"]*)"', line[0])
    assert path is not None and len(re.findall(r"[ML] ", path.group(1))) == 3
    assert line[1].split("</g>", 1)[0].count("<use ") == 3


def test_a_standalone_time_of_seconds_is_shown_in_seconds(built: dict[str, Built]) -> None:
    html = built["rate-sweep"].html
    key = html.split('id="key-results"', 1)[1].split("</section>", 1)[0]
    p99 = built["rate-sweep"].metrics.by_id()["load.r8.ttft_s.p99"]
    assert f">{p99.value:.1f}\u00a0s</span>" in number_html(p99, unit=True)  # not thousands of ms
    # the key result itself is gated (the point's failed requests): the words, no number
    assert p99.gate is not None and f"not measurable ({p99.gate.reason})" in key


# --- the two-engine comparison -----------------------------------------------------------------


def test_a_comparison_shows_delta_and_ratio_with_better_or_worse(built: dict[str, Built]) -> None:
    by_id = built["two-engines"].metrics.by_id()
    base = by_id["vllm.decode.4K.c16.aggregate_tok_s"].value
    other = by_id["sglang.decode.4K.c16.aggregate_tok_s"].value
    rows = _cells(built["two-engines"].html, "aggregate-4k")
    row = next(r for r in rows if r[0] == "16")
    assert row[1:3] == [f"{base:,.0f}", f"{other:,.0f}"]
    assert row[3] == f"{other - base:+,.0f} ({'better' if other > base else 'worse'})"
    assert row[4] == f"{other / base:.2f} ({'better' if other > base else 'worse'})"
    # lower is better for a latency: a smaller SGLang TTFT is "better"
    ttft = _cells(built["two-engines"].html, "ttft-p99-4k")
    t_base = by_id["vllm.decode.4K.c1.ttft_s.p99"].value
    t_other = by_id["sglang.decode.4K.c1.ttft_s.p99"].value
    assert ttft[0][3].endswith("(better)" if t_other < t_base else "(worse)")


def test_a_cell_one_run_lacks_is_shown_as_absent(built: dict[str, Built]) -> None:
    rows = _cells(built["two-engines"].html, "aggregate-32k")
    assert rows[3][0] == "64" and rows[3][1] != "—"
    assert rows[3][2:] == ["—", "—", "—"]
    html = built["two-engines"].html.split('data-table="aggregate-32k"', 1)[1].split("</figure>")[0]
    assert "not measured: the run has no such cell" in html


def test_the_interactivity_chart_has_a_curve_per_engine_labelled_by_concurrency(
    built: dict[str, Built],
) -> None:
    html = built["two-engines"].html
    chart = html.split('id="chart-interactivity"', 1)[1].split("</figure>", 1)[0]
    assert 'id="chart-interactivity-line-vLLM"' in chart
    assert 'id="chart-interactivity-line-SGLang"' in chart
    assert "labelled by its concurrent requests" in chart
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", chart)
    assert texts.count("64") == 2 and texts.count("16") == 2  # each point labelled, both curves


def test_acknowledging_a_cell_of_one_run_does_not_cover_the_other(tmp_path: Path) -> None:
    folder = tmp_path / "two-engines"
    shutil.copytree(ARTICLES / "two-engines", folder)
    manifest = folder / "article.toml"
    manifest.write_text(
        manifest.read_text().replace('cells = ["32K x 1"]', 'cells = ["vllm 32K x 1"]')
    )
    result = check_article(folder, strict=True)
    open_ = [f.where for f in result.findings if not f.acknowledged]
    assert result.failed and open_ == ["sglang 32K x 1"]
