"""The tables' CSV downloads (article/tables/csvfile.py): a cell a spreadsheet would run as a
formula is written as text (OWASP: a leading single quote), while numbers, negative ones too, stay
numbers. The hostile strings come from run files, as the labels of a `meta.` axis."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from reportgen.article.build import render_article
from reportgen.article.tables.csvfile import spreadsheet_cell, table_csv
from reportgen.terminal import visible

SWEEP = Path(__file__).resolve().parents[2] / "articles" / "rate-sweep"
TABLE = """
[[sections]]
id = "by-label"
title = "By label"

[[sections.table]]
id = "by-label"
title = "Output by each file's label"
rows = "meta.label"
columns = [{ metric = "load.output_tok_s", header = "output tok/s" }]
"""
HOSTILE = (
    '=HYPERLINK("http://x","y")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A9)",
    "\t=1+1",
    "\r=1+1",
    "＝1+1",
    "＋1",
    "－1",
    "＠A1",
    " =1+1",
)


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_formulas_in_run_file_labels_are_written_as_text(tmp_path: Path) -> None:
    folder = tmp_path / "sweep"
    shutil.copytree(SWEEP, folder)
    for path, label in zip(sorted(folder.glob("*.json")), HOSTILE, strict=False):
        data = json.loads(path.read_text(encoding="utf-8"))
        data["label"] = label
        path.write_text(json.dumps(data), encoding="utf-8")
    with (folder / "article.toml").open("a", encoding="utf-8") as out:
        out.write(TABLE)
    built = render_article(folder)
    (view,) = [v for v in built.tables if v.id == "by-label"]
    rows = _rows(table_csv(view, built.metrics))
    labels = [r["row"] for r in rows]
    # a control character is written as its escape, as the page shows it ("\\t=1+1", which no
    # spreadsheet runs); any other formula start gets its quote
    shown = [visible(h) for h in HOSTILE[:5]]
    assert sorted(labels) == sorted(s if s.startswith("\\") else "'" + s for s in shown), labels
    for row in rows:
        # a gated cell (the sweep's point with failed requests) keeps its value beside the words
        gate = built.metrics.by_id()[row["metric"]].gate
        shown_ok = row["shown"] == gate.words() if gate else float(row["shown"]) > 0
        assert float(row["value"]) > 0 and shown_ok, row
        assert row["metric"].endswith("output_tok_s") and row["column"] == "output tok/s"


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("-12.5", "-12.5"),
        ("-3", "-3"),
        ("+4e-3", "+4e-3"),
        ("-1,234.5", "-1,234.5"),
        ("183", "183"),
        ("tok/s", "tok/s"),
        ("", ""),
        ("=A1", "'=A1"),
        ("+cmd", "'+cmd"),
        ("-", "'-"),
        ("-inf", "'-inf"),
        ("-1e", "'-1e"),
        ("-2+3", "'-2+3"),
        ("@note", "'@note"),
        ("\t1", "'\t1"),
        ("\r1", "'\r1"),
        ("\n=1", "'\n=1"),
        ("  =1", "'  =1"),
        ("\u3000=1", "'\u3000=1"),
        ("＝1", "'＝1"),
        ("－2", "'－2"),
        ("＋2", "'＋2"),
        ("＠2", "'＠2"),
        ("\ufe6b1", "'\ufe6b1"),  # small commercial at
        ("\u200b=1", "'\u200b=1"),  # behind invisible characters
        ("\ufeff\u2060=1", "'\ufeff\u2060=1"),
        ("\u00a0-2", "'\u00a0-2"),
    ],
)
def test_a_cell_is_text_unless_it_is_a_plain_number(text: str, written: str) -> None:
    assert spreadsheet_cell(text) == written
