"""`reportgen check-changed FILE...`: the pre-commit hook (.pre-commit-hooks.yaml). Changed
files in, each article they belong to checked once.

A file belongs to the article whose folder is its nearest parent holding `article.toml`
(article.toml itself, a prose file, a run file, a published copy the manifest names); a file in
no article is left alone. Each article is checked as `reportgen check` does, built in memory, so
that a build folder left from another commit is not what is judged.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from reportgen.cli.commands import EXIT_FAIL, EXIT_INPUT, EXIT_OK, print_problems
from reportgen.cli.helptext import Help
from reportgen.errors import InputError


def article_folders(paths: Iterable[Path]) -> list[Path]:
    """The article folders the files belong to, each once, in the order first named: for each
    path, the nearest folder from it upwards (itself first, when a folder) that holds
    article.toml, looking no higher than the path's own relative parts."""
    from reportgen.article.source.manifest import MANIFEST

    found: dict[Path, None] = {}
    for path in paths:
        candidates = [path] if path.is_dir() else []
        candidates += list(path.parents)
        for folder in candidates:
            if (folder / MANIFEST).is_file():
                found.setdefault(folder, None)
                break
    return list(found)


def cmd_check_changed(args: argparse.Namespace) -> int:
    from reportgen.article.charts.cache import default_folder
    from reportgen.check import report
    from reportgen.check.compare import check_article

    worst = EXIT_OK
    for folder in article_folders(args.files):
        try:
            result = check_article(folder, strict=args.strict, chart_cache=default_folder())
        except InputError as exc:
            print_problems(exc.problems, False, sys.stderr)
            worst = EXIT_INPUT
            continue
        sys.stdout.write(report.to_text(result))
        if result.failed:
            worst = max(worst, EXIT_FAIL)
    return worst


def add_parser(sub: argparse._SubParsersAction[Any]) -> None:
    """Add the `check-changed` command to the `reportgen` subcommands."""
    p = sub.add_parser(
        "check-changed",
        help="check the articles that changed files belong to (the pre-commit hook)",
        description="For each FILE, find its article (the nearest folder upwards that holds "
        "article.toml) and check every such article once, built in memory, as `reportgen "
        "check` does. Files in no article are left alone. Exit 0 all pass, 1 a check fails, "
        "2 an article's input is unusable.",
        epilog="examples:\n"
        "  reportgen check-changed runs/my-article/intro.md runs/other/article.toml\n"
        "  pre-commit run reportgen-check --all-files   (.pre-commit-hooks.yaml)",
        formatter_class=Help,
    )
    p.add_argument("files", nargs="*", type=Path, metavar="FILE")
    p.add_argument(
        "--strict",
        action="store_true",
        help="fail on warnings too, as `reportgen check --strict`",
    )
    p.set_defaults(func=cmd_check_changed)
