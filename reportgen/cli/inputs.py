"""What a FILE|DIR argument names: the run files to read.

An article folder (one with `article.toml`) holds the run files its manifest names; any other
folder, its `*.json` and `*.jsonl` files except those reportgen writes; a file is itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from reportgen.article.source.manifest import MANIFEST, load_article
from reportgen.errors import Problem
from reportgen.formats.load import LoadResult, folder_run_files, load
from reportgen.metrics.measured import unmeasured


def run_paths(paths: Iterable[Path]) -> tuple[list[Path], list[Problem]]:
    """The run files that `paths` name, and a problem for each folder that holds none."""
    out: list[Path] = []
    problems = []
    for path in paths:
        if path.is_dir() and (path / MANIFEST).is_file():
            out.extend(load_article(path).run_paths())
        elif path.is_dir():
            listed = folder_run_files(path)
            if not listed:
                message = "no run files (*.json, *.jsonl) found"
                problems.append(Problem(path=str(path), line=1, col=1, pointer="", message=message))
            out.extend(listed)
        else:
            out.append(path)
    return out, problems


def load_arguments(paths: Iterable[Path]) -> LoadResult:
    """Load every run file that the command-line `paths` name; a file that reads but yields no
    metric is an error (`reportgen.metrics.measured`), and its run is left out."""
    files, problems = run_paths(paths)
    result = load(files)
    problems += unmeasured(result.runs)
    runs = tuple(r for r in result.runs if r.source.label not in {p.path for p in problems})
    return LoadResult(runs, tuple(sorted((*result.problems, *problems))))
