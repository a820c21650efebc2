"""Try reportgen on run files found in public repositories, as a new user would, and print one
Markdown row per file for docs/tested-files.md.

    .venv/bin/python tests/realfiles/try_files.py MANIFEST.json [MANIFEST.json ...] > rows.md

Each manifest is a JSON list of {tool, version, repo, path, commit, local, ...}: `local` is where
the file was saved (never inside the repo: other people's files are not committed). Each file is
loaded, its metrics computed, and the file's own headline numbers (tests/helpers_headlines.py:
median TTFT, median ITL or TPOT, output throughput per load point; llama-bench's avg_ts per test)
compared with reportgen's for the same point. The outcome says what a user would see: read (with
how many load points and warnings) and how close the numbers are, or the first error.
Files listed twice (the same sha256) are tried once.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for helpers_headlines

from helpers_headlines import agreements, headlines

from reportgen.errors import has_errors
from reportgen.formats.load import LoadResult, load
from reportgen.metrics.compute import compute
from reportgen.metrics.measured import unmeasured


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def outcome(path: Path) -> str:
    """What reportgen made of one file, in a phrase."""
    loaded = load([path])
    empty = unmeasured(loaded.runs)  # as validate, metrics and init refuse it
    loaded = LoadResult(tuple(r for r in loaded.runs if not empty), (*loaded.problems, *empty))
    errors = [p for p in loaded.problems if p.severity == "error"]
    warnings = len(loaded.problems) - len(errors)
    if has_errors(loaded.problems) or not loaded.runs:
        first = errors[0] if errors else None
        where = f"{first.pointer or '/'}: " if first else ""
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        return f"refused: {where}{first.message if first else 'no run'}{more}"
    (run,) = loaded.runs
    values = list(compute([run]).values)
    pairs = agreements(headlines(path, run.source.format), values, loaded.problems)
    checked = [a for a in pairs if a.ratio is not None]
    explained = [a for a in pairs if a.ratio is None and a.explained]
    # a file whose requests all failed states 0 for its medians: no number to compare
    zero = [a for a in pairs if a.ratio is None and not a.explained and a.headline.value == 0]
    explained += zero
    worst = max((abs(a.ratio - 1) for a in checked if a.ratio is not None), default=None)
    missing = len(pairs) - len(checked) - len(explained)
    said = f"read as {run.source.tool}: {len(values)} metrics, {warnings} warning(s)"
    if not pairs:
        return f"{said}; no headline number to compare"
    agree = "agree" if worst is not None and worst <= 0.01 else "DISAGREE"
    parts = [f"{len(checked)} headline numbers {agree} (worst {worst:.2%})" if checked else ""]
    if zero:
        parts.append(f"{len(zero)} stated as 0 by the file (no request completed), none given")
    if len(explained) > len(zero):
        parts.append(f"{len(explained) - len(zero)} left out with a warning at the file's field")
    if missing:
        parts.append(f"{missing} with no reportgen value")
    return f"{said}; " + ", ".join(p for p in parts if p)


def main(argv: list[str]) -> int:
    seen: set[str] = set()
    print("| tool | version | repository | path | commit | outcome |")
    print("|---|---|---|---|---|---|")
    for manifest in argv:
        for entry in json.loads(Path(manifest).read_text(encoding="utf-8")):
            local = Path(entry.get("local") or "")
            if local.is_file():
                digest = hashlib.sha256(local.read_bytes()).hexdigest()
                if digest in seen:
                    continue
                seen.add(digest)
                result = outcome(local)
            else:
                result = entry.get("outcome") or "not obtained"
            commit = (entry.get("commit") or "")[:12]
            row = (
                entry.get("tool"),
                entry.get("version"),
                entry.get("repo"),
                entry.get("path"),
                commit,
                result,
            )
            print("| " + " | ".join(_cell(c) for c in row) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
