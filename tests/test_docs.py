"""docs/article-format.md against what the code accepts: every key the article schema allows,
every setup field, reference form, metric key, axis and lint is described there, and the doc
names nothing the schema refuses."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers_lints import every_lint

from reportgen.article.prose.resolver import FILTERS, SETUP_FIELDS
from reportgen.metrics.registry import AXES, DEFINITIONS

# the package's modules parsed once, in setup (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("package_parsed")

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "article-format.md").read_text(encoding="utf-8")
SCHEMA = json.loads((ROOT / "schemas" / "article.schema.json").read_text(encoding="utf-8"))
LINTS = every_lint()


def key_paths(node: dict[str, Any], path: str = "") -> Iterator[str]:
    """Every key path the schema allows, as the doc writes it: runs[].setup.engine.name."""
    if "$ref" in node:
        yield from key_paths(SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[1]], path)
        return
    for keyword in ("anyOf", "oneOf", "allOf"):
        for sub in node.get(keyword, []):
            yield from key_paths(sub, path)
    if isinstance(node.get("items"), dict):
        yield from key_paths(node["items"], f"{path}[]")
    for key, sub in node.get("properties", {}).items():
        here = f"{path}.{key}" if path else key
        yield here
        yield from key_paths(sub, here)


PATHS = sorted(set(key_paths(SCHEMA)))
# The doc's key tables: a first column of `path` in backticks.
DOC_PATHS = set(re.findall(r"^\| `([a-z0-9_\[\].]+)` \|", DOC, re.MULTILINE))


def test_the_walk_sees_the_whole_schema() -> None:
    # A walk that missed the nested parts would make the next test vacuous.
    assert len(PATHS) > 90
    assert "sections[].table[].columns[].decimals" in PATHS
    assert "runs[].setup.hardware.gpu_name" in PATHS
    assert "acknowledge[].reason" in PATHS


def test_every_schema_key_is_documented() -> None:
    missing = [path for path in PATHS if path not in DOC_PATHS]
    assert missing == [], "docs/article-format.md has no row for these keys"


def test_the_doc_documents_no_key_the_schema_refuses() -> None:
    setup_fields = {f"`{f}`" for f in SETUP_FIELDS}
    extra = {p for p in DOC_PATHS - set(PATHS) if f"`{p}`" not in setup_fields}
    extra -= set(AXES) | set(LINTS)
    assert not extra, f"the doc describes keys the schema does not allow: {sorted(extra)}"


def test_the_setup_fields_are_exactly_those_references_take() -> None:
    rows = dict(re.findall(r"^\| `([a-z_]+)` \| `([a-z_.]+)` \|$", DOC, re.MULTILINE))
    assert set(rows) == set(SETUP_FIELDS), "the doc's setup-field table and the code differ"
    for field, source in rows.items():
        assert f"runs[].setup.{source}" in PATHS, f"setup.{field}: no key runs[].setup.{source}"


def test_every_reference_form_is_documented() -> None:
    forms = ["{{ metric.id }}", "{{ setup.FIELD }}", "{{ setup.RUN.FIELD }}", "{{ version.TOOL }}"]
    forms += ["{{ article.date }}", "{{ CELL.status }}", "{{ CELL.reason }}", "{{ A/B }}"]
    forms += ["{{ A->B }}"]
    forms += [f"{{{{ metric.id \\| {name} }}}}" for name in FILTERS]
    for form in forms:
        assert f"`{form}`" in DOC, f"docs/article-format.md does not show the form {form}"


def _names_metric_key(key: str) -> bool:
    kind, _, rest = key.partition(".")
    base, _, suffix = rest.partition(".")
    # efficiency keys are documented as suffixes of the throughput key
    wanted = f"`.{suffix}`" if suffix else f"`{key}`"
    return wanted in DOC and f"`{kind}.{base}" in DOC


def test_every_metric_key_is_documented() -> None:
    keys = sorted(k for k in DEFINITIONS if not k.startswith("compare."))
    missing = [key for key in keys if not _names_metric_key(key)]
    assert missing == [], "docs/article-format.md does not name these metric keys"


def test_every_axis_is_documented() -> None:
    assert [axis for axis in AXES if f"| `{axis}` |" not in DOC] == []


def test_every_lint_is_documented() -> None:
    rows = {lint: f"| `{lint}` | {LINTS[lint].severity} |" for lint in sorted(LINTS)}
    assert [lint for lint, row in rows.items() if row not in DOC] == []
