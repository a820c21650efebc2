"""JSON Lines load stage (`reportgen.formats.json_input.lines`): one record a non-empty line, every
problem at its real line and column, pointers that start with the record's index, and the one bare
`Infinity` SGLang writes (a record's top-level `request_rate`) accepted, nothing else."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import pytest

from reportgen.cli.inputs import run_paths
from reportgen.errors import InputError
from reportgen.formats.json_input.document import TOO_LARGE, parse_json
from reportgen.formats.json_input.lines import JsonLinesDocument, parse_json_lines
from reportgen.formats.load import folder_run_files, load

TRUNCATED = "file ends in the middle of a value (truncated?)"
NOT_JSON = "is not valid JSON; a measurement must be a finite number"


def parsed(text: str | bytes) -> JsonLinesDocument:
    return parse_json_lines("f.jsonl", text.encode() if isinstance(text, str) else text)


def problems(text: str | bytes) -> list[str]:
    """Each problem as `line:col pointer: message` (fails the test if the text parses)."""
    with pytest.raises(InputError) as caught:
        parsed(text)
    assert caught.value.problems
    return [f"{p.line}:{p.col} {p.pointer or '/'}: {p.message}" for p in caught.value.problems]


def where(text: str, needle: str, line: int) -> str:
    """`line:col` of the first `needle` on `line` (1-based) of `text`."""
    return f"{line}:{text.splitlines()[line - 1].index(needle) + 1}"


# --- records, indexes and positions -------------------------------------------------------------


def test_each_non_empty_line_is_a_record_by_index() -> None:
    raw = b'{"a": 1}\n\n  \n{"b": [2, {"c": "x"}]}\r\n\t{"d": null}'
    doc = parsed(raw)
    assert doc.data == {"0": {"a": 1}, "1": {"b": [2, {"c": "x"}]}, "2": {"d": None}}
    assert doc.label == "f.jsonl" and doc.sha256 == hashlib.sha256(raw).hexdigest()
    # the line is the file's (blank lines counted), the column the line's own
    assert doc.locate("/0/a") == (1, 7)
    assert doc.locate("/1/b/1/c") == (4, 17)
    assert doc.locate("/2") == (5, 2)
    assert doc.locate("/1/missing") == (4, 1)  # the nearest existing ancestor: the record
    assert doc.locate("") == (1, 1)
    assert doc.problem("/1/b/0", "x").format() == "f.jsonl:4:8 /1/b/0: x"


def test_a_broken_line_keeps_its_index_and_every_line_is_reported() -> None:
    text = '{"a": NaN}\n{"b": 1, "b": 2}\n\n{"c": [1, -Infinity]}\n{"d": 1}\n'
    second_b = where(text, '"b": 2', 2)
    assert problems(text) == [
        f"{where(text, 'NaN', 1)} /0/a: NaN {NOT_JSON}",
        f"{second_b} /1/b: duplicate key 'b' in object",
        f"{where(text, '-Inf', 4)} /2/c/1: -Infinity {NOT_JSON}",
    ]


def test_a_record_must_be_an_object() -> None:
    assert problems('{"a": 1}\n  [1, 2]\n"x"\n') == [
        "2:3 /1: a record must be an object, not an array",
        "3:1 /2: a record must be an object, not a string",
    ]


def test_two_values_on_one_line_are_refused() -> None:
    assert problems('{"a": 1} {"b": 2}\n{"c": 3}\n') == [
        "1:10 /0: invalid JSON: more data after the end of the line's record"
    ]


# --- the narrow Infinity rule --------------------------------------------------------------------


def test_a_bare_infinity_is_read_as_the_request_rate_only() -> None:
    doc = parsed('{"request_rate": Infinity, "x": 1}\n{"request_rate": 2.5}\n')
    assert doc.data["0"]["request_rate"] == math.inf and doc.data["1"]["request_rate"] == 2.5
    # the same record with Infinity anywhere else: that one is refused, request_rate is not
    text = '{"request_rate": Infinity, "mean_ttft_ms": Infinity, "a": {"request_rate": Infinity}}'
    mean, nested = where(text, 'Infinity, "a"', 1), where(text, "Infinity}}", 1)
    assert problems(text) == [
        f"{mean} /0/mean_ttft_ms: Infinity {NOT_JSON}",
        f"{nested} /0/a/request_rate: Infinity {NOT_JSON}",
    ]


@pytest.mark.parametrize("word", ["NaN", "-Infinity"])
def test_nan_and_minus_infinity_are_refused_as_the_request_rate(word: str) -> None:
    text = f'{{"x": 1}}\n{{"backend": "sglang", "request_rate": {word}}}\n'
    assert problems(text) == [f"{where(text, word, 2)} /1/request_rate: {word} {NOT_JSON}"]


def test_a_number_that_overflows_is_not_taken_for_the_token() -> None:
    text = '{"request_rate": 1e999}\n'
    assert problems(text) == [
        f"{where(text, '1e999', 1)} /0/request_rate: number too large: it does not fit a "
        "64-bit float"
    ]


def test_a_duplicate_request_rate_is_refused_even_with_infinity() -> None:
    text = '{"request_rate": Infinity, "request_rate": Infinity}'
    second = where(text, '"request_rate": Infinity}', 1)
    assert problems(text) == [f"{second} /0/request_rate: duplicate key 'request_rate' in object"]


def test_json_files_take_infinity_as_a_top_level_rate_or_burstiness_only() -> None:
    """vLLM's result JSON writes `--request-rate inf` and `--burstiness inf` as bare Infinity."""
    doc = parse_json("f.json", b'{"request_rate": Infinity, "burstiness": Infinity}')
    assert doc.data == {"request_rate": math.inf, "burstiness": math.inf}
    for text in (b'{"a": Infinity}', b'{"x": {"request_rate": Infinity}}', b"[Infinity]"):
        with pytest.raises(InputError) as caught:
            parse_json("f.json", text, top_list=True)
        assert [p.message for p in caught.value.problems] == [f"Infinity {NOT_JSON}"], text
    with pytest.raises(InputError) as caught:
        parse_json("f.json", b'{"burstiness": 1e999}')
    assert [(p.pointer, p.message) for p in caught.value.problems] == [("/burstiness", TOO_LARGE)]


# --- encodings, empty and truncated files -------------------------------------------------------


def test_a_byte_order_mark_is_refused() -> None:
    assert problems(b'\xef\xbb\xbf{"a": 1}\n') == [
        "1:1 /: file starts with a UTF-8 byte order mark; JSON Lines must not"
    ]


def test_invalid_utf8_is_located_on_its_line() -> None:
    raw = '{"a": 1}\n{"m": "\u00e9\u00e9'.encode() + b'\xff"}\n'
    assert problems(raw) == ["2:10 /1: invalid UTF-8 (byte 0xff)"]


@pytest.mark.parametrize("raw", [b"", b"\n\n", b" \t\r\n\n"])
def test_a_file_without_records_is_empty(raw: bytes) -> None:
    assert problems(raw) == ["1:1 /: file is empty: no line holds a record"]


def test_a_truncated_last_line_says_the_file_ends_there() -> None:
    assert problems('{"a": 1}\n{"b": [1, 2') == [f"2:12 /1: {TRUNCATED}"]
    assert problems('{"a": 1}\n{"b": "x') == [
        "2:7 /1: string never closed: the file ends inside it (truncated?)"
    ]
    assert problems('{"a": 1}\n{"b": [1, 2\n\n') == [f"2:12 /1: {TRUNCATED}"]


def test_a_record_split_over_lines_is_a_line_ending_early() -> None:
    assert problems('{"a":\n 1}\n') == [
        "1:6 /0: line ends in the middle of a value (a record must be one line)",
        "2:3 /1: invalid JSON: more data after the end of the line's record",
    ]


# --- which files are JSON Lines ------------------------------------------------------------------


def test_a_jsonl_file_is_read_as_json_lines_and_a_folder_lists_it(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text('{"x": 1}\n{"y": 2}\n')
    (tmp_path / "b.json").write_text('{"x": 1}\n{"y": 2}\n')
    (tmp_path / "c.txt").write_text("{}")
    assert [p.name for p in folder_run_files(tmp_path)] == ["a.jsonl", "b.json"]
    files, found = run_paths([tmp_path])
    assert [p.name for p in files] == ["a.jsonl", "b.json"] and found == []
    first, second = load(files, label_root=tmp_path).problems
    # a.jsonl parses (two records) and is no format's; b.json is one JSON document, and is not
    assert first.format().startswith(
        "a.jsonl:1:1 /: not a run file reportgen knows: JSON Lines records of no layout it reads"
    )
    assert "sglang bench_serving" in first.message
    assert second.format() == (
        "b.json:2:1 /: invalid JSON: more data after the end of the top-level value"
    )


def test_an_empty_folder_names_both_kinds_of_run_file(tmp_path: Path) -> None:
    assert [p.message for p in run_paths([tmp_path])[1]] == ["no run files (*.json, *.jsonl) found"]
