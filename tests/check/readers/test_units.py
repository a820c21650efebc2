"""The units the readers know come from the display rules (`reportgen.metrics.display.UNITS`):
a number, a column header and a table caption are read in tok/s/GPU and USD/Mtok as in any
other unit, "tok/s" is never read out of "tok/s/GPU", and a table's footnote letters ("1.27 d",
"unreachable a") are marks, not part of a cell; a cost's unit spelled out ("USD per million
output tokens", "$ per million tokens") is read as USD/Mtok, and one in another currency fails
closed. The end-to-end tests check edited copies of the synthetic frontier article's
`published.md`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers_articles import built_article, check_copy

from reportgen.check.readers.prose import expected_prose, spelled_unit
from reportgen.check.readers.published import header_unit, parse_number, unit_named
from reportgen.check.readers.reported import Reported
from reportgen.check.readers.shape import TableShape
from reportgen.check.readers.tableunits import settle_units
from reportgen.metrics.display import QUANTITIES, UNITS, units_named
from reportgen.metrics.registry import MetricValue

ARTICLE = Path(__file__).resolve().parents[2] / "articles" / "three-configs"


def test_a_number_is_read_with_every_unit_a_display_rule_shows() -> None:
    for unit in UNITS:
        assert parse_number(f"1,234.5 {unit}") == (1234.5, 1, unit), unit
        assert parse_number(f"12{unit}") == (12.0, 0, unit), unit
    assert parse_number("477 tok/s/GPU") == (477.0, 0, "tok/s/GPU")
    assert parse_number("1.46 USD/Mtok") == (1.46, 2, "USD/Mtok")
    assert parse_number("477 tok/s/GPUs") is None, "a unit ends where its word does"


def test_headers_and_captions_name_the_new_units_whole() -> None:
    assert header_unit("TP1, 1 GPU (USD/Mtok)") == "USD/Mtok"
    assert header_unit("Throughput per GPU (tok/s/GPU) (synthetic data)") == "tok/s/GPU"
    assert header_unit("output tok/s/GPU") == "tok/s/GPU"
    assert header_unit("TTFT (ms, median)") == "ms"
    assert header_unit("TP1, 1 GPU") is None
    assert unit_named("tok/s/GPU, median") == "tok/s/GPU"
    assert unit_named("tok/s/GPUs") is None, "never tok/s out of a longer word"
    for unit in QUANTITIES:
        assert header_unit(f"Some column ({unit})") == unit, unit


def _shape(marks: str) -> TableShape:
    return TableShape(
        id="t", title="T", unit_words="", cell=lambda _r, _c: None, marks=frozenset(marks)
    )


def test_a_table_s_footnote_letters_are_marks_beside_a_number_or_a_dash() -> None:
    table = _shape("acd")
    assert table.unmarked("1.27d") == "1.27"
    assert table.unmarked("1.27 d") == "1.27"
    assert table.unmarked("19.47a*") == "19.47"
    assert table.unmarked("\u2014c") == "\u2014"
    assert table.unmarked("1.27b") == "1.27b", "b is no mark of this table"
    assert table.unmarked("unreachablea") == "unreachablea", "a letter after a letter is a word's"
    assert parse_number(table.unmarked("1.27 d")) == (1.27, 2, None)


def _value(unit: str) -> MetricValue:
    return MetricValue(
        id="frontier.tp1.at_20.tok_s_per_gpu",
        key="frontier.tok_s_per_gpu",
        value=548.05,
        unit=unit,
        source="computed",  # type: ignore[arg-type]
        file="tp1.json",
        sha256="",
        provenance="synthetic",
        pointer="",
    )


@pytest.mark.parametrize(
    ("header", "unit"), [("TP1 (USD/Mtok)", "tok/s/GPU"), ("A (tok/s/GPU)", "USD/Mtok")]
)
def test_a_header_naming_another_quantity_s_unit_is_one_error_at_the_header(
    header: str, unit: str
) -> None:
    said = header_unit(header)
    cells = [
        Reported(
            line=5 + k,
            col=8,
            text="548",
            value=548.0,
            decimals=0,
            unit=said,
            metric_id="m",
            unit_from=(3, 7, header),
        )
        for k in range(3)
    ]
    settled, problems = settle_units(cells, lambda _id: _value(unit))
    assert [(p.line, p.col, p.text) for p in problems] == [(3, 7, header)]
    assert f"names {said}, but" in problems[0].message
    assert all(r.unit is None for r in settled), "its cells are then judged as the article shows"


def _check(tmp_path: Path, text: str) -> list[str]:
    """What check says of `text` as a published copy of the article (built once per process:
    `built_article`, as `check` builds it, charts aside, which a Markdown copy has none of)."""
    copy = tmp_path / "copy.md"
    copy.write_text(text, encoding="utf-8")
    source = check_copy(copy, *built_article(ARTICLE))
    return [f"{i.line}:{i.col} {i.kind} {i.message}" for i in source.items]


def _published() -> str:
    return (ARTICLE / "published.md").read_text(encoding="utf-8")


def _cost_said() -> tuple[str, str]:
    """The frontier sentence's cost as the published copy writes it ("1.65 USD/Mtok"), and its
    number: read from the copy, never typed, so a change to the article's data keeps this true."""
    found = re.search(r"for (\d+\.\d+) USD/Mtok at ", _published())
    assert found is not None, "the frontier sentence states a cost in USD/Mtok"
    return f"{found.group(1)} USD/Mtok", found.group(1)


# A cost's unit as writers spell it after the number: each is read as USD/Mtok, so the copy
# aligns with the article's sentence word for word and its numbers check out. "USD per million
# output tokens" once left the frontier sentence unaligned: its words "per million output
# tokens at" aligned with a caption further down that says them too, taking the price's words
# after them there, and the sentence then shared too few words with the article's to be
# paired. A unit spelled out is now one token, aligned as its symbol.
SPELLINGS = [
    "USD per Mtok",
    "USD per million tokens",
    "USD per million output tokens",
    "$ per million output tokens",
    "USD/M output tokens",
    "dollars per million tokens",
]


def _found(pattern: str) -> str:
    found = re.search(pattern, _published())
    assert found is not None, pattern
    return found.group(1)


# The copy's numbers these tests edit, read from it (never typed): TP4's throughput and cost in
# the frontier sentence, the cost table's first row and its last row (TP1 has no 64).
TPUT = _found(r"; (\d+ tok/s/GPU) against")
COST = _found(r"for (\d+\.\d+ USD/Mtok) at")
FIRST = _found(r"\n(\| 1 \| [\d.]+ \| [\d.]+ \|)")
LAST = _found(r"\n(\| 64 \| — \| [\d.]+ \|)")


def _number(text: str) -> str:
    return text.split()[0]


def _bumped(text: str) -> str:
    """`text` with the last digit of its number changed."""
    number = _number(text)
    return text.replace(number, number[:-1] + ("1" if number[-1] != "1" else "2"), 1)


@pytest.mark.parametrize("cost", SPELLINGS)
def test_the_published_copy_with_marks_and_units_in_words_checks_clean(
    tmp_path: Path, cost: str
) -> None:
    said, number = _cost_said()
    first = FIRST.strip("| ").split(" | ")
    last = LAST.strip("| ").split(" | ")
    text = (
        _published()
        .replace(TPUT, f"{_number(TPUT)} tok/s per GPU")
        .replace(said, f"{number} {cost}")
        .replace(FIRST, f"| 1 | {first[1]} a | {first[2]}a |")
        .replace(LAST, f"| 64 | —b | {last[2]} a |")
    )
    assert f"{number} {cost} at " in text and text.count("a |") >= 3
    assert _check(tmp_path, text) == []


def test_a_cost_written_with_its_dollar_sign_before_the_number_checks_clean(
    tmp_path: Path,
) -> None:
    said, number = _cost_said()
    text = _published().replace(said, f"${number} per million output tokens")
    assert _check(tmp_path, text) == []
    wrong = f"{float(number) + 0.01:.2f}"
    errors = _check(tmp_path, _published().replace(said, f"${wrong} per million output tokens"))
    assert len(errors) == 1 and " mismatch " in errors[0], errors
    assert f"shows {wrong} but the run files give {number} USD/Mtok" in errors[0]


@pytest.mark.parametrize(
    "cost",
    ["EUR per million output tokens", "EUR/Mtok", "\u20ac/M tokens", "euros per million tokens"],
)
def test_a_cost_in_another_currency_fails_closed_naming_it(tmp_path: Path, cost: str) -> None:
    """The article's costs are in USD: a cost per million tokens in another currency is one
    mismatch that names the unit it is shown in, never a number judged as if it were USD."""
    said, number = _cost_said()
    errors = _check(tmp_path, _published().replace(said, f"{number} {cost}"))
    assert len(errors) == 1 and " mismatch " in errors[0], errors
    assert "is shown in EUR/Mtok but frontier." in errors[0] and "is in USD/Mtok" in errors[0]


def test_a_unit_spelled_out_is_read_whole_and_keyed_as_its_symbol() -> None:
    assert spelled_unit(["USD", "per", "million", "output", "tokens", "at"]) == ("USD/Mtok", 5)
    assert spelled_unit(["$", "per", "million", "tokens."]) == ("USD/Mtok", 4)
    assert spelled_unit(["USD/M", "output", "tokens,"]) == ("USD/Mtok", 3)
    assert spelled_unit(["tok/s", "per", "GPU)"]) == ("tok/s/GPU", 3)
    assert spelled_unit(["GBP", "per", "million", "tokens"]) == ("GBP/Mtok", 4)
    assert spelled_unit(["USD", "per", "million", "tokens/s"]) is None, "the words go on"
    assert spelled_unit(["USD", "per", "GPU-hour"]) is None
    html = (
        '<p>for <span data-metric="m">1.65 USD per million output tokens</span> at 2.50 USD '
        "per GPU-hour.</p>"
    )
    prose, _ = expected_prose(html)
    assert [(e.text, e.metric, e.key) for e in prose[:3]] == [
        ("for", None, "for"),
        ("1.65", "m", "#"),
        ("USD per million output tokens", "m", "usd/mtok"),
    ]
    assert [e.key for e in prose[3:]] == ["at", "#", "usd", "per", "gpu hour"]


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (TPUT, f"{_number(TPUT)} tok/s", "is shown in tok/s but"),
        (TPUT, f"{_number(TPUT)} USD/Mtok", "is shown in USD/Mtok but"),
        (COST, f"{_number(COST)} tok/s/GPU", "is shown in tok/s/GPU but"),
        (
            COST,
            _bumped(COST),
            f"shows {_number(_bumped(COST))} but the run files give {COST}",
        ),
    ],
)
def test_a_number_in_prose_is_read_with_its_unit(
    tmp_path: Path, old: str, new: str, said: str
) -> None:
    errors = _check(tmp_path, _published().replace(old, new, 1))
    assert len(errors) == 1 and " mismatch " in errors[0] and said in errors[0], errors


def test_a_wrong_unit_over_a_table_is_one_error_where_it_is_named(tmp_path: Path) -> None:
    text = _published()
    lines = text.splitlines()
    header = next(k for k, line in enumerate(lines) if line.startswith("| concurrent |")) + 1
    heading = lines.index("## Cost per million output tokens (USD/Mtok)") + 1
    wrong_header = text.replace(
        "| concurrent | TP1, 1 GPU |", "| concurrent | TP1, 1 GPU (tok/s/GPU) |", 1
    )
    errors = _check(tmp_path, wrong_header)
    assert len(errors) == 1 and errors[0].startswith(f"{header}:"), errors
    assert "names tok/s/GPU, but tp1.decode.4K.c1.usd_per_mtok is in USD/Mtok" in errors[0]
    wrong_caption = text.replace(
        "## Cost per million output tokens (USD/Mtok)", "## Cost per million output tokens (tok/s)"
    )
    errors = _check(tmp_path, wrong_caption)
    assert len(errors) == 1 and errors[0].startswith(f"{heading}:"), errors


def test_a_unit_is_never_empty() -> None:
    """A metric shown in no unit (an SLO verdict) adds no unit: the empty one would be named by
    every header, and found in every caption."""
    assert "" not in UNITS and all(u.strip() for u in UNITS)
    assert units_named("prompt tokens") == set()
