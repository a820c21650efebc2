"""The argument parser: every subcommand, its options, and `--help` with examples."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from reportgen.cli import changed as cli_changed
from reportgen.cli import submit as cli_submit
from reportgen.cli.commands import (
    EXIT_INPUT,
    cmd_build,
    cmd_check,
    cmd_diff,
    cmd_init,
    cmd_metrics,
    cmd_serve,
    cmd_validate,
)
from reportgen.cli.helptext import Help
from reportgen.cli.versions import VersionAction
from reportgen.fileio import CAPS, COUNT_CAPS


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_INPUT, f"{self.prog}: error: {message}\n")


def _environment_help() -> str:
    rows = [("SOURCE_DATE_EPOCH", "the build's date, Unix seconds (default: the article's date)")]
    rows += [
        (cap.env, f"size cap of {cap.what}, in MiB (default {cap.default})")
        for cap in CAPS.values()
    ]
    rows += [
        (cap.env, f"cap of the {cap.what} (default {cap.default:,})") for cap in COUNT_CAPS.values()
    ]
    rows += [
        (
            "REPORTGEN_CACHE_DIR",
            "where `build` keeps drawn charts, in charts/ (default: "
            "$XDG_CACHE_HOME/reportgen, else ~/.cache/reportgen)",
        )
    ]
    rows += [("LOCALMAXXING_API_KEY", "the key `reportgen submit` sends (or LMX_API_KEY)")]
    width = max(len(name) for name, _ in rows)
    return "environment:\n" + "\n".join(f"  {name:<{width}}  {what}" for name, what in rows)


def _port(text: str) -> int:
    """A TCP port from the command line: 0 (any free one) to 65535."""
    port = int(text) if text.isdigit() else -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0 to 65535)")
    return port


# The top-level help's description: the workflow, one example a step.
WORKFLOW = """Turn raw LLM-inference benchmark run files into checked articles.

the workflow (each command's --help has more):
  1. init   start an article from run files:
            reportgen init my-article --from benchmarks.json --gpu "NVIDIA L40S"
  2. serve  preview it while you write, rebuilt on each save:
            reportgen serve my-article
     build  or write the page, the PDF and metrics.json:
            reportgen build my-article --out build
  3. check  prove every number it shows, and its published copies, against the run files:
            reportgen check my-article --published blog-post.html
  4. diff   what moved between two builds, in CI against the base branch:
            reportgen diff base-build/my-article build/my-article --fail-on worse:5%"""

_HERE = "the article's folder (default: the current folder, when it holds article.toml)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="reportgen",
        description=WORKFLOW,
        epilog=_environment_help(),
        formatter_class=Help,
    )
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser(
        "validate",
        help="check run files against their schemas and for internal consistency",
        description="Report every problem in every run file as path:line:col /pointer: message.",
        epilog="examples:\n  reportgen validate runs/my-article\n"
        "  reportgen validate matrix.json --json",
        formatter_class=Help,
    )
    p.add_argument("paths", nargs="+", type=Path, metavar="FILE|DIR")
    p.add_argument("--json", action="store_true", help="print problems as JSON")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser(
        "metrics",
        help="compute every metric of run files",
        description="Compute every metric through the registry: id, value, unit, source, file.",
        epilog="examples:\n  reportgen metrics runs/my-article\n"
        "  reportgen metrics matrix.json --json\n  reportgen metrics --keys",
        formatter_class=Help,
    )
    p.add_argument("paths", nargs="*", type=Path, metavar="ARTICLE_DIR|FILE")
    p.add_argument("--json", action="store_true", help="print metrics as JSON")
    p.add_argument(
        "--keys",
        action="store_true",
        help="list every metric key of the registry, with its unit, direction and definition "
        "(the names tables and charts declare)",
    )
    p.set_defaults(func=cmd_metrics)

    p = sub.add_parser(
        "build",
        help="render an article to HTML, PDF and metrics.json",
        description="Build OUT/<article>/index.html, article.pdf and metrics.json from the "
        "article's manifest, prose and run files. Reproducible; honours SOURCE_DATE_EPOCH.",
        epilog="examples:\n"
        "  reportgen build                 (in the folder that holds article.toml)\n"
        "  reportgen build runs/my-article --out build\n"
        "  reportgen build runs/paiton-kimi-k3.1-pro   (the article bundled with reportgen)",
        formatter_class=Help,
    )
    p.add_argument("article", nargs="?", type=Path, metavar="ARTICLE_DIR", help=_HERE)
    p.add_argument(
        "--out",
        type=Path,
        default=Path("build"),
        metavar="DIR",
        help="output folder (default: %(default)s)",
    )
    p.add_argument(
        "--no-chart-cache",
        action="store_true",
        help="draw every chart, and neither read nor fill the chart cache "
        "(REPORTGEN_CACHE_DIR/charts, else $XDG_CACHE_HOME/reportgen/charts)",
    )
    p.set_defaults(func=cmd_build)

    p = sub.add_parser(
        "init",
        help="start an article from run files",
        description="Write ARTICLE_DIR/article.toml and a prose stub from the run files: the "
        "files are validated and copied in, grouped into runs (by tool, engine and model), and "
        "tables, charts and key results are declared for the shape of their data, side by side "
        "when there are two runs. What the files do not record (the GPU, often the engine) is "
        "left for you to state, never guessed. Never overwrites an article.toml.",
        epilog="examples:\n"
        "  reportgen init runs/my-article --from benchmark_results.json\n"
        "  reportgen init runs/a-vs-b --from a/*.json b/*.json --gpu 'NVIDIA H100 80GB HBM3' "
        "--gpus 8",
        formatter_class=Help,
    )
    p.add_argument("article", type=Path, metavar="ARTICLE_DIR")
    p.add_argument(
        "--from",
        dest="files",
        type=Path,
        nargs="+",
        required=True,
        metavar="RUN_FILE",
        help="the run files (any format reportgen reads)",
    )
    p.add_argument("--title", help="the article's title (default: from the model and engines)")
    p.add_argument("--date", help="the article's date, YYYY-MM-DD (default: today)")
    p.add_argument("--gpu", metavar="NAME", help="the GPU the runs were measured on")
    p.add_argument("--gpus", type=int, default=1, metavar="N", help="how many of them (default: 1)")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser(
        "check",
        help="prove an article's numbers match its run files; lint the data",
        description="Recompute every metric from the article's run files and compare it with "
        "the numbers that the built article (exactly, via data attributes), the published "
        "versions its article.toml names ([published] files) and each --published file (HTML, "
        "Markdown, text or PDF, at the precision shown) report. A number the article shows in a "
        "table or headline that a published version does not show is an error, unless "
        "article.toml declares it omitted ([[published.omit]]). Numbers in running text are "
        "read too: where the built article has them, and in sentences a copy adds in its own "
        "words (a ratio, a change in percent, a metric quoted with its unit), recomputed from "
        "the metrics the sentence names; a number tied to no metric is unverified.\n"
        "Exit 0 all match, 1 mismatches or missing numbers (or, with --strict, unverified "
        "numbers and warnings not acknowledged in article.toml), 2 unusable input.",
        epilog="examples:\n"
        "  reportgen check                 (in the folder that holds article.toml)\n"
        "  reportgen check runs/my-article --published blog-post.html "
        "--published article.pdf\n"
        "  reportgen check runs/my-article --format github --strict",
        formatter_class=Help,
    )
    p.add_argument("article", nargs="?", type=Path, metavar="ARTICLE_DIR", help=_HERE)
    p.add_argument(
        "--published",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="another published or hand-edited version of the article: HTML, Markdown, text or "
        "PDF (repeatable)",
    )
    p.add_argument("--format", choices=("text", "json", "github"), default="text")
    p.add_argument(
        "--strict",
        action="store_true",
        help="fail on warnings too: numbers tied to no metric, numbers shown twice, and data "
        "warnings that article.toml does not acknowledge",
    )
    p.add_argument(
        "--build-dir",
        type=Path,
        default=Path("build"),
        metavar="DIR",
        help="where `reportgen build` wrote the article (default: %(default)s); "
        "built in memory when absent",
    )
    p.add_argument(
        "--summary",
        type=Path,
        metavar="FILE",
        help="also append a Markdown table of what was checked to FILE (one row per text and "
        "one for the data lints; checks of several articles add to one table), as for "
        "$GITHUB_STEP_SUMMARY",
    )
    p.set_defaults(func=cmd_check)

    p = sub.add_parser(
        "diff",
        help="which numbers moved between two sets of runs",
        description="Compare two sets of metrics (metrics.json files, build folders or article "
        "folders): which metrics moved, by how much, whether that is better or worse by each "
        "metric's direction, and which would change as displayed. Changes at full precision that "
        "the article would not show are listed apart. Exit 1 when --fail-on is broken.",
        epilog="examples:\n"
        "  reportgen diff old/metrics.json build/my-article/metrics.json\n"
        "  reportgen diff runs/my-article /tmp/recollected --json\n"
        "  reportgen diff main-build/my-article build/my-article --fail-on worse:5%,removed",
        formatter_class=Help,
    )
    p.add_argument("old", type=Path, metavar="OLD")
    p.add_argument("new", type=Path, metavar="NEW")
    p.add_argument("--json", action="store_true", help="print the diff as JSON")
    p.add_argument("--all", action="store_true", help="list unchanged metrics too")
    p.add_argument(
        "--fail-on",
        metavar="RULES",
        help="exit 1 when a metric got worse as displayed (worse), worse by more than a "
        "percentage (worse:5%%), or was removed (removed); rules joined by commas",
    )
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser(
        "serve",
        help="preview an article in the browser, rebuilt as you edit it",
        description="Serve the article's page on 127.0.0.1 only, and rebuild it whenever a prose "
        "file, article.toml or a run file changes: the open page reloads by itself. A rebuild "
        "that fails shows its problems at the top of the page, located, above the last page "
        "that built. The page is built without its PDF, into a temporary folder (never the "
        "article's); the PDF is made when asked for at /article.pdf. Ctrl-C stops.",
        epilog="examples:\n  reportgen serve runs/my-article\n"
        "  reportgen serve runs/my-article --port 8080",
        formatter_class=Help,
    )
    p.add_argument("article", type=Path, metavar="ARTICLE_DIR")
    p.add_argument(
        "--port",
        type=_port,
        default=8000,
        metavar="N",
        help="the port on 127.0.0.1 (default: %(default)s; when it is in use, the next free "
        "one of the nine after it; 0: any free port)",
    )
    p.set_defaults(func=cmd_serve)

    cli_submit.add_parser(sub)
    cli_changed.add_parser(sub)
    return parser
