"""Load and validate stage for run files: paths in, normalized runs and located problems out.

Reads each file (the only I/O here), detects its format from content, checks it against its
schema, refuses format versions reportgen does not know, then hands the raw JSON to the format's
parser (`reportgen.lmx`, `reportgen.bench`) for semantic checks and normalization.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportgen import bench, lmx
from reportgen.errors import InputError, Problem, has_errors
from reportgen.jsonfile import JsonDocument, parse_json, pointer_of, split_pointer
from reportgen.lmxapi import RECORD_FILE
from reportgen.model import FormatName, Provenance, Run, Scalar, SourceFile
from reportgen.schemas import check

# Format versions whose meaning reportgen knows: (major, minor) ranges, inclusive.
KNOWN_VERSIONS: dict[FormatName, tuple[tuple[int, int], tuple[int, int]]] = {
    "llm-inference-bench": ((0, 6), (0, 7)),
    "lmx-speed-test": ((0, 1), (0, 1)),
}
_VERSION = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")


@dataclass(frozen=True)
class Detected:
    """What a document is: its format, the pointer of the run inside it, the schema to apply."""

    format: FormatName
    base: str
    schema: str


@dataclass(frozen=True)
class LoadResult:
    """Every run that loaded and every problem found, over all files."""

    runs: tuple[Run, ...]
    problems: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        """True when no file had an error (warnings allowed)."""
        return not has_errors(self.problems)


def detect(data: dict[str, Any]) -> Detected | None:
    """Recognise a run file from its keys; None when it is neither known format."""
    if "tokSOut" in data:
        return Detected("lmx-speed-test", "", "lmx-speed-test")
    payload = data.get("payload")
    if isinstance(payload, dict) and "tokSOut" in payload:
        return Detected("lmx-speed-test", "/payload", "lmx-speed-test")
    if "metadata" in data and "results" in data:
        return Detected("llm-inference-bench", "", "llm-inference-bench")
    wrapped = [
        k for k, v in data.items() if isinstance(v, dict) and "metadata" in v and "results" in v
    ]
    if len(wrapped) == 1:
        return Detected("llm-inference-bench", pointer_of([wrapped[0]]), "lmx-matrix")
    return None


def _version(fmt: FormatName, inner: dict[str, Any]) -> tuple[str, str, str]:
    """(tool, version string, pointer of the version) for a schema-valid run."""
    if fmt == "llm-inference-bench":
        return "llm-inference-bench", str(inner["metadata"]["version"]), "/metadata/version"
    prov = inner["provenance"]
    if "cliVersion" in prov:
        return "lmx", str(prov["cliVersion"]).lstrip("v"), "/provenance/cliVersion"
    found = _VERSION.search(str(prov["cli"]))
    return "lmx", (found.group(0).lstrip("v") if found else "unknown"), "/provenance/cli"


def _version_problem(fmt: FormatName, tool: str, version: str) -> str | None:
    found = _VERSION.match(version)
    if not found:
        return None  # lmx files need not name their version
    major_minor = (int(found.group(1)), int(found.group(2)))
    low, high = KNOWN_VERSIONS[fmt]
    known = f"{low[0]}.{low[1]}.x" + ("" if low == high else f" to {high[0]}.{high[1]}.x")
    if major_minor > high:
        return f"{tool} {version} is newer than the formats reportgen knows ({known}); refusing it"
    if major_minor < low:
        return f"{tool} {version} is older than the formats reportgen knows ({known}); refusing it"
    return None


def _provenance(data: dict[str, Any], inner: dict[str, Any]) -> Provenance:
    raw = data.get("dataProvenance") or inner.get("dataProvenance")
    if not raw:
        return Provenance("measured")
    return Provenance(
        status=raw["status"],
        reconstructed_from=raw.get("reconstructedFrom"),
        generator=raw.get("generator"),
        note=raw.get("note"),
    )


def _wrapper(data: dict[str, Any], base: str) -> tuple[tuple[str, Scalar], ...]:
    if not base:
        return ()
    return tuple(
        sorted(
            (k, v)
            for k, v in data.items()
            if k != base[1:] and (v is None or isinstance(v, str | int | float | bool))
        )
    )


def load_document(doc: JsonDocument) -> tuple[Run | None, list[Problem]]:
    """Validate one parsed document and normalize it; the run is None when it has errors."""
    found = detect(doc.data)
    if found is None:
        wrapped = [
            pointer_of([k])
            for k, v in doc.data.items()
            if isinstance(v, dict) and "metadata" in v and "results" in v
        ]
        if len(wrapped) > 1:
            return None, [
                doc.problem(
                    "",
                    f"llm-inference-bench results under {len(wrapped)} keys "
                    f"({', '.join(wrapped)}); a run file holds one run",
                )
            ]
        return None, [
            doc.problem(
                "",
                "not a run file reportgen knows: expected an lmx speed-test run (with tokSOut) "
                "or an llm-inference-bench benchmark_results.json (with metadata and results), "
                "bare or inside one wrapping key",
            )
        ]
    problems = []
    if found.base:  # the wrapper around the run (its dataProvenance is read too)
        problems += [doc.problem(p.pointer, p.message) for p in check("lmx-matrix", doc.data)]
    inner = doc.data
    for token in split_pointer(found.base):
        inner = inner[token]
    schema_name = "llm-inference-bench" if found.format == "llm-inference-bench" else found.schema
    problems += [doc.problem(found.base + p.pointer, p.message) for p in check(schema_name, inner)]
    if problems:
        return None, problems
    tool, version, where = _version(found.format, inner)
    refused = _version_problem(found.format, tool, version)
    if refused:
        return None, [doc.problem(found.base + where, refused)]
    source = SourceFile(
        label=doc.label,
        sha256=doc.sha256,
        format=found.format,
        tool=f"{tool} {version}",
        format_version=version,
        provenance=_provenance(doc.data, inner),
        wrapper=_wrapper(doc.data, found.base),
    )
    run: Run
    if found.format == "lmx-speed-test":
        run, problems = lmx.parse(doc, found.base, source)
    else:
        run, problems = bench.parse(doc, found.base, source)
    return (None if has_errors(problems) else run), problems


# JSON files reportgen itself writes into article folders; never run files.
NOT_RUN_FILES = (RECORD_FILE,)
NOT_RUN_SUFFIXES = (".payload.json",)


def run_files(paths: Iterable[Path]) -> list[Path]:
    """Expand folders into run files; keep files as given.

    An article folder (one with `article.toml`) holds the run files its manifest names; any other
    folder, its `*.json` files (sorted) except those reportgen writes (submission records, saved
    payloads).
    """
    from reportgen.article import MANIFEST, load_article

    out: list[Path] = []
    for path in paths:
        if path.is_dir() and (path / MANIFEST).is_file():
            out.extend(load_article(path).run_paths())
        elif path.is_dir():
            out.extend(
                sorted(
                    p
                    for p in path.glob("*.json")
                    if p.is_file()
                    and p.name not in NOT_RUN_FILES
                    and not p.name.endswith(NOT_RUN_SUFFIXES)
                )
            )
        else:
            out.append(path)
    return out


def load(paths: Iterable[Path], *, label_root: Path | None = None) -> LoadResult:
    """Read, validate and normalize every run file under `paths`, collecting every problem."""
    runs: list[Run] = []
    problems: list[Problem] = []
    expanded = [(p, run_files([p])) for p in paths]
    for path in (f for _, listed in expanded for f in listed):
        label = str(path.relative_to(label_root)) if label_root else str(path)
        try:
            raw = path.read_bytes()
        except OSError as exc:
            problems.append(Problem(label, 1, 1, "", f"cannot read file: {exc.strerror}"))
            continue
        try:
            doc = parse_json(label, raw)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        run, found = load_document(doc)
        problems.extend(found)
        if run is not None:
            runs.append(run)
    problems.extend(
        Problem(str(p), 1, 1, "", "no run files (*.json) found")
        for p, listed in expanded
        if p.is_dir() and not listed
    )
    return LoadResult(tuple(runs), tuple(sorted(problems)))
