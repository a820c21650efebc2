"""llama-bench files other people committed to public repositories, read where they are kept.

`../shared/samples/wild/` holds two (its README names their repositories): an 84-test `-p/-n/-d`
sweep written with `-o json` by build 7951, and a 10-test depth sweep written with `-o jsonl` by
build 6865. They are never copied into the project; the tests skip, saying why, where
../shared is absent. Every expected number is the file's own avg_ts. More files found in public
repositories are tried by tests/realfiles/try_files.py and listed in docs/tested-files.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reportgen.article.build import build
from reportgen.article.rundata import article_metrics
from reportgen.article.tables.layout import table_views
from reportgen.check.compare import check_article
from reportgen.formats.load import load, parse_run_file
from reportgen.init.scaffold import scaffold
from reportgen.metrics.compute import compute
from reportgen.model import MatrixRun

WORK = Path(__file__).resolve().parents[4]
WILD = WORK / "shared" / "samples" / "wild"
SWEEP = WILD / "llama-bench-b7951-7900xtx-depth-sweep.json"
LINES = WILD / "llama-bench-b6865-jsonl-llama32-1b.jsonl"
SPEEDS = ("prefill.tok_s", "decode.aggregate_tok_s")
shared = pytest.mark.skipif(
    not SWEEP.exists() or not LINES.exists(),
    reason=f"the real llama-bench files are not at {WILD} (../shared is absent)",
)


def _tests(path: Path) -> dict[str, dict[str, Any]]:
    """The file's tests by pointer index, as reportgen's reader hands them over."""
    doc = parse_run_file(str(path), path.read_bytes(), path)
    return doc.data


def _agree(path: Path) -> MatrixRun:
    """Read `path`; every test's speed value must be its own avg_ts, each test one value."""
    result = load([path])
    assert result.ok, [p.format() for p in result.problems]
    (run,) = result.runs
    assert isinstance(run, MatrixRun)
    tests = _tests(path)
    shown = {}
    for v in compute([run]).values:
        if v.key in SPEEDS and v.stat is None:
            index = v.pointer.split("/")[1]
            assert index not in shown, v.id
            shown[index] = v.value
    read = {k for k, t in tests.items() if bool(t["n_prompt"]) != bool(t["n_gen"])}
    assert shown == {k: tests[k]["avg_ts"] for k in read}
    return run


@shared
@pytest.mark.parametrize("path", [SWEEP, LINES], ids=lambda p: p.name)
def test_the_real_files_read_with_their_own_numbers(path: Path) -> None:
    run = _agree(path)
    tests = _tests(path)
    first = next(iter(tests.values()))
    assert run.source.tool == f"llama-bench b{first['build_number']} ({first['build_commit']})"
    assert run.model == Path(first["model_filename"]).name
    assert len(run.prefill) + len(run.cells) == len(tests)


@pytest.mark.pdf
@shared
@pytest.mark.parametrize("path", [SWEEP, LINES], ids=lambda p: p.name)
def test_init_builds_tables_by_depth_that_check(tmp_path: Path, path: Path) -> None:
    folder, out = tmp_path / "article", tmp_path / "build"
    scaffold(folder, [path])
    article, metrics = article_metrics(folder)
    tests = _tests(path)
    depths = sorted({t.get("n_depth", 0) for t in tests.values()})
    views = table_views(article, metrics)
    assert [v.id for v in views] == ["pp", "tg"]
    by_id = metrics.by_id()
    for view in views:
        assert len(view.rows) == len(depths)  # one row per depth
        lengths = sorted({t["n_prompt" if view.id == "pp" else "n_gen"] for t in tests.values()})
        assert view.columns == tuple(f"{view.id}{n}" for n in lengths if n)
        for _, cells in view.rows:
            for cell in cells:
                assert cell.metric is not None
                value = by_id[cell.metric]
                assert value.value == tests[value.pointer.split("/")[1]]["avg_ts"]
    build(folder, out)
    result = check_article(folder, build_dir=out)
    assert not result.failed, [i.message for i in result.items]
