"""The public llm-inference-bench 0.4.31 receipts of ../shared/samples/sparkring/ (DeepSeek-V4-Flash
on vLLM, TP4): other people's files, read where they are and never copied into the repo.

Every expected value is read from the files themselves in the test; nothing is typed in.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from reportgen.article.build import build
from reportgen.check.compare import check_article
from reportgen.formats.load import load
from reportgen.init.scaffold import scaffold
from reportgen.metrics.compute import compute
from reportgen.metrics.lints import lint
from reportgen.model import TOKEN_COUNT_SOURCES

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "samples" / "sparkring"
RECEIPTS = sorted(SAMPLES.glob("deepseek-*.json"))
pytestmark = pytest.mark.skipif(
    not RECEIPTS, reason=f"the sparkring receipts are not at {SAMPLES} (../shared is absent)"
)


def raw(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_the_receipts_are_the_published_files() -> None:
    manifest = json.loads((SAMPLES / "MANIFEST.json").read_text(encoding="utf-8"))
    assert {entry["file"] for entry in manifest} == {p.name for p in RECEIPTS}
    for entry in manifest:
        digest = hashlib.sha256((SAMPLES / entry["file"]).read_bytes()).hexdigest()
        assert digest == entry["sha256"], entry["file"]


def test_every_receipt_is_read_without_a_problem() -> None:
    loaded = load(RECEIPTS)
    assert [p.format() for p in loaded.problems] == []
    assert len(loaded.runs) == len(RECEIPTS)
    assert {run.source.format_version for run in loaded.runs} == {
        raw(p)["metadata"]["version"] for p in RECEIPTS
    }


@pytest.mark.parametrize("path", RECEIPTS, ids=lambda p: p.name[:60])
def test_each_aggregate_is_counted_from_its_own_source(path: Path) -> None:
    data = raw(path)
    metrics = compute(load([path]).runs)
    for cell in data["results"]:
        label = f"decode.{cell['context_tokens'] // 1024}K.c{cell['concurrency']}"
        if cell["context_tokens"] == 0:
            label = f"decode.0.c{cell['concurrency']}"
        value = metrics.get(f"{label}.aggregate_tok_s")
        assert value is not None, label
        seconds = cell["measurement_seconds"]
        if cell["aggregate_source"] in TOKEN_COUNT_SOURCES:
            assert value.value == pytest.approx(cell["client_output_tokens"] / seconds)
            assert value.basis is None
        else:
            counted = cell["server_counter_end_value"] - cell["server_counter_start_value"]
            assert value.value == pytest.approx(counted / seconds)
            assert value.basis == f"the server's {cell['server_counter_name']} counter"
        # the file's own aggregate is kept beside it, and agrees
        assert value.summary == pytest.approx(cell["aggregate_tps"], rel=1e-9)


def test_server_counter_aggregates_are_named_with_what_the_clients_counted() -> None:
    # A file that mixes both sources: only its server-counter cells are flagged.
    mixed = [p for p in RECEIPTS if len({c["aggregate_source"] for c in raw(p)["results"]}) > 1]
    assert mixed, "the set has a file with mixed aggregate sources"
    path = mixed[0]
    findings = [f for f in lint(compute(load([path]).runs)) if f.id == "aggregate-source"]
    cells = raw(path)["results"]
    counter_cells = [c for c in cells if c["aggregate_source"] not in TOKEN_COUNT_SOURCES]
    assert len(findings) == len(counter_cells)
    for finding, cell in zip(findings, counter_cells, strict=True):
        assert cell["server_counter_name"] in finding.message
        assert f"{cell['client_output_tokens']:,} tokens" in finding.evidence


@pytest.mark.slow
def test_repetitions_combine_into_their_median_and_spread() -> None:
    by_cell: dict[tuple[int, int], list[float]] = defaultdict(list)
    for path in RECEIPTS:
        for cell in raw(path)["results"]:
            by_cell[(cell["context_tokens"], cell["concurrency"])].append(cell["aggregate_tps"])
    repeated = {k: v for k, v in by_cell.items() if len(v) > 1}
    assert repeated, "the set repeats cells"
    metrics = compute(load(RECEIPTS).runs)
    for (context, concurrency), own in repeated.items():
        ctx = f"{context // 1024}K" if context else "0"
        base = f"decode.{ctx}.c{concurrency}.aggregate_tok_s"
        value = metrics.get(base)
        assert value is not None and value.source == "repetitions"
        assert value.value == pytest.approx(statistics.median(own), rel=1e-9)
        assert len(value.repeats) == len(own)
        assert metrics.get(f"{base}.rep_min").value == pytest.approx(min(own), rel=1e-9)  # type: ignore[union-attr]
        assert metrics.get(f"{base}.rep_max").value == pytest.approx(max(own), rel=1e-9)  # type: ignore[union-attr]
        assert metrics.get(f"{base}.reps").value == len(own)  # type: ignore[union-attr]


@pytest.mark.slow
def test_repetitions_carry_intervals_that_numpy_and_scipy_agree_with() -> None:
    import numpy as np
    from scipy import stats as sps

    by_cell: dict[tuple[int, int], list[float]] = defaultdict(list)
    for path in RECEIPTS:
        for cell in raw(path)["results"]:
            by_cell[(cell["context_tokens"], cell["concurrency"])].append(cell["aggregate_tps"])
    repeated = {k: np.array(v) for k, v in by_cell.items() if len(v) > 1}
    metrics = compute(load(RECEIPTS).runs)
    widths = []
    for (context, concurrency), x in repeated.items():
        ctx = f"{context // 1024}K" if context else "0"
        base = f"decode.{ctx}.c{concurrency}.aggregate_tok_s"

        def got(stat: str, base: str = base) -> float:
            found = metrics.get(f"{base}.{stat}")
            assert found is not None, f"{base}.{stat}"
            return found.value

        half = float(sps.t.ppf(0.975, len(x) - 1) * sps.sem(x))
        assert got("rep_mean") == pytest.approx(float(x.mean()), rel=1e-9)
        assert got("rep_sd") == pytest.approx(float(x.std(ddof=1)), rel=1e-6)
        assert got("rep_cv") == pytest.approx(float(x.std(ddof=1) / x.mean() * 100), rel=1e-6)
        assert got("rep_hw") == pytest.approx(half, rel=1e-6)
        assert got("rep_ci_lo") == pytest.approx(float(x.mean()) - half, rel=1e-9)
        assert got("rep_ci_hi") == pytest.approx(float(x.mean()) + half, rel=1e-9)
        assert (metrics.get(f"{base}.rep_med_lo") is None) == (len(x) < 6)
        widths.append(half / float(x.mean()))
    assert widths, "the set repeats cells"


def test_a_window_that_differs_between_files_is_no_run_wide_value() -> None:
    windows = {raw(p)["metadata"]["duration_per_test"] for p in RECEIPTS}
    assert len(windows) > 1
    metrics = compute(load(RECEIPTS).runs)
    assert metrics.get("matrix.duration_s") is None
    said = dict(metrics.varying)["matrix.duration_s"]
    for window in windows:
        assert f"{window:g}" in said


@pytest.mark.slow
def test_each_repetitions_p99_has_the_interval_numpy_and_scipy_give() -> None:
    """TTFT p99 of each repeated cell: each repetition's p99 by numpy from its own request
    samples (the positive values), then their count, median, mean, sd, CV and t interval."""
    import numpy as np
    from scipy import stats as sps

    by_cell: dict[tuple[int, int], list[float]] = defaultdict(list)
    for path in RECEIPTS:
        for cell in raw(path)["results"]:
            ttfts = [s["ttft"] for s in cell.get("request_samples") or [] if s["ttft"] > 0]
            if cell.get("failure_reason") is None and ttfts:
                at = (cell["context_tokens"], cell["concurrency"])
                by_cell[at].append(float(np.percentile(ttfts, 99)))
    repeated = {k: np.array(v) for k, v in by_cell.items() if len(v) > 1}
    assert repeated, "the set repeats cells"
    metrics = compute(load(RECEIPTS).runs)
    for (context, concurrency), x in repeated.items():
        ctx = f"{context // 1024}K" if context else "0"
        base = f"decode.{ctx}.c{concurrency}.ttft_s.p99"
        half = float(sps.t.ppf(0.975, len(x) - 1) * sps.sem(x))
        want = {
            "": float(np.median(x)),
            ".reps": float(len(x)),
            ".rep_mean": float(x.mean()),
            ".rep_sd": float(x.std(ddof=1)),
            ".rep_cv": float(x.std(ddof=1) / x.mean() * 100),
            ".rep_hw": half,
            ".rep_ci_lo": float(x.mean()) - half,
            ".rep_ci_hi": float(x.mean()) + half,
        }
        for suffix, expected in want.items():
            found = metrics.get(base + suffix)
            assert found is not None, base + suffix
            assert found.value == pytest.approx(expected, rel=1e-9, abs=1e-12), base + suffix


@pytest.mark.pdf
def test_init_from_the_whole_set_builds_and_checks(tmp_path: Path) -> None:
    article = tmp_path / "sparkring"
    made = scaffold(article, RECEIPTS, title="DeepSeek-V4-Flash receipts")
    assert made.runs == 1  # repetitions are one run's, not runs of their own
    out = tmp_path / "build"
    built = build(article, out)
    html = (built / "index.html").read_text(encoding="utf-8")
    for table in ("aggregate", "repetitions", "prefill"):
        assert f'id="table-{table}"' in html, table
    aggregate = html[html.index('id="table-aggregate"') : html.index('id="table-per-request"')]
    assert aggregate.count(" ± ") > 10  # each repeated cell: its mean and interval
    # the medians over requests too (TTFT p50): each statistic has its repetitions' interval
    ttft = html[html.index('id="table-ttft"') : html.index('id="table-repetitions"')]
    assert ttft.count(" ± ") > 10 and ".ttft_s.rep_hw" in ttft
    # the tail at the percentile the cells can carry: measured with its interval at the
    # concurrencies that ran 10 requests, "not measurable" with the reason below that
    tail = html[html.index('id="table-itl-p90"') : html.index('id="table-repetitions"')]
    assert ".itl_s.p90.rep_hw" in tail and "p90 needs 10" in tail
    assert "median of its" in html  # the appendix says how repetitions combine
    copies = [built / "article.pdf"]  # read back as people copy it: the ± cells included
    assert not check_article(article, copies, build_dir=out).failed
    shutil.rmtree(out)
