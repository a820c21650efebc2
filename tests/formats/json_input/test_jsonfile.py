"""JSON load stage: bytes in, a parsed document or located problems out (`reportgen.jsonfile`)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any

import pytest
from helpers_runs import VALID
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.errors import InputError, Problem
from reportgen.formats.json_input.document import (
    JsonDocument,
    escape_pointer_token,
    line_col,
    parse_json,
    pointer_of,
    split_pointer,
)

TRUNCATED = "file ends in the middle of a value (truncated?)"
UNCLOSED = "string never closed: the file ends inside it (truncated?)"


def problems_of(raw: bytes | str, label: str = "f.json") -> list[Problem]:
    """The problems parse_json raises for `raw` (fails the test if it parses)."""
    data = raw.encode("utf-8") if isinstance(raw, str) else raw
    with pytest.raises(InputError) as caught:
        parse_json(label, data)
    assert caught.value.problems, "an InputError must carry at least one problem"
    return list(caught.value.problems)


def lines_of(raw: bytes | str) -> list[str]:
    return [p.format() for p in problems_of(raw)]


# --- parsing valid documents ------------------------------------------------------------------


def test_parses_an_object_and_keeps_text_label_and_digest() -> None:
    raw = b'{\n  "a": [1, 2.5, "x", true, null]\n}\n'
    doc = parse_json("runs/x.json", raw)
    assert doc.data == {"a": [1, 2.5, "x", True, None]}
    assert doc.label == "runs/x.json"
    assert doc.text == raw.decode()
    assert doc.sha256 == hashlib.sha256(raw).hexdigest()


def test_unicode_text_and_escapes_are_decoded() -> None:
    doc = parse_json("f.json", '{"model": "Kimi-K3.1 \u00e9\\u00e9\\n"}'.encode())
    assert doc.data == {"model": "Kimi-K3.1 \u00e9\u00e9\n"}


# --- locating values ----------------------------------------------------------------------------

DOC = """{
  "metadata": {"version": "0.7.7"},
  "a/b": {"~x": [10, {"deep": -1.5}]},
  "results": [
    {"ttft_p50": 0.5},
    {"ttft_p50": -1.2, "s": "x"}
  ]
}
"""


@pytest.mark.parametrize(
    ("pointer", "line", "col", "starts"),
    [
        ("", 1, 1, "{"),
        ("/metadata", 2, 15, '{"version"'),
        ("/metadata/version", 2, 27, '"0.7.7"'),
        ("/a~1b/~0x", 3, 17, "[10,"),
        ("/a~1b/~0x/0", 3, 18, "10"),
        ("/a~1b/~0x/1/deep", 3, 31, "-1.5"),
        ("/results/1/ttft_p50", 6, 18, "-1.2"),
        ("/results/1/s", 6, 29, '"x"'),
        # Absent values are located at their nearest existing ancestor.
        ("/results/1/missing", 6, 5, '{"ttft_p50": -1.2'),
        ("/results/7", 4, 14, "["),
        ("/metadata/version/0", 2, 27, '"0.7.7"'),
        ("/results/x", 4, 14, "["),
    ],
)
def test_locate_points_at_the_value(pointer: str, line: int, col: int, starts: str) -> None:
    doc = parse_json("f.json", DOC.encode())
    assert doc.locate(pointer) == (line, col)
    assert DOC.splitlines()[line - 1][col - 1 :].startswith(starts)


def test_problem_is_located_and_rendered() -> None:
    doc = parse_json("runs/x/matrix.json", DOC.encode())
    problem = doc.problem("/results/1/ttft_p50", "-1.2 is less than the minimum of 0")
    assert problem.format() == (
        "runs/x/matrix.json:6:18 /results/1/ttft_p50: -1.2 is less than the minimum of 0"
    )
    warning = doc.problem("", "odd", "warning")
    assert warning.format() == "runs/x/matrix.json:1:1 /: warning: odd"
    assert warning.as_json() == {
        "path": "runs/x/matrix.json",
        "line": 1,
        "col": 1,
        "pointer": "/",
        "severity": "warning",
        "message": "odd",
    }


def test_locate_counts_columns_in_characters_not_bytes() -> None:
    text = '{"caf\u00e9 \U0001f600": 1, "b": 2}'
    doc = parse_json("f.json", text.encode())
    assert doc.locate("/b") == (1, text.index("2") + 1)


@pytest.mark.parametrize(
    ("tokens", "pointer"),
    [([], ""), (["a"], "/a"), (["a/b", "~"], "/a~1b/~0"), (["results", 3], "/results/3")],
)
def test_pointer_round_trip(tokens: list[str | int], pointer: str) -> None:
    assert pointer_of(tokens) == pointer
    assert split_pointer(pointer) == [str(t) for t in tokens]


def test_escape_pointer_token_escapes_tilde_before_slash() -> None:
    assert escape_pointer_token("~1/") == "~01~1"
    assert split_pointer("/~01~1") == ["~1/"]


def test_line_col() -> None:
    assert line_col("ab\ncd", 0) == (1, 1)
    assert line_col("ab\ncd", 4) == (2, 2)
    assert line_col("ab\ncd", 5) == (2, 3)


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=25,
)


def pointers(
    value: Any, prefix: tuple[str | int, ...] = ()
) -> list[tuple[tuple[str | int, ...], Any]]:
    """Every (path, value) pair inside `value`, the root first."""
    out = [(prefix, value)]
    if isinstance(value, dict):
        for key, child in value.items():
            out += pointers(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out += pointers(child, (*prefix, index))
    return out


def offset_of(text: str, line: int, col: int) -> int:
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    return starts[line - 1] + col - 1


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.dictionaries(st.text(max_size=6), json_values, max_size=5),
    indent=st.sampled_from([None, 0, 1, 2, 4]),
    ascii_only=st.booleans(),
)
def test_parse_and_locate_round_trip(
    data: dict[str, Any], indent: int | None, ascii_only: bool
) -> None:
    """Any JSON object parses back to itself, and every pointer locates the text of its value."""
    text = json.dumps(data, indent=indent, ensure_ascii=ascii_only)
    doc = parse_json(
        "f.json", text.encode("utf-8", "surrogatepass") if not ascii_only else text.encode()
    )
    assert doc.data == data
    decoder = json.JSONDecoder()
    for path, value in pointers(data):
        line, col = doc.locate(pointer_of(path))
        found, _ = decoder.raw_decode(doc.text, offset_of(doc.text, line, col))
        assert found == value


# --- malformed files ----------------------------------------------------------------------------


def test_byte_order_mark_is_refused() -> None:
    assert lines_of(b'\xef\xbb\xbf{"a": 1}') == [
        "f.json:1:1 /: file starts with a UTF-8 byte order mark; JSON must not"
    ]


def test_invalid_utf8_is_located_in_characters() -> None:
    raw = '{\n  "caf\u00e9": "'.encode() + b"\xff" + b'"\n}'
    assert lines_of(raw) == ["f.json:2:12 /: invalid UTF-8 (byte 0xff)"]


def test_encoded_surrogate_is_invalid_utf8() -> None:
    assert lines_of(b'{"a": "\xed\xa0\x80"}') == ["f.json:1:8 /: invalid UTF-8 (byte 0xed)"]


@pytest.mark.parametrize("raw", [b"", b"   \n\t\n"])
def test_empty_file(raw: bytes) -> None:
    assert [p.message for p in problems_of(raw)] == ["file is empty"]


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        ("[]", "an array"),
        ('"text"', "a string"),
        ("41.5", "a number"),
        ("7", "a number"),
        ("true", "a boolean"),
        ("null", "null"),
    ],
)
def test_top_level_must_be_an_object(raw: str, kind: str) -> None:
    assert lines_of("\n  " + raw) == [f"f.json:2:3 /: top level must be an object, not {kind}"]


@pytest.mark.parametrize(
    ("raw", "line", "col", "message"),
    [
        ('{\n  "a": [1, 2', 2, 13, TRUNCATED),
        ('{\n  "a": ', 2, 8, TRUNCATED),
        ('{"a": 1,', 1, 9, TRUNCATED),
        ('{"a"', 1, 5, TRUNCATED),
        ('{"a": tr', 1, 7, TRUNCATED),
        ('{"a": nul', 1, 7, TRUNCATED),
        ('{"a": -', 1, 7, TRUNCATED),
        ('{"a": 1.', 1, 8, TRUNCATED),
        ('{"a": 1e', 1, 8, TRUNCATED),
        ('{"a": 1.5e+', 1, 10, TRUNCATED),
        ('{"a": "abc', 1, 7, UNCLOSED),
        ('{"a": "x\\', 1, 7, UNCLOSED),
        ('{"a": "\\u00', 1, 9, UNCLOSED),
        ('{"a": "\\uzz"}', 1, 9, "invalid JSON: Invalid \\uXXXX escape"),
        ('{\n  "a": 1\n}\n{', 4, 1, "invalid JSON: more data after the end of the top-level value"),
        ('{"a": 1 "b": 2}', 1, 9, "invalid JSON: Expecting ',' delimiter"),
        ('{"a": }', 1, 7, "invalid JSON: Expecting value"),
        ('{"a": [1,]}', 1, 10, "invalid JSON: Expecting value"),
        ("{'a': 1}", 1, 2, "invalid JSON: Expecting property name enclosed in double quotes"),
        ('{"a": True}', 1, 7, "invalid JSON: Expecting value"),
    ],
)
def test_syntax_errors_are_located_and_truncation_is_named(
    raw: str, line: int, col: int, message: str
) -> None:
    assert lines_of(raw) == [f"f.json:{line}:{col} /: {message}"]


ESCAPES = '{"s": "caf\\u00e9 \\ud83d\\ude00 \\" \\\\ \\n", "n": [-1.5e-3, 0, true, false, null]}'


_PER_KIND = 4
_ENDS = 64


def _kind(char: str) -> str:
    if char in '{}[]:,"\\':
        return char
    return next(
        (name for name, test in _CLASSES if test(char)),
        "other",
    )


_CLASSES = (("digit", str.isdigit), ("letter", str.isalpha), ("space", str.isspace))


def _cuts(text: str) -> list[int]:
    """The cuts tried: every one near either end, and the first few of each kind between."""
    seen: Counter[tuple[str, str, bool, bool]] = Counter()
    cuts = []
    in_string = escaped = False  # the state before text[cut]
    for cut in range(len(text)):
        kind = (_kind(text[cut - 1]) if cut else "start", _kind(text[cut]), in_string, escaped)
        seen[kind] += 1
        char = text[cut]
        if escaped:
            escaped = False
        elif in_string and char == "\\":
            escaped = True
        elif char == '"':
            in_string = not in_string
        if cut < _ENDS or cut >= len(text) - _ENDS or seen[kind] <= _PER_KIND:
            cuts.append(cut)
    return cuts


@pytest.mark.slow
@pytest.mark.sampled
@pytest.mark.parametrize(
    "text",
    [ESCAPES] + [p.read_text(encoding="utf-8") for p in sorted(VALID.glob("*.json"))],
    ids=["escapes"] + [p.stem for p in sorted(VALID.glob("*.json"))],
)
def test_every_prefix_of_a_valid_file_is_reported_as_truncated(text: str) -> None:
    """Cutting a file anywhere before its end says it is truncated, never another syntax error.

    Every kind of cut is tried, not every byte: a cut is known by the characters on either side
    of it (each of `{}[]:,"\\` itself, else a digit, a letter, a space or another character)
    and by whether it falls inside a string or right after a backslash in one. The first
    `_PER_KIND` cuts of each kind are tried, with every cut in the first and last `_ENDS`
    characters. The real files run to tens of kilobytes, and trying every byte of them was
    a quarter of the suite's time."""
    text = text.rstrip()
    assert json.loads(text)
    for cut in _cuts(text):
        prefix = text[:cut]
        messages = [p.message for p in problems_of(prefix)]
        expected = "file is empty" if not prefix.strip() else None
        assert len(messages) == 1, (cut, messages)
        if expected:
            assert messages == [expected]
        else:
            assert messages[0] in (TRUNCATED, UNCLOSED), (cut, prefix[-20:], messages)


def test_nan_and_infinity_are_located() -> None:
    raw = '{\n  "a": NaN,\n  "b": [1, Infinity],\n  "c": {"d": -Infinity}\n}'
    tail = "is not valid JSON; a measurement must be a finite number"
    assert lines_of(raw) == [
        f"f.json:2:8 /a: NaN {tail}",
        f"f.json:3:12 /b/1: Infinity {tail}",
        f"f.json:4:14 /c/d: -Infinity {tail}",
    ]


def test_duplicate_keys_are_located_at_the_repeated_key() -> None:
    raw = '{\n  "a": 1,\n  "list": [{"k": 1, "k": 2}],\n  "a": 3\n}'
    assert lines_of(raw) == [
        "f.json:3:21 /list/0/k: duplicate key 'k' in object",
        "f.json:4:3 /a: duplicate key 'a' in object",
    ]


def test_every_problem_is_reported_together() -> None:
    raw = '{"a": NaN, "a": 1, "b": {"c": 2, "c": Infinity}}'
    assert [p.pointer for p in problems_of(raw)] == ["/a", "/a", "/b/c", "/b/c"]


@pytest.mark.parametrize(
    ("raw", "last"),
    [
        ('{"a": NaN, "b": }', "f.json:1:17 /: invalid JSON: Expecting value"),
        ('{"a": NaN', f"f.json:1:10 /: {TRUNCATED}"),
        ('{"a": {"k": 1, "k": 2}, "b": [1,', f"f.json:1:33 /: {TRUNCATED}"),
        (
            '{"a": NaN} x',
            "f.json:1:12 /: invalid JSON: more data after the end of the top-level value",
        ),
        ('{"a": NaN "b": 1}', "f.json:1:11 /: invalid JSON: Expecting ',' delimiter"),
    ],
)
def test_a_syntax_error_after_a_nan_or_duplicate_is_reported_too(raw: str, last: str) -> None:
    found = lines_of(raw)
    assert len(found) == 2
    assert found[-1] == last


def test_integer_too_long_to_convert_is_located() -> None:
    raw = '{\n  "a": ' + "9" * 5000 + "\n}"
    assert lines_of(raw) == [
        "f.json:2:8 /a: integer with 5000 digits is far too long for a measurement"
    ]


def test_negative_integer_too_long_to_convert_is_located() -> None:
    assert lines_of('{"a": [-' + "1" * 4400 + "]}") == [
        "f.json:1:8 /a/0: integer with 4400 digits is far too long for a measurement"
    ]


@pytest.mark.parametrize("depth", [5000, 100_000])
def test_deep_nesting_is_refused_not_crashed(depth: int) -> None:
    raw = '{"a": ' + "[" * depth + "]" * depth + "}"
    assert lines_of(raw) == ["f.json:1:1 /: JSON nested too deeply"]


def test_deep_nesting_with_a_nan_does_not_crash() -> None:
    problems = problems_of('{"a": ' + "[" * 3000 + "NaN" + "]" * 3000 + "}")
    assert problems  # the NaN, located, or "nested too deeply": either way no traceback


def test_lone_surrogate_in_a_key_can_be_printed() -> None:
    lone = "a key is not valid Unicode text: it holds \\ud800, half of a UTF-16 surrogate pair"
    problems = problems_of('{"\\ud800": 1, "\\ud800": 2}')
    assert [p.format() for p in problems] == [
        f"f.json:1:2 /: {lone} escaped alone",
        f"f.json:1:15 /: {lone} escaped alone",
        "f.json:1:15 /\\ud800: duplicate key '\\ud800' in object",
    ]
    for problem in problems:
        problem.format().encode("utf-8")  # printable


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"model": "a\\ud800"}', "1:11 /model"),
        ('{"a": ["x", "\\udfff"]}', "1:13 /a/1"),
        ('{"a": {"b": "\\uDBFF\\u0041"}}', "1:13 /a/b"),
    ],
)
def test_lone_surrogate_in_a_string_is_refused_where_it_is(text: str, where: str) -> None:
    (problem,) = problems_of(text)
    assert problem.format().startswith(f"f.json:{where}: string is not valid Unicode text")


def test_surrogate_pair_is_one_character() -> None:
    assert parse_json("f.json", b'{"a": "\\ud83d\\ude00", "b": "\\\\ud800"}').data == {
        "a": "\U0001f600",
        "b": "\\ud800",
    }


def test_input_error_sorts_and_joins_its_problems() -> None:
    late = Problem(path="f.json", line=9, col=1, pointer="/b", message="late")
    early = Problem(path="f.json", line=2, col=5, pointer="/a", message="early")
    error = InputError([late, early])
    assert error.problems == (early, late)
    assert str(error) == "f.json:2:5 /a: early\nf.json:9:1 /b: late"


# --- fuzzing ------------------------------------------------------------------------------------

SEEDS = [p.read_bytes() for p in sorted(VALID.glob("*.json"))]


@st.composite
def mutated_bytes(draw: st.DrawFn) -> bytes:
    raw = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["truncate", "flip", "insert", "delete", "duplicate"]))
        at = draw(st.integers(0, len(raw)))
        if kind == "truncate":
            del raw[at:]
        elif kind == "flip" and at < len(raw):
            raw[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "insert":
            chunk = draw(
                st.sampled_from(
                    [
                        b"NaN",
                        b"-Infinity",
                        b",",
                        b"{",
                        b"]",
                        b'"',
                        b"\\",
                        b"\xff",
                        b"\xef\xbb\xbf",
                        b"1e999",
                        b"9" * 5000,
                        b'"a": 1, "a": 2,',
                        b"[" * 3000,
                        b"\x00",
                    ]
                )
                | st.binary(max_size=6)
            )
            raw[at:at] = chunk
        elif kind == "delete":
            del raw[at : at + draw(st.integers(1, 20))]
        elif kind == "duplicate":
            end = min(len(raw), at + draw(st.integers(1, 80)))
            raw[end:end] = raw[at:end]
    return bytes(raw)


@settings(max_examples=200, deadline=None)
@given(raw=mutated_bytes())
def test_mutated_bytes_parse_or_raise_only_located_input_errors(raw: bytes) -> None:
    try:
        doc = parse_json("f.json", raw)
    except InputError as exc:
        lines = raw.count(b"\n") + 1
        assert exc.problems  # noqa: PT017 -- a problem raised or a run loaded: both are fine
        for problem in exc.problems:
            assert problem.path == "f.json"
            assert 1 <= problem.line <= lines
            assert problem.col >= 1
            problem.format().encode("utf-8")
        return
    assert isinstance(doc, JsonDocument)
    assert isinstance(doc.data, dict)
