"""Schema stage: raw JSON data in, schema problems out.

Each schema in `schemas/` is compiled once with fastjsonschema (fast path, every file and every
sample is checked). Only when a document fails is it run through jsonschema's Draft 2020-12
validator, which reports every problem with its path; those are the messages users see.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import fastjsonschema
from jsonschema import Draft202012Validator, ValidationError
from referencing import Registry, Resource

from reportgen.jsonfile import pointer_of
from reportgen.resources import schema_dir

SCHEMA_FILES = {
    "provenance": "provenance.schema.json",
    "lmx-speed-test": "lmx-speed-test.schema.json",
    "llm-inference-bench": "llm-inference-bench.schema.json",
    "lmx-matrix": "lmx-matrix.schema.json",
    "article": "article.schema.json",
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
    registry: Registry[Any]


@cache
def _schemas(folder: Path) -> _Schemas:
    by_id: dict[str, dict[str, Any]] = {}
    by_name: dict[str, dict[str, Any]] = {}
    for name, filename in SCHEMA_FILES.items():
        path = folder / filename
        if not path.exists():
            continue
        schema = json.loads(path.read_text(encoding="utf-8"))
        Draft202012Validator.check_schema(schema)
        by_id[schema["$id"]] = schema
        by_name[name] = schema
    registry: Registry[Any] = Registry().with_resources(
        (sid, Resource.from_contents(s)) for sid, s in by_id.items()
    )
    return _Schemas(by_id, by_name, registry)


@cache
def _compiled(name: str, folder: Path) -> Callable[[Any], Any]:
    schemas = _schemas(folder)

    def local(uri: str) -> dict[str, Any]:
        return schemas.by_id[uri]

    return fastjsonschema.compile(
        schemas.by_name[name], handlers={"https": local}, use_default=False
    )


def schema(name: str, folder: Path | None = None) -> dict[str, Any]:
    """The parsed schema called `name`."""
    return _schemas(folder or schema_dir()).by_name[name]


def _message(error: ValidationError) -> str:
    if error.validator == "required":
        return str(error.message).replace(" is a required property", " is required")
    if error.validator == "additionalProperties" or error.validator == "propertyNames":
        return str(error.message)
    return str(error.message)


def _leaf_errors(error: ValidationError) -> Iterator[ValidationError]:
    if error.validator in ("anyOf", "oneOf") and error.context:
        from jsonschema.exceptions import best_match

        best = best_match(error.context)
        if best is not None:
            yield from _leaf_errors(best)
            return
    yield error


def check(name: str, data: Any, folder: Path | None = None) -> list[SchemaProblem]:
    """Every violation of schema `name` by `data`, sorted by location; empty when valid."""
    folder = folder or schema_dir()
    try:
        _compiled(name, folder)(data)
        return []
    except fastjsonschema.JsonSchemaException:
        pass
    schemas = _schemas(folder)
    validator = Draft202012Validator(
        schemas.by_name[name],
        registry=schemas.registry,
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )
    found = []
    for error in validator.iter_errors(data):
        for leaf in _leaf_errors(error):
            found.append(SchemaProblem(pointer_of(list(leaf.absolute_path)), _message(leaf)))
    return sorted(set(found), key=lambda p: (p.pointer, p.message))
