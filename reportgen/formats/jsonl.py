"""Load stage for JSON Lines run files (`.jsonl`): bytes in, one parsed record a line, located.

A JSON Lines file holds one JSON object on each non-empty line; SGLang's `bench_serving` appends
one such line per run. A line holding only spaces, tabs or a carriage return is skipped. Each line
is parsed on its own under the rules of `reportgen.formats.jsonfile` (no duplicate key, no NaN or
Infinity, no integer too long to convert, UTF-8 without a byte order mark), and every problem of
every line is reported, not only the first line's.

Pointers. The document's data is an object with one member per record, keyed by the record's
index among the non-empty lines: "0" for the first, "1" for the next. A line that does not parse
keeps its index, so the records after it keep theirs. A JSON pointer into the file starts with
that index: `/2/request_rate` is the `request_rate` of the third record, and `/2` the record
itself. The line and column of a problem are the real ones in the file: the line number counts
every line (empty ones too), the column is the character in that line. A problem of the whole
file (a byte order mark, no record at all) has the empty pointer.

Infinity. SGLang writes an unbounded request rate as a bare `Infinity` (Python's `json.dumps` of
`float("inf")`), which is not JSON. Exactly that token, as the value of a record's top-level
`request_rate` (`INFINITY_KEY`), is read as `float("inf")`. `Infinity` anywhere else, and
`-Infinity` or `NaN` anywhere (`request_rate` included), are refused with their position. So is
a number that overflows to infinity as that value (`1e999`): an infinite `request_rate` in a
record always means the tool wrote `Infinity`.

Memory: the file's bytes are read once (by the capped run-file reader); each line is sliced,
decoded and parsed on its own, so no decoded copy of the whole file is ever made. The document
keeps the bytes and each record's span, and decodes one line again only to locate a value in it.

The fast path and the slow walk that locates a problem are `jsonfile`'s own, run on one line.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from reportgen.errors import InputError, Problem
from reportgen.formats.jsonfile import (
    TOO_LARGE,
    JsonDocument,
    _offset_of,
    _Rejected,
    _strict_pairs,
    _syntax_problem,
    _walk_problems,
    line_col,
    split_pointer,
)

INFINITY_KEY = "request_rate"  # the one top-level key whose value may be a bare Infinity
_BOM = b"\xef\xbb\xbf"
_CONTENT = re.compile(rb"[^ \t\r\n]")
_BARE = object()  # what the parser hook returns for an Infinity token, until it is checked
# jsonfile's messages for a document cut short, and what they mean for a line that is not last
_CUT_SHORT = {
    "string never closed: the file ends inside it (truncated?)": (
        "string never closed: the line ends inside it (a record must be one line)"
    ),
    "file ends in the middle of a value (truncated?)": (
        "line ends in the middle of a value (a record must be one line)"
    ),
}
_EXTRA = "invalid JSON: more data after the end of the top-level value"


@dataclass(frozen=True)
class JsonLinesDocument(JsonDocument):
    """A parsed JSON Lines file: `data` maps each record's index ("0", "1", ...) to the record.

    `text` is empty; `raw` holds the file's bytes and `spans` each record's (line number, start,
    end) byte span, so that `locate` decodes only the line a pointer leads into.
    """

    raw: bytes = field(default=b"", compare=False, repr=False)
    spans: tuple[tuple[int, int, int], ...] = field(default=(), compare=False, repr=False)

    def locate(self, pointer: str) -> tuple[int, int]:
        """Line and column of the value at `pointer` (or of its nearest existing ancestor)."""
        if pointer not in self._cache:
            self._cache[pointer] = self._position(split_pointer(pointer))
        return self._cache[pointer]

    def _position(self, tokens: list[str]) -> tuple[int, int]:
        if not tokens or not tokens[0].isdigit() or int(tokens[0]) >= len(self.spans):
            return 1, 1
        number, start, end = self.spans[int(tokens[0])]
        text = self.raw[start:end].decode("utf-8", "replace")
        return number, line_col(text, _offset_of(text, tokens[1:]))[1]


def _record(text: str) -> Any:
    """One line's value by the fast path; `_Rejected` when the slow walk must look at it."""
    tokens = 0

    def constant(name: str) -> Any:
        nonlocal tokens
        if name != "Infinity":
            raise _Rejected
        tokens += 1
        return _BARE

    value = json.loads(text, object_pairs_hook=_strict_pairs, parse_constant=constant)
    if tokens:
        if tokens > 1 or not isinstance(value, dict) or value.get(INFINITY_KEY) is not _BARE:
            raise _Rejected
        value[INFINITY_KEY] = math.inf
    elif isinstance(value, dict):
        rate = value.get(INFINITY_KEY)
        if isinstance(rate, float) and math.isinf(rate):  # 1e999: not the token Infinity
            raise ValueError(TOO_LARGE)
    return value


def _allowed(problem: Problem, text: str) -> bool:
    """True for the walk's refusal of the one Infinity SGLang may write (see the module notes)."""
    return problem.pointer == f"/{INFINITY_KEY}" and text.startswith("Infinity", problem.col - 1)


def _kind(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


class _Reader:
    """The records of one file and the problems found so far."""

    def __init__(self, label: str, raw: bytes) -> None:
        self.label, self.raw = label, raw
        self.records: dict[str, Any] = {}
        self.spans: list[tuple[int, int, int]] = []
        self.problems: list[Problem] = []

    def at(self, number: int, col: int, pointer: str, message: str) -> None:
        self.problems.append(Problem(self.label, number, col, pointer, message))

    def line(self, number: int, start: int, end: int) -> None:
        """Read the non-empty line `number`, bytes `start` to `end`, as the next record."""
        index = len(self.spans)
        self.spans.append((number, start, end))
        chunk = self.raw[start:end]
        try:
            text = chunk.decode("utf-8")
        except UnicodeDecodeError as exc:
            col = len(chunk[: exc.start].decode("utf-8", "replace")) + 1
            self.at(number, col, f"/{index}", f"invalid UTF-8 (byte 0x{chunk[exc.start]:02x})")
            return
        try:
            value = _record(text)
        except _Rejected:
            self._walked(number, index, text, end)
            return
        except json.JSONDecodeError as exc:
            message = self._said(_syntax_problem(self.label, text, exc).message, end)
            self.at(number, exc.colno, f"/{index}", message)
            return
        except ValueError as exc:  # an integer too long for int(), or an overflowing rate
            if str(exc) == TOO_LARGE:
                col = line_col(text, _offset_of(text, [INFINITY_KEY]))[1]
                self.at(number, col, f"/{index}/{INFINITY_KEY}", TOO_LARGE)
            else:
                self._walked(number, index, text, end)
            return
        except RecursionError:
            self.at(number, 1, f"/{index}", "JSON nested too deeply")
            return
        if not isinstance(value, dict):
            col = len(text) - len(text.lstrip(" \t\r")) + 1
            self.at(number, col, f"/{index}", f"a record must be an object, not {_kind(value)}")
            return
        self.records[str(index)] = value

    def _walked(self, number: int, index: int, text: str, end: int) -> None:
        found = [p for p in _walk_problems(self.label, text) if not _allowed(p, text)]
        for p in found or [Problem(self.label, 1, 1, "", "invalid JSON")]:
            self.at(number, p.col, f"/{index}{p.pointer}", self._said(p.message, end))

    def _said(self, message: str, end: int) -> str:
        """jsonfile's syntax message as it applies to a line ending at byte `end`."""
        if message == _EXTRA:
            return "invalid JSON: more data after the end of the line's record"
        if _CONTENT.search(self.raw, end) is not None:  # more records follow: not the file's end
            return _CUT_SHORT.get(message, message)
        return message


def parse_json_lines(label: str, raw: bytes) -> JsonLinesDocument:
    """Parse one JSON Lines file's bytes; raise `InputError` with every located problem."""
    if raw.startswith(_BOM):
        message = "file starts with a UTF-8 byte order mark; JSON Lines must not"
        raise InputError([Problem(label, 1, 1, "", message)])
    reader = _Reader(label, raw)
    start, number = 0, 0
    while start < len(raw):
        end = raw.find(b"\n", start)
        end = len(raw) if end < 0 else end
        number += 1
        if _CONTENT.search(raw, start, end) is not None:  # a line of blanks holds no record
            reader.line(number, start, end)
        start = end + 1
    if not reader.spans:
        reader.at(1, 1, "", "file is empty: no line holds a record")
    if reader.problems:
        raise InputError(reader.problems)
    digest = hashlib.sha256(raw).hexdigest()
    return JsonLinesDocument(label, digest, "", reader.records, raw=raw, spans=tuple(reader.spans))
