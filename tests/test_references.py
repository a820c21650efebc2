"""Every module, name and file of this repository that prose refers to exists.

Where it looks: the docstrings and comments of reportgen/**/*.py, and docs/**/*.md, README.md
and CONTRIBUTING.md. In Markdown only `code spans` count, since that is how the docs write a
reference. The research notes (RESEARCH) quote other projects' files, so there only the
`reportgen.` names are checked; the article format's docs (KEYS) write metric keys and
references such as `load.requests`, so there short dotted words are not module names.

What a reference is, and how it resolves:

- `reportgen.x.y` or `reportgen.x.y.Name`: the longest prefix that is a module must exist, and
  the rest must be names it defines at top level (or imports from another reportgen module),
  then a member of that class (a method, an attribute, a dataclass field). Nothing is imported:
  the modules are read with `ast`, so the fast lane needs neither WeasyPrint nor matplotlib.
- A short one, `published.reported_in_lines` or `lints.lint`: checked when its first part is the
  last part of a module's name, today's or a retired one (RETIRED), and its last part is a
  module or a name that some module defines at top level. It resolves when a module whose dotted
  name ends with its leading parts has the rest as attributes. Other dotted words (metric keys
  such as `load.ttft_s`, a tool's JSON keys) are left alone.
- A retired module's name on its own (`jsonfile`, `guidellm_legacy`) is stale, unless it is
  also a word (WORDS).
- A path that starts with a top-level folder (`reportgen/`, `tests/`, `docs/`, `schemas/`,
  `benchmarks/`, `templates/`) must exist from the repository root; `tests/x.py::name` must also
  define `name`.
- Any other path to a `.py` file is a path inside the package. In a module it resolves from the
  module's own folder or any folder above it up to reportgen/ (`markdown.py` in
  check/readers/published.py is check/readers/markdown.py; `article/workers.py` in
  article/charts/render.py is reportgen/article/workers.py). In the docs it resolves from
  reportgen/, and a bare file name (`plot.py`) may be a file of that name anywhere in reportgen/,
  benchmarks/ or tests/.

Other projects' files named in a module or a doc (a tool's source) are listed in FOREIGN.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from helpers_source import parsed, read

# the package's modules parsed once, in setup (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("package_parsed")

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "reportgen"
TOP = ("reportgen", "tests", "docs", "schemas", "benchmarks", "templates")
DOCS = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
BARE_HOMES = ("reportgen", "benchmarks", "tests")
RESEARCH = {"docs/tool-formats-research.md", "docs/formats-research.md"}
# The article's own language: dotted words there are keys (`load.requests`, `{{ setup.FIELD }}`).
KEYS = {"docs/article-format.md", "docs/metric-definitions.md"}

# Modules the package once had. A short reference that starts with one of these is stale.
RETIRED = frozenset(
    {
        "ahead",
        "aiperf_config",
        "aiperf_records",
        "chartcache",
        "chartplot",
        "chartsafe",
        "chartsvg",
        "chartwords",
        "claimtext",
        "claimwords",
        "cli_submit",
        "data",
        "decl",
        "fastbench",
        "fastdoc",
        "fastschema",
        "files",
        "guidellm_legacy",
        "guidellm_requests",
        "guidellm_stats",
        "htmlchannels",
        "htmlinput",
        "htmllines",
        "htmlparse",
        "htmlscope",
        "htmlstyles",
        "htmltext",
        "htmltree",
        "inference_perf_requests",
        "initllama",
        "initmanifest",
        "initruns",
        "initsections",
        "jsonfile",
        "jsonl",
        "jsonl_stream",
        "llama_bench_concat",
        "llama_bench_configs",
        "llama_bench_read",
        "llm_inference_bench_cells",
        "lmxapi",
        "pageview",
        "pdfahead",
        "reading",
        "runfiles",
        "schemarefs",
        "schemas",
        "setuptext",
        "sglang_bench",
        "sglang_requests",
        "tablecells",
        "tablecsv",
        "tableview",
        "vllm_bench",
        "vllm_bench_lines",
        "vllm_bench_lists",
        "written",
    }
)

# Retired names that are also words, left to the reader: "started ahead", `llama-bench -o jsonl`.
WORDS = frozenset({"ahead", "data", "decl", "files", "jsonl", "reading", "schemas", "written"})
RETIRED_WORD = re.compile(rf"(?<![\w./-])({'|'.join(sorted(RETIRED - WORDS))})(?![\w/-])")

# Other projects' files, named where reportgen reads what they write.
FOREIGN = frozenset(
    {
        # vLLM
        "benchmark_serving.py",
        "benchmarks/benchmark_serving.py",
        "convert-results-json-to-markdown.py",
        "summary-nightly-results.py",
        "sweep/serve_sla.py",
        "vllm/benchmarks/sweep/serve.py",
        # GuideLLM
        "backend/openai.py",
        "benchmark/benchmark.py",
        "objects/statistics.py",
    }
)
# A file name, not a dotted name: `article.toml`, `metrics.json`.
EXTENSIONS = frozenset({"toml", "json", "jsonl", "py", "md", "html", "css", "pdf", "svg", "csv"})
# Python's own modules, whose dotted names look like ours.
STDLIB = frozenset({"html.parser"})

DOTTED = re.compile(r"(?<![\w.])reportgen(?:\.[A-Za-z_]\w*)+")
SHORT = re.compile(r"(?<![\w./-])([a-z_]\w*(?:\.[A-Za-z_]\w*)+)(?![\w/-])")
PATH = re.compile(r"(?<![\w/.<>-])((?:[\w-]+/)*[\w-]+\.(?:py|md|json|html|css))(?:::(\w+))?")
CODE_SPAN = re.compile(r"`([^`\n]+)`")


@dataclass(frozen=True)
class Text:
    """A piece of prose and where it is: a docstring, a comment or a doc's line."""

    file: Path
    line: int
    text: str

    @property
    def where(self) -> str:
        return f"{self.file.relative_to(ROOT).as_posix()}:{self.line}"


def syntax_tree(path: Path) -> ast.Module:
    return parsed(read(path))


def module_texts(path: Path) -> Iterator[Text]:
    source = read(path)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield Text(path, token.start[0], token.string)
    for node in ast.walk(syntax_tree(path)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            for offset, line in enumerate((docstring or "").splitlines()):
                yield Text(path, node.body[0].lineno + offset, line)


def doc_texts(path: Path) -> Iterator[Text]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        yield Text(path, number, line)


def all_texts() -> list[Text]:
    texts = [t for p in sorted(PACKAGE.rglob("*.py")) for t in module_texts(p)]
    return texts + [t for p in DOCS if p.is_file() for t in doc_texts(p)]


def is_doc(text: Text) -> bool:
    return text.file.suffix == ".md"


def spans(text: Text) -> list[str]:
    """The parts of a text that may hold references: all of a module's, a doc's code spans."""
    return CODE_SPAN.findall(text.text) if is_doc(text) else [text.text]


def module_names() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


MODULES = module_names()
STEMS = frozenset(m.rsplit(".", 1)[-1] for m in MODULES)


def module_path(module: str) -> Path:
    path = ROOT.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


@cache
def symbols(module: str) -> dict[str, ast.AST | str]:
    """The names a module defines at top level: a class or function's node, else the dotted
    name it imports (`from reportgen.x import Y` gives "reportgen.x.Y"), else the assignment."""
    found: dict[str, ast.AST | str] = {}
    for node in syntax_tree(module_path(module)).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found[node.name] = node
        elif isinstance(node, ast.Assign):
            found |= {t.id: node for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found[node.target.id] = node
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {a.asname or a.name: f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.asname or a.name: a.name for a in node.names}
    return found


@cache
def defined() -> frozenset[str]:
    """Every name some module defines at top level (not one it imports)."""
    return frozenset(
        name for m in MODULES for name, node in symbols(m).items() if not isinstance(node, str)
    )


def class_members(node: ast.ClassDef) -> set[str]:
    """A class's methods, attributes and (dataclass) fields, as its body writes them."""
    members: set[str] = set()
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            members.add(item.name)
        elif isinstance(item, ast.Assign):
            members.update(t.id for t in item.targets if isinstance(t, ast.Name))
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            members.add(item.target.id)
    return members


def resolves_in(module: str, rest: list[str]) -> bool:
    """`module` has the attributes `rest`: a submodule, a top-level name (followed through its
    import when it is imported from another reportgen module), then a class's members."""
    if module not in MODULES:
        return False
    if not rest:
        return True
    name, more = rest[0], rest[1:]
    if f"{module}.{name}" in MODULES:
        return resolves_in(f"{module}.{name}", more)
    node = symbols(module).get(name)
    if isinstance(node, str):  # imported: look where it comes from
        home, _, attr = node.rpartition(".")
        if node in MODULES:
            return resolves_in(node, more)
        return home in MODULES and resolves_in(home, [attr, *more])
    if node is None or not more:
        return node is not None
    return isinstance(node, ast.ClassDef) and len(more) == 1 and more[0] in class_members(node)


def dotted_resolves(reference: str) -> bool:
    parts = reference.split(".")
    for cut in range(len(parts), 0, -1):
        if ".".join(parts[:cut]) in MODULES:
            return resolves_in(".".join(parts[:cut]), parts[cut:])
    return False


def short_resolves(reference: str) -> bool:
    parts = reference.split(".")
    for cut in range(len(parts), 0, -1):
        for module in MODULES:
            if module.split(".")[-cut:] == parts[:cut] and resolves_in(module, parts[cut:]):
                return True
    return False


def is_short_reference(words: str) -> bool:
    parts = words.split(".")
    if words in STDLIB or parts[0] == "reportgen" or parts[-1] in EXTENSIONS:
        return False
    if parts[0] not in STEMS | RETIRED:
        return False
    return parts[-1] in defined() | STEMS


def path_resolves(path: str, test: str | None, text: Text) -> bool:
    if path.split("/", 1)[0] in TOP and "/" in path:
        found = ROOT / path
        if test is not None:
            return found.is_file() and f"def {test}(" in found.read_text(encoding="utf-8")
        return found.exists()
    if is_doc(text) and "/" in path:
        return (PACKAGE / path).is_file()
    if is_doc(text):
        return any(any(ROOT.glob(f"{top}/**/{path}")) for top in BARE_HOMES)
    folders = [text.file.parent, *text.file.parent.parents]
    return any((folder / path).is_file() for folder in folders[: folders.index(PACKAGE) + 1])


def is_checked_path(path: str) -> bool:
    if path in FOREIGN:
        return False
    return path.endswith(".py") or ("/" in path and path.split("/", 1)[0] in TOP)


def references(text: Text) -> Iterator[tuple[str, bool]]:
    """Each reference in `text`, and whether it resolves."""
    name = text.file.relative_to(ROOT).as_posix()
    for reference in DOTTED.findall(text.text):
        yield reference, dotted_resolves(reference)
    if name in RESEARCH:
        return
    for span in spans(text):
        for match in SHORT.finditer(span if name not in KEYS else ""):
            words = match.group(1)
            if is_short_reference(words):
                yield words, short_resolves(words)
        for match in RETIRED_WORD.finditer(span):
            yield match.group(1), False
        for match in PATH.finditer(span):
            path, test = match.group(1), match.group(2)
            if is_checked_path(path):
                yield match.group(0), path_resolves(path, test, text)


@cache
def found() -> list[tuple[str, str, bool]]:
    """Every reference: where it is, what it says, whether it resolves."""
    return [(t.where, ref, ok) for t in all_texts() for ref, ok in references(t)]


@pytest.mark.slow
def test_the_search_sees_every_kind_of_reference() -> None:
    # A pattern that matched nothing would make the next test pass vacuously.
    seen = {ref for _, ref, _ in found()}
    assert sum(ref.startswith("reportgen.") for ref in seen) >= 30
    assert "published.reported_in_lines" in seen
    assert "markdown.py" in seen
    assert "article/workers.py" in seen
    assert any(ref.startswith("tests/") for ref in seen)
    assert any(ref.startswith("docs/") for ref in seen)


@pytest.mark.slow
def test_every_reference_resolves() -> None:
    broken = [f"{where}: {ref}" for where, ref, ok in found() if not ok]
    assert broken == []


@pytest.mark.parametrize(
    ("reference", "ok"),
    [
        ("reportgen.formats.load", True),
        ("reportgen.formats.base.RunFormat", True),
        ("reportgen.formats.base.RunFormat.tested_versions", True),  # a dataclass field
        ("reportgen.formats.base.RunFormat.no_such_field", False),
        ("reportgen.metrics.registry.MetricSet.find", True),
        ("reportgen.article.build.MetricSet.find", True),  # imported from metrics.registry
        ("reportgen.metrics.registry.MetricSet.no_such_method", False),
        ("reportgen.metrics.MetricSet", False),  # the package re-exports nothing
        ("reportgen.fastschema", False),
        ("reportgen.formats.no_such_module.Name", False),
    ],
)
def test_a_dotted_reference_resolves_only_to_what_exists(reference: str, ok: bool) -> None:
    assert dotted_resolves(reference) is ok


@pytest.mark.parametrize(
    ("reference", "ok"),
    [
        ("published.reported_in_lines", True),
        ("lints.cells", True),
        ("jsonfile.parse_json", False),
        ("published.parse_json", False),
    ],
)
def test_a_short_reference_resolves_only_to_what_exists(reference: str, ok: bool) -> None:
    assert is_short_reference(reference)
    assert short_resolves(reference) is ok


def test_a_path_resolves_from_the_module_folder_and_the_folders_above() -> None:
    here = Text(PACKAGE / "check" / "readers" / "published.py", 1, "")
    assert path_resolves("markdown.py", None, here)
    assert path_resolves("html/text.py", None, here)  # from reportgen/check/
    assert not path_resolves("sheets.py", None, here)  # reportgen/check/html/css/sheets.py
    assert path_resolves("tests/test_layering.py", "test_allowed_imports_pass", here)
    assert not path_resolves("tests/test_layering.py", "test_no_such_test", here)


def tree_entries() -> list[tuple[Path, list[str]]]:
    """The tree in docs/architecture.md: each line's folder, and the modules it names there."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = doc.split("## The tree", 1)[1].split("```", 2)[1]
    found: list[tuple[Path, list[str]]] = []
    folders = [ROOT]
    for line in block.splitlines():
        names = re.split(r" {2,}", line.strip())[0].split()
        if not names or not all(n.endswith(("/", ".py")) for n in names):
            continue  # a comment carried over to the next line
        depth = (len(line) - len(line.lstrip())) // 2
        if names[0].endswith("/"):
            folders[depth + 1 :] = [folders[depth] / names[0].rstrip("/")]
            found.append((folders[depth + 1], []))
        else:
            found.append((folders[depth], names))
    return found


def test_the_architecture_tree_is_the_package_tree() -> None:
    entries = tree_entries()
    shown = {folder for folder, _ in entries}
    packages = {p.parent for p in PACKAGE.rglob("__init__.py")}
    assert shown == packages, "docs/architecture.md's tree and the packages differ"
    named = [folder / name for folder, names in entries for name in names]
    assert named and all(path.is_file() for path in named), [p for p in named if not p.is_file()]
    loose = {p for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__")}
    assert loose <= set(named), "a module of reportgen/ is missing from the tree"
