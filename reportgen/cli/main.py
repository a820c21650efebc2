"""Command line: parse options, call one library function, print its result, map errors to exits.

Exit codes: 0 ok, 1 check or lint failure, 2 bad input or usage.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from reportgen import __version__
from reportgen.cli import submit as cli_submit
from reportgen.cli.inputs import load_arguments
from reportgen.errors import InputError, Problem
from reportgen.files import CAPS
from reportgen.metrics import MetricSet, compute

EXIT_OK, EXIT_FAIL, EXIT_INPUT = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_INPUT, f"{self.prog}: error: {message}\n")


def _print_problems(problems: Sequence[Problem], as_json: bool, out: TextIO) -> None:
    if as_json:
        json.dump({"problems": [p.as_json() for p in problems]}, out, indent=2)
        out.write("\n")
    else:
        for p in problems:
            out.write(p.format() + "\n")


def cmd_validate(args: argparse.Namespace) -> int:
    result = load_arguments(args.paths)
    _print_problems(result.problems, args.json, sys.stdout)
    if not args.json:
        files = len({p.label for p in (r.source for r in result.runs)})
        errors = sum(p.severity == "error" for p in result.problems)
        warnings = len(result.problems) - errors
        verdict = "ok" if result.ok else "invalid"
        print(
            f"{verdict}: {files} valid run file(s), {errors} error(s), {warnings} warning(s)",
            file=sys.stderr,
        )
    return EXIT_OK if result.ok else EXIT_INPUT


def _metrics_json(metrics: MetricSet) -> dict[str, object]:
    return {"metrics": [v.as_json() for v in metrics.values]}


def _print_keys() -> int:
    from reportgen.metrics.registry import DEFINITIONS

    for d in DEFINITIONS.values():
        stats = " (+ .p90 .p95 .p99 .mean .min .max .n)" if d.stats else ""
        better = f", {d.better} is better" if d.better else ""
        print(f"{d.key}{stats}  [{d.unit or '-'}{better}]  id {d.id_pattern}")
        print(f"    {d.title}: {d.formula}")
    return EXIT_OK


def cmd_metrics(args: argparse.Namespace) -> int:
    if args.keys:
        return _print_keys()
    if not args.paths:
        print("reportgen metrics: give run files or an article folder (or --keys)", file=sys.stderr)
        return EXIT_INPUT
    result = load_arguments(args.paths)
    if not result.ok:
        _print_problems(result.problems, False, sys.stderr)
        return EXIT_INPUT
    metrics = compute(result.runs)
    if args.json:
        json.dump(_metrics_json(metrics), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_OK
    width = max(len(v.id) for v in metrics.values) if metrics.values else 0
    for v in metrics.values:
        print(
            f"{v.id:<{width}}  {v.value:>14.4f} {v.unit:<6}  {v.source:<7}  {v.provenance}  "
            f"{v.file}"
        )
    return EXIT_OK


def cmd_build(args: argparse.Namespace) -> int:
    from reportgen.article.build import build_article

    target, built = build_article(args.article, args.out)
    for finding, (line, col) in built.stale:
        print(f"{finding.file}:{line}:{col}: warning: {finding.message}", file=sys.stderr)
    for name in ("index.html", "article.pdf", "metrics.json"):
        print(target / name)
    return EXIT_OK


def cmd_init(args: argparse.Namespace) -> int:
    from reportgen.article.scaffold import scaffold

    hardware = None
    if args.gpu is not None:
        hardware = (args.gpu, args.gpus)
    done = scaffold(args.article, args.files, title=args.title, date=args.date, hardware=hardware)
    print(
        f"wrote {done.folder}/article.toml and intro.md, with {len(done.files)} run file(s) "
        f"in {done.runs} run(s); it builds as it is",
        file=sys.stderr,
    )
    if done.findings:
        print(
            f"review these {len(done.findings)} finding(s) of the data, and acknowledge each "
            "you accept in article.toml ([[acknowledge]] with a reason):",
            file=sys.stderr,
        )
        for line in done.findings:
            print(f"  {line}", file=sys.stderr)
    print(f"next: reportgen build {done.folder} && reportgen check {done.folder}", file=sys.stderr)
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    from reportgen.check import report
    from reportgen.check.compare import check_article

    result = check_article(
        args.article, args.published, build_dir=args.build_dir, strict=args.strict
    )
    render = {"text": report.to_text, "json": report.to_json, "github": report.to_github}
    sys.stdout.write(render[args.format](result))
    return EXIT_FAIL if result.failed else EXIT_OK


def cmd_diff(args: argparse.Namespace) -> int:
    from reportgen.check import diff

    moved = diff.diff(diff.load_side(args.old), diff.load_side(args.new))
    sys.stdout.write(diff.to_json(moved) if args.json else diff.to_text(moved, all_rows=args.all))
    return EXIT_OK


def _environment_help() -> str:
    rows = [("SOURCE_DATE_EPOCH", "the build's date, Unix seconds (default: the article's date)")]
    rows += [
        (cap.env, f"size cap of {cap.what}, in MiB (default {cap.default_mb})")
        for cap in CAPS.values()
    ]
    rows += [("LOCALMAXXING_API_KEY", "the key `reportgen submit` sends (or LMX_API_KEY)")]
    width = max(len(name) for name, _ in rows)
    return "environment:\n" + "\n".join(f"  {name:<{width}}  {what}" for name, what in rows)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="reportgen",
        description="Turn raw LLM-inference benchmark run files into checked articles.",
        epilog=_environment_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"reportgen {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser(
        "validate",
        help="check run files against their schemas and for internal consistency",
        description="Report every problem in every run file as path:line:col /pointer: message.",
        epilog="examples:\n  reportgen validate runs/paiton-kimi-k3.1-pro\n"
        "  reportgen validate matrix.json --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="+", type=Path, metavar="FILE|DIR")
    p.add_argument("--json", action="store_true", help="print problems as JSON")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser(
        "metrics",
        help="compute every metric of run files",
        description="Compute every metric through the registry: id, value, unit, source, file.",
        epilog="examples:\n  reportgen metrics runs/paiton-kimi-k3.1-pro\n"
        "  reportgen metrics runs/paiton-kimi-k3.1-pro --json\n  reportgen metrics --keys",
        formatter_class=argparse.RawDescriptionHelpFormatter,
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
        epilog="examples:\n  reportgen build\n"
        "  reportgen build runs/paiton-kimi-k3.1-pro --out build",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "article",
        nargs="?",
        type=Path,
        default=Path("runs/paiton-kimi-k3.1-pro"),
        metavar="ARTICLE_DIR",
        help="default: %(default)s",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=Path("build"),
        metavar="DIR",
        help="output folder (default: %(default)s)",
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
        formatter_class=argparse.RawDescriptionHelpFormatter,
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
        "article.toml declares it omitted ([[published.omit]]). Exit 0 all match, 1 mismatches "
        "or missing numbers (or, with --strict, warnings not acknowledged in article.toml), 2 "
        "unusable input.",
        epilog="examples:\n  reportgen check runs/paiton-kimi-k3.1-pro\n"
        "  reportgen check runs/paiton-kimi-k3.1-pro --published blog-post.html "
        "--published article.pdf\n"
        "  reportgen check runs/paiton-kimi-k3.1-pro --format github --strict",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("article", type=Path, metavar="ARTICLE_DIR")
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
    p.set_defaults(func=cmd_check)

    p = sub.add_parser(
        "diff",
        help="which numbers moved between two sets of runs",
        description="Compare two metrics.json files or two article folders: which metrics "
        "moved, by how much, in which direction, and which would change as displayed.",
        epilog="examples:\n"
        "  reportgen diff old/metrics.json build/paiton-kimi-k3.1-pro/metrics.json\n"
        "  reportgen diff runs/paiton-kimi-k3.1-pro /tmp/recollected --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("old", type=Path, metavar="OLD")
    p.add_argument("new", type=Path, metavar="NEW")
    p.add_argument("--json", action="store_true", help="print the diff as JSON")
    p.add_argument("--all", action="store_true", help="list unchanged metrics too")
    p.set_defaults(func=cmd_diff)

    cli_submit.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `reportgen` console script."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except InputError as exc:
        _print_problems(exc.problems, False, sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`reportgen metrics --json | head`): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except OSError as exc:
        # Writing outputs failed (disk full, permissions); the build left earlier outputs as
        # they were.
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"reportgen: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_INPUT


if __name__ == "__main__":
    sys.exit(main())
