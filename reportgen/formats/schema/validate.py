"""Schema stage: raw JSON data in, schema problems out.

Each schema in `schemas/` is compiled once into one plain Python predicate by
`reportgen.formats.schema.compiled` (fast path: every file and every sample is checked). Only when
a document fails is it run through jsonschema's Draft 2020-12 validator, which reports every problem
with its path; those are the messages users see.
"""

from __future__ import annotations

import heapq
import itertools
import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema import ValidationError
    from referencing import Registry

from reportgen.errors import PER_FILE, counted, did_you_mean, more_problems
from reportgen.fileio import read_input
from reportgen.formats.json_input.document import TOO_LARGE, pointer_of
from reportgen.formats.schema.compiled import Predicate, predicate
from reportgen.formats.schema.refs import inline_refs
from reportgen.resources import schema_dir

SCHEMA_FILES = {
    "provenance": "provenance.schema.json",
    "lmx-speed-test": "lmx-speed-test.schema.json",
    "llm-inference-bench": "llm-inference-bench.schema.json",
    "llama-bench": "llama-bench.schema.json",
    "lmx-matrix": "lmx-matrix.schema.json",
    "vllm-bench": "vllm-bench.schema.json",
    "vllm-bench-lines": "vllm-bench-lines.schema.json",
    "sglang-bench": "sglang-bench.schema.json",
    "guidellm": "guidellm.schema.json",
    "aiperf": "aiperf.schema.json",
    "aiperf-records": "aiperf-records.schema.json",
    "genai-perf": "genai-perf.schema.json",
    "inference-perf": "inference-perf.schema.json",
    "inference-perf-requests": "inference-perf-requests.schema.json",
    "article": "article.schema.json",
    "check-result": "check-result.schema.json",
    "metrics": "metrics.schema.json",
}


@dataclass(frozen=True)
class SchemaProblem:
    """One schema violation: JSON pointer (relative to the validated value) and message."""

    pointer: str
    message: str


@dataclass(frozen=True)
class _Schemas:
    by_id: dict[str, dict[str, Any]]
    by_name: dict[str, dict[str, Any]]


@cache
def _schemas(folder: Path) -> _Schemas:
    by_id: dict[str, dict[str, Any]] = {}
    by_name: dict[str, dict[str, Any]] = {}
    for name, filename in SCHEMA_FILES.items():
        path = folder / filename
        if not path.exists():
            continue
        # The bundled schemas are checked against the metaschema by the tests, not on every run
        # (that costs ~0.14 s a process).
        schema = json.loads(read_input(path, "cache").decode("utf-8"))
        by_id[schema["$id"]] = schema
        by_name[name] = schema
    return _Schemas(by_id, by_name)


@cache
def _registry(folder: Path) -> Registry[Any]:
    """The schemas for jsonschema's validator, which explains a failure (imported only then:
    jsonschema and referencing cost ~0.09 s a process)."""
    from referencing import Registry, Resource

    by_id = _schemas(folder).by_id
    return Registry().with_resources((sid, Resource.from_contents(s)) for sid, s in by_id.items())


@cache
def _inlined(name: str, folder: Path) -> dict[str, Any]:
    schemas = _schemas(folder)
    root = schemas.by_name[name]
    inlined: dict[str, Any] = inline_refs(root, str(root.get("$id", "")), schemas.by_id)
    return inlined


@cache
def _accepts(name: str, folder: Path) -> Predicate:
    """Valid or not under schema `name`: its compiled predicate (`Unsupported` if it has none)."""
    return predicate(_inlined(name, folder))


def schema(name: str, folder: Path | None = None) -> dict[str, Any]:
    """The parsed schema called `name`."""
    return _schemas(folder or schema_dir()).by_name[name]


def schema_version(name: str, folder: Path | None = None) -> int:
    """The layout version schema `name` describes (its `schema_version` const, or the maximum of
    the versions it reads): what the file's writer records, and the newest its reader knows."""
    declared = schema(name, folder)["properties"]["schema_version"]
    version: int = declared["const"] if "const" in declared else declared["maximum"]
    return version


def _message(error: ValidationError) -> str:
    if isinstance(error.instance, float) and not math.isfinite(error.instance):
        return TOO_LARGE  # 1e999 reads as infinity: say what it was, not "inf is greater ..."
    big = error.instance
    if isinstance(big, int) and not isinstance(big, bool) and abs(big) >= 10**21:
        # a 400-digit integer is named by its size, not printed whole
        digits = len(str(abs(big)))
        if error.validator in ("maximum", "exclusiveMaximum"):
            return (
                f"a {digits}-digit number is greater than the maximum of {error.validator_value:g}"
            )
        return f"a {digits}-digit number: {str(error.message).split(' ', 1)[1]}"
    if error.validator == "required":
        return str(error.message).replace(" is a required property", " is required")
    described = error.schema.get("description") if isinstance(error.schema, dict) else None
    if error.validator in ("pattern", "maxLength", "anyOf", "oneOf") and described:
        # A regular expression is no explanation; the schema says what the value should be.
        return f"{error.instance!r} is not {described}"
    return str(error.message)


def _leaf_errors(error: ValidationError) -> Iterator[ValidationError]:
    described = isinstance(error.schema, dict) and error.schema.get("description")
    if error.validator in ("anyOf", "oneOf") and error.context and not described:
        from jsonschema.exceptions import best_match

        best = best_match(error.context)
        if best is not None:
            yield from _leaf_errors(best)
            return
    yield error


# At most this many violations of one document are explained by jsonschema (about 10 µs each,
# and more for a deep one); past them the search stops and the count left out is "at least".
EXPLAINED = 1_000


def accepts(name: str, data: Any, folder: Path | None = None) -> bool:
    """True when `data` is valid under schema `name` (the compiled predicate: no explanation)."""
    return _accepts(name, folder or schema_dir())(data)


def check(
    name: str, data: Any, folder: Path | None = None, limit: int = PER_FILE
) -> list[SchemaProblem]:
    """Every violation of schema `name` by `data`, sorted by location; empty when valid. The
    first `limit` in the file's order are kept and the others counted, in one last problem at the
    first left out (`errors.more_problems`).

    Time is bounded by what is explained, not by how much is wrong: a schema of records (JSON
    Lines, llama-bench's tests) is checked record by record by the compiled predicate, and only
    failing records are explained, until `limit` problems are; each later failing record counts
    as one problem ("at least"). Any other document is explained up to `EXPLAINED` violations.
    """
    folder = folder or schema_dir()
    if _accepts(name, folder)(data):
        return []
    if isinstance(data, dict) and _of_records(_schemas(folder).by_name[name]):
        found = _records(name, data, folder, limit)
        if found:
            return found
    return _explained(name, data, folder, limit)


def _of_records(schema: dict[str, Any]) -> bool:
    """True for a schema that is a map of records, each checked on its own by one subschema."""
    others = {"properties", "patternProperties", "required", "propertyNames", "maxProperties"}
    return isinstance(schema.get("additionalProperties"), dict) and not others & schema.keys()


def _records(name: str, data: dict[str, Any], folder: Path, limit: int) -> list[SchemaProblem]:
    """`check` of a map of records, one record at a time, in their order."""
    valid = _accepts(name, folder)
    kept: list[SchemaProblem] = []
    more, bound, first = 0, False, ""
    for key, value in data.items():
        if valid({key: value}):
            continue
        if len(kept) >= limit:  # explained enough: this record is one problem, or more
            more, bound, first = more + 1, True, first or pointer_of([key])
            continue
        for problem in _explained(name, {key: value}, folder, limit - len(kept)):
            count, lower = counted(problem.message)
            if count == 0 and len(kept) < limit:
                kept.append(problem)
                continue
            more, bound, first = more + (count or 1), bound or lower, first or problem.pointer
    return kept + ([SchemaProblem(first, more_problems(more, bound))] if more else [])


def _explained(name: str, data: Any, folder: Path, limit: int) -> list[SchemaProblem]:
    """The violations of schema `name` by `data` as jsonschema explains them: the first `limit`
    in the file's order among the first `EXPLAINED` it finds, and one that counts the rest."""
    from jsonschema import Draft202012Validator

    schemas = _schemas(folder)
    validator = Draft202012Validator(
        schemas.by_name[name],
        registry=_registry(folder),
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )
    errors = list(itertools.islice(validator.iter_errors(data), EXPLAINED + 1))
    stopped = len(errors) > EXPLAINED  # the search stopped: more may follow
    first = heapq.nsmallest(limit + 1, errors[:EXPLAINED], key=lambda e: _order(e.absolute_path))
    left_out = min(len(errors), EXPLAINED) - limit
    found: list[SchemaProblem] = []
    for error in first[:limit]:
        found.extend(_problems(error))
    kept = sorted(set(found), key=lambda p: (p.pointer, p.message))
    if left_out <= 0:
        return kept
    first_left_out = pointer_of(list(first[limit].absolute_path))
    return [*kept, SchemaProblem(first_left_out, more_problems(left_out, stopped))]


def _problems(error: ValidationError) -> Iterator[SchemaProblem]:
    """The problems one jsonschema error stands for, each with its message."""
    for leaf in _leaf_errors(error):
        path = list(leaf.absolute_path)
        if leaf.validator == "additionalProperties" and isinstance(leaf.instance, dict):
            known = sorted((leaf.schema.get("properties") or {}).keys())
            for key in _unexpected(leaf):
                yield SchemaProblem(
                    pointer_of([*path, key]), f"unknown key {key!r}{did_you_mean(key, known)}"
                )
            continue
        message = _message(leaf)
        if leaf.validator == "enum" and isinstance(leaf.instance, str):
            message += did_you_mean(leaf.instance, [str(v) for v in leaf.validator_value])
        elif leaf.validator == "anyOf" and isinstance(leaf.instance, str):
            # "an axis, or meta.KEY": suggest from the branch that lists the names
            names = [
                str(v)
                for branch in leaf.validator_value
                if isinstance(branch, dict)
                for v in branch.get("enum", ())
            ]
            message += did_you_mean(leaf.instance, names) if names else ""
        yield SchemaProblem(pointer_of(path), message)


_INDEX = re.compile(r"[0-9]{1,18}")


def _order(path: Iterable[str | int]) -> tuple[tuple[int, int, str], ...]:
    """A sort key that puts locations in the file's order: array indexes and JSON Lines record
    numbers ("12") by their number, keys by their text."""
    return tuple(
        (0, t, "") if isinstance(t, int) else (0, int(t), "") if _INDEX.fullmatch(t) else (1, 0, t)
        for t in path
    )


def _unexpected(error: ValidationError) -> list[str]:
    """The keys an additionalProperties error is about."""
    schema = error.schema if isinstance(error.schema, dict) else {}
    known = set(schema.get("properties") or {})
    patterns = [re.compile(p) for p in schema.get("patternProperties") or {}]
    return sorted(
        str(k)
        for k in error.instance
        if k not in known and not any(p.search(str(k)) for p in patterns)
    )
