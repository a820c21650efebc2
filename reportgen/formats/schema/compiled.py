"""Schema stage, fast path: a JSON Schema in, one compiled Python predicate (valid or not) out.

`predicate` writes the schema out as the source of a single function of plain comparisons and
exact-type tests, with every `$ref` inlined first (`inline_refs`): no call and no string is made
per value. It only answers valid or not; `reportgen.formats.schema.validate` asks jsonschema to
explain a failure.

It covers the assertion keywords reportgen's schemas use and raises `Unsupported` for a schema
that uses any other: the tests compile every bundled schema, so a new keyword fails there, loudly.
Types are those `json.loads` produces (dict, list, str, int, float, bool, None); any other Python
value fails the predicate, which then defers to jsonschema. Patterns are matched with `re.search`,
as jsonschema does.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from functools import partial
from typing import Any

Predicate = Callable[[Any], bool]


_TYPE_TESTS = {
    "object": "{t} is dict",
    "array": "{t} is list",
    "string": "{t} is str",
    "boolean": "{t} is bool",
    "null": "{x} is None",
    "number": "{t} is int or {t} is float",
    "integer": "{t} is int or ({t} is float and {x}.is_integer())",
}
_NUMERIC = {"minimum": "<", "exclusiveMinimum": "<=", "maximum": ">", "exclusiveMaximum": ">="}
_KINDS = {  # the keywords that apply to one kind of value, and that kind's type names
    "number": (frozenset(_NUMERIC), frozenset({"number", "integer"})),
    "string": (frozenset({"minLength", "maxLength", "pattern"}), frozenset({"string"})),
    "array": (frozenset({"minItems", "maxItems", "items"}), frozenset({"array"})),
    "object": (
        frozenset({"required", "properties", "patternProperties", "additionalProperties"})
        | frozenset({"propertyNames", "minProperties", "maxProperties"}),
        frozenset({"object"}),
    ),
}
_GUARDS = {  # the test that a value is of a kind
    "number": _TYPE_TESTS["number"],
    "string": _TYPE_TESTS["string"],
    "array": _TYPE_TESTS["array"],
    "object": _TYPE_TESTS["object"],
}
_SUPPORTED = frozenset(
    {"type", "enum", "const", "allOf", "anyOf", "oneOf", "not", "if", "then", "else"}
).union(*(keywords for keywords, _ in _KINDS.values()))
# Every keyword jsonschema's Draft 2020-12 validator asserts with
# (tests/formats/schema/test_schemas.py holds it to jsonschema's own list, which costs an import of
# jsonschema to read); any other key is an annotation it ignores, and so do we.
ASSERTING = frozenset(
    ["$dynamicRef", "$ref", "additionalProperties", "allOf", "anyOf", "const", "contains"]  # noqa: RUF005 -- a list wrapped by hand; one literal would take a line an item
    + ["dependentRequired", "dependentSchemas", "enum", "exclusiveMaximum", "exclusiveMinimum"]
    + ["format", "if", "items", "maxItems", "maxLength", "maxProperties", "maximum", "minItems"]
    + ["minLength", "minProperties", "minimum", "multipleOf", "not", "oneOf", "pattern"]
    + ["patternProperties", "prefixItems", "properties", "propertyNames", "required", "type"]
    + ["unevaluatedItems", "unevaluatedProperties", "uniqueItems", "then", "else"]
)


class Unsupported(Exception):
    """The schema uses a keyword (or a form of one) that `predicate` does not compile."""


class _Writer:
    """Source lines of the predicate's functions, and the constants they refer to."""

    def __init__(self) -> None:
        self.functions: list[list[str]] = []
        self.lines: list[str] = []
        self.constants: dict[str, object] = {}
        self.count = 0

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def constant(self, value: object) -> str:
        name = self.name("c")
        self.constants[name] = value
        return name

    def line(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def block(self, depth: int, header: str, body: Callable[[int], None]) -> None:
        """`header:` then the lines `body` writes one level deeper (none: the block is left out)."""
        start = len(self.lines)
        self.line(depth, header)
        body(depth + 1)
        if len(self.lines) == start + 1:
            del self.lines[start:]

    def function(self, schema: Any) -> str:
        """A separate function for `schema` (for anyOf, oneOf, not, if); returns its name."""
        name, outer = self.name("f"), self.lines
        self.lines = [f"def {name}(x):"]
        _schema(self, schema, "x", 1)
        self.line(1, "return True")
        self.functions.append(self.lines)
        self.lines = outer
        return name


def _number(value: Any) -> str:
    if type(value) not in (int, float) or not math.isfinite(value):
        raise Unsupported(f"bound {value!r}")
    return repr(value)


def _count(value: Any) -> str:
    if type(value) is not int or value < 0:
        raise Unsupported(f"count {value!r}")
    return repr(value)


def _strings(values: Any) -> frozenset[str]:
    if not isinstance(values, list) or not all(type(v) is str for v in values):
        raise Unsupported(f"enum or const {values!r} (only strings are compiled)")
    return frozenset(values)


def _schema(w: _Writer, schema: Any, x: str, depth: int) -> None:
    """Lines that `return False` when the value in variable `x` does not match `schema`."""
    if schema is True:
        return
    if schema is False:
        w.line(depth, "return False")
        return
    if not isinstance(schema, dict):
        raise Unsupported(f"schema {schema!r}")
    unknown = sorted(k for k in schema if k in ASSERTING and k not in _SUPPORTED)
    if unknown:
        raise Unsupported(", ".join(unknown))
    t = w.name("t")
    w.line(depth, f"{t} = {x}.__class__")
    names = _type(w, schema, x, t, depth)
    for kind, (keywords, kind_types) in _KINDS.items():
        if keywords & schema.keys():
            emit = _EMITTERS[kind]
            if names is not None and set(names) <= kind_types:
                emit(w, schema, x, depth)  # the type test above already proved the kind
            else:
                w.block(depth, f"if {_GUARDS[kind].format(t=t)}:", partial(emit, w, schema, x))
    _combined(w, schema, x, depth)


def _type(w: _Writer, schema: dict[str, Any], x: str, t: str, depth: int) -> list[str] | None:
    """Lines for `type`, `enum` and `const` (`t`: the variable holding the value's class); the
    type names, None when the schema names none."""
    types = schema.get("type")
    names = [types] if isinstance(types, str) else types
    if names is not None:
        if not isinstance(names, list) or not all(n in _TYPE_TESTS for n in names):
            raise Unsupported(f"type {types!r}")
        tests = " or ".join(_TYPE_TESTS[n].format(t=t, x=x) for n in names)
        w.line(depth, f"if not ({tests}): return False")
    if "enum" in schema:
        w.line(depth, f"if not ({t} is str and {x} in {w.constant(_strings(schema['enum']))}):")
        w.line(depth + 1, "return False")
    if "const" in schema and type(schema["const"]) is int:  # a layout version: 1 (and 1.0)
        value = _number(schema["const"])
        w.line(depth, f"if not (({t} is int or {t} is float) and {x} == {value}): return False")
    elif "const" in schema:
        (value,) = _strings([schema["const"]])
        w.line(depth, f"if not ({t} is str and {x} == {value!r}): return False")
    return names


def _combined(w: _Writer, schema: dict[str, Any], x: str, depth: int) -> None:
    """Lines for the schemas `schema` combines: allOf, anyOf, oneOf, not, and if/then/else."""
    for sub in schema.get("allOf", []):
        _schema(w, sub, x, depth)
    if "anyOf" in schema:
        calls = " or ".join(f"{w.function(s)}({x})" for s in schema["anyOf"])
        w.line(depth, f"if not ({calls}): return False")
    if "oneOf" in schema:
        calls = " + ".join(f"{w.function(s)}({x})" for s in schema["oneOf"])
        w.line(depth, f"if ({calls}) != 1: return False")
    if "not" in schema:
        w.line(depth, f"if {w.function(schema['not'])}({x}): return False")
    if "if" in schema and ("then" in schema or "else" in schema):
        test = w.function(schema["if"])
        w.line(depth, f"if {test}({x}):")
        w.line(depth + 1, "pass")
        _schema(w, schema.get("then", True), x, depth + 1)
        w.line(depth, "else:")
        w.line(depth + 1, "pass")
        _schema(w, schema.get("else", True), x, depth + 1)


def _numeric(w: _Writer, schema: dict[str, Any], x: str, depth: int) -> None:
    for keyword, fails in _NUMERIC.items():
        if keyword in schema:
            w.line(depth, f"if {x} {fails} {_number(schema[keyword])}: return False")


def _string(w: _Writer, schema: dict[str, Any], x: str, depth: int) -> None:
    if "minLength" in schema:
        w.line(depth, f"if len({x}) < {_count(schema['minLength'])}: return False")
    if "maxLength" in schema:
        w.line(depth, f"if len({x}) > {_count(schema['maxLength'])}: return False")
    if "pattern" in schema:
        w.line(depth, f"if not {_regex(w, schema['pattern'])}({x}): return False")


def _regex(w: _Writer, pattern: Any) -> str:
    """A constant holding `re.compile(pattern).search`."""
    try:
        return w.constant(re.compile(pattern).search)
    except (re.error, TypeError):
        raise Unsupported(f"pattern {pattern!r}") from None


def _array(w: _Writer, schema: dict[str, Any], x: str, depth: int) -> None:
    if "minItems" in schema:
        w.line(depth, f"if len({x}) < {_count(schema['minItems'])}: return False")
    if "maxItems" in schema:
        w.line(depth, f"if len({x}) > {_count(schema['maxItems'])}: return False")
    if "items" in schema:
        item = w.name("x")
        w.block(depth, f"for {item} in {x}:", partial(_schema, w, schema["items"], item))


def _object(w: _Writer, schema: dict[str, Any], x: str, depth: int) -> None:
    required = schema.get("required", [])
    if required:
        w.line(depth, f"if not {x}.keys() >= {w.constant(_strings(required))}: return False")
    if "minProperties" in schema:
        w.line(depth, f"if len({x}) < {_count(schema['minProperties'])}: return False")
    if "maxProperties" in schema:
        w.line(depth, f"if len({x}) > {_count(schema['maxProperties'])}: return False")
    properties = schema.get("properties", {})
    for key, sub in properties.items():
        value = w.name("x")
        if key in required:  # present: the required test above returned otherwise
            w.line(depth, f"{value} = {x}[{key!r}]")
            _schema(w, sub, value, depth)
        else:
            w.block(depth, f"if {key!r} in {x}:", partial(_item, w, sub, value, f"{x}[{key!r}]"))
    patterns = {_regex(w, p): sub for p, sub in schema.get("patternProperties", {}).items()}
    key, value = w.name("k"), w.name("x")
    for search, sub in patterns.items():
        body = partial(_if, w, f"{search}({key})", sub, value)
        w.block(depth, f"for {key}, {value} in {x}.items():", body)
    if schema.get("additionalProperties", True) is not True:
        known = [f"{key} in {w.constant(frozenset(properties))}"]
        skip = f"if {' or '.join(known + [f'{s}({key})' for s in patterns])}: continue"
        body = partial(_if, w, skip, schema["additionalProperties"], value, negate=True)
        w.block(depth, f"for {key}, {value} in {x}.items():", body)
    if "propertyNames" in schema:
        body = partial(_schema, w, schema["propertyNames"], key)
        w.block(depth, f"for {key} in {x}:", body)


def _item(w: _Writer, schema: Any, value: str, source: str, depth: int) -> None:
    """`value = source`, then the lines checking `value` against `schema`."""
    w.line(depth, f"{value} = {source}")
    _schema(w, schema, value, depth)


def _if(w: _Writer, test: str, schema: Any, value: str, depth: int, negate: bool = False) -> None:
    """Check `value` against `schema` when `test` holds (`negate`: `test` is a whole skip line)."""
    if negate:
        w.line(depth, test)
        _schema(w, schema, value, depth)
    else:
        w.block(depth, f"if {test}:", partial(_schema, w, schema, value))


_EMITTERS: dict[str, Callable[[_Writer, dict[str, Any], str, int], None]] = {
    "number": _numeric,
    "string": _string,
    "array": _array,
    "object": _object,
}


def predicate(schema: Any) -> Predicate:
    """The compiled predicate of `schema` (refs already inlined); `Unsupported` if it cannot be."""
    w = _Writer()
    label = schema.get("$id", "") if isinstance(schema, dict) else ""
    try:
        main = w.function(schema)
        source = "\n".join("\n".join(lines) for lines in w.functions)
        code = compile(source, f"<predicate {label}>", "exec")
    except (SyntaxError, RecursionError) as exc:  # nested deeper than Python compiles
        raise Unsupported(f"schema {label!r} nests too deep") from exc
    namespace: dict[str, Any] = dict(w.constants)
    exec(code, namespace)
    found: Predicate = namespace[main]
    return found
