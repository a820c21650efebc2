"""Why a file is not read, in words its tool's user would accept: part of the load stage.

Two questions, asked only of a file that no format reads (`reportgen.formats.load`):

- Is it a file a benchmark tool writes beside its run file (an HTML or CSV report, a pooled
  summary, a sweep's table)? Then it is named as such, with the file to read instead. A format
  names its tool's other files (`RunFormat.other_files`); files of no format's tool are each one
  `Sibling` in `SIBLINGS`; both are recognised from the file's start as text or its parsed JSON.
- Else, which format is it nearest? Each format names the keys that make one of its files
  (`RunFormat.marks`, JSON pointers into the run, into a list's first item or a JSON Lines
  file's first record). The nearest is the format with the most of its marks present, at least
  half of them; the message names that format and only the marks the file lacks.

In: the file's bytes and label, or its parsed JSON. Out: a message, or None.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from reportgen.formats.base import RunFormat

HEAD_BYTES = 65_536  # a tool's other file is recognised from its first 64 KiB


@dataclass(frozen=True)
class Sibling:
    """A file a tool writes beside its run file, which reportgen does not read."""

    what: str  # "a GuideLLM HTML report"
    instead: str  # "the benchmarks.json GuideLLM writes with it (--outputs json)"
    # (the first 64 KiB of the file as text, the parsed JSON or None) -> True when it is one
    matches: Callable[[str, Any], bool]

    def message(self) -> str:
        """The refusal: what the file is and what to read instead."""
        return f"this is {self.what}, not a run file: reportgen reads {self.instead}"


def csv_header(text: str) -> list[str]:
    """The first line of a CSV text as lower-case cells (a byte-order mark and quotes dropped);
    [] when it has no comma."""
    first = text.lstrip("\ufeff").split("\n", 1)[0].strip()
    return [cell.strip().strip('"').lower() for cell in first.split(",")] if "," in first else []


def _html(text: str) -> bool:
    return bool(re.match(r"\s*(<!doctype html|<html)", text, re.IGNORECASE))


def _genai_perf_raw(_text: str, data: Any) -> bool:
    """perf_analyzer's raw export that GenAI-Perf writes: `experiments[].requests[]`."""
    if not isinstance(data, Mapping):
        return False
    experiments = data.get("experiments")
    return (
        isinstance(experiments, list)
        and bool(experiments)
        and isinstance(experiments[0], Mapping)
        and "requests" in experiments[0]
    )


SIBLINGS: tuple[Sibling, ...] = (
    Sibling(
        "perf_analyzer's raw profile_export.json (GenAI-Perf's per-request timestamps)",
        "the profile_export_genai_perf.json GenAI-Perf writes beside it",
        _genai_perf_raw,
    ),
)


# Last: any other HTML page or CSV table, which no tool writes as its run file.
_ANY_TEXT = (
    Sibling(
        "an HTML page",
        "the JSON (or JSON Lines) run file the benchmark tool wrote, not a report made from it",
        lambda text, _data: _html(text),
    ),
    Sibling(
        "a CSV table",
        "the JSON (or JSON Lines) run file the benchmark tool wrote, not a table made from it",
        lambda text, _data: len(csv_header(text)) > 1,
    ),
)


def sibling(formats: tuple[RunFormat, ...], text: str, data: Any) -> str | None:
    """The refusal of a tool's non-run file, from its beginning as text and its parsed JSON
    (None when it did not parse): each format's own `other_files` first, then `SIBLINGS`; None
    when it is none of them."""
    head = text[:HEAD_BYTES]
    for fmt in formats:
        said = fmt.other_files(head, data) if fmt.other_files else None
        if said:
            return said
    return next((s.message() for s in SIBLINGS if s.matches(head, data)), None)


def sibling_of_bytes(formats: tuple[RunFormat, ...], raw: bytes) -> str | None:
    """`sibling` for a file that is not JSON (an HTML or CSV report, or any HTML page or CSV
    table)."""
    text = raw[:HEAD_BYTES].decode("utf-8", "replace")
    if text.lstrip("\ufeff \t\r\n")[:1] in ("{", "["):
        return None  # broken JSON: its own located error says more
    return sibling(formats, text, None) or next(
        (s.message() for s in _ANY_TEXT if s.matches(text, None)), None
    )


def _has(node: Any, pointer: str) -> bool:
    for token in pointer.strip("/").split("/"):
        if not isinstance(node, Mapping) or token not in node:
            return False
        node = node[token]
    return True


def nearest(
    formats: tuple[RunFormat, ...], data: Mapping[str, Any], *, lines: bool, top_list: bool
) -> str | None:
    """The format a parsed file no format claimed is nearest, with the marks it lacks; None when
    no format of the file's kind (`lines`: JSON Lines records; `top_list`: a JSON array's items)
    has half its marks in the file. `data` is what the formats' `detect` saw (a list's or a JSON
    Lines file's items by index): marks of those formats are looked for in item "0"."""
    best: tuple[float, RunFormat, list[str]] | None = None
    for fmt in formats:
        if not fmt.marks or (fmt.lines, fmt.top_list) != (lines, top_list):
            continue
        node = data.get("0") if fmt.top_list or fmt.lines else data
        missing = [m for m in fmt.marks if not _has(node, m)]
        share = 1 - len(missing) / len(fmt.marks)
        if missing and share >= 0.5 and (best is None or share > best[0]):
            best = (share, fmt, missing)
    if best is None:
        return None
    _, fmt, missing = best
    lacks = ", ".join(m.strip("/") for m in missing)
    where = " (in its first item)" if fmt.top_list or fmt.lines else ""
    return (
        f"not a run file reportgen knows: nearest is {fmt.looks_like}, but it lacks {lacks}{where}"
    )
