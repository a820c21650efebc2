"""Load stage for a JSON Lines run file read one line at a time: an open file in, every record
validated and handed at once to its format's reducer, located problems out.

The file is read line by line; each non-empty line is parsed by
`reportgen.formats.json_input.lines`'s `LineReader` (the same rules and messages as a file read
whole), checked against the format's schema on its own (`{index: record}`, so pointers are `/N/...`
as for the whole file), and given to the format's `Reducer`, which keeps what it needs in packed
numbers and drops the record. The sha256 is computed as the bytes go by. What stays in memory, per
record, is its line number and byte offset (16 bytes), to locate a problem found later: `locate`
reads that one line again.

Only a format with a reducer (`RunFormat.reduce`) is streamed, decided by the first record (as
`detect` decides for a file read whole). For any other file `stream_json_lines` returns None
after that first line, and the caller reads the file whole (`parse_json_lines`).

The outcome is the whole-file reader's: any syntax problem in any line, and those alone, raise
`InputError`; else any schema problem, and those alone, are the result; else the reducer's run.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO

from reportgen.errors import Capped, InputError, Problem, counted, whole_file
from reportgen.fileio import cap_bytes, open_input, too_big
from reportgen.formats.base import Detection, Reducer, RunFormat
from reportgen.formats.json_input.document import split_pointer
from reportgen.formats.json_input.lines import (
    BOM,
    BOM_MESSAGE,
    EMPTY_MESSAGE,
    LineReader,
    is_blank,
    line_position,
)
from reportgen.formats.registry import detect
from reportgen.formats.schema.validate import accepts, check
from reportgen.resources import schema_dir


class LineIndex:
    """Where each record of a file is (line number and byte offset, packed), to locate a pointer
    into it: in the record being read without reading again, in an earlier one by reading its
    line from the file, opened as the reader opened it (`inside` the article folder)."""

    def __init__(self, label: str, path: Path, inside: Path | None = None) -> None:
        self.label, self.path, self.inside = label, path, inside
        self.numbers, self.starts = array("q"), array("q")
        self.current: bytes = b""  # the last record's line, as read

    def add(self, number: int, start: int, line: bytes) -> None:
        """The next record is on line `number`, at byte `start`; `line` is its text."""
        self.numbers.append(number)
        self.starts.append(start)
        self.current = line

    def locate(self, pointer: str) -> tuple[int, int]:
        """Line and column of the value at `pointer` (or of its nearest existing ancestor)."""
        tokens = split_pointer(pointer)
        if not tokens or not tokens[0].isdigit() or int(tokens[0]) >= len(self.numbers):
            return 1, 1
        index = int(tokens[0])
        if index == len(self.numbers) - 1:
            line = self.current
        else:
            with open_input(self.path, "run", label=self.label, inside=self.inside) as f:
                f.seek(self.starts[index])
                line = f.readline().removesuffix(b"\n")
        return line_position(self.numbers[index], line, tokens[1:])

    def problem(self, pointer: str, message: str, severity: str = "error") -> Problem:
        """A problem located at `pointer` in this file."""
        line, col = self.locate(pointer)
        return Problem(
            path=self.label,
            line=line,
            col=col,
            pointer=pointer,
            message=message,
            severity=severity,  # type: ignore[arg-type]
        )


@dataclass(frozen=True, kw_only=True)
class Streamed:
    """A JSON Lines file read through its format's reducer: the format, where its run is, the
    first record by its index (for the version), the reducer to finish, the file's digest, the
    schema problems (the result, when there are any) and the index that locates a pointer."""

    fmt: RunFormat
    where: Detection
    head: dict[str, Any]
    reducer: Reducer
    sha256: str
    problems: tuple[Problem, ...]
    lines: LineIndex


def _lines(handle: BinaryIO, digest: Any, limit: int) -> Iterator[tuple[int, int, bytes]]:
    """(line number, byte offset, bytes without the newline) of each non-empty line of `handle`;
    every byte read goes through `digest`. Stops with `limit` + 1 bytes read (the file grew)."""
    offset = 0
    for number, line in enumerate(handle, start=1):
        digest.update(line)
        if not is_blank(line):
            yield number, offset, line.removesuffix(b"\n")
        offset += len(line)
        if offset > limit:
            return


def _streaming(head: dict[str, Any]) -> tuple[RunFormat, Detection] | None:
    """The format of a file whose first record is `head["0"]`, when it is read by a reducer."""
    found = detect(head, lines=True)
    if found is None or found[0].reduce is None or found[1].refusal or found[1].wrapper_schema:
        return None
    return found


def stream_json_lines(
    label: str, handle: BinaryIO, path: Path, inside: Path | None = None
) -> Streamed | None:
    """Read the JSON Lines file open as `handle` (at `path`, `inside` the article folder if
    given) through its format's reducer; None, after one record, when its format has none.
    Raises `InputError` with every syntax problem."""
    limit, digest = cap_bytes("run"), hashlib.sha256()
    if handle.read(len(BOM)) == BOM:
        raise InputError([whole_file(label, BOM_MESSAGE)])
    handle.seek(0)
    reader, lines, folder = LineReader(label), LineIndex(label, path, inside), schema_dir()
    head: dict[str, Any] = {}
    found: tuple[RunFormat, Detection] | None = None
    reducer: Reducer | None = None
    schema_problems = Capped()  # the first ones located, the others counted
    for number, start, line in _lines(handle, digest, limit):
        index = reader.count
        lines.add(number, start, line)
        value = reader.record(number, line)
        if index == 0 and value is not None:
            head = {"0": value}
            found = _streaming(head)
            if found is None or found[0].reduce is None:
                return None
            reducer = found[0].reduce(found[1].base, lines.problem)
        if value is None or reader.problems or found is None or reducer is None:
            continue  # a syntax problem decides the outcome: only look for more of them
        key, schema = str(index), found[1].schema
        if schema_problems.full:  # explained enough: a bad record is only counted, as one
            if not accepts(schema, {key: value}, folder):
                schema_problems.count(_unlocated(lines, f"/{key}"))
            continue
        room = schema_problems.limit - len(schema_problems.kept)
        for p in check(schema, {key: value}, folder, limit=room):
            kept = not counted(p.message)[0] and not schema_problems.full
            place = lines.problem if kept else partial(_unlocated, lines)
            schema_problems.add(place(p.pointer, p.message))
        if not schema_problems:
            reducer.add(key, value)
    if handle.tell() > limit:
        raise too_big(label, "run", limit)
    if reader.count == 0:
        reader.at(1, 1, "", EMPTY_MESSAGE)
    if reader.capped:
        raise InputError(reader.found())
    assert found is not None and reducer is not None  # record "0" parsed, and is streamed
    sha = digest.hexdigest()
    return Streamed(
        fmt=found[0],
        where=found[1],
        head=head,
        reducer=reducer,
        sha256=sha,
        problems=tuple(schema_problems.problems()),
        lines=lines,
    )


def _unlocated(lines: LineIndex, pointer: str, message: str = "") -> Problem:
    """A problem only counted: placed at its record's line, which costs no reading."""
    tokens = split_pointer(pointer)
    index = int(tokens[0]) if tokens and tokens[0].isdigit() else 0
    number = lines.numbers[index] if index < len(lines.numbers) else 1
    return Problem(path=lines.label, line=number, col=1, pointer=pointer, message=message)
