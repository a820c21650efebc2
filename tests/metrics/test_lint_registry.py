"""The lint table is built by declaration: each lint is defined once, next to the code that finds
it, every lint id the code, tests, articles and docs use is defined, the docs list exactly the
defined lints, and a lint defined in a test runs through `lint()` into an article without any
other file knowing of it."""

from __future__ import annotations

import ast
import dataclasses
import functools
import os
import re
import subprocess
import sys
import tomllib
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from helpers_lints import ROOT, defined_in_source, definitions, every_lint
from helpers_source import nodes, parsed
from lint_builders import (
    CONCURRENCIES,
    CONTEXTS,
    MATRIX_FILE,
    canonical,
    cell_of,
    matrix,
    with_cell,
)

from reportgen.article.build import render_article
from reportgen.article.rundata import article_metrics
from reportgen.errors import Problem
from reportgen.metrics.compute import compute
from reportgen.metrics.lints import lint
from reportgen.metrics.lints.findings import LINTS, Finding, define_lint, finding, finds, group
from reportgen.metrics.registry import MetricSet
from reportgen.tolerances import THRESHOLDS, Thresholds

# the package's modules parsed once, in setup (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("package_parsed")

# --- each lint defined once -------------------------------------------------------------------


def test_each_lint_is_defined_once_and_the_table_holds_exactly_those() -> None:
    defined = defined_in_source()
    twice = [lint_id for lint_id, n in Counter(i for i, _ in defined).items() if n > 1]
    assert not twice, f"lints defined more than once: {twice}"
    table = every_lint()
    assert sorted(table) == sorted(i for i, _ in defined)
    assert all(table[i].id == i for i in table)


@pytest.mark.process
def test_the_lint_stage_defines_its_lints_by_importing_its_package() -> None:
    # `lint()` runs what the table holds: every lint of the lint stage must be there once the
    # package is imported, in a fresh interpreter (here other tests have imported more).
    stage = {i for i, module in defined_in_source() if module.startswith("reportgen.metrics")}
    code = "from reportgen.metrics.lints import LINTS; print(*(i for i in LINTS if LINTS[i].find))"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert stage and set(out.stdout.split()) == stage


def test_a_lint_found_elsewhere_is_defined_where_its_findings_are_made() -> None:
    where = dict(defined_in_source())
    assert where["setup-contradicts-data"] == "reportgen.article.consistency"
    assert where["acknowledgement-unused"] == "reportgen.article.page.quality"
    table = every_lint()
    assert table["setup-contradicts-data"].find is None
    assert table["acknowledgement-unused"].find is None


def test_a_lint_id_cannot_be_defined_twice() -> None:
    before = dict(LINTS)
    texts = {"rule": "r", "title": "t", "why": "w"}
    with pytest.raises(ValueError, match="'cell-invalid' is defined twice"):
        define_lint("cell-invalid", severity="warning", **texts)
    with pytest.raises(ValueError, match="'few-samples' is defined twice"):

        @finds("few-samples", severity="warning", rule="r", title="t", why="w")
        def again(_metrics: MetricSet, _: Thresholds) -> Iterator[Finding]:
            yield from ()

    assert before == LINTS  # the first definitions stand


# --- every lint id used is defined ------------------------------------------------------------

ID = r"[a-z][a-z0-9]+(?:-[a-z0-9]+)+"
LINT_ID = re.compile(rf"^{ID}$")
# A lint id inside text: an acknowledgement (`lint = "few-samples"`, quotes escaped or not) or a
# finding as it is printed (`warning [few-samples] 8K x 1`), not a CSS selector (`a[data-b]`).
IN_TEXT = (re.compile(rf'\blint\s*=\s*\\?"({ID})\\?"'), re.compile(rf"(?<![\w.\]-])\[({ID})\]"))
# A comment line that introduces a lint: "# few-samples: a median needs ...".
IN_COMMENT = re.compile(rf"^[ \t]*#[ \t]*({ID}):", re.MULTILINE)
# Calls whose string arguments are lint ids.
TAKES_IDS = frozenset({"finding", "only", "finds", "define_lint"})
# What a module needs for its syntax tree to be worth reading: a quoted lint-shaped string and a
# place a lint id goes (parsing every module would take seconds).
QUOTED = re.compile(rf"([\"'])({ID})\1")
PLACES = re.compile(
    r"\b(finding|only|finds|define_lint|ids)\(|LINTS\[|\b(f|find\w*|found\w*)\.id\b"
)
SKIP = ("tests/golden/", "tests/examples/", "tests/data/")
K8 = 8192
HERE = Path(__file__).resolve().relative_to(ROOT).as_posix()


def _strings(node: ast.AST) -> Iterator[str]:
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and LINT_ID.match(n.value):
            yield n.value


def _is_finding(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and (node.id == "f" or node.id.startswith(("find", "found")))


def _mentions_ids(node: ast.AST) -> bool:
    """`f.id`, `finding.id` or `ids(found)` somewhere in `node`."""
    return any(
        (isinstance(n, ast.Attribute) and n.attr == "id" and _is_finding(n.value))
        or (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "ids")
        for n in ast.walk(node)
    )


def _tree_uses(source: str) -> Iterator[str]:
    """Lint ids in Python code: arguments of `finding`, `only` and the definers, `LINTS[...]`,
    and whatever a finding's id is compared with or counted in."""
    for n in nodes(source):
        if isinstance(n, ast.Call):
            func = n.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            counted = name == "count" and isinstance(func, ast.Attribute)
            if name in TAKES_IDS or (counted and _mentions_ids(getattr(func, "value", func))):
                for arg in n.args:
                    yield from _strings(arg)
        elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name):
            if n.value.id == "LINTS":
                yield from _strings(n.slice)
        elif isinstance(n, ast.Compare):
            sides = [n.left, *n.comparators]
            if any(_mentions_ids(s) for s in sides):
                for side in sides:
                    if not _mentions_ids(side):
                        yield from _strings(side)


def _python_uses(source: str) -> Iterator[str]:
    for pattern in IN_TEXT:
        yield from pattern.findall(source)
    yield from IN_COMMENT.findall(source)
    if QUOTED.search(source) and PLACES.search(source):
        yield from _tree_uses(source)


# A line of prose that may name lints: about lints or findings, or a row of the docs' lint table.
NAMING_LINE = re.compile(
    rf"^.*(\b(lint|lints|finding|findings)\b|^\| `{ID}` \| (error|warning) \|).*$",
    re.IGNORECASE | re.MULTILINE,
)
BACKTICKED = re.compile(rf"`({ID})`")


def _text_uses(text: str) -> Iterator[str]:
    for pattern in IN_TEXT:
        yield from pattern.findall(text)
    for line in NAMING_LINE.finditer(text):
        yield from BACKTICKED.findall(line.group())


def _files() -> Iterator[tuple[str, Path]]:
    """Every file of the repository but hidden folders (.git, a .venv) and run-file fixtures."""
    for folder, dirs, names in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            path = Path(folder) / name
            rel = path.relative_to(ROOT).as_posix()
            if not rel.startswith(SKIP):
                yield rel, path


@functools.cache
def lint_id_uses() -> tuple[tuple[str, str], ...]:
    """(lint id, file) for each place the repository uses a lint id: Python (package, tests,
    benchmarks), article.toml acknowledgements, docs, templates and schemas."""
    uses: list[tuple[str, str]] = []
    for rel, path in _files():
        if path.suffix == ".py":
            found: Iterable[str] = _python_uses(path.read_text(encoding="utf-8"))
        elif path.suffix == ".toml":
            doc = tomllib.loads(path.read_text(encoding="utf-8"))
            found = [ack["lint"] for ack in doc.get("acknowledge", [])]
        elif path.suffix in (".md", ".j2", ".tmpl", ".html") or rel.startswith("schemas/"):
            found = _text_uses(path.read_text(encoding="utf-8"))
        else:
            continue
        uses += [(lint_id, rel) for lint_id in found]
    return tuple(uses)


def _defined_in_tests() -> set[str]:
    """Lints that tests define for themselves (as this module does)."""
    ids = set()
    for path in (ROOT / "tests").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        if "finds(" in source or "define_lint(" in source:
            for call in definitions(parsed(source)):
                ids |= set(_strings(call.args[0])) if call.args else set()
    return ids


@pytest.mark.slow
def test_every_lint_id_used_anywhere_is_defined() -> None:
    uses = lint_id_uses()
    # the scan sees each kind of place (else the test below would pass on nothing)
    assert ("cell-invalid", "reportgen/article/tables/cells.py") in uses
    assert ("few-samples", "reportgen/tolerances.py") in uses
    assert ("few-samples", "runs/paiton-kimi-k3.1-pro/article.toml") in uses
    assert ("aggregate-source", "docs/run-files.md") in uses
    assert ("setup-contradicts-data", "tests/article/test_consistency.py") in uses
    known = set(every_lint()) | _defined_in_tests()
    unknown = sorted({(i, rel) for i, rel in uses if i not in known})
    assert not unknown, f"lint ids used but not defined: {unknown}"


@pytest.mark.slow
def test_every_lint_is_named_by_a_test() -> None:
    # "Its test": a test that makes the lint fire, or reads its findings (this module aside).
    tests = {rel for _, rel in lint_id_uses() if rel.startswith("tests/") and rel.endswith(".py")}
    tested = {i for i, rel in lint_id_uses() if rel in tests - {HERE}}
    untested = sorted(set(every_lint()) - tested)
    assert not untested, f"lints no test names: {untested}"


def test_the_docs_list_exactly_the_defined_lints_with_their_severity() -> None:
    doc = (ROOT / "docs" / "article-format.md").read_text(encoding="utf-8")
    rows = re.findall(rf"^\| `({ID})` \| (error|warning) \|", doc, re.MULTILINE)
    assert len(rows) == len(dict(rows)), "a lint is listed twice in docs/article-format.md"
    assert dict(rows) == {i: d.severity for i, d in every_lint().items()}


# --- a lint defined in a test runs without any other file ---------------------------------------


@pytest.fixture
def scratch_lints() -> Iterator[None]:
    """The lint table as it is, restored after the test: the lints a test defines are gone."""
    before = dict(LINTS)
    yield
    LINTS.clear()
    LINTS.update(before)


SCRATCH = "aggregate-seen"


def _define_scratch_lint() -> None:
    @finds(
        SCRATCH,
        severity="warning",
        rule="every decode aggregate",
        title="Aggregates a test lint looked at",
        why="A lint defined in a test: one function and its definition are the whole lint.",
    )
    def aggregate_seen(metrics: MetricSet, _: Thresholds) -> Iterator[Finding]:
        for v in metrics.values:
            if v.metric == "decode.aggregate_tok_s":
                yield finding(
                    SCRATCH,
                    file=v.file,
                    pointer=v.pointer,
                    cell=None,
                    evidence="seen",
                    message="Seen.",
                    metrics=(v.id,),
                )


@pytest.mark.usefixtures("scratch_lints")
def test_a_lint_defined_in_a_test_runs_in_the_lint_stage() -> None:
    before = lint(compute([with_cell(matrix(), K8, 2, num_errors=1)]))
    _define_scratch_lint()
    found = lint(compute([with_cell(matrix(), K8, 2, num_errors=1)]))
    ours = [f for f in found if f.id == SCRATCH]
    cells = len(CONTEXTS) * len(CONCURRENCIES)
    assert len(ours) == cells
    assert all(f.severity == "warning" and f.file == MATRIX_FILE for f in ours)
    assert [f for f in found if f.id != SCRATCH] == list(before)  # errors still come first
    assert found[0].id == "requests-failed"
    (g,) = [g for g in group(found) if g.lint.id == SCRATCH]
    assert g.lint.title == "Aggregates a test lint looked at" and len(g.findings) == cells


@pytest.mark.usefixtures("scratch_lints")
def test_a_lint_defined_in_a_test_shows_in_an_article() -> None:
    _define_scratch_lint()
    built = render_article(ROOT / "tests" / "articles" / "small", {}, charts=False)
    assert any(f.id == SCRATCH for f in built.findings)
    assert f'data-lint="{SCRATCH}"' in built.html  # the data-quality entry
    assert "A lint defined in a test: one function" in built.html
    assert "Aggregates a test lint looked at (see" in built.html  # a table cell's note


# --- each function finds its own lint ---------------------------------------------------------

# Thresholds at which nearly every check fires, so that each function yields what it can.
HAIR_TRIGGER = dataclasses.replace(
    THRESHOLDS,
    min_samples=10**6,
    incomplete_per_slot=-1,
    min_effective_concurrency=10.0,
    min_ttft_vs_prefill=10.0**6,
    context_mismatch=-1.0,
    trend_margin=-1.0,
    aggregate_margin=-1.0,
    median_speed_margin=-1.0,
)


def _metric_sets() -> list[MetricSet]:
    articles = [
        "runs/paiton-kimi-k3.1-pro",
        "runs/tiny-llamacpp-two-tools",  # a load point that never reaches a steady state
        "tests/articles/rate-sweep",
        "tests/articles/small",
    ]
    sets = [article_metrics(ROOT / a)[1] for a in articles]
    run = with_cell(matrix(), K8, 2, num_errors=1)
    run = with_cell(run, K8, 4, aggregate_source="none")
    summary = cell_of(run, K8, 1).summary
    run = with_cell(run, K8, 1, summary=dataclasses.replace(summary, ttft_p50_s=1e3))
    built = compute([run, canonical(4, warnings=("w",), iterations=2)])
    problem = Problem(
        path=MATRIX_FILE, line=3, col=1, pointer="/x", message="odd", severity="warning"
    )
    failed = with_cell(matrix("r2.json"), K8, 2, status="error", reason="x", aggregate_tok_s=None)
    repeated = compute([matrix("r1.json"), failed, with_cell(matrix("r3.json"), K8, 4, n=1)])
    return [*sets, dataclasses.replace(built, read_warnings=(problem,)), repeated]


def test_each_function_yields_only_its_own_lint() -> None:
    fired = set()
    for metrics in _metric_sets():
        for d in LINTS.values():
            if d.find is None:
                continue
            ids = {f.id for f in d.find(metrics, HAIR_TRIGGER)}
            assert ids <= {d.id}, f"{d.find.__name__} yields {sorted(ids)}, not {d.id}"
            fired |= ids
    assert fired == {i for i, d in LINTS.items() if d.find}  # every function had a say
