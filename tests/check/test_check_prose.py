"""`check` reads the numbers in running prose: settings the article references, numbers its source
writes literally (versions), and claims written as references (`{{ A/B }}`, `{{ A->B }}`).

Every edit is made to the bundled article's published text at test time, and every expected
value is computed from the metrics: no published number is typed here.
"""

from __future__ import annotations

import functools
import re
import shutil
from pathlib import Path

import pytest

from reportgen.article.build import Built, render_article
from reportgen.check.compare import check_article
from reportgen.cli.main import main
from reportgen.metrics.claims import claim_problem, claim_value, lookup

ROOT = Path(__file__).resolve().parents[2]
ARTICLE = ROOT / "runs" / "paiton-kimi-k3.1-pro"
SEED = ARTICLE / "published" / "paiton-kimi-k3.1-pro.txt"
ONE, MANY = "canonical.c1.output_tok_s", "canonical.c16.output_tok_s"


@functools.cache
def _built() -> Built:
    return render_article(ARTICLE, {})


def _items(tmp_path: Path, text: str) -> list[tuple[str, int]]:
    copy = tmp_path / "copy.txt"
    copy.write_text(text, encoding="utf-8")
    result = check_article(ARTICLE, published=[copy])
    return sorted((i.kind, i.line) for s in result.sources[1:] for i in s.items)


def _line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.split("\n"), start=1) if needle in line)


def test_the_published_text_passes_with_its_prose_read(tmp_path: Path) -> None:
    assert _items(tmp_path, SEED.read_text(encoding="utf-8")) == []


@pytest.mark.slow
def test_a_changed_setting_in_a_sentence_is_a_mismatch_at_its_line(tmp_path: Path) -> None:
    seed = SEED.read_text(encoding="utf-8")
    duration = _built().metrics.by_id()["matrix.duration_s"].value
    said = f"{duration:.0f} s of sustained decode"
    assert said in seed
    edited = seed.replace(said, f"{duration + 15:.0f} s of sustained decode")
    assert _items(tmp_path, edited) == [("mismatch", _line_of(edited, "of sustained decode"))]


def test_a_changed_version_in_a_sentence_is_a_mismatch_at_its_line(tmp_path: Path) -> None:
    seed = SEED.read_text(encoding="utf-8")
    found = re.search(r"\(lmx (\d+)\.(\d+)\.(\d+)", seed)
    assert found is not None
    bumped = f"(lmx {found[1]}.{found[2]}.{int(found[3]) + 1}"
    edited = seed.replace(found[0], bumped)
    assert _items(tmp_path, edited) == [("mismatch", _line_of(edited, bumped))]


def test_reflowed_prose_and_crlf_line_endings_pass(tmp_path: Path) -> None:
    seed = SEED.read_text(encoding="utf-8")
    lines = seed.split("\n")
    # the status paragraph (lines 3-7) joined into one line, and Windows line endings
    reflowed = "\r\n".join([*lines[:2], " ".join(lines[2:7]), *lines[7:]])
    assert _items(tmp_path, reflowed) == []


def test_an_unknown_number_in_prose_is_unverified_at_its_line(tmp_path: Path) -> None:
    seed = SEED.read_text(encoding="utf-8")
    edited = seed.replace(
        "The run files are saved", "The node drew 7,777 W at the wall. The run files are saved"
    )
    assert ("unverified", _line_of(edited, "7,777")) in _items(tmp_path, edited)


@pytest.mark.slow
def test_a_claim_is_computed_from_its_two_metrics() -> None:
    by_id = _built().metrics.by_id()
    ratio = claim_value(f"{MANY}/{ONE}", by_id.get)
    change = claim_value(f"{ONE}->{MANY}", by_id.get)
    assert ratio is not None and change is not None
    assert ratio.value == pytest.approx(by_id[MANY].value / by_id[ONE].value)
    expected = (by_id[MANY].value - by_id[ONE].value) / by_id[ONE].value * 100
    assert change.value == pytest.approx(expected)
    assert (ratio.unit, change.unit) == ("x", "%")
    assert lookup(by_id)(f"{MANY}/{ONE}") == ratio


def test_a_claim_over_two_units_or_a_missing_metric_has_no_value() -> None:
    by_id = _built().metrics.by_id()
    mixed = claim_problem(f"{ONE}/canonical.c1.ttft_ms", by_id.get)
    assert mixed is not None and "one quantity" in mixed
    missing = claim_problem(f"{ONE}/no.such.metric", by_id.get)
    assert missing is not None and "no.such.metric" in missing
    assert claim_value(f"{ONE}/no.such.metric", by_id.get) is None


def _article_with_claim(tmp_path: Path) -> Path:
    folder = tmp_path / "article"
    shutil.copytree(ARTICLE, folder, ignore=shutil.ignore_patterns("published"))
    toml = folder / "article.toml"
    # the copy under test is the only published version checked
    manifest = toml.read_text(encoding="utf-8")
    toml.write_text(re.sub(r'(?m)^files = \["published/.*\n', "", manifest), encoding="utf-8")
    status = folder / "status.md"
    status.write_text(
        status.read_text(encoding="utf-8")
        + f"\nTogether they gave {{{{ {MANY}/{ONE} }}}} the output of one request, "
        f"a change of {{{{ {ONE}->{MANY} }}}}.\n",
        encoding="utf-8",
    )
    return folder


@pytest.mark.slow
def test_a_claim_reference_builds_and_a_false_claim_in_a_copy_is_caught(tmp_path: Path) -> None:
    folder = _article_with_claim(tmp_path)
    built = render_article(folder, {})
    by_id = built.metrics.by_id()
    ratio = by_id[MANY].value / by_id[ONE].value
    change = (by_id[MANY].value - by_id[ONE].value) / by_id[ONE].value * 100
    shown_ratio, shown_change = f"{ratio:.1f}x", f"{change:+.0f}%"
    assert f'data-metric="{MANY}/{ONE}"' in built.html
    sentence = f"Together they gave {shown_ratio} the output of one request, a change of"
    copy = SEED.read_text(encoding="utf-8").replace(
        "once the MI355X is added.", f"once the MI355X is added.\n{sentence} {shown_change}."
    )
    good = tmp_path / "good.txt"
    good.write_text(copy, encoding="utf-8")
    assert not check_article(folder, published=[good]).failed
    false = tmp_path / "false.txt"
    false.write_text(copy.replace(shown_ratio, f"{ratio + 1:.1f}x"), encoding="utf-8")
    result = check_article(folder, published=[false])
    items = [(i.kind, i.line) for s in result.sources[1:] for i in s.items]
    assert items == [("mismatch", _line_of(copy, "Together they gave"))]


def test_the_text_report_says_what_an_unverified_number_was_near(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = SEED.read_text(encoding="utf-8")
    copy = tmp_path / "copy.txt"
    copy.write_text(
        seed.replace("The run files are saved", "It drew 7,777 W. The run files are saved")
    )
    base = ["check", str(ARTICLE), "--published", str(copy), "--build-dir", str(tmp_path / "none")]
    assert main(base) == 0  # unverified is a warning
    line = next(x for x in capsys.readouterr().out.splitlines() if "7,777" in x)
    at = _line_of(copy.read_text(encoding="utf-8"), "7,777")
    assert f"{copy}:{at}:" in line and '[unverified] near "' in line and "It drew" in line
    assert main([*base, "--strict"]) == 1


def test_braces_left_in_a_copy_are_an_error_at_their_place(tmp_path: Path) -> None:
    """A reference published as it was written (a brace short, so the build of its day left
    it) shows no number: check names its place, though every number matches."""
    seed = SEED.read_text(encoding="utf-8")
    edited = seed + f"\nOne request alone decodes at {{{{ {ONE} }}.\n"
    line = _line_of(edited, "One request alone decodes at")
    assert _items(tmp_path, edited) == [("unresolved", line)]
    copy = tmp_path / "copy.txt"
    result = check_article(ARTICLE, published=[copy])
    assert result.failed
    item = result.sources[-1].items[0]
    assert item.col == edited.split("\n")[line - 1].index("{{") + 1
