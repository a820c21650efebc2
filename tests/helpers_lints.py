"""The lint table as the source declares it: where each lint is defined (`@finds` on the function
that finds it, or `define_lint` where another stage makes its findings), and the whole table,
which needs every defining module imported (the lint stage's own modules are, with the package;
the article's are not until something uses them)."""

from __future__ import annotations

import ast
import functools
import importlib
from pathlib import Path

from helpers_source import parsed

from reportgen.metrics.lints.findings import LINTS, LintDef

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "reportgen"
DEFINERS = ("finds", "define_lint")


def _called(node: ast.Call) -> str:
    if isinstance(node.func, ast.Name):
        return node.func.id
    return node.func.attr if isinstance(node.func, ast.Attribute) else ""


def definitions(tree: ast.AST) -> list[ast.Call]:
    """Every call of `finds` or `define_lint` in a module's tree."""
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and _called(n) in DEFINERS]


@functools.cache
def defined_in_source() -> tuple[tuple[str, str], ...]:
    """(lint id, dotted module) for each lint definition in the package, in file order. A lint
    id is a string literal, so that it can be found here without running anything."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        source = path.read_text(encoding="utf-8")
        if not any(f"{name}(" in source for name in DEFINERS):
            continue  # parsing every module would take a second
        for call in definitions(parsed(source)):
            first = call.args[0] if call.args else None
            assert isinstance(first, ast.Constant) and isinstance(first.value, str), (
                f"{module}:{call.lineno}: a lint id must be a string literal"
            )
            found.append((first.value, module.removesuffix(".__init__")))
    return tuple(found)


def every_lint() -> dict[str, LintDef]:
    """The whole lint table: every module that defines a lint, imported."""
    for module in sorted({module for _, module in defined_in_source()}):
        importlib.import_module(module)
    return dict(LINTS)
