"""Load stage for llama-bench files that are not one JSON value nor clean JSON Lines: bytes in,
one document of all their tests out, or None for any other file.

Several outputs back to back (`concatenated`). `llama-bench -o json >> all.json` in a shell loop
writes one JSON array per run, one after the other (`[...]\n[...]\n`); `-o jsonl > all.json`
writes one test object a line. Neither is one JSON value, so
`reportgen.formats.json_input.document.parse_json` refuses them ("more data after the end of the
top-level value"); the loader then asks `concatenated`, which reads the values one after the other
and, when every value is an array of llama-bench tests or one such test, gives a `JsonArrayDocument`
of all the tests in file order: "0", "1", ... across the arrays, as if they were one array. Its
`locate` walks from the test's own place in the text, so `/85/avg_ts` is the line and column of that
value in the file.

Log lines among JSON Lines (`with_log_lines`). `llama-bench -o jsonl 2>&1 | tee run.jsonl`
writes the backend's messages on stderr ("ggml_cuda_init: found 1 ROCm devices:") into the file
beside the tests. When every line that does not parse starts with neither `{` nor `[` (so it was
never meant to be a record) and every other line is a llama-bench test, the document is the
tests, read as `reportgen.formats.json_input.lines` reads the file with those lines left blank: line
and column stay the file's own, and "/0" is the first test. `LoggedLinesDocument.skipped` keeps the
lines left out, which the format reports as one warning.

An array cut short (`cut_short`). llama-bench prints each test of `-o json` as it finishes and the
closing `]` at the end, so a run that stopped (out of memory at a large depth, interrupted) leaves
`[` and the tests it finished, the last perhaps cut in the middle. When the file is such an array
and ends exactly there, the document is its complete tests, and `CutShortDocument.stops_at` is
where the file ends, which the format reports as one warning.

llama-bench's other outputs (`other_file`, the format's `RunFormat.other_files`). Its default
markdown table (`-o md`), `-o csv` and `-o sql` are not JSON; a file that starts as one of them is
refused with one error that names it and the option to run instead, rather than with the JSON
reader's "Expecting value".

Anything else (a value that is not a test, a duplicate key, NaN, a line that looks like a broken
record) gives None, and the loader reports the JSON reader's own problems.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields
from typing import Any

from reportgen.errors import InputError, Problem
from reportgen.formats.json_input.document import (
    JsonArrayDocument,
    JsonDocument,
    Rejected,
    child_offset,
    has_lone_surrogate,
    line_col,
    no_constant,
    skip_ws,
    split_pointer,
    strict_pairs,
    syntax_problem,
)
from reportgen.formats.json_input.lines import JsonLinesDocument, parse_json_lines

_DECODER = json.JSONDecoder(object_pairs_hook=strict_pairs, parse_constant=no_constant)
_PLAIN = json.JSONDecoder()  # to skip an item already checked by `_DECODER`
TEST_KEY = b'"n_prompt"'  # every llama-bench test has it


@dataclass(frozen=True, kw_only=True)
class ConcatenatedDocument(JsonArrayDocument):
    """The tests of several llama-bench outputs in one file; `starts` is each test's offset."""

    starts: tuple[int, ...] = field(default=(), compare=False, repr=False)

    def locate(self, pointer: str) -> tuple[int, int]:
        """Line and column of the value at `pointer` (or of its nearest existing ancestor)."""
        if pointer not in self._cache:
            tokens = split_pointer(pointer)
            if not tokens or not tokens[0].isdigit() or int(tokens[0]) >= len(self.starts):
                at = skip_ws(self.text, 0)
            else:
                at = self.starts[int(tokens[0])]
                for token in tokens[1:]:
                    if at >= len(self.text) or self.text[at] not in "{[":
                        break
                    found = child_offset(self.text, at, token)
                    if found is None:
                        break
                    at = found
            self._cache[pointer] = line_col(self.text, at)
        return self._cache[pointer]


def _is_test(value: Any) -> bool:
    return isinstance(value, dict) and "n_prompt" in value and "n_gen" in value


def _items(text: str, at: int) -> list[int]:
    """The offsets of the items of the array that starts at `at`."""
    starts, i = [], skip_ws(text, at + 1)
    while i < len(text) and text[i] != "]":
        starts.append(i)
        _, i = _PLAIN.raw_decode(text, i)
        i = skip_ws(text, i)
        if i < len(text) and text[i] == ",":
            i = skip_ws(text, i + 1)
    return starts


def concatenated(label: str, raw: bytes) -> ConcatenatedDocument | None:
    """The tests of a file of several llama-bench outputs back to back; None for any other."""
    if TEST_KEY not in raw:  # no test at all: said at once, however large the file
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    tests: list[Any] = []
    starts: list[int] = []
    values, i = 0, skip_ws(text, 0)
    try:
        while i < len(text):
            value, end = _DECODER.raw_decode(text, i)
            if isinstance(value, list) and value and all(_is_test(t) for t in value):
                tests += value
                starts += _items(text, i)
            elif _is_test(value):
                tests.append(value)
                starts.append(i)
            else:
                return None
            values, i = values + 1, skip_ws(text, end)
    except (Rejected, ValueError, RecursionError):
        return None
    if values < 2 or len(starts) != len(tests):
        return None
    digest = hashlib.sha256(raw).hexdigest()
    data = {str(k): t for k, t in enumerate(tests)}
    return ConcatenatedDocument(
        label=label, sha256=digest, text=text, data=data, starts=tuple(starts)
    )


@dataclass(frozen=True, kw_only=True)
class LoggedLinesDocument(JsonLinesDocument):
    """A JSON Lines file's llama-bench tests, with the log lines among them left out."""

    skipped: tuple[tuple[int, str], ...] = ()  # (line number, its text) of each line left out


def with_log_lines(label: str, raw: bytes) -> LoggedLinesDocument | None:
    """The tests of a JSON Lines file with log lines among them; None for any other file."""
    if TEST_KEY not in raw:
        return None
    kept, skipped = [], []
    number = 0
    for line in raw.split(b"\n"):
        number += 1
        text = line.decode("utf-8", "replace").strip()
        if not text or text[0] in "{[":
            kept.append(line)
            continue
        skipped.append((number, text))
        kept.append(b" " * len(line))  # a blank line of the same length: places stay the same
    if not skipped:
        return None
    try:
        doc = parse_json_lines(label, b"\n".join(kept))
    except InputError:
        return None
    if not doc.data or not all(_is_test(t) for t in doc.data.values()):
        return None
    same = {f.name: getattr(doc, f.name) for f in fields(doc) if f.init}
    same["sha256"] = hashlib.sha256(raw).hexdigest()
    return LoggedLinesDocument(**same, skipped=tuple(skipped))


@dataclass(frozen=True, kw_only=True)
class CutShortDocument(ConcatenatedDocument):
    """The complete tests of a `-o json` array that the file ends inside."""

    stops_at: tuple[int, int] = (1, 1)  # line and column where the file ends
    partial: bool = False  # True: a test was cut in the middle (left out)


def cut_short(label: str, raw: bytes) -> CutShortDocument | None:
    """The complete tests of a llama-bench array the file ends inside; None for any other file."""
    if TEST_KEY not in raw:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    i = skip_ws(text, 0)
    if not text.startswith("[", i):
        return None
    tests: list[Any] = []
    starts: list[int] = []
    partial, i = False, skip_ws(text, i + 1)
    while i < len(text):
        try:
            value, end = _DECODER.raw_decode(text, i)
        except json.JSONDecodeError as exc:  # the last test, when the file ends inside it
            partial = "truncated?" in syntax_problem(label, text, exc).message
            if not partial:
                return None
            break
        except (Rejected, ValueError, RecursionError):
            return None
        if not _is_test(value) or has_lone_surrogate(text, value):
            return None
        tests.append(value)
        starts.append(i)
        i = skip_ws(text, end)
        if text.startswith(",", i):
            i = skip_ws(text, i + 1)
        elif i < len(text):
            return None  # "]" (then the array was whole) or anything else: not cut short
    if not tests:
        return None
    digest = hashlib.sha256(raw).hexdigest()
    data = {str(k): t for k, t in enumerate(tests)}
    stops = line_col(text, len(text.rstrip()))
    return CutShortDocument(
        label=label,
        sha256=digest,
        text=text,
        data=data,
        starts=tuple(starts),
        stops_at=stops,
        partial=partial,
    )


def how_read(doc: JsonDocument) -> list[Problem]:
    """The one warning a document read by this module gets: what was left out, and why."""
    if isinstance(doc, LoggedLinesDocument) and doc.skipped:
        number, text = doc.skipped[0]
        shown = text if len(text) <= 60 else text[:57] + "..."
        message = (
            f"{len(doc.skipped)} line(s) are not JSON, the first {shown!r}: messages written "
            "into the file beside the tests (stderr redirected into it?); left out, and the "
            "tests read from the other lines"
        )
        return [
            Problem(
                path=doc.label, line=number, col=1, pointer="", message=message, severity="warning"
            )
        ]
    if isinstance(doc, CutShortDocument):
        last = "; a test cut in the middle is left out" if doc.partial else ""
        message = (
            f"the file ends here, inside the array, after {len(doc.data)} complete tests{last}: "
            "llama-bench stopped before its closing ] (out of memory, or interrupted?); the "
            "complete tests are read"
        )
        line, col = doc.stops_at
        return [
            Problem(
                path=doc.label, line=line, col=col, pointer="", message=message, severity="warning"
            )
        ]
    return []


# how each of llama-bench's non-JSON outputs starts, and its name
_OTHER_OUTPUTS = (
    ("| model ", "markdown table (its default output, -o md)"),
    ("build_commit,build_number,", "-o csv table"),
    ("CREATE TABLE IF NOT EXISTS test (", "-o sql script"),
    ("CREATE TABLE IF NOT EXISTS llama_bench (", "-o sql script"),
)


def other_file(text: str, data: Any) -> str | None:
    """The refusal of one of llama-bench's non-JSON outputs, from the file's start as text (its
    parsed JSON `data` is None: it did not parse); None for any other file
    (`RunFormat.other_files`)."""
    head = text.lstrip("\ufeff \t\r\n")
    name = next((name for start, name in _OTHER_OUTPUTS if head.startswith(start)), None)
    if data is not None or name is None:
        return None
    return (
        f"a llama-bench {name}, not JSON: reportgen reads llama-bench's -o json or -o jsonl "
        "output, which holds every repetition's time beside the averages; run llama-bench "
        "again with -o json (or -o jsonl) and give reportgen that file"
    )


def reread(label: str, raw: bytes, *, lines: bool) -> JsonDocument | None:
    """A file the JSON (`lines`: JSON Lines) reader refused, read as one of llama-bench's shapes
    above; None when it is none of them (the reader's own problems then stand)."""
    if lines:
        return with_log_lines(label, raw)
    return concatenated(label, raw) or cut_short(label, raw)
