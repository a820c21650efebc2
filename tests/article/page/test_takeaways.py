"""A takeaway as a headline: `metric = "A/B"` (a ratio) or `"A->B"` (a change in percent) is
computed from the run files like a claim in prose, shown with the other headlines, and checked in
a published copy like any headline number."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from helpers_articles import ROOT

from reportgen.article.build import render_article
from reportgen.check.compare import check_article
from reportgen.errors import InputError

SMALL = ROOT / "tests" / "articles" / "small"
RATIO = "decode.0.c32.aggregate_tok_s/decode.0.c1.aggregate_tok_s"
HEADLINE = '[[sections.headline]]\nmetric = "canonical.c1.output_tok_s"\n'


def _with_takeaway(tmp_path: Path, metric: str) -> Path:
    folder = tmp_path / "small"
    shutil.copytree(SMALL, folder)
    manifest = folder / "article.toml"
    takeaway = (
        f'[[sections.headline]]\nmetric = "{metric}"\ncaption = "with 32 requests in flight"\n\n'
    )
    manifest.write_text(manifest.read_text().replace(HEADLINE, takeaway + HEADLINE, 1))
    return folder


def test_a_ratio_takeaway_is_computed_shown_and_checked(tmp_path: Path) -> None:
    folder = _with_takeaway(tmp_path, RATIO)
    built = render_article(folder, {}, charts=False)
    by_id = built.metrics.by_id()
    a, b = (by_id[m].value for m in RATIO.split("/"))
    span = re.search(rf'data-metric="{re.escape(RATIO)}" data-value="([^"]+)">([^<]+)<', built.html)
    assert span is not None, "the takeaway is a headline number of the page"
    assert float(span.group(1)) == pytest.approx(a / b)
    shown = span.group(2)
    assert shown.endswith("x")

    def errors(page: str) -> list[str]:
        copy = tmp_path / "copy.html"
        copy.write_text(page, encoding="utf-8")
        result = check_article(folder, [copy], build_dir=tmp_path / "none")
        (source,) = [s for s in result.sources if s.source == str(copy)]
        return [f"{i.kind} {i.message}" for i in source.items if i.severity == "error"]

    assert errors(built.html) == []
    wrong = f"{float(shown[:-1]) + 1:.{len(shown.split('.')[-1]) - 1}f}x" if "." in shown else "1x"
    mismatches = errors(built.html.replace(f">{shown}<", f">{wrong}<", 1))
    assert len(mismatches) == 1 and mismatches[0].startswith("mismatch"), mismatches
    assert RATIO in mismatches[0]


def test_a_takeaway_of_two_unlike_quantities_is_a_located_error(tmp_path: Path) -> None:
    unlike = "decode.0.c32.aggregate_tok_s/decode.0.c1.ttft_s"
    with pytest.raises(InputError) as info:
        render_article(_with_takeaway(tmp_path, unlike), {}, charts=False)
    (problem,) = info.value.problems
    assert problem.path.endswith("article.toml") and problem.line > 1
    assert problem.message.startswith(f"headline claim {unlike} has no value: ")
    assert "a claim compares one quantity" in problem.message
