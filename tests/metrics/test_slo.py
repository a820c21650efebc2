"""SLO attainment, goodput, percentile verdicts and the highest load (`metrics/slo.py`), each
against an independent numpy computation on the same per-request arrays; the `[slo]` errors of
article.toml; and a published copy with one goodput number changed.

The load points here are synthetic (drawn from a seeded generator) and labelled so in their
provenance; the article tests use the measured two-tool article, which declares objectives
(its `[slo]`, a section with a table per tool, and `slo.md`).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from helpers_articles import MEASURED, built_article, check_copy

from reportgen.article.build import render_article
from reportgen.article.source.manifest import load_article
from reportgen.check.compare import article_shape
from reportgen.errors import InputError
from reportgen.frozendict import FrozenDict
from reportgen.metrics.compute import compute
from reportgen.metrics.slo import Objective, Slo, highest, with_slo
from reportgen.model import LoadPoint, Provenance, RequestSample, SourceFile, Summary, SweepRun

SLO = Slo(
    (
        Objective("ttft_ms", 400.0, 90),
        Objective("itl_ms", 25.0, None),
        Objective("e2e_s", 3.0, None),
    ),
    0.5,
)


def _arrays(seed: int, n: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "ttft": rng.uniform(0.05, 0.6, n),
        "itl": rng.uniform(0.01, 0.04, n),
        "latency": rng.uniform(0.5, 4.0, n),
        "out": rng.integers(1, 200, n),
        "done": rng.random(n) > 0.15,  # about one request in seven failed
    }


def _point(label: str, concurrency: int, a: dict[str, np.ndarray], duration: float) -> LoadPoint:
    samples = tuple(
        RequestSample(
            f"/points/{label}/requests/{i}",
            float(a["ttft"][i]) if a["done"][i] else 0.0,
            float(a["latency"][i]),
            float(a["itl"][i]) if a["done"][i] and a["out"][i] > 1 else 0.0,
            100,
            int(a["out"][i]),
            bool(a["done"][i]),
        )
        for i in range(len(a["ttft"]))
    )
    done = int(a["done"].sum())
    return LoadPoint(
        pointer=f"/points/{label}",
        label=label,
        concurrency=concurrency,
        rate=None,
        strategy="concurrent",
        status="ok",
        reason=None,
        duration_s=duration,
        output_tokens=int(a["out"][a["done"]].sum()),
        aggregate_tok_s=None,
        requests_ok=done,
        requests_failed=len(samples) - done,
        samples=samples,
    )


def _run(points: tuple[LoadPoint, ...]) -> SweepRun:
    source = SourceFile(
        label="synthetic.json",
        sha256="0" * 64,
        format="test",
        tool="test 1",
        format_version="1",
        provenance=Provenance(status="synthetic", generator="tests/metrics/test_slo.py"),
    )
    return SweepRun(source=source, engine=None, model=None, points=points)


def _expected(a: dict[str, np.ndarray], duration: float) -> tuple[float, float, float]:
    """Attainment, request goodput and token goodput by numpy, from the same arrays."""
    decoded = a["done"] & (a["out"] > 1)
    itl_ok = ~decoded | (a["itl"] <= 0.025)  # one output token: no gap to judge
    good = a["done"] & itl_ok & (a["latency"] <= 3.0)
    return good.mean(), good.sum() / duration, a["out"][good].sum() / duration


def test_attainment_and_goodput_match_numpy_with_failed_requests() -> None:
    arrays = {"c1": _arrays(1, 60), "c8": _arrays(2, 400)}
    durations = {"c1": 30.0, "c8": 45.0}
    run = _run(tuple(_point(k, int(k[1:]), a, durations[k]) for k, a in arrays.items()))
    metrics = with_slo(compute([run]), SLO)
    for label, a in arrays.items():
        assert not a["done"].all()  # the case under test: some requests failed
        share, req_s, tok_s = _expected(a, durations[label])
        assert metrics.get(f"load.{label}.slo_attainment").value == pytest.approx(share)  # type: ignore[union-attr]
        assert metrics.get(f"load.{label}.goodput_req_s").value == pytest.approx(req_s)  # type: ignore[union-attr]
        assert metrics.get(f"load.{label}.goodput_tok_s").value == pytest.approx(tok_s)  # type: ignore[union-attr]
        p90 = np.percentile(a["ttft"][a["done"]], 90)
        met = metrics.get(f"load.{label}.slo_ttft_met")
        assert met is not None and met.value == float(p90 <= 0.4)
        whole = metrics.get(f"load.{label}.slo_met")
        assert whole is not None and whole.value == float(p90 <= 0.4 and share >= 0.5)


def test_a_tool_that_keeps_only_completed_records_counts_its_failures_as_misses() -> None:
    a = _arrays(3, 80)
    a["done"][:] = True
    point = _point("c2", 2, a, 20.0)
    failed = 9  # GuideLLM's shape: failed requests counted, not recorded
    point = LoadPoint(**{**point.__dict__, "requests_failed": failed})
    metrics = with_slo(compute([_run((point,))]), SLO)
    good = (a["itl"] <= 0.025) & (a["latency"] <= 3.0)
    value = metrics.get("load.c2.slo_attainment")
    assert value is not None and value.value == pytest.approx(good.sum() / (len(good) + failed))


def test_a_summary_only_file_gets_percentile_verdicts_and_no_attainment() -> None:
    a = _arrays(4, 50)
    point = _point("c4", 4, a, 20.0)
    p90 = float(np.percentile(a["ttft"], 90))
    point = LoadPoint(
        **{
            **point.__dict__,
            "samples": (),
            "summaries": FrozenDict({"ttft_s": Summary(p50=p90 / 2, p90=p90, n=50)}),
        }
    )
    metrics = with_slo(compute([_run((point,))]), SLO)
    ids = {v.id for v in metrics.values}
    assert "load.c4.slo_ttft_met" in ids
    assert metrics.get("load.c4.slo_ttft_met").value == float(p90 <= 0.4)  # type: ignore[union-attr]
    for absent in ("slo_attainment", "goodput_req_s", "goodput_tok_s"):
        assert f"load.c4.{absent}" not in ids
    # a per-request objective cannot be judged: the point meets only if no percentile misses
    assert ("load.c4.slo_met" in ids) == (p90 > 0.4)


def test_the_summary_only_run_gets_its_percentile_verdicts_and_says_so() -> None:
    """AIPerf's files in the measured article hold summaries only: each load point gets its
    percentile objectives' verdicts (judged from the percentiles its table shows), no
    attainment or goodput, and the page says why."""
    built, _ = built_article(MEASURED)
    slo = built.article.slo
    assert slo is not None and slo.per_request and slo.at_percentile
    by_id = built.metrics.by_id()
    points = [c.point for c in built.metrics.cells if c.kind == "load" and c.run == "aiperf"]
    assert points
    for point in points:
        stem = f"aiperf.load.{point}"
        assert not {f"{stem}.{k}" for k in ("slo_attainment", "goodput_req_s")} & by_id.keys()
        for o in slo.at_percentile:
            stat = "" if o.percentile == 50 else f".p{o.percentile}"
            shown = by_id[f"{stem}.{o.quantity}{stat}"].value
            assert by_id[f"{stem}.{o.verdict_key.split('.')[1]}"].value == (shown <= o.limit_s)
    view = next(t for t in built.tables if t.decl.id == "slo-aiperf")
    notes = " ".join(str(text) for _, text in view.footnotes)
    assert "summary statistics, not each request" in notes
    assert view.decl.note is not None and "no attainment or goodput" in view.decl.note.text
    overall = view.columns.index("all SLOs")
    # the overall verdict stands only where a percentile objective misses
    for label, row in view.rows:
        misses = any(not by_id[c.metric].value for c in row if c.metric and "slo_" in c.metric)
        assert (row[overall].metric is not None) == misses, label


@pytest.mark.parametrize(
    ("loads", "want"),
    [
        ([(1, True), (2, True), (4, False), (8, False)], 2),
        ([(1, True), (2, False), (4, True)], 4),  # the highest meeting point
        ([(1, True), (2, None), (4, False)], None),  # a higher one cannot be judged
        ([(1, False), (4, False)], None),
        ([(4, True), (1, False)], 4),
    ],
)
def test_the_highest_load_that_meets_the_slos(
    loads: list[tuple[float, bool | None]], want: float | None
) -> None:
    met = [x for x, m in loads if m]
    judged_above = [
        x for x, m in loads if met and x > max(met) and m is None
    ]  # numpy-free restatement: the largest met load when nothing above it is unknown
    expected = None if not met or judged_above else float(np.max(met))
    assert highest(loads) == want == expected


def test_max_load_comes_out_of_the_computed_points() -> None:
    arrays = {f"c{c}": _arrays(10 + c, 40) for c in (1, 2, 4)}
    run = _run(tuple(_point(k, int(k[1:]), a, 10.0) for k, a in arrays.items()))
    loose = Slo((Objective("e2e_s", 10.0, None),), 0.8)
    metrics = with_slo(compute([run]), loose)
    shares = {int(k[1:]): a["done"].mean() for k, a in arrays.items()}
    want = max((c for c, s in shares.items() if s >= 0.8), default=None)
    found = metrics.get("slo.max_concurrency")
    assert (None if found is None else found.value) == want


def _complete(seed: int, n: int) -> dict[str, np.ndarray]:
    a = _arrays(seed, n)
    a["done"][:] = True  # no failed request: no gate but the count's
    return a


def test_a_verdict_on_a_percentile_over_too_few_requests_is_gated_with_it() -> None:
    """Six requests cannot carry a p90: its verdict is computed, but marked with the
    percentile's gate and the percentile it judged, and so is the overall verdict it decides;
    a load point with enough requests is judged plainly."""
    few, many = _complete(20, 6), _complete(21, 200)
    run = _run((_point("c1", 1, many, 30.0), _point("c8", 8, few, 30.0)))
    slo = Slo((Objective("ttft_ms", 1000.0, 90),), 0.1)  # every request meets TTFT <= 1 s
    metrics = with_slo(compute([run]), slo)
    p90 = metrics.get("load.c8.ttft_s.p90")
    assert p90 is not None and p90.gate is not None and p90.gate.kind == "too-few-samples"
    met = metrics.get("load.c8.slo_ttft_met")
    assert met is not None and met.value == float(np.percentile(few["ttft"], 90) <= 1.0)
    assert met.gate is not None and met.gate.kind == "too-few-samples"
    assert met.gate.reason == f"the TTFT p90 it judges is not measurable ({p90.gate.reason})"
    whole = metrics.get("load.c8.slo_met")
    assert whole is not None and whole.gate == met.gate
    for key in ("slo_ttft_met", "slo_met"):
        plain = metrics.get(f"load.c1.{key}")
        assert plain is not None and plain.value == 1.0 and plain.gate is None
    # c8 meets as computed, but on a p90 that is not measurable: so is the highest load
    top = metrics.get("slo.max_concurrency")
    assert top is not None and top.value == 8.0
    assert top.gate is not None and top.gate.reason.startswith("at c8, the TTFT p90")


def test_a_miss_judged_on_measurable_values_stands_beside_a_gated_verdict() -> None:
    """When the attainment already misses, the overall verdict is a plain miss, whatever the
    gated percentile says; and the highest load below it is not gated by it."""
    few, many = _complete(22, 6), _complete(23, 200)
    few["latency"][:] = 9.0  # every request of c8 misses the end-to-end objective
    run = _run((_point("c1", 1, many, 30.0), _point("c8", 8, few, 30.0)))
    slo = Slo((Objective("ttft_ms", 1000.0, 90), Objective("e2e_s", 5.0, None)), 0.5)
    metrics = with_slo(compute([run]), slo)
    gated = metrics.get("load.c8.slo_ttft_met")
    assert gated is not None and gated.gate is not None
    whole = metrics.get("load.c8.slo_met")
    assert whole is not None and whole.value == 0.0 and whole.gate is None
    share = float((many["latency"] <= 5.0).mean())
    assert share >= 0.5  # c1 meets, judged on 200 requests
    top = metrics.get("slo.max_concurrency")
    assert top is not None and top.value == 1.0 and top.gate is None


@pytest.mark.slow
def test_a_gated_verdict_shows_as_not_measurable_and_check_reads_it(tmp_path: Path) -> None:
    """Declared at p90, the measured article's six-request load points cannot be judged: the
    verdict cells say "not measurable" with the percentile's reason, the prose's highest load
    says it too, and a copy that shows "meets" or "misses" there is a gated finding at it (an
    error under --strict), as a number would be."""
    folder = _with_slo(
        tmp_path,
        "[slo]\nttft_ms = { p = 90, max = 1000 }\nitl_ms = { p = 90, max = 30 }\n"
        "e2e_s = { per_request = true, max = 2 }\nattainment = 0.9",
    )
    built = render_article(folder, {}, charts=True)
    view = next(t for t in built.tables if t.decl.id == "slo-guidellm")
    column = view.columns.index("TTFT SLO")
    cells = [row[column] for _, row in view.rows]
    assert cells and all(c.gated for c in cells), [c.html for c in cells]
    p90 = built.metrics.get("guidellm.load.c1.ttft_s.p90")
    assert p90 is not None and p90.gate is not None
    notes = " ".join(str(text) for _, text in view.footnotes)
    assert f"the TTFT p90 it judges is not measurable ({p90.gate.reason})" in notes
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", built.html))
    assert "the highest concurrency that meets them is not measurable" in text
    # c1's TTFT verdict, "not measurable" with its mark, turned into a plain "meets" or "misses"
    cell = re.compile(
        r'<td class="missing"><span class="gated">not measurable</span><sup[^<]*</sup></td>'
    )
    found = cell.search(built.html, built.html.index('data-table="slo-guidellm"'))
    assert found is not None
    shape = article_shape(built, built.html)
    for word in ("meets", "misses"):
        copy = tmp_path / f"{word}.html"
        copy.write_text(
            built.html[: found.start()] + f"<td>{word}</td>" + built.html[found.end() :]
        )
        result = check_copy(copy, built, shape)
        found_items = [(i.kind, i.shown, i.metric) for i in result.items]
        assert found_items == [("gated", word, "guidellm.load.c1.slo_ttft_met")], found_items


def _with_slo(tmp_path: Path, block: str) -> Path:
    folder = tmp_path / "article"
    shutil.copytree(MEASURED, folder)
    toml = folder / "article.toml"
    text = re.sub(r"(?ms)^\[slo\]\n.*?\n\n", block + "\n\n", toml.read_text(encoding="utf-8"))
    toml.write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("[slo]\nttft_ms = { p = 90, max = 1 }", "'attainment' is required"),
        ("[slo]\nattainment = 0.9\nttft = { p = 90, max = 1 }", "did you mean 'ttft_ms'?"),
        ("[slo]\nattainment = 0.9\nttft_ms = { p = 97, max = 1 }", "p = 97: reportgen computes"),
        ("[slo]\nattainment = 0.9\nttft_ms = { max = 1 }", "ttft_ms needs one of p"),
        (
            "[slo]\nattainment = 0.9\nttft_ms = { p = 90, per_request = true, max = 1 }",
            "ttft_ms needs one of p",
        ),
        ("[slo]\nattainment = 0.9", "[slo] declares no objective"),
        ("[slo]\nattainment = 0.9\ntpot_ms = { p = 90, max = 1 }", "declare it as itl_ms"),
        ("[slo]\nattainment = 1.5\nttft_ms = { p = 90, max = 1 }", "attainment"),
    ],
)
def test_slo_errors_are_located(tmp_path: Path, block: str, message: str) -> None:
    folder = _with_slo(tmp_path, block)
    with pytest.raises(InputError) as caught:
        load_article(folder)
    problems = caught.value.problems
    assert any(message in f"{p.pointer}: {p.message}" for p in problems), [
        p.format() for p in problems
    ]
    slo_line = (folder / "article.toml").read_text(encoding="utf-8").splitlines().index("[slo]")
    assert all(p.line > slo_line for p in problems), [p.format() for p in problems]


@pytest.mark.slow
def test_a_copy_with_a_changed_goodput_is_one_mismatch(tmp_path: Path) -> None:
    page = render_article(MEASURED, {"SOURCE_DATE_EPOCH": "0"}).html
    span = re.compile(
        r'(<span class="num" data-metric="guidellm\.load\.c4\.goodput_tok_s"[^>]*>)'
        r"([^<]+)(</span>)"
    )
    found = span.search(page)
    assert found is not None
    changed = f"{float(found[2].replace(',', '')) + 5:.1f}"
    copy = tmp_path / "copy.html"
    copy.write_text(page[: found.start(2)] + changed + page[found.end(2) :], encoding="utf-8")
    built = render_article(MEASURED, {}, charts=True)  # as the page was: its charts too
    result = check_copy(copy, built, article_shape(built, built.html))
    bad = [i for i in result.items if i.severity == "error"]
    assert [i.kind for i in bad] == ["mismatch"], [(i.kind, i.shown) for i in bad]
    assert changed in (bad[0].shown or "")


@pytest.mark.slow
def test_the_prose_states_the_objectives_by_reference_as_slo_declares_them(
    tmp_path: Path,
) -> None:
    """`{{ slo.NAME }}` writes what `[slo]` declares: declared again, the page says the new
    limits, and a copy that keeps an old limit is a mismatch at it."""
    page = render_article(MEASURED, {}, charts=True).html
    built, _ = built_article(MEASURED)
    slo = built.article.slo
    assert slo is not None
    said = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page).replace("\u00a0", " "))
    for o in slo.objectives:
        within = "within" if o.percentile is None else "at most"
        assert f"{within} {o.limit:,g} {o.name.rsplit('_', 1)[1]}" in said, o
    assert f"at least {slo.attainment:.0%} of the requests" in said
    folder = _with_slo(
        tmp_path,
        "[slo]\nttft_ms = { p = 99, max = 1500 }\nitl_ms = { p = 50, max = 25 }\n"
        "e2e_s = { per_request = true, max = 3 }\nattainment = 0.75",
    )
    again = re.sub(r"<[^>]+>", "", render_article(folder, {}, charts=False).html)
    again = re.sub(r"\s+", " ", again.replace("\u00a0", " "))
    for words in ("at most 1,500 ms at the 99th", "at most 25 ms at the 50th", "within 3 s"):
        assert words in again, words
    assert "at least 75% of the requests" in again
    old = re.compile(r"at most\s+1,000\u00a0ms")
    assert len(old.findall(page)) == 1
    copy = tmp_path / "copy.html"
    copy.write_text(old.sub("at most 1,200\u00a0ms", page), encoding="utf-8")
    rebuilt = render_article(MEASURED, {}, charts=True)  # as the page was: its charts too
    result = check_copy(copy, rebuilt, article_shape(rebuilt, rebuilt.html))
    bad = [(i.kind, i.shown) for i in result.items if i.severity == "error"]
    assert bad == [("mismatch", "1,200")], bad


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ("{{ slo.ttft }}", "did you mean 'slo.ttft_ms'?"),
        ("{{ slo.e2e_s.percentile }}", "e2e_s is judged for each request"),
        ("{{ slo.itl_ms.max }}", "unknown reference slo.itl_ms.max"),
    ],
)
def test_a_wrong_slo_reference_is_an_error_at_it(
    tmp_path: Path, reference: str, message: str
) -> None:
    folder = tmp_path / "article"
    shutil.copytree(MEASURED, folder)
    prose = folder / "slo.md"
    prose.write_text(prose.read_text(encoding="utf-8") + f"\nSee {reference}.\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        render_article(folder, {}, charts=False)
    found = [p.format() for p in caught.value.problems]
    assert any(message in f and f.startswith(f"{prose}:") for f in found), found
