"""The gates on what is shown (`reportgen.metrics.gates`, `reportgen.metrics.steady`): the
percentile rule at its boundaries, incomplete cells, the steady window on a real GuideLLM file
against an independent numpy computation and on synthetic warm-up and drain, and a gated value in
metrics.json, the table, the CSV and the prose, and in check's reading of a copy."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from helpers_articles import MEASURED, built_article, plain_copy

from reportgen.article.build import Built, render_article
from reportgen.article.rundata import article_metrics
from reportgen.article.tables.csvfile import table_csv
from reportgen.check.compare import check_published
from reportgen.check.result import Item, expected_numbers
from reportgen.formats.load import load_document, parse_run_file
from reportgen.metrics.gates import gate_point, need
from reportgen.metrics.lints import lint
from reportgen.metrics.lints.findings import LINTS
from reportgen.metrics.registry import MetricValue
from reportgen.metrics.steady import steady
from reportgen.model import LoadPoint, SweepRun


def _value(stat: str | None, n: int | None, key: str = "load.ttft_s") -> MetricValue:
    return MetricValue(
        id=f"load.c1.{key.split('.')[1]}" + (f".{stat}" if stat else ""),
        key=key,
        value=1.0,
        unit="s",
        source="samples",
        file="synthetic.json",
        sha256="0" * 64,
        provenance="synthetic",
        pointer="/",
        n=n,
        stat=stat,
    )


def _point(**changes: object) -> LoadPoint:
    base = LoadPoint(
        pointer="/",
        label="c4",
        concurrency=4,
        rate=None,
        strategy="concurrent",
        status="ok",
        reason=None,
        duration_s=1.0,
        output_tokens=10,
        aggregate_tok_s=None,
        requests_ok=200,
        requests_failed=0,
        samples=(),
    )
    return replace(base, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(("stat", "p"), [("p90", 0.90), ("p95", 0.95), ("p99", 0.99)])
def test_the_rule_at_its_boundary(stat: str, p: float) -> None:
    needed = need(p)
    assert needed == round(1 / (1 - p))  # 10, 20, 100
    point = _point()
    below, at = (next(gate_point(point, [_value(stat, n)])) for n in (needed - 1, needed))
    assert below.gate is not None and below.gate.kind == "too-few-samples"
    assert (below.gate.n, below.gate.need) == (needed - 1, needed)
    assert f"{stat} needs {needed}" in below.gate.words()
    assert at.gate is None
    assert need(0.999) == 1000


def test_a_percentile_without_a_count_is_gated_for_that_reason() -> None:
    (v,) = gate_point(_point(), [replace(_value("p99", None), source="summary")])
    assert v.gate is not None and v.gate.kind == "count-unknown"
    assert "does not say how many requests" in v.gate.reason


def test_a_median_and_a_count_are_not_gated_by_the_rule() -> None:
    values = [_value(None, 3), _value("n", 3), _value("max", 3)]
    assert all(v.gate is None for v in gate_point(_point(), values))


def test_failed_requests_gate_the_whole_cell_but_not_its_counts() -> None:
    point = _point(requests_ok=198, requests_failed=2)
    values = [_value(None, 198), _value("n", 198), _value(None, None, key="load.requests")]
    median, n, requests = gate_point(point, values)
    assert median.gate is not None and median.gate.kind == "incomplete"
    assert median.gate.reason == "2 of 200 requests did not complete"
    assert n.gate is None and requests.gate is None


def _numpy_steady(spans: np.ndarray, c: int) -> int:
    """Independent: in flight at each start (starts <= t minus ends <= t, an end first at a
    tie), the window from the first start that reaches c to the first end after the last
    start; the requests wholly inside it."""
    starts, ends = spans[:, 0], spans[:, 1]
    flight = np.array([np.sum(starts <= t) - np.sum(ends <= t) for t in np.sort(starts)], dtype=int)
    reached = np.sort(starts)[np.argmax(flight >= c)] if np.any(flight >= c) else None
    later = ends[ends > starts.max()]
    if reached is None or later.size == 0:
        return 0
    end = later.min()
    return int(np.sum((starts >= reached) & (ends <= end)))


def test_the_steady_window_of_a_real_guidellm_file_agrees_with_numpy() -> None:
    path = MEASURED / "guidellm-c4.json"
    run, _ = load_document(parse_run_file(path.name, path.read_bytes(), path))
    assert isinstance(run, SweepRun)
    (point,) = run.points
    assert len(point.spans) == 12 and point.concurrency == 4
    found = steady(point.spans, point.concurrency)
    assert found.total == 12
    assert found.inside == _numpy_steady(np.array(point.spans), 4)
    assert 0 < found.inside < 12  # warm-up and drain are left out


def test_synthetic_warm_up_and_drain_are_left_out() -> None:
    # synthetic: 2 slots; requests 0-1 start together, then each slot runs back to back
    spans = [(0.0, 1.0), (0.1, 1.1), (1.0, 2.0), (1.1, 2.1), (2.0, 3.0), (2.1, 3.5)]
    found = steady(spans, 2)
    assert found.window == (0.1, 3.0)
    # the first request started before the load reached 2, the last ends after the drain began
    assert found.inside == 4 == _numpy_steady(np.array(spans), 2)
    assert steady(spans, 3).window is None  # never 3 in flight: no steady window
    point = _point(spans=tuple(spans), concurrency=2, requests_ok=6)
    (v,) = gate_point(point, [_value(None, 6)])
    assert v.gate is None  # two slots reached: a median stands
    (v,) = gate_point(replace(point, concurrency=3), [_value(None, 6)])
    assert v.gate is not None and v.gate.kind == "not-steady"


def test_a_percentile_whose_requests_are_not_steady_is_gated() -> None:
    # synthetic: 12 requests, concurrency 3, fine by count for p90 but not in the steady window
    spans = tuple((float(k), float(k) + 2.5) for k in range(12))
    found = steady(spans, 3)
    assert found.inside == _numpy_steady(np.array(spans), 3) < 10
    (v,) = gate_point(_point(spans=spans, concurrency=3, requests_ok=12), [_value("p90", 12)])
    assert v.gate is not None and v.gate.kind == "not-steady"
    assert v.gate.n == found.inside and v.gate.need == 10


@pytest.fixture(scope="module")
def measured() -> Built:
    return built_article(MEASURED)[0]


def test_a_gated_cell_in_each_output(measured: Built) -> None:
    built = measured
    _, metrics = article_metrics(MEASURED)
    gated = {v.id: v for v in metrics.values if v.gate is not None}
    p99 = gated["guidellm.load.c1.ttft_s.p99"]
    assert p99.gate is not None and p99.n is not None and p99.n < need(0.99)
    # metrics.json: the value, and its gate
    doc = json.loads(built.metrics_json)
    entry = next(m for m in doc["metrics"] if m["id"] == p99.id)
    assert entry["value"] == p99.value and entry["gate"]["need"] == 100
    assert entry["gate"]["n"] == p99.n
    # the page: the words and the reason, and no number for the metric
    html = built.html
    assert f'data-metric="{p99.id}"' not in html
    assert f"Not measurable: {p99.gate.reason}." in html
    # the CSV: the value at full precision, and the words with the reason
    view = next(t for t in built.tables if t.id == "load-points-guidellm")
    rows = [line for line in table_csv(view, metrics).splitlines() if p99.id in line]
    assert rows and repr(p99.value) in rows[0] and p99.gate.words() in rows[0]


def test_prose_that_names_a_gated_metric_gets_the_words(tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "measured"
    shutil.copytree(MEASURED, folder)
    prose = folder / "side-by-side.md"
    prose.write_text(
        prose.read_text("utf-8") + "\nThe p99 TTFT was {{ guidellm.load.c1.ttft_s.p99 }}.\n",
        "utf-8",
    )
    built = render_article(folder, charts=False)
    assert 'The p99 TTFT was <span class="gated"' in built.html
    assert "not measurable (6 requests, p99 needs 100)" in built.html


def _copy_items(text: str, html: bool) -> list[Item]:
    b, shape = built_article(MEASURED)
    expected = expected_numbers(b.article, b.metrics, b.tables)
    return list(check_published(text, "copy", b.metrics, expected, shape, html=html).items)


@pytest.mark.slow
def test_check_warns_at_a_number_shown_where_the_build_says_not_measurable(
    measured: Built,
) -> None:
    built = measured
    html = built.html
    word = '<span class="gated">not measurable</span>'
    assert _copy_items(html, True) == []  # the words read as matching
    value = built.metrics.by_id()["guidellm.load.c1.ttft_s.p99"]
    shown = f"{value.value * 1000:.1f}"
    items = _copy_items(html.replace(word, shown, 1), True)
    assert [(i.kind, i.metric, i.severity) for i in items] == [("gated", value.id, "warning")]
    assert "p99 needs 100" in items[0].message
    text = plain_copy(MEASURED)
    assert _copy_items(text, False) == []
    line = next(k for k, t in enumerate(text.split("\n")) if "not measurable" in t)
    lines = text.split("\n")
    lines[line] = lines[line].replace("not measurablea", shown + "a", 1)
    items = _copy_items("\n".join(lines), False)
    # a plain-text table: the number is read in the gated cell, the one warning at its line
    assert [(i.kind, i.metric, i.line) for i in items] == [("gated", value.id, line + 1)]


def test_not_measurable_where_the_build_shows_a_number_is_a_mismatch() -> None:
    text = plain_copy(MEASURED)
    b, _ = built_article(MEASURED)
    value = b.metrics.by_id()["guidellm.load.c4.output_tok_s"]
    assert value.gate is None
    lines = text.split("\n")
    at = next(k for k, t in enumerate(lines) if t.startswith("4\t") and f"{value.value:.1f}" in t)
    lines[at] = lines[at].replace(f"{value.value:.1f}", "not measurable", 1)
    items = _copy_items("\n".join(lines), False)
    assert [(i.kind, i.metric, i.line) for i in items] == [("mismatch", value.id, at + 1)]


def test_the_gate_lints_name_the_cells_the_article_shows(tmp_path: Path) -> None:
    """The measured article with its SLO tables showing each load point's p90: the lints name
    every cell whose p90 the tables now show as not measurable, and only those."""
    folder = tmp_path / "article"
    shutil.copytree(MEASURED, folder)
    toml = folder / "article.toml"
    head, at, slo = toml.read_text(encoding="utf-8").partition('id = "slo-guidellm"')
    for q in ("ttft", "itl"):
        p50 = f'{{ metric = "load.{q}_s", header = "{q.upper()} p50" }}'
        assert slo.count(p50) == 2  # the SLO tables of both tools
        slo = slo.replace(p50, f'{{ metric = "load.{q}_s.p90", header = "{q.upper()} p90" }}')
    toml.write_text(head + at + slo, encoding="utf-8")
    built, _ = built_article(folder)
    p90 = {v.id: v for v in built.metrics.values if v.stat == "p90" and v.key == "load.ttft_s"}
    few = [f for f in built.findings if f.id == "percentile-too-few-samples"]
    # one per run file (each tool's c1 and c4 files)
    assert sorted(f.run or "" for f in few) == ["aiperf", "aiperf", "guidellm", "guidellm"]
    short = {k for k, v in p90.items() if v.gate is not None and v.gate.kind == "too-few-samples"}
    named = {f.run for f in few if "p90 needs 10" in f.evidence}
    assert short and named == {k.split(".")[0] for k in short}
    unsteady = [f for f in built.findings if f.id == "cell-not-steady"]
    steady_gated = [k for k, v in p90.items() if v.gate is not None and v.gate.kind == "not-steady"]
    assert [f"{f.run} {k.split('.')[2]}" for f, k in zip(unsteady, steady_gated, strict=True)] == [
        f.where for f in unsteady
    ]
    assert unsteady and all("p90 needs 10" in f.evidence for f in unsteady)


def test_a_shown_only_lint_sees_only_what_the_article_shows() -> None:
    _, metrics = article_metrics(MEASURED)
    every = {f.id for f in lint(metrics, shown=lambda _: True)}
    assert {"percentile-too-few-samples", "cell-not-steady"} <= every
    for hidden in (lint(metrics, shown=lambda _: False), lint(metrics)):  # no article: none
        assert not {f.id for f in hidden} & {"percentile-too-few-samples", "cell-not-steady"}
    assert LINTS["cell-not-steady"].shown_only and not LINTS["few-samples"].shown_only


@pytest.mark.parametrize("html", [False, True])
def test_a_number_in_prose_where_the_build_says_not_measurable_is_gated(html: bool) -> None:
    # the synthetic rate sweep: its r8 point lost requests, and its prose and key result name
    # that point's p99; a copy that writes the gate's words matches, one with the number warns
    folder = Path(__file__).resolve().parents[1] / "articles" / "rate-sweep"
    b, shape = built_article(folder)
    value = b.metrics.by_id()["load.r8.ttft_s.p99"]
    assert value.gate is not None
    words = f"not measurable ({value.gate.reason})"
    text = b.html if html else plain_copy(folder)
    if html:  # the page as a blog keeps it: the words without the build's span around them
        text = re.sub(r'<span class="gated" data-gate="[^"]*">([^<]*)</span>', r"\1", text)
    assert text.count(words) == 2  # the key result and the sentence

    def gated(copy: str) -> list[int]:
        expected = expected_numbers(b.article, b.metrics, b.tables)
        items = check_published(copy, "copy", b.metrics, expected, shape, html=html).items
        return sorted(i.line for i in items if i.kind == "gated" and i.metric == value.id)

    assert gated(text) == []
    lines = [n for n, line in enumerate(text.split("\n"), 1) if words in line]
    assert gated(text.replace(words, f"{value.value:.1f} s")) == lines
