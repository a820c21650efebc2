"""Caps bound time, not only bytes (issue 22, class 6): what a bad run file costs is bounded by
what is explained, not by how much of it is wrong.

Times are compared, side by side in one run, with `json.loads` of the same file's lines (what
reading it costs at the least): a ratio, which the load of a shared machine moves far less than
a time. Explaining every schema violation made a file of bad records 35 to 60 times slower than
its parse; explaining the first ones and counting the rest keeps it within a few times.
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reportgen.errors import PER_FILE, at_least, counted, left_out
from reportgen.formats.load import load
from reportgen.formats.schema.validate import EXPLAINED, check

VALID = Path(__file__).resolve().parents[1] / "examples" / "valid"
BAD_RECORDS = 30_000
RATIO = 15  # explaining every violation: 35 to 60; the first ones, then counting: about 5


def _seconds(read: Callable[[], object]) -> float:
    """The fastest of three runs of `read`, without the garbage collector."""
    best = float("inf")
    for _ in range(3):
        gc.disable()
        try:
            start = time.perf_counter()
            read()
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
    return best


def _parse_lines(path: Path) -> Callable[[], object]:
    return lambda: [json.loads(line) for line in path.read_bytes().splitlines()]


def _bad_records(tmp_path: Path, example: str, count: int) -> Path:
    """A JSON Lines run file: the example's first record, then `count` records `{}`."""
    first = (VALID / example).read_text(encoding="utf-8").splitlines()[0]
    path = tmp_path / example
    path.write_text(first + "\n" + "{}\n" * count, encoding="utf-8")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("example", ["sglang-c1.jsonl", "aiperf-records-c1.jsonl"])
def test_a_file_of_bad_records_costs_a_few_parses_of_it(tmp_path: Path, example: str) -> None:
    """SGLang's file is read whole and AIPerf's streamed; each explains its first problems."""
    path = _bad_records(tmp_path, example, BAD_RECORDS)
    result = load([path])
    last = result.problems[-1]
    assert len(result.problems) == PER_FILE + 1 and at_least(last)
    assert left_out(last) >= BAD_RECORDS - PER_FILE  # every bad record is counted
    took, parse = _seconds(lambda: load([path])), _seconds(_parse_lines(path))
    assert took < RATIO * parse, f"{took:.2f} s, {took / parse:.0f} times a parse ({parse:.3f} s)"


def test_a_json_document_of_bad_items_stops_explaining(tmp_path: Path) -> None:
    """Not a map of records: jsonschema explains the first `EXPLAINED` violations and stops."""
    bench = json.loads((VALID / "bench-small.json").read_text(encoding="utf-8"))
    bench["results"] = bench["results"][:1] + [{}] * BAD_RECORDS
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(bench), encoding="utf-8")
    problems = load([path]).problems
    assert len(problems) == PER_FILE + 1
    assert left_out(problems[-1]) == EXPLAINED - PER_FILE and at_least(problems[-1])
    assert problems[-1].message.startswith(f"... and at least {EXPLAINED - PER_FILE:,} more")
    took = _seconds(lambda: load([path]))
    parse = _seconds(lambda: json.loads(path.read_bytes()))
    assert took < RATIO * parse + 0.2, f"{took:.2f} s, {took / parse:.0f} times a parse"


def test_a_few_problems_are_all_explained_and_counted_exactly() -> None:
    """Under the caps nothing changes: every violation is explained, the count is exact."""
    records: dict[str, dict[str, Any]] = {str(i): {} for i in range(3)}
    found = check("sglang-bench", records)
    assert found and not any(counted(p.message)[0] for p in found)
    assert {p.pointer for p in found} == {"/0", "/1", "/2"}


# --- published copies: caps on what a copy holds, each failing closed at its line ---------------

from helpers_bench import bench_script  # noqa: E402

from reportgen.check.readers import pdftext  # noqa: E402
from reportgen.check.readers.sources import read_published  # noqa: E402
from reportgen.errors import InputError  # noqa: E402
from reportgen.fileio import COUNT_CAPS, cap_count, check_caps  # noqa: E402

COPIES = bench_script("worst_copies")
SMALL = {"chars": "4000", "words": "400", "numbers": "40", "tags": "300"}


@pytest.fixture
def small_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every count cap lowered, so that a copy at or past one is small and quick to read."""
    for name, value in SMALL.items():
        monkeypatch.setenv(COUNT_CAPS[name].env, value)  # type: ignore[index]


def _refusal(path: Path) -> str:
    with pytest.raises(InputError) as raised:
        read_published(path)
    (problem,) = raised.value.problems
    return problem.format()


@pytest.mark.usefixtures("small_caps")
@pytest.mark.parametrize("name", list(COPIES.COPIES))
def test_a_copy_at_its_cap_is_read_and_one_past_it_refused(tmp_path: Path, name: str) -> None:
    if COPIES.COPIES[name][2] == "published MB":
        pytest.skip("the byte cap is the file reader's, tested in test_inputs.py")
    data, suffix = COPIES.copy(name)
    path = tmp_path / f"at{suffix}"
    path.write_bytes(data)
    assert read_published(path).lines is not None  # read: at the cap is within it
    data, suffix = COPIES.refused(name)
    path.write_bytes(data)
    cap = COUNT_CAPS[COPIES.COPIES[name][2]]
    said = _refusal(path)
    assert f"check reads at most {cap_count(COPIES.COPIES[name][2]):,}: set {cap.env}" in said


@pytest.mark.usefixtures("small_caps")
def test_a_refusal_names_the_line_where_the_cap_is_passed(tmp_path: Path) -> None:
    path = tmp_path / "post.md"
    path.write_text("# A post\n\n" + "".join(f"Line {n} ran at {n} tok/s.\n" for n in range(30)))
    said = _refusal(path)
    # two numbers a line: the 41st is on the 21st line of numbers, the file's 23rd
    assert said == (
        f"{path}:23:1 /: the copy holds more than 40 numbers; check reads at most 40: "
        "set REPORTGEN_MAX_PUBLISHED_NUMBERS to read more"
    )


@pytest.mark.usefixtures("small_caps")
def test_words_with_digits_are_words_not_numbers(tmp_path: Path) -> None:
    path = tmp_path / "post.md"
    path.write_text("word12 H100 x86 " * 100 + "\n1,234.5 ms and -2 and 3x\n")
    assert len(read_published(path).lines) == 2  # 300 words, 3 numbers: within both caps


@pytest.mark.usefixtures("small_caps")
def test_a_page_of_many_tags_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text("<!doctype html>\n" + "<br>\n" * 400)
    assert _refusal(path).startswith(f"{path}:301:1 /: the copy holds 401 HTML tags;")


@pytest.mark.usefixtures("small_caps")
def test_a_page_of_many_words_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    """The page's tree costs hundreds of bytes a word: a page of far more words than the cap is
    refused by a loose count between its tags (4 times the cap), before it is parsed, at the
    line of the first word past it; one within that count is parsed and refused by the cap."""
    path = tmp_path / "page.html"
    path.write_text("<!doctype html>\n<p>" + "many words here\n" * 600 + "</p>")
    assert _refusal(path).startswith(
        f"{path}:535:1 /: the copy holds more than 1,600 words; check reads at most 400:"
    )
    path.write_text("<!doctype html>\n<p>" + "many words here\n" * 200 + "</p>")
    assert "the copy holds more than 400 words; check reads at most 400" in _refusal(path)
    path.write_text("<!doctype html>\n<p a=b>" + "a < b and c\n" * 50 + "</p>")
    assert len(read_published(path).lines) > 0  # 250 words: a `<` that opens no tag is text


def test_a_count_cap_that_is_not_a_count_is_one_clear_error() -> None:
    with pytest.raises(InputError) as raised:
        check_caps({"REPORTGEN_MAX_PUBLISHED_WORDS": "1e9", "REPORTGEN_MAX_PUBLISHED_TAGS": "-1"})
    said = [p.format() for p in raised.value.problems]
    assert len(said) == 2 and all("is not a count" in s for s in said)
    assert cap_count("words", {"REPORTGEN_MAX_PUBLISHED_WORDS": " 12 "}) == 12


@pytest.mark.pdf
def test_a_pdf_whose_text_never_ends_is_refused_by_cpu_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A form drawn 5,000 times: pypdf parses it each time, which none of its own limits stops."""
    monkeypatch.setattr(pdftext, "CPU_SECONDS", 1)
    data, _ = COPIES.copy("pdf")
    path = tmp_path / "endless.pdf"
    path.write_bytes(data)
    said = _refusal(path)
    assert "extracting its text took more than 1 s of CPU time" in said


@pytest.mark.pdf
@pytest.mark.usefixtures("small_caps")
def test_a_pdf_past_the_words_cap_is_refused_by_its_page(tmp_path: Path) -> None:
    path = tmp_path / "long.pdf"
    path.write_bytes(COPIES.pdf_bytes(b"BT /F1 12 Tf 72 700 Td (a b c d e) Tj ET\n" * 100))
    said = _refusal(path)
    assert "the copy holds more than 400 words (by page 1); check reads at most 400" in said
    path.write_bytes(COPIES.pdf_bytes(b"BT /F1 12 Tf 72 700 Td (12 ms) Tj ET\n"))
    assert [text for _, text in read_published(path).lines] == ["12 ms"]


@pytest.mark.slow
def test_a_repeated_table_title_costs_about_what_other_words_do() -> None:
    """Each place a table's title is found is searched for its header and rows; a title
    repeated over and over took 20 times as long as other words, and now a few times."""
    from test_linear_inputs import _check_read, _measured_shape

    from reportgen.check.readers.published import text_lines

    _measured_shape()
    titles = COPIES.TITLE * 2_000
    words = "the quick brown fox " * 2_000
    took = _seconds(lambda: _check_read(titles))
    plain = _seconds(lambda: _check_read(words))
    assert took < 6 * plain, f"{took:.2f} s, {took / plain:.1f} times other words"
    assert text_lines(titles)  # the same input the check reads
