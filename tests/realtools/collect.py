"""Copy two tools' real output into the bundled measured article, unchanged, under names that say
which tool and load each file is, with the command each was produced by beside it.

    python3 tests/realtools/collect.py OUT runs/tiny-llamacpp-two-tools

OUT is a folder produce.py wrote (tests/data/realtools by default). The article's run files become
`<tool>-<load>.json`, and each one's COMMAND.json (tool, exact version, command line, date,
server settings, model sha256) becomes `commands/<tool>-<load>.json`. Nothing else is touched:
article.toml and the prose are written by hand, and refer to the numbers.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

RUN_FILES = {"guidellm": "benchmarks.json", "aiperf": "profile_export_aiperf.json"}


def collect(out: Path, article: Path) -> list[Path]:
    """Copy the files; the run files written, in order."""
    written = []
    (article / "commands").mkdir(parents=True, exist_ok=True)
    for tool, name in RUN_FILES.items():
        loads = sorted(p for p in (out / tool).iterdir() if p.is_dir())
        if not loads:
            raise FileNotFoundError(f"no {tool} output in {out / tool}")
        for load in loads:
            target = article / f"{tool}-{load.name}.json"
            shutil.copyfile(load / name, target)
            shutil.copyfile(load / "COMMAND.json", article / "commands" / target.name)
            written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="a folder produce.py wrote")
    parser.add_argument("article", type=Path, help="the article folder")
    args = parser.parse_args(argv)
    try:
        for path in collect(args.out, args.article):
            print(path)
    except OSError as exc:
        print(f"collect: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
