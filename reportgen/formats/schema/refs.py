"""A JSON Schema with every `$ref` replaced by what it names, so the compiled predicate and the
located explanations both see one self-contained schema."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urldefrag, urljoin

from reportgen.formats.json_input.document import split_pointer

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


def inline_refs(
    node: Any, base: str, by_id: dict[str, dict[str, Any]], open_refs: frozenset[str] = frozenset()
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
            out[key] = inline_refs(value, base, by_id, open_refs)
        elif key in _MAP and isinstance(value, dict):
            out[key] = {k: inline_refs(v, base, by_id, open_refs) for k, v in value.items()}
        elif key in _LIST and isinstance(value, list):
            out[key] = [inline_refs(v, base, by_id, open_refs) for v in value]
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
    inlined = inline_refs(target, urldefrag(uri).url, by_id, open_refs | {uri})
    inlined = {k: v for k, v in inlined.items() if k not in ("$id", "$schema")}
    if not out:
        return inlined
    out["allOf"] = [*out.get("allOf", []), inlined]
    return out
