"""The synthetic repetitions article (tests/articles/repetitions: one matrix measured five
times, one repetition's cell failed): its tables show each repeated cell's 95% interval as
declared, its chart draws error bars, its appendix says how, its data-quality list names the
repetition left out, and `check` reads a published copy's "± h" and "[lo, hi]" cells back.

Every expected number is computed here from the run files (numpy, scipy); none is typed in.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from helpers_articles import ROOT, built_article, ids_defined_twice, plain_copy, table_of

from reportgen.article.build import render_article
from reportgen.article.page.render import INTERVALS
from reportgen.check.compare import check_article
from reportgen.metrics.display import display_of, format_number

FOLDER = ROOT / "tests" / "articles" / "repetitions"
METRIC = "decode.aggregate_tok_s"


def _aggregates() -> dict[int, list[float]]:
    """Concurrency -> each repetition's aggregate tok/s at 4K, from the files (measured cells)."""
    out: dict[int, list[float]] = {}
    for path in sorted(FOLDER.glob("bench-r*.json")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["results"]:
            if cell.get("failure_reason") is None:
                tokens, seconds = cell["client_output_tokens"], cell["measurement_seconds"]
                out.setdefault(cell["concurrency"], []).append(tokens / seconds)
    return out


def _shown(x: float) -> str:
    return format_number(x, display_of(METRIC))


@pytest.mark.slow
def test_each_cell_interval_is_numpys_and_scipys() -> None:
    from scipy import stats as sps  # here: the workers that run no such test never import it

    built, _ = built_article(FOLDER)
    for conc, own in _aggregates().items():
        x = np.array(own)
        half = float(sps.t.ppf(0.975, len(x) - 1) * sps.sem(x))
        base = f"decode.4K.c{conc}.aggregate_tok_s"
        got = {s: built.metrics.get(f"{base}.{s}") for s in ("rep_mean", "rep_hw", "rep_cv")}
        assert got["rep_mean"] is not None and got["rep_hw"] is not None
        assert got["rep_mean"].value == pytest.approx(float(x.mean()), rel=1e-12)
        assert got["rep_hw"].value == pytest.approx(half, rel=1e-9)
        assert got["rep_cv"] is not None
        assert got["rep_cv"].value == pytest.approx(float(x.std(ddof=1) / x.mean() * 100))
    # the failed repetition is left out: 4 values behind the concurrency-16 cell, 5 elsewhere
    assert sorted(len(v) for v in _aggregates().values()) == [4, 5, 5]


def test_tables_show_the_declared_forms() -> None:
    from scipy import stats as sps  # here: the workers that run no such test never import it

    built, _ = built_article(FOLDER)
    pm = table_of(next(v for v in built.tables if v.id == "aggregate-pm"))
    spread = table_of(next(v for v in built.tables if v.id == "spread"))
    for conc, own in _aggregates().items():
        x = np.array(own)
        half = float(sps.t.ppf(0.975, len(x) - 1) * sps.sem(x))
        mean = float(x.mean())
        k = pm.columns.index(str(conc))
        assert pm.rows[0][1][k].rstrip(" *") == f"{_shown(mean)} \u00b1 {_shown(half)}"
        row = next(cells for label, cells in spread.rows if label == str(conc))
        interval = " ".join(row[0].rstrip(" *").replace("[ ", "[").replace(" ]", "]").split())
        assert interval == f"{_shown(mean)} [{_shown(mean - half)} , {_shown(mean + half)}]"
    assert "repetition-left-out" in {f.id for f in built.findings}
    assert 'data-lint="repetition-left-out"' in built.html
    # the appendix says how the intervals are computed, because the page shows some
    assert INTERVALS.strip()[:60] in built.html.replace("&#39;", "'")


def test_the_appendix_says_nothing_of_intervals_where_none_is_shown(tmp_path: Path) -> None:
    folder = tmp_path / "repetitions"
    folder.mkdir()
    for path in FOLDER.iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    toml = (folder / "article.toml").read_text(encoding="utf-8")
    toml = re.sub(r'(, )?uncertainty = "\w+"\n?', "", toml)
    toml = toml.replace("error_bars = true\n", "")
    toml = re.sub(r'(?s)\[\[sections.table\]\]\nid = "spread".*?\]\n\n', "", toml)
    toml = re.sub(r'.*\.rep_cv".*\n', "", toml)  # a CV column: a statistic of the spread
    (folder / "article.toml").write_text(toml, encoding="utf-8")
    (folder / "repeated.md").write_text("Five repetitions.\n", encoding="utf-8")
    html = render_article(folder, {}, charts=False).html
    assert '.rep_hw"' not in html and '.rep_ci_lo"' not in html
    assert INTERVALS.strip()[:60] not in html.replace("&#39;", "'")


def test_the_chart_draws_error_bars_the_same_bytes_twice() -> None:
    first = render_article(FOLDER, {"SOURCE_DATE_EPOCH": "0"}).html
    second = render_article(FOLDER, {"SOURCE_DATE_EPOCH": "0"}).html
    assert first == second
    svg = first[first.index('id="chart-aggregate"') :]
    svg = svg[: svg.index("</svg>")]
    assert "line-errors" in svg  # the errorbar group
    assert len(re.findall(r"<path", svg)) > 0
    # its bars and both rows of caps each have an id of their own: a warm build lays the page
    # out with its drawn charts, and WeasyPrint refuses an anchor defined twice
    assert ids_defined_twice(first) == []


@pytest.mark.slow
def test_check_reads_a_published_copy_with_pm_and_interval_cells(tmp_path: Path) -> None:
    from scipy import stats as sps  # here: the workers that run no such test never import it

    copy = tmp_path / "post.txt"
    text = plain_copy(FOLDER)
    assert "\u00b1" in text
    copy.write_text(text, encoding="utf-8")
    result = check_article(FOLDER, published=[copy], strict=True)
    assert not result.failed, [i.message for i in result.items]
    # a wrong half-width is a mismatch of the half-width, not a misread of another number
    x = np.array(_aggregates()[16])
    half = _shown(float(sps.t.ppf(0.975, len(x) - 1) * sps.sem(x)))
    wrong = str(int(half.replace(",", "")) + 9)
    mean = _shown(float(x.mean()))
    assert f"{mean} \u00b1 {half}" in text
    copy.write_text(text.replace(f"{mean} \u00b1 {half}", f"{mean} \u00b1 {wrong}"), "utf-8")
    bad = check_article(FOLDER, published=[copy])
    wrong_items = [i for i in bad.items if i.kind == "mismatch"]
    assert [i.metric for i in wrong_items] == ["decode.4K.c16.aggregate_tok_s.rep_hw"]


def test_check_reads_a_markdown_copy_with_pm_and_interval_cells(tmp_path: Path) -> None:
    built, _ = built_article(FOLDER)
    lines = []
    for view in built.tables:
        table = table_of(view)
        lines += ["", f"**{table.title}**", "", "| " + " | ".join(table.header) + " |"]
        lines.append("|" + "---|" * len(table.header))
        for label, cells in table.rows:
            fixed = [" ".join(c.replace("[ ", "[").replace(" ]", "]").split()) for c in cells]
            fixed = [c.replace(" , ", ", ") for c in fixed]
            lines.append("| " + " | ".join((label, *fixed)) + " |")
    copy = tmp_path / "post.md"
    copy.write_text("\n".join(lines) + "\n", encoding="utf-8")
    from reportgen.check.compare import check_published
    from reportgen.check.result import expected_numbers

    _, shape = built_article(FOLDER)
    expected = expected_numbers(built.article, built.metrics, built.tables)
    tabled = {t.id for t in built.tables}
    omitted = frozenset(s.metric for s in expected if s.table_id not in tabled)
    result = check_published(
        copy.read_text(encoding="utf-8"), "post.md", built.metrics, expected, shape, omitted=omitted
    )
    assert [i.message for i in result.items] == []
    shown_ids = {m for t in built.tables for m in table_of(t).metrics.values()}
    assert any(m.endswith(".rep_mean") for m in shown_ids)
    assert result.matched >= 3 * 2 + 3 * 3  # each pm cell twice, each interval cell three times


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ('uncertainty = "pm"', 'uncertainty = "intervals"', "did you mean 'interval'?"),
        ('uncertainty = "pm"', 'uncertainity = "pm"', "did you mean 'uncertainty'?"),
    ],
)
def test_a_misspelled_uncertainty_is_a_located_error(
    tmp_path: Path, old: str, new: str, said: str
) -> None:
    from reportgen.errors import InputError

    folder = tmp_path / "repetitions"
    folder.mkdir()
    for path in FOLDER.iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    toml = (folder / "article.toml").read_text(encoding="utf-8")
    line = toml[: toml.index(old)].count("\n") + 1
    (folder / "article.toml").write_text(toml.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(InputError) as raised:
        render_article(folder, {}, charts=False)
    [problem] = raised.value.problems
    assert said in problem.message
    assert problem.line == line


@pytest.mark.pdf
@pytest.mark.process
def test_the_pdf_shows_the_forms_and_checks(tmp_path: Path) -> None:
    from scipy import stats as sps  # here: the workers that run no such test never import it

    from reportgen.article.build import build
    from reportgen.check.readers.pdftext import pdf_text

    built = build(FOLDER, tmp_path / "out", {"SOURCE_DATE_EPOCH": "0"})
    pdf = built / "article.pdf"
    text = " ".join(pdf_text(pdf.read_bytes(), "article.pdf").split())
    for conc, own in _aggregates().items():
        x = np.array(own)
        half = float(sps.t.ppf(0.975, len(x) - 1) * sps.sem(x))
        mean = float(x.mean())
        assert f"{_shown(mean)} \u00b1 {_shown(half)}" in text, conc
        assert f"{_shown(mean)} [{_shown(mean - half)}, {_shown(mean + half)}]" in text, conc
    result = check_article(FOLDER, published=[pdf], strict=True)
    assert not result.failed, [i.message for i in result.items]
    assert sum(s.matched for s in result.sources if s.kind == "published") > 15


# A percentile's repetitions: the 90th percentile of each request's mean time between tokens.
P90 = "decode.itl_s.p90"


def _p90s() -> dict[int, list[float]]:
    """Concurrency -> each measured repetition's ITL p90 at 4K, by numpy from the file's own
    request samples: over the positive values, at numpy's default interpolation (as
    docs/metric-definitions.md states)."""
    out: dict[int, list[float]] = {}
    for path in sorted(FOLDER.glob("bench-r*.json")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["results"]:
            if cell.get("failure_reason") is None:
                itls = [s["inter_token_latency_avg"] for s in cell["request_samples"]]
                itls = [x for x in itls if x > 0]
                out.setdefault(cell["concurrency"], []).append(float(np.percentile(itls, 90)))
    return out


def test_each_percentile_spread_is_numpys_and_scipys() -> None:
    from scipy import stats as sps  # here: the workers that run no such test never import it

    built, _ = built_article(FOLDER)
    for conc, own in _p90s().items():
        x = np.array(own)
        mean, sd = float(x.mean()), float(x.std(ddof=1))
        half = float(sps.t.ppf(0.975, len(x) - 1) * sps.sem(x))
        lo, hi = sps.t.interval(0.95, len(x) - 1, loc=mean, scale=sps.sem(x))
        base = f"decode.4K.c{conc}.itl_s.p90"
        want = {
            "": float(np.median(x)),
            ".reps": float(len(x)),
            ".rep_min": float(x.min()),
            ".rep_max": float(x.max()),
            ".rep_mean": mean,
            ".rep_sd": sd,
            ".rep_cv": sd / mean * 100,
            ".rep_hw": half,
            ".rep_ci_lo": float(lo),
            ".rep_ci_hi": float(hi),
        }
        for suffix, expected in want.items():
            got = built.metrics.get(base + suffix)
            assert got is not None, base + suffix
            assert got.value == pytest.approx(expected, rel=1e-9), base + suffix
            assert got.stat == ("p90" + suffix if suffix else "p90")
        # five repetitions: the median's order-statistic interval needs six, so none
        assert built.metrics.get(f"{base}.rep_med_lo") is None
    assert sorted(len(v) for v in _p90s().values()) == [4, 5, 5]
    # a repetition's count of requests is no measurement of the cell: it has no spread
    assert built.metrics.get("decode.4K.c1.itl_s.n.rep_hw") is None


def test_a_percentile_column_shows_its_interval_and_its_lint() -> None:
    from scipy import stats as sps  # here: the workers that run no such test never import it

    built, _ = built_article(FOLDER)
    view = next(v for v in built.tables if v.id == "tail")
    tail = table_of(view)
    shown = display_of("decode.itl_s", "p90")
    for conc, own in _p90s().items():
        x = np.array(own)
        mean, half = float(x.mean()), float(sps.t.ppf(0.975, len(x) - 1) * sps.sem(x))
        row = next(cells for label, cells in tail.rows if label == str(conc))
        gate = built.metrics.by_id()[f"decode.4K.c{conc}.itl_s.p90"].gate
        if gate is not None:  # a repetition at one request holds fewer requests than p90 needs
            assert conc == 1 and gate.n is not None and gate.n < 10
            assert row[1].rstrip(" *") == "not measurable"
            continue
        interval = " ".join(row[1].rstrip(" *").replace("[ ", "[").replace(" ]", "]").split())
        parts = (format_number(v, shown) for v in (mean, mean - half, mean + half))
        assert interval == "{} [{} , {}]".format(*parts)
        # the failed repetition's lint marks the percentile's cells as it marks the median's
        cells = next(cells for label, cells in view.rows if label == str(conc))
        assert [c.note is not None for c in cells[:2]] == [len(x) == 4] * 2, conc
    assert tail.metrics[("16", tail.columns[1])] == "decode.4K.c16.itl_s.p90.rep_mean"
    for bound in ("decode.4K.c16.itl_s.p90.rep_ci_lo", "decode.4K.c16.ttft_s.p90.rep_hw"):
        assert f'data-metric="{bound}"' in built.html  # a span of its own, for check
    left_out = next(f for f in built.findings if f.id == "repetition-left-out")
    assert "decode.4K.c16.itl_s.p90" in left_out.metrics
    assert "decode.4K.c16.itl_s.n" not in left_out.metrics


@pytest.mark.slow
def test_a_changed_percentile_bound_is_one_mismatch_at_its_line(tmp_path: Path) -> None:
    from scipy import stats as sps  # here: the workers that run no such test never import it

    text = plain_copy(FOLDER)
    copy = tmp_path / "post.txt"
    copy.write_text(text, encoding="utf-8")
    result = check_article(FOLDER, published=[copy], strict=True)
    assert not result.failed, [i.message for i in result.items]
    x = np.array(_p90s()[16])
    high = float(x.mean() + sps.t.ppf(0.975, len(x) - 1) * sps.sem(x))
    shown = format_number(high, display_of("decode.itl_s", "p90"))
    bound = f", {shown}]"
    [line] = [n for n, s in enumerate(text.splitlines(), 1) if bound in s and "[" in s]
    wrong = format_number(high * 1.1, display_of("decode.itl_s", "p90"))
    copy.write_text(text.replace(bound, f", {wrong}]"), encoding="utf-8")
    bad = check_article(FOLDER, published=[copy])
    mismatches = [i for i in bad.items if i.kind == "mismatch"]
    assert [(i.metric, i.line) for i in mismatches] == [("decode.4K.c16.itl_s.p90.rep_ci_hi", line)]


def test_a_percentile_chart_draws_its_error_bars(tmp_path: Path) -> None:
    folder = tmp_path / "repetitions"
    folder.mkdir()
    for path in FOLDER.iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    toml = (folder / "article.toml").read_text(encoding="utf-8")
    toml = toml.replace(f'metric = "{METRIC}"\nx = ', f'metric = "{P90}"\nx = ')
    toml = toml.replace('y_label = "output tok/s, all requests"\n', "")
    (folder / "article.toml").write_text(toml, encoding="utf-8")
    html = render_article(folder, {"SOURCE_DATE_EPOCH": "0"}).html
    svg = html[html.index('id="chart-aggregate"') :]
    assert "line-errors" in svg[: svg.index("</svg>")]
    without = toml.replace("error_bars = true\n", "")
    (folder / "article.toml").write_text(without, encoding="utf-8")
    html = render_article(folder, {"SOURCE_DATE_EPOCH": "0"}).html
    svg = html[html.index('id="chart-aggregate"') :]
    assert "line-errors" not in svg[: svg.index("</svg>")]
