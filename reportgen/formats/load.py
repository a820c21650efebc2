"""Load and validate stage for run files: paths in, normalized runs and located problems out.

Reads each file (the only I/O here), parses it as JSON (as JSON Lines when it is named `.jsonl`,
`reportgen.formats.json_input.lines`; a top-level array only for a format that reads one), detects
its format from content (`registry`), checks it against its schema, warns once about a version
outside those tested on real files (never refusing a file for its version), then hands the raw JSON
to the format's parser for semantic checks and normalization. A `.jsonl` file whose first record is
of a format that reduces its records as they come (AIPerf's per-request export) is instead read one
line at a time, validated and reduced record by record (`reportgen.formats.json_input.line_stream`),
with the same problems.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportgen.errors import PER_FILE, InputError, Problem, cap_problems, has_errors, whole_file
from reportgen.fileio import is_written_by_reportgen, open_input, read_input
from reportgen.formats.base import RunFormat
from reportgen.formats.json_input.document import (
    EXTRA_DATA,
    JsonArrayDocument,
    JsonDocument,
    parse_json,
    split_pointer,
)
from reportgen.formats.json_input.line_stream import Streamed, stream_json_lines
from reportgen.formats.json_input.lines import JsonLinesDocument, parse_json_lines
from reportgen.formats.llama_bench.concatenated import reread
from reportgen.formats.llm_inference_bench.packed_document import GiveUp
from reportgen.formats.refusals import nearest, sibling, sibling_of_bytes
from reportgen.formats.registry import FORMATS, detect, known_tools
from reportgen.formats.schema.validate import check
from reportgen.frozendict import FrozenDict
from reportgen.model import Provenance, Run, Scalar, SourceFile

_VERSION = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")
_TOP_LIST = any(f.top_list for f in FORMATS)  # a JSON file may then be a top-level array
# From this size a JSON file is first offered to the fast path (smaller ones load in a few ms
# either way, and the command need not import msgspec).
FAST_FROM_BYTES = 1_000_000


@dataclass(frozen=True)
class LoadResult:
    """Every run that loaded and every problem found, over all files."""

    runs: tuple[Run, ...]
    problems: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        """True when no file had an error (warnings allowed)."""
        return not has_errors(self.problems)


def tested_range(fmt: RunFormat) -> str:
    """The versions a format was tested on with real files, as "0.4.x to 0.7.x"."""
    if fmt.tested_versions is None:
        return "none: its files do not record a version"
    low, high = fmt.tested_versions
    return f"{low[0]}.{low[1]}.x" + ("" if low == high else f" to {high[0]}.{high[1]}.x")


def version_warning(fmt: RunFormat, version: str) -> str | None:
    """The one warning a file's version gets, or None: a file is read by its layout, which has
    validated by now, and its version is never a reason to refuse it. A version outside the
    range tested on real files, or none where the tool's files usually name one, is said once."""
    if fmt.tested_versions is None:
        return None  # the tool never records it: the article names the tool alone, and says so
    found = _VERSION.match(version)
    tested = tested_range(fmt)
    if not found:
        named = f"names its version as {version!r}" if version else "names no version"
        return (
            f"the file {named}: read by its layout, which is {fmt.tool}'s as reportgen reads it "
            f"(tested on real files of {tested})"
        )
    major_minor = (int(found.group(1)), int(found.group(2)))
    low, high = fmt.tested_versions
    if low <= major_minor <= high:
        return None
    return (
        f"written by {fmt.tool} {version}, outside the versions reportgen was tested on with real "
        f"files ({tested}); read by its layout, which validated: compare a few of its numbers "
        "with the tool's own output"
    )


def _provenance(data: dict[str, Any], inner: dict[str, Any]) -> Provenance:
    raw = data.get("dataProvenance") or inner.get("dataProvenance")
    if not raw:
        return Provenance(status="measured")
    return Provenance(
        status=raw["status"],
        reconstructed_from=raw.get("reconstructedFrom"),
        generator=raw.get("generator"),
        note=raw.get("note"),
    )


def _wrapper(data: dict[str, Any], base: str) -> FrozenDict[str, Scalar]:
    if not base:
        return FrozenDict()
    return FrozenDict(
        sorted(
            (k, v)
            for k, v in data.items()
            if k != base[1:] and (v is None or isinstance(v, str | int | float | bool))
        )
    )


def _unread(doc: JsonDocument, listed: bool) -> str:
    """Why no format reads a parsed file: a tool's non-run file named as such, a run of another
    kind of file (a list of one-run files, a JSON Lines record alone), else the format it is
    nearest and what it lacks, else what reportgen reads (`reportgen.formats.refusals`)."""
    lines = isinstance(doc, JsonLinesDocument)
    data: Any = [doc.data[str(i)] for i in range(len(doc.data))] if listed else doc.data
    said = sibling(FORMATS, doc.text, data)
    if said:
        return said
    record = detect({"0": doc.data}, lines=True) if not (listed or lines) else None
    if record is not None:
        return (
            f"not a run file reportgen knows as JSON: it is one record of {record[0].looks_like}, "
            "which reportgen reads as JSON Lines: name the file .jsonl"
        )
    said = nearest(FORMATS, doc.data, lines=lines, top_list=listed)
    if said:
        return said
    first = doc.data.get("0") if listed else None
    inner = detect(first) if isinstance(first, dict) else None
    if inner is not None:  # a list of runs of a format that keeps one run a file
        return (
            f"not a run file reportgen knows: a JSON array of {len(doc.data)} item(s), the first "
            f"of which is {inner[0].looks_like}; reportgen reads one such run a file: write "
            "each item to a file of its own"
        )
    kind = "a JSON array of items" if listed else "JSON Lines records" if lines else "JSON"
    return (
        f"not a run file reportgen knows: {kind} of no layout it reads; it reads the run files "
        f"of {known_tools()} (docs/metric-definitions.md names each file)"
    )


def load_document(doc: JsonDocument) -> tuple[Run | None, list[Problem]]:
    """Validate one parsed document and normalize it; the run is None when it has errors."""
    listed = isinstance(doc, JsonArrayDocument)
    found = detect(doc.data, lines=isinstance(doc, JsonLinesDocument), top_list=listed)
    if found is None:
        return None, [doc.problem("", _unread(doc, listed))]
    fmt, where = found
    if where.refusal:
        return None, [doc.problem(where.base, where.refusal)]
    problems = []
    if where.wrapper_schema:  # the wrapper around the run (its dataProvenance is read too)
        problems += [
            doc.problem(p.pointer, p.message) for p in check(where.wrapper_schema, doc.data)
        ]
    inner = doc.data
    for token in split_pointer(where.base):
        inner = inner[token]
    violations = check(where.schema, inner, limit=PER_FILE)
    problems += [doc.problem(where.base + p.pointer, p.message) for p in violations]
    if problems:
        return None, problems
    version, version_at = fmt.version(inner)
    untested = version_warning(fmt, version)
    provenance, wrapper = _provenance(doc.data, inner), _wrapper(doc.data, where.base)
    source = source_file(fmt, version, doc.label, doc.sha256, provenance, wrapper)
    run, problems = fmt.parse(doc, where.base, source)
    if untested:
        problems.insert(0, doc.problem(where.base + version_at, untested, "warning"))
    return (None if has_errors(problems) else run), problems


def source_file(
    fmt: RunFormat,
    version: str,
    label: str,
    sha256: str,
    provenance: Provenance,
    wrapper: FrozenDict[str, Scalar] = FrozenDict(),
) -> SourceFile:
    """The run file as its run names it: format, tool and version, digest, provenance, and the
    metadata of a wrapper around the run."""
    return SourceFile(
        label=label,
        sha256=sha256,
        format=fmt.name,
        tool=f"{fmt.tool} {version}" if version else fmt.tool,
        format_version=version,
        provenance=provenance,
        wrapper=wrapper,
    )


def _streamed(path: Path, label: str, inside: Path | None) -> Streamed | None:
    """A `.jsonl` file read one line at a time through its format's reducer; None when its
    format has none (`reportgen.formats.json_input.line_stream`)."""
    with open_input(path, "run", label=label, inside=inside) as handle:
        try:
            return stream_json_lines(label, handle, path, inside)
        except InputError:  # read whole by `parse_run_file` if llama-bench's tests among log lines
            if reread(label, read_input(path, "run", label=label, inside=inside), lines=True):
                return None
            raise


def load_streamed(streamed: Streamed) -> tuple[Run | None, list[Problem]]:
    """A streamed file's run and problems, as `load_document` gives them for the file read whole:
    its schema problems if any, else the reducer's run and problems (with the version's warning)."""
    if streamed.problems:
        return None, list(streamed.problems)
    fmt, lines = streamed.fmt, streamed.lines
    version, version_at = fmt.version(streamed.head)
    untested = version_warning(fmt, version)
    # a JSON Lines file has no dataProvenance
    source = source_file(fmt, version, lines.label, streamed.sha256, Provenance(status="measured"))
    run, problems = streamed.reducer.finish(source)
    if untested:
        problems.insert(0, lines.problem(streamed.where.base + version_at, untested, "warning"))
    return (None if has_errors(problems) else run), problems


RUN_FILE_GLOBS = ("*.json", "*.jsonl")


def folder_run_files(folder: Path) -> list[Path]:
    """The `*.json` and `*.jsonl` files of a folder (sorted), except those reportgen writes."""
    return sorted(
        p
        for pattern in RUN_FILE_GLOBS
        for p in folder.glob(pattern)
        if p.is_file() and not is_written_by_reportgen(p.name)
    )


def fast_run(label: str, raw: bytes) -> Run | None:
    """The run of an llm-inference-bench file that passes every check, by the fast path
    (`reportgen.formats.llm_inference_bench.packed`); None for any other file, which
    `parse_run_file` reads."""
    if b'"request_samples"' not in raw:  # not a bench file: found early in one, or scanned once
        return None
    from reportgen.formats.llm_inference_bench.packed import (
        fast_document,  # msgspec: ~50 ms to import
    )

    doc = fast_document(label, raw)
    if doc is None:
        return None
    try:
        run, problems = load_document(doc)
    except GiveUp:
        return None
    if problems or run is None or run.source.format != "llm-inference-bench":
        return None
    return run


def parse_run_file(label: str, raw: bytes, path: Path) -> JsonDocument:
    """One run file's bytes parsed: JSON Lines when `path` is named `.jsonl`, else JSON; a `.json`
    file of one object a line (vLLM's `--append-result` writes its results so) as JSON Lines
    when its first record is a JSON Lines format's, else with its JSON error."""
    try:
        if path.suffix == ".jsonl":
            return parse_json_lines(label, raw)
        try:
            return parse_json(label, raw, top_list=_TOP_LIST)
        except InputError as exc:
            if [p.message for p in exc.problems] != [EXTRA_DATA]:
                raise
            try:
                lines = parse_json_lines(label, raw)
            except InputError:
                raise exc from None
            if detect(lines.data, lines=True) is None:
                raise exc from None
            return lines
    except InputError:  # llama-bench's appended, cut-short or stderr-mixed output
        found = reread(label, raw, lines=path.suffix == ".jsonl")
        if found is None:
            raise
        return found


def _load_file(path: Path, label: str, inside: Path | None) -> tuple[Run | None, list[Problem]]:
    """One run file read, validated and normalized: a large llm-inference-bench file by the fast
    path, a `.jsonl` file of a reducing format line by line, any other read whole; the run is None
    when the file has errors, and a file that cannot be read or parsed gives its problems (a
    tool's non-run file named as such)."""
    raw: bytes | None = None
    try:
        streamed = _streamed(path, label, inside) if path.suffix == ".jsonl" else None
        if streamed is None:
            raw = read_input(path, "run", label=label, inside=inside)
            big = len(raw) >= FAST_FROM_BYTES and path.suffix != ".jsonl"
            fast = fast_run(label, raw) if big else None
            if fast is not None:
                return fast, []
            doc = parse_run_file(label, raw, path)
    except InputError as exc:
        other = sibling_of_bytes(FORMATS, raw) if raw is not None else None
        return None, ([whole_file(label, other)] if other else list(exc.problems))
    return load_document(doc) if streamed is None else load_streamed(streamed)


def load(
    paths: Iterable[Path], *, label_root: Path | None = None, inside: Path | None = None
) -> LoadResult:
    """Read, validate and normalize every run file in `paths`, collecting every problem.

    `label_root`: name files relative to this folder in problems and provenance. `inside`: each
    file must resolve into this folder (an article's run files).
    """
    runs: list[Run] = []
    problems: list[Problem] = []
    for path in paths:
        label = str(path.relative_to(label_root)) if label_root else str(path)
        run, found = _load_file(path, label, inside)
        problems.extend(found)
        if run is not None:
            runs.append(run)
    return LoadResult(tuple(runs), tuple(cap_problems(problems)))
