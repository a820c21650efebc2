"""The link-preview reader (check/readers/previews.py): a copy's `<meta>` description, in the
build's words, is read number by number against the metrics the build names for them; in other
words it is left to the other readers."""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path

import pytest
from helpers_articles import ROOT

from reportgen.article.build import render_article
from reportgen.check.compare import check_article
from reportgen.check.readers.previews import preview

MEASURED = ROOT / "runs" / "tiny-llamacpp-two-tools"
META = re.compile(r'<meta (?:name|property)="(?:og:)?description" content="([^"]+)"')


@pytest.fixture(scope="module")
def page() -> str:
    return render_article(MEASURED, {}).html


def _errors(tmp_path: Path, page: str) -> list[tuple[int, str, str | None]]:
    copy = tmp_path / "copy.html"
    copy.write_text(page, encoding="utf-8")
    result = check_article(MEASURED, [copy], build_dir=tmp_path / "none")
    (source,) = [s for s in result.sources if s.source == str(copy)]
    return [(i.line, i.kind, i.metric) for i in source.items if i.severity == "error"]


def _numbers(description: str) -> list[str]:
    return re.findall(r"\d+(?:\.\d+)?", description.split(": ")[-1])


@pytest.mark.slow
def test_the_built_page_states_its_headline_in_its_previews_and_checks_clean(
    tmp_path: Path, page: str
) -> None:
    descriptions = META.findall(page)
    assert len(descriptions) == 2 and len(set(descriptions)) == 1
    assert len(_numbers(descriptions[0])) >= 2, "the headline's number and its caption's"
    assert _errors(tmp_path, page) == []


@pytest.mark.slow
def test_each_changed_number_of_a_preview_is_a_mismatch_at_its_line(
    tmp_path: Path, page: str
) -> None:
    description = html_lib.unescape(META.findall(page)[0])
    places = re.findall(r'data-metrics="([^"]+)"', page)[0].split()
    assert len(places) == len(_numbers(description))
    for place in places:
        offset, metric = int(place.split(":")[0]), place.split(":")[1]
        shown = re.match(r"\d+(?:\.\d+)?", description[offset:])
        assert shown is not None
        digit = "2" if shown.group()[-1] != "2" else "3"
        end = offset + shown.end()
        wrong = description[: end - 1] + digit + description[end:]
        copy = page.replace(f'content="{description}"', f'content="{wrong}"')
        lines = [page.count("\n", 0, m.start()) + 1 for m in META.finditer(page)]
        assert _errors(tmp_path, copy) == [(line, "mismatch", metric) for line in lines]


@pytest.mark.slow
def test_a_preview_in_other_words_is_left_to_the_other_readers(tmp_path: Path, page: str) -> None:
    description = META.findall(page)[0]
    own = "Two tools measured one tiny model on a laptop-sized server."
    assert _errors(tmp_path, page.replace(f'content="{description}"', f'content="{own}"')) == []


def test_a_number_of_the_title_is_no_metric_s() -> None:
    text = "Llama 3 on 2 GPUs: 57.1 tok/s, 4 requests at a time."
    at = text.index("57.1"), text.index("4 requests")
    read = preview(text, f"{at[0]}:a.tok_s {at[1]}:a.concurrency")
    owners = dict(zip(read.words, read.metrics, strict=True))
    assert owners == {
        "Llama": None, "3": None, "on": None, "2": None, "GPUs:": None, "57.1": "a.tok_s",
        "tok/s,": None, "4": "a.concurrency", "requests": None, "at": None, "a": None,
        "time.": None,
    }  # fmt: skip
    assert preview(text, "") == preview(text, "x:y 999:z")  # nothing placed: no metric
