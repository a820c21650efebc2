"""The interface every input format implements: detect a run in a parsed file, name its
version, and map it to the run model with its semantic problems.

A format is one module with one `RunFormat` value, registered in `reportgen.formats.registry`.
Schema checks, the untested-version warning and provenance are the loader's
(`reportgen.formats.load`). A layout whose meaning differs from the one a format reads (a field
renamed, a unit changed) is refused by the format's `detect`, through `Detection.refusal`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from reportgen.errors import Problem
from reportgen.formats.json_input.document import JsonDocument
from reportgen.model import FormatName, Run, SourceFile

VersionRange = tuple[tuple[int, int], tuple[int, int]]  # (major, minor) lowest, highest tested
# (pointer, message, severity) -> the problem located in the file being read
ProblemAt = Callable[[str, str, str], Problem]


class Reducer(Protocol):
    """A run built from a JSON Lines file's records one at a time, each dropped once read."""

    def add(self, key: str, record: dict[str, Any]) -> None:
        """Take the schema-valid record at index `key` ("0", "1", ...)."""

    def finish(self, source: SourceFile) -> tuple[Run, list[Problem]]:
        """The run and its semantic problems, once every record was added."""


@dataclass(frozen=True)
class Detection:
    """Where a format found its run in a document, and the schemas that apply."""

    base: str  # JSON pointer of the run inside the document ("" when the file is the run)
    schema: str  # schema (file stem in schemas/) the run must satisfy
    wrapper_schema: str | None = None  # schema of the wrapping document, when there is one
    refusal: str | None = None  # set when the file is this format but cannot be read as one


@dataclass(frozen=True, kw_only=True)
class RunFormat:
    """One input format."""

    name: FormatName
    tool: str  # the tool that writes it, as the article names it ("llm-inference-bench")
    # The versions whose real files reportgen was tested on. A file is read by its layout, never
    # refused by its version: outside this range, or naming no version, it gets one warning
    # (`reportgen.formats.load`). None: the tool's files never record its version.
    tested_versions: VersionRange | None
    # the format's files in a phrase, for refusals ("nearest is a GuideLLM benchmarks.json")
    looks_like: str
    detect: Callable[[dict[str, Any]], Detection | None]
    # (version string, pointer of the version) of a schema-valid run
    version: Callable[[dict[str, Any]], tuple[str, str]]
    # the run model and semantic problems, for the run at the detection's base pointer
    parse: Callable[[JsonDocument, str, SourceFile], tuple[Run, list[Problem]]]
    # True: its files are JSON Lines (`.jsonl`, `reportgen.formats.json_input.lines`), and `detect`
    # and `parse` see the records by index; False: one JSON document. Each file is offered only to
    # the formats of its kind.
    lines: bool = False
    # True: its files are JSON whose top level is an array, which `detect` and `parse` see as its
    # items by index ("0", "1", ...), as JSON Lines records: pointers (`/3/avg_ts`) are the file's
    # own. A file whose top level is an array is offered to these formats only, and refused as
    # JSON when none claims it.
    top_list: bool = False
    # For a JSON Lines format: a reducer of its records, given the run's base pointer and a
    # `ProblemAt`. Its files are then read one line at a time
    # (`reportgen.formats.json_input.line_stream`), so a file of a million records is never in
    # memory; `detect` must decide from record "0".
    reduce: Callable[[str, ProblemAt], Reducer] | None = None
    # JSON pointers of the keys that make one of its files (in a list's first item, a JSON Lines
    # file's first record): a file no format reads is named near this format when it has at
    # least half of them, with the ones it lacks (`reportgen.formats.refusals`)
    marks: tuple[str, ...] = ()
    # A file the tool writes beside its run file (a CSV summary, a sweep's table), named with
    # the file to read instead: (the file's start as text, its parsed JSON or None; a list for a
    # JSON array) -> "this is X (name): ...; give reportgen Y", or None
    # (`reportgen.formats.refusals`)
    other_files: Callable[[str, Any], str | None] | None = None
