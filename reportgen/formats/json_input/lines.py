"""Load stage for JSON Lines run files (`.jsonl`): bytes in, one parsed record a line, located.

A JSON Lines file holds one JSON object on each non-empty line; SGLang's `bench_serving` appends
one such line per run. A line holding only spaces, tabs or a carriage return is skipped. Each line
is parsed on its own under the rules of `reportgen.formats.json_input.document` (no duplicate key,
no NaN or Infinity, no integer too long to convert, UTF-8 without a byte order mark), and every
problem of every line is reported, not only the first line's.

Pointers. The document's data is an object with one member per record, keyed by the record's
index among the non-empty lines: "0" for the first, "1" for the next. A line that does not parse
keeps its index, so the records after it keep theirs. A JSON pointer into the file starts with
that index: `/2/request_rate` is the `request_rate` of the third record, and `/2` the record
itself. The line and column of a problem are the real ones in the file: the line number counts
every line (empty ones too), the column is the character in that line. A problem of the whole
file (a byte order mark, no record at all) has the empty pointer.

Infinity: a record may hold a bare `Infinity` as a top-level request rate or burstiness, as in a
JSON file (`reportgen.formats.json_input.document.INFINITY_KEYS`), and nowhere else.

Memory: `parse_json_lines` reads the file's bytes once (by the capped run-file reader); each line
is sliced, decoded and parsed on its own, so no decoded copy of the whole file is ever made. The
document keeps the bytes and each record's span, and decodes one line again only to locate a value
in it. A format that reads its records one at a time (AIPerf's per-request export) is not read
here but by `reportgen.formats.json_input.line_stream`, line by line with the same `LineReader`.

The fast path and the slow walk that locates a problem are `document.py`'s own, run on one line.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

from reportgen.errors import Capped, InputError, Problem, whole_file
from reportgen.formats.json_input.document import (
    EXTRA_DATA,
    TOO_LARGE,
    JsonDocument,
    Overflow,
    Rejected,
    infinity_allowed,
    line_col,
    loads_object,
    offset_of,
    split_pointer,
    syntax_problem,
    too_large_integers,
    walk_problems,
)

BOM = b"\xef\xbb\xbf"
BOM_MESSAGE = "file starts with a UTF-8 byte order mark; JSON Lines must not"
EMPTY_MESSAGE = "file is empty: no line holds a record"
_CONTENT = re.compile(rb"[^ \t\r\n]")
# document.py's messages for a document cut short, and what they mean for a line that is not last
_CUT_SHORT = {
    "string never closed: the file ends inside it (truncated?)": (
        "string never closed: the line ends inside it (a record must be one line)"
    ),
    "file ends in the middle of a value (truncated?)": (
        "line ends in the middle of a value (a record must be one line)"
    ),
}
_EXTRA = EXTRA_DATA


@dataclass(frozen=True, kw_only=True)
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
        return line_position(number, self.raw[start:end], tokens[1:])


def _kind(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


class LineReader:
    """Reads the non-empty lines of one file, in order, as records, and collects every problem.

    It never holds a record: `record` returns each to the caller. Whether a line cut short is the
    file's end is known only when another record follows, so the last line's problems keep the
    file-end wording until `record` is called again (`problems` is right at any time).
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self.count = 0  # the non-empty lines read: the next record's index
        self.capped = Capped()  # the first problems, and how many more (memory stays bounded)
        self.problems: list[Problem] = self.capped.kept
        self._pending: list[int] = []  # problems of the last line that say the file ends there

    def at(self, number: int, col: int, pointer: str, message: str) -> bool:
        """Record a problem at line `number`, column `col`; True when it is kept (the first
        `errors.PER_FILE` are, the others only counted)."""
        return self.capped.add(
            Problem(path=self.label, line=number, col=col, pointer=pointer, message=message)
        )

    def found(self) -> list[Problem]:
        """Every problem kept, and one that counts those left out."""
        return self.capped.problems()

    def record(self, number: int, chunk: bytes) -> Any | None:
        """The record on the non-empty line `number` (its bytes `chunk`, without the newline);
        None when the line has problems (collected)."""
        for k in self._pending:  # a record follows: the line before was not the file's end
            found = self.problems[k]
            self.problems[k] = replace(found, message=_CUT_SHORT[found.message])
        self._pending = []
        index, self.count = self.count, self.count + 1
        try:
            text = chunk.decode("utf-8")
        except UnicodeDecodeError as exc:
            col = len(chunk[: exc.start].decode("utf-8", "replace")) + 1
            self.at(number, col, f"/{index}", f"invalid UTF-8 (byte 0x{chunk[exc.start]:02x})")
            return None
        try:
            value = loads_object(text)
        except Rejected:
            self._walked(number, index, text)
            return None
        except json.JSONDecodeError as exc:
            message = syntax_problem(self.label, text, exc).message
            self._said(number, exc.colno, f"/{index}", message)
            return None
        except Overflow as exc:  # 1e999 as a request rate: not the token Infinity
            col = line_col(text, offset_of(text, [exc.key]))[1]
            self.at(number, col, f"/{index}/{exc.key}", TOO_LARGE)
            return None
        except ValueError:  # an integer too long for int()
            self._walked(number, index, text)
            return None
        except RecursionError:
            self.at(number, 1, f"/{index}", "JSON nested too deeply")
            return None
        huge = too_large_integers(self.label, text)
        for p in huge:
            self._said(number, p.col, f"/{index}{p.pointer}", p.message)
        if huge:
            return None
        if not isinstance(value, dict):
            col = len(text) - len(text.lstrip(" \t\r")) + 1
            self.at(number, col, f"/{index}", f"a record must be an object, not {_kind(value)}")
            return None
        return value

    def _walked(self, number: int, index: int, text: str) -> None:
        if self.capped.full:  # the slow walk explains; past the cap the line is one problem
            self.capped.count(
                Problem(path=self.label, line=number, col=1, pointer=f"/{index}", message="")
            )
            return
        found = [p for p in walk_problems(self.label, text) if not infinity_allowed(p, text)]
        for p in found or [whole_file(self.label, "invalid JSON")]:
            self._said(number, p.col, f"/{index}{p.pointer}", p.message)

    def _said(self, number: int, col: int, pointer: str, message: str) -> None:
        """document.py's syntax message as it applies to a line (see `_CUT_SHORT`)."""
        if message == _EXTRA:
            message = "invalid JSON: more data after the end of the line's record"
        if self.at(number, col, pointer, message) and message in _CUT_SHORT:
            self._pending.append(len(self.problems) - 1)


def is_blank(chunk: bytes) -> bool:
    """True for a line of spaces, tabs and carriage returns only: it holds no record."""
    return _CONTENT.search(chunk) is None


def line_position(number: int, line: bytes, tokens: list[str]) -> tuple[int, int]:
    """Line and column of the value at `tokens` (a pointer's, after the record's index) in the
    record on line `number`, whose bytes are `line`."""
    text = line.decode("utf-8", "replace")
    return number, line_col(text, offset_of(text, tokens))[1]


def parse_json_lines(label: str, raw: bytes) -> JsonLinesDocument:
    """Parse one JSON Lines file's bytes; raise `InputError` with every located problem."""
    if raw.startswith(BOM):
        raise InputError([whole_file(label, BOM_MESSAGE)])
    reader = LineReader(label)
    records: dict[str, Any] = {}
    spans: list[tuple[int, int, int]] = []
    start, number = 0, 0
    while start < len(raw):
        end = raw.find(b"\n", start)
        end = len(raw) if end < 0 else end
        number += 1
        if _CONTENT.search(raw, start, end) is not None:  # a line of blanks holds no record
            spans.append((number, start, end))
            value = reader.record(number, raw[start:end])
            if value is not None:
                records[str(len(spans) - 1)] = value
        start = end + 1
    if not spans:
        reader.at(1, 1, "", EMPTY_MESSAGE)
    if reader.capped:
        raise InputError(reader.found())
    digest = hashlib.sha256(raw).hexdigest()
    return JsonLinesDocument(
        label=label, sha256=digest, text="", data=records, raw=raw, spans=tuple(spans)
    )
