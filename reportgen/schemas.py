"""Schema stage: raw JSON data in, schema problems out.

Each schema in `schemas/` is compiled once with fastjsonschema (fast path, every file and every
sample is checked). Only when a document fails is it run through jsonschema's Draft 2020-12
validator, which reports every problem with its path; those are the messages users see.
Before compiling, `$ref`s are replaced by their targets, so the compiled code checks a request
sample in place instead of making one call (and formatting one path string) per reference.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

import fastjsonschema
from jsonschema import Draft202012Validator, ValidationError
from referencing import Registry, Resource

from reportgen.jsonfile import pointer_of, split_pointer
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


# Keywords whose value is a subschema, a {name: subschema} map, or a list of subschemas.
_ONE = frozenset(
    {"additionalProperties", "propertyNames", "items", "contains", "not", "if", "then", "else"}
    | {"additionalItems", "unevaluatedItems", "unevaluatedProperties", "contentSchema"}
)
_MAP = frozenset({"properties", "patternProperties", "dependentSchemas"})
_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})


def _target(uri: str, by_id: dict[str, dict[str, Any]]) -> Any:
    """The subschema `uri` names, or None when it is not a JSON pointer into a known schema."""
    doc, fragment = urldefrag(uri)
    node: Any = by_id.get(doc)
    if node is None or (fragment and not fragment.startswith("/")):
        return None
    for token in split_pointer(unquote(fragment)):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def _inline(
    node: Any, base: str, by_id: dict[str, dict[str, Any]], open_refs: frozenset[str]
) -> Any:
    """`node` with each `$ref` replaced by its target (recursive ones are kept, made absolute).

    The result accepts exactly what the original does; a `$ref` with sibling keywords becomes
    an `allOf` entry, as Draft 2020-12 means it.
    """
    if not isinstance(node, dict):
        return node
    if isinstance(node.get("$id"), str):
        base = urljoin(base, node["$id"])
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _ONE and isinstance(value, dict):
            out[key] = _inline(value, base, by_id, open_refs)
        elif key in _MAP and isinstance(value, dict):
            out[key] = {k: _inline(v, base, by_id, open_refs) for k, v in value.items()}
        elif key in _LIST and isinstance(value, list):
            out[key] = [_inline(v, base, by_id, open_refs) for v in value]
        elif key != "$ref":
            out[key] = value
    ref = node.get("$ref")
    if not isinstance(ref, str):
        return out
    uri = urljoin(base, ref)
    target = _target(uri, by_id)
    if not isinstance(target, dict) or uri in open_refs:
        out["$ref"] = uri
        return out
    inlined = _inline(target, urldefrag(uri).url, by_id, open_refs | {uri})
    inlined = {k: v for k, v in inlined.items() if k not in ("$id", "$schema")}
    if not out:
        return inlined
    out["allOf"] = [*out.get("allOf", []), inlined]
    return out


@cache
def _compiled(name: str, folder: Path) -> Callable[[Any], Any]:
    schemas = _schemas(folder)

    def local(uri: str) -> dict[str, Any]:
        return schemas.by_id[uri]

    root = schemas.by_name[name]
    inlined = _inline(root, str(root.get("$id", "")), schemas.by_id, frozenset())
    return fastjsonschema.compile(inlined, handlers={"https": local}, use_default=False)


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
