"""End to end on fresh real-tool output: each tool's files are imported, made into an article with
`reportgen init`, built and checked, and the imported medians are compared with the independent
reference client that ran just before and after the tool.

    .venv/bin/python tests/realtools/e2e.py OUT      # OUT as written by produce.py --out OUT

`make realtools` runs produce.py and then this. Exit 1 when any step fails, with the reason; the
table of ratios is printed either way.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from reportgen.article.build import build
from reportgen.check.compare import check_article
from reportgen.errors import InputError
from reportgen.init.scaffold import scaffold

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers_agreement import RUN_FILES, Comparison, disagreements, imported


def ratios(out: Path, tool: str, comparison: Comparison) -> None:
    """Print a line per load, reportgen's value / the reference's; ValueError names any quantity
    out of the bounds tests/helpers_agreement.py states."""
    bad = []
    for load_dir in sorted(p for p in (out / tool).iterdir() if p.is_dir()):
        cells, wrong = disagreements(comparison, tool, load_dir.name, imported(load_dir, tool))
        print(f"  {tool:11} {load_dir.name:3} " + "  ".join(cells))
        bad.extend(wrong)
    if bad:
        raise ValueError("; ".join(bad))


def article(out: Path, tool: str, work: Path) -> str:
    """init, build and check an article from the tool's files; the check's summary line."""
    files = sorted((out / tool).glob(f"*/{RUN_FILES[tool]}"))
    folder = work / f"{tool}-article"
    scaffold(folder, files, title=f"{tool} against a tiny llama.cpp model")
    built = work / "build"
    build(folder, built)
    result = check_article(folder, build_dir=built)
    if result.failed:
        raise ValueError(f"check failed on the {tool} article")
    return f"  {tool:11} init + build + check: {len(files)} file(s), PASS"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the folder produce.py wrote")
    parser.add_argument(
        "--tools",
        default=",".join(RUN_FILES),
        help=f"comma list of the tools to check (default: {','.join(RUN_FILES)})",
    )
    args = parser.parse_args(argv)
    tools = [t for t in args.tools.split(",") if t]
    unknown = sorted(set(tools) - set(RUN_FILES))
    if unknown:
        parser.error(f"no importer check for {', '.join(unknown)}; known: {', '.join(RUN_FILES)}")
    try:
        comparison = json.loads((args.out / "comparison.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"realtools e2e: FAILED: no comparison of {args.out} to read: {exc}", file=sys.stderr)
        return 1
    failures = []
    with tempfile.TemporaryDirectory(prefix="realtools-e2e-") as tmp:
        for tool in tools:
            if not (args.out / tool).is_dir():
                failures.append(f"{tool}: no output in {args.out}")
                continue
            try:
                ratios(args.out, tool, comparison)
                print(article(args.out, tool, Path(tmp)))
            except (InputError, ValueError, KeyError, OSError) as exc:
                failures.append(f"{tool}: {exc}")
    for failure in failures:
        print(f"realtools e2e: FAILED: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
