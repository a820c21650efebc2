"""The package layering: each stage imports only the stages below it (see docs/architecture.md).

Every `import` of every module counts, including imports inside functions, under TYPE_CHECKING
and through `importlib.import_module("reportgen....")`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "reportgen"

# The ground floor: modules every stage may use.
GROUND = frozenset(
    {
        "__init__",
        "errors",
        "fileio",
        "frozendict",
        "model",
        "samples",
        "stats",
        "tolerances",
        "resources",
        "terminal",
    }
)

# stage -> the stages it may import (itself included)
ALLOWED: dict[str, frozenset[str]] = {
    "ground": frozenset({"ground"}),
    "formats": frozenset({"ground", "formats"}),
    "metrics": frozenset({"ground", "metrics"}),
    "article": frozenset({"ground", "formats", "metrics", "article"}),
    "init": frozenset({"ground", "formats", "metrics", "article", "init"}),
    "check": frozenset({"ground", "formats", "metrics", "article", "check"}),
    "diff": frozenset({"ground", "formats", "metrics", "article", "diff"}),
    "localmaxxing": frozenset({"ground", "metrics", "localmaxxing"}),
    # The reconstruction reads the published text with check's own reader, so that the numbers
    # it reproduces are exactly the numbers `reportgen check` reads back.
    "reconstruct": frozenset({"ground", "article", "check", "reconstruct"}),
    "cli": frozenset(
        {"ground", "formats", "metrics", "article", "init", "check", "diff", "localmaxxing", "cli"}
    ),
    "__main__": frozenset({"cli"}),
}


def stage_of(module: str) -> str:
    """The stage of a dotted module name inside reportgen ("reportgen.formats.load" -> formats)."""
    parts = module.split(".")
    assert parts[0] == "reportgen", module
    if len(parts) == 1 or parts[1] in GROUND:
        return "ground"
    return parts[1]


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def _is_module(name: str) -> bool:
    return (PACKAGE / f"{name}.py").is_file() or (PACKAGE / name / "__init__.py").is_file()


def imports_of(source: str) -> list[tuple[int, str]]:
    """(line, module) of every reportgen import in a module's source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            # `from reportgen import cli` imports the module reportgen.cli (not so `__version__`)
            if node.module == "reportgen":
                found += [
                    (node.lineno, f"reportgen.{a.name}") for a in node.names if _is_module(a.name)
                ]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (getattr(node.func, "attr", None) or getattr(node.func, "id", None))
            == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return [(line, m) for line, m in found if m == "reportgen" or m.startswith("reportgen.")]


def violations(module: str, source: str, label: str) -> list[str]:
    """Each import in `source` (module `module`) that runs against the layering."""
    own = "__main__" if module == "reportgen.__main__" else stage_of(module)
    out = []
    for line, target in imports_of(source):
        if target == "reportgen.__main__":
            out.append(f"{label}:{line} imports reportgen.__main__")
            continue
        if target == "reportgen":
            continue  # the package itself (its version)
        other = stage_of(target)
        if other not in ALLOWED[own]:
            allowed = ", ".join(sorted(ALLOWED[own]))
            out.append(f"{label}:{line} imports {target}: {own} may import only {allowed}")
    return out


def package_modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_stage_imports_only_the_stages_below_it() -> None:
    found = []
    for path in package_modules():
        module = module_name(path)
        found += violations(
            module, path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE))
        )
    assert found == []


def test_every_module_belongs_to_a_known_stage() -> None:
    stages = {stage_of(module_name(p)) for p in package_modules()} - {"__main__"}
    assert stages <= set(ALLOWED), sorted(stages - set(ALLOWED))


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("reportgen.formats.load", "from reportgen.article.source.manifest import MANIFEST\n"),
        ("reportgen.formats.load", "def f():\n    from reportgen.localmaxxing import api\n"),
        ("reportgen.metrics.compute", "import reportgen.article.page.render\n"),
        ("reportgen.article.build", "from reportgen import cli\n"),
        ("reportgen.check.compare", "importlib.import_module('reportgen.reconstruct.seed')\n"),
        ("reportgen.stats", "from reportgen.formats.json_input.document import parse_json\n"),
    ],
)
def test_a_forbidden_import_is_caught(module: str, source: str) -> None:
    assert len(violations(module, source, "x.py")) == 1


def test_allowed_imports_pass() -> None:
    source = "from reportgen.errors import Problem\nfrom reportgen.formats.load import load\n"
    assert violations("reportgen.article.build", source, "x.py") == []
