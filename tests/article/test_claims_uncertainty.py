"""Prose claims judged with their uncertainty (`reportgen.article.claims`), on a copy of the
synthetic repetitions article: a sentence claiming a difference whose interval includes no
change is an error, a claim inside the run-to-run noise a warning that names the interval, a
clear difference passes; `check` reports them, and `--strict` fails on the warning."""

from __future__ import annotations

from pathlib import Path

from helpers_articles import ROOT

from reportgen.article.build import render_article
from reportgen.article.rundata import article_metrics
from reportgen.check.compare import check_article
from reportgen.metrics.claims import claim_spread, lookup

FOLDER = ROOT / "tests" / "articles" / "repetitions"
# Two quantities in tok/s of one cell: close to each other at one request (synthetic data).
CLOSE = "decode.4K.c1.aggregate_tok_s/decode.4K.c1.per_request_tok_s"
APART = "decode.4K.c4.aggregate_tok_s/decode.4K.c1.aggregate_tok_s"


def _copy(tmp_path: Path, prose: str) -> Path:
    folder = tmp_path / "repetitions"
    folder.mkdir()
    for path in FOLDER.iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    (folder / "repeated.md").write_text(prose, encoding="utf-8")
    return folder


def _spreads() -> dict[str, object]:
    _, metrics = article_metrics(FOLDER)
    get = lookup(metrics.by_id())
    return {name: claim_spread(name, get) for name in (CLOSE, APART)}


def test_the_fixture_has_one_close_and_one_clear_claim() -> None:
    close, apart = _spreads()[CLOSE], _spreads()[APART]
    assert close is not None and close.includes_no_change  # type: ignore[attr-defined]
    assert apart is not None and not apart.includes_no_change  # type: ignore[attr-defined]
    assert not apart.within_noise  # type: ignore[attr-defined]


def test_a_difference_the_interval_does_not_support_is_an_error(tmp_path: Path) -> None:
    prose = (
        f"Four requests give {{{{ {APART} }}}} more throughput than one.\n\n"
        f"At one request the total is {{{{ {CLOSE} }}}} higher than each request sees.\n"
    )
    built = render_article(_copy(tmp_path, prose), {}, charts=False)
    found = [f for f in built.findings if f.id.startswith("claim-")]
    assert [(f.id, f.severity) for f in found] == [("claim-not-supported", "error")]
    assert found[0].evidence.startswith("line 3: ")
    assert "95% interval" in found[0].evidence and "includes no change" in found[0].message
    assert found[0].metrics == tuple(CLOSE.split("/"))
    result = check_article(tmp_path / "repetitions")
    assert result.failed
    assert any(f.id == "claim-not-supported" for f in result.findings)


def test_a_claim_without_comparative_words_inside_the_noise_is_a_warning(tmp_path: Path) -> None:
    prose = f"At one request the total is {{{{ {CLOSE} }}}} of what each request sees.\n"
    folder = _copy(tmp_path, prose)
    built = render_article(folder, {}, charts=False)
    [found] = [f for f in built.findings if f.id.startswith("claim-")]
    assert (found.id, found.severity) == ("claim-within-noise", "warning")
    assert "95% interval is" in found.message
    assert not check_article(folder).failed
    assert check_article(folder, strict=True).failed


def test_a_clear_difference_passes(tmp_path: Path) -> None:
    prose = f"Four requests give {{{{ {APART} }}}} more throughput than one.\n"
    built = render_article(_copy(tmp_path, prose), {}, charts=False)
    assert not [f for f in built.findings if f.id.startswith("claim-")]
