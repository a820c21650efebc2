"""Records of more than four fields are built with keywords: every such dataclass (and msgspec
Struct) in reportgen/ is `kw_only`, so `Item(kind=..., line=..., ...)` can be read at the call
and a new field cannot shift the others.

Fields are counted as `dataclasses.fields` counts them: inherited ones included, `ClassVar`s
not. A NamedTuple cannot be `kw_only` (`RequestSample`, `Summary`: a tuple is their point); its
calls name their arguments all the same, which this test does not see.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers_source import nodes, parsed

# the package's modules parsed once, in setup (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("package_parsed")

PACKAGE = Path(__file__).resolve().parents[1] / "reportgen"
MOST_POSITIONAL = 4


@dataclass(frozen=True)
class Record:
    where: str  # path:line
    own: tuple[str, ...]  # its own fields
    own_keyword: bool  # its own fields are keyword-only
    bases: tuple[str, ...]  # the dotted names of its record bases, as the module names them


def _keywords(call: ast.expr) -> dict[str, str]:
    if not isinstance(call, ast.Call):
        return {}
    return {k.arg: ast.unparse(k.value) for k in call.keywords if k.arg}


def _record_kind(node: ast.ClassDef) -> tuple[str, dict[str, str]] | None:
    for d in node.decorator_list:
        f = d.func if isinstance(d, ast.Call) else d
        if ast.unparse(f) in ("dataclass", "dataclasses.dataclass"):
            return "dataclass", _keywords(d)
    if any(ast.unparse(b) in ("msgspec.Struct", "Struct") for b in node.bases):
        return "struct", {k.arg: ast.unparse(k.value) for k in node.keywords if k.arg}
    return None


def _own_fields(node: ast.ClassDef, kw_only: bool) -> tuple[tuple[str, ...], bool]:
    """Its own fields, and whether every one of them is keyword-only."""
    names, keyword = [], True
    for stmt in node.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        annotation = ast.unparse(stmt.annotation)
        if "ClassVar" in annotation:
            continue
        if annotation in ("KW_ONLY", "dataclasses.KW_ONLY"):
            kw_only = True
            continue
        names.append(stmt.target.id)
        own = _keywords(stmt.value).get("kw_only") if stmt.value is not None else None
        keyword &= own == "True" if own is not None else kw_only
    return tuple(names), keyword


def records_of(source: str, where: str) -> dict[str, Record]:
    """The dataclasses and Structs a module defines, by class name."""
    found = {}
    for node in parsed(source).body:
        if not isinstance(node, ast.ClassDef):
            continue
        kind = _record_kind(node)
        if kind is None:
            continue
        own, keyword = _own_fields(node, kind[1].get("kw_only") == "True")
        bases = tuple(ast.unparse(b) for b in node.bases if ast.unparse(b) != "msgspec.Struct")
        found[node.name] = Record(f"{where}:{node.lineno}", own, keyword, bases)
    return found


def imported_names(source: str) -> dict[str, str]:
    """name -> "module.Name" of each `from module import Name` of a module."""
    return {
        a.asname or a.name: f"{node.module}.{a.name}"
        for node in nodes(source)
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
        for a in node.names
    }


def positional_records(modules: dict[str, str]) -> list[str]:
    """Each record of more than four fields that takes one of them by position, as
    "path:line Name (n fields)". `modules`: dotted module name -> its source."""
    records: dict[str, Record] = {}
    imports: dict[str, dict[str, str]] = {}
    for module, source in modules.items():
        records |= {f"{module}.{n}": r for n, r in records_of(source, module).items()}
        imports[module] = imported_names(source)

    def resolve(module: str, name: str) -> str | None:
        """The record a module means by `name`, through imports and re-exports."""
        for _ in range(8):
            if f"{module}.{name}" in records:
                return f"{module}.{name}"
            target = imports.get(module, {}).get(name)
            if target is None:
                return None
            module, name = target.rsplit(".", 1)
        return None

    def fields(qualified: str) -> tuple[int, bool]:
        """(number of fields, all of them keyword-only) of a record, bases included."""
        record = records[qualified]
        count, keyword = len(record.own), record.own_keyword or not record.own
        for base in record.bases:
            found = resolve(qualified.rsplit(".", 1)[0], base)
            if found is not None:
                n, base_keyword = fields(found)
                count, keyword = count + n, keyword and base_keyword
        return count, keyword

    bad = []
    for qualified, record in sorted(records.items()):
        count, keyword = fields(qualified)
        if count > MOST_POSITIONAL and not keyword:
            bad.append(f"{record.where} {qualified.rsplit('.', 1)[1]} ({count} fields)")
    return bad


def _package_sources() -> dict[str, str]:
    sources = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        sources[".".join(parts)] = path.read_text(encoding="utf-8")
    return sources


@pytest.mark.slow
def test_every_record_of_more_than_four_fields_is_kw_only() -> None:
    bad = positional_records(_package_sources())
    assert not bad, "make these @dataclass(..., kw_only=True):\n" + "\n".join(bad)


def test_the_walk_finds_records_that_take_fields_by_position() -> None:
    base = """
from dataclasses import KW_ONLY, dataclass, field
from typing import ClassVar
import msgspec

@dataclass(frozen=True)
class Wide:
    a: int
    b: int
    c: int
    d: int
    e: int

@dataclass(frozen=True, kw_only=True)
class Named:
    a: int
    b: int
    c: int
    d: int
    e: int
    LIMIT: ClassVar[int] = 3

@dataclass
class Four:
    a: int
    b: int
    c: int
    d: int
    LIMIT: ClassVar[int] = 3

@dataclass
class Marked:
    a: int
    _: KW_ONLY
    b: int
    c: int
    d: int
    e: int

@dataclass
class EachField:
    a: int = field(kw_only=True)
    b: int = field(kw_only=True)
    c: int = field(kw_only=True)
    d: int = field(kw_only=True)
    e: int = field(kw_only=True)

class Sample(msgspec.Struct, gc=False):
    a: int
    b: int
    c: int
    d: int
    e: int
"""
    child = """
from pkg.base import Four, Named

@dataclass(frozen=True)
class Grown(Four):
    e: int

@dataclass(frozen=True)
class SameFields(Named):
    pass

@dataclass(frozen=True)
class More(Named):
    f: int
"""
    bad = positional_records({"pkg.base": base, "pkg.child": child})
    assert sorted(b.split(" ", 1)[1] for b in bad) == [
        "Grown (5 fields)",
        "Marked (5 fields)",
        "More (6 fields)",
        "Sample (5 fields)",
        "Wide (5 fields)",
    ]
