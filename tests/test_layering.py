"""The package layering: each stage imports only the stages below it (see docs/architecture.md).

Every `import` of every module counts, including imports inside functions, under TYPE_CHECKING
and through `importlib.import_module("reportgen....")`. Inside check/, html, readers and claims are
floors in that order; no module imports another in a cycle, nor another's `_private` name, and
every importer takes a name from the module that defines it (no re-export).
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest
from helpers_source import nodes, parsed, read

# the package's modules parsed once, in setup (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("package_parsed")

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
    "serve": frozenset({"ground", "formats", "metrics", "article", "serve"}),
    "cli": frozenset(
        {
            "ground",
            "formats",
            "metrics",
            "article",
            "init",
            "check",
            "diff",
            "localmaxxing",
            "serve",
            "cli",
        }
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
    for node in nodes(source):
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
        found += violations(module, read(path), str(path.relative_to(PACKAGE)))
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


# --- inside check/: html, then readers, then claims, then the top-level modules -------------------

# floor inside check -> the floors it may import (itself included); the ground floor and the other
# stages are the package rule's business, above
CHECK_FLOORS: dict[str, frozenset[str]] = {
    "html": frozenset({"html"}),
    "readers": frozenset({"html", "readers"}),
    "claims": frozenset({"html", "readers", "claims"}),
    "top": frozenset({"html", "readers", "claims", "top"}),
}
# The imports that go against the floors today, each with why; the test fails when one is no
# longer made, so this list only shrinks.
CHECK_EXCEPTIONS = {
    # parse_number: an attribute or a title states a number when the readers would read one
    ("reportgen.check.html.channels", "reportgen.check.readers.published"),
    # the pipeline runs every reader in turn, the claims reader (above the readers) last
    ("reportgen.check.readers.pipeline", "reportgen.check.claims.reader"),
}


def check_floor(module: str) -> str | None:
    """The floor of a module inside reportgen.check (None outside check)."""
    parts = module.split(".")
    if parts[:2] != ["reportgen", "check"]:
        return None
    return parts[2] if len(parts) > 2 and parts[2] in CHECK_FLOORS else "top"


def modules_imported(source: str, known: frozenset[str]) -> set[str]:
    """The reportgen modules a module's source imports, `from package import module` resolved to
    the module (every import, as `imports_of` finds them)."""
    found = {m for _, m in imports_of(source)}
    for node in nodes(source):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {f"{node.module}.{a.name}" for a in node.names} & known
    return found & known


def import_graph() -> dict[str, set[str]]:
    paths = {module_name(p): p for p in package_modules()}
    known = frozenset(paths)
    return {m: modules_imported(read(p), known) - {m} for m, p in paths.items()}


def check_floor_violations(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    out = set()
    for module, targets in graph.items():
        own = check_floor(module)
        for target in targets:
            other = check_floor(target)
            if own and other and other not in CHECK_FLOORS[own]:
                out.add((module, target))
    return out


def test_check_readers_stand_on_html_and_claims_on_readers() -> None:
    assert check_floor_violations(import_graph()) == CHECK_EXCEPTIONS


def test_a_check_floor_violation_is_caught() -> None:
    graph = {
        "reportgen.check.readers.shape": {"reportgen.check.claims.labels"},
        "reportgen.check.claims.labels": {"reportgen.check.readers.shape"},
        "reportgen.check.html.tree": {"reportgen.check.compare"},
        "reportgen.check.compare": {"reportgen.check.html.tree", "reportgen.check.claims.text"},
    }
    assert check_floor_violations(graph) == {
        ("reportgen.check.readers.shape", "reportgen.check.claims.labels"),
        ("reportgen.check.html.tree", "reportgen.check.compare"),
    }


# --- no cycles, no private names across modules, no re-exports ------------------------------------


def cycle_in(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of `graph` (its modules, the first repeated at the end); [] if none."""
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        return list(exc.args[1])
    return []


def test_no_import_cycle_among_reportgen_modules() -> None:
    """Imports under TYPE_CHECKING and inside functions count: a cycle is one either way."""
    assert cycle_in(import_graph()) == []


def test_an_import_cycle_is_caught() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert sorted(set(cycle_in(graph))) == ["a", "b", "c"]


def private_imports(source: str, label: str) -> list[str]:
    """Each `from reportgen.x import _name` in `source`: a module's `_name` is its own."""
    return [
        f"{label}:{node.lineno} imports {a.name} from {node.module}"
        for node in nodes(source)
        if isinstance(node, ast.ImportFrom)
        and node.level == 0
        and (node.module or "").split(".")[0] == "reportgen"
        for a in node.names
        if a.name.startswith("_") and not a.name.startswith("__")
    ]


def test_no_module_imports_a_private_name_of_another() -> None:
    found = []
    for path in package_modules():
        found += private_imports(read(path), str(path.relative_to(PACKAGE)))
    assert found == []


def test_a_private_import_is_caught() -> None:
    source = "from reportgen.formats.load import _source, load\nfrom os import _exit\n"
    assert private_imports(source, "x.py") == ["x.py:1 imports _source from reportgen.formats.load"]


def bindings(source: str) -> tuple[set[str], set[str]]:
    """(names a module defines, names it only imports), at its top level (`if` and `try`
    blocks included)."""
    defined: set[str] = set()
    imported: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                defined.add(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                defined.update(
                    n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)
                )
            elif isinstance(node, ast.Import | ast.ImportFrom):
                imported.update(a.asname or a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.If | ast.Try):
                for block in (node.body, node.orelse, getattr(node, "finalbody", [])):
                    visit(block)
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)

    visit(parsed(source).body)
    return defined, imported - defined


def reexports(source: str, label: str, modules: dict[str, tuple[set[str], set[str]]]) -> list[str]:
    """Each name `source` takes from a reportgen module that only imports it (`modules`: every
    module's `bindings`), and each name its own `__all__` lists without defining it."""
    found = []
    defined, _ = bindings(source)
    for node in nodes(source):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in modules:
            for a in node.names:
                if a.name in modules[node.module][1]:
                    found.append(f"{label}:{node.lineno} takes {a.name} from {node.module}")
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            listed = [
                e.value
                for e in ast.walk(node.value)
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            ]
            found += [
                f"{label}:{node.lineno} lists {n} in __all__" for n in listed if n not in defined
            ]
    return found


@pytest.mark.slow
def test_no_module_reexports_a_name() -> None:
    """Every importer (the package, tests, benchmarks) takes each name from the module that
    defines it; a move leaves no shim behind."""
    root = PACKAGE.parent
    modules = {module_name(p): bindings(read(p)) for p in package_modules()}
    importers = [
        *package_modules(),
        *sorted((root / "tests").rglob("*.py")),
        *sorted((root / "benchmarks").rglob("*.py")),
        root / "conftest.py",
    ]
    found = []
    for path in importers:
        found += reexports(read(path), str(path.relative_to(root)), modules)
    assert found == []


def test_a_reexport_is_caught() -> None:
    modules = {
        "reportgen.metrics": (set(), {"compute"}),
        "reportgen.metrics.compute": ({"compute"}, set()),
        "reportgen.metrics.registry": ({"MetricSet"}, set()),
    }
    source = (
        "from reportgen.metrics import compute\n"
        "from reportgen.metrics.compute import compute as c\n"
        "from reportgen.metrics import registry\n"
        "__all__ = ['c', 'here']\n"
        "here = 1\n"
    )
    assert reexports(source, "x.py", modules) == [
        "x.py:1 takes compute from reportgen.metrics",
        "x.py:4 lists c in __all__",
    ]
