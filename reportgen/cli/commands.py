"""The subcommands: each calls one library function, prints its result and returns an exit code
(0 ok, 1 check or lint failure, 2 bad input or usage)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from reportgen.errors import InputError, Problem, at_least, left_out
from reportgen.terminal import one_line

if TYPE_CHECKING:
    from reportgen.metrics.registry import MetricSet
    from reportgen.serve.preview import Outcome

EXIT_OK, EXIT_FAIL, EXIT_INPUT = 0, 1, 2


def print_problems(problems: Sequence[Problem], as_json: bool, out: TextIO) -> None:
    """Problems as lines, or as JSON; a file's problems beyond the first `errors.PER_FILE` are
    one line that counts them, and in JSON also `left_out`, per such line and in all."""
    if as_json:
        listed = [
            p.as_json() | ({"left_out": left_out(p)} if left_out(p) else {}) for p in problems
        ]
        total = sum(left_out(p) for p in problems)
        json.dump({"problems": listed} | ({"left_out": total} if total else {}), out, indent=2)
        out.write("\n")
    else:
        for p in problems:
            out.write(p.format() + "\n")


def cmd_validate(args: argparse.Namespace) -> int:
    from reportgen.cli.inputs import load_arguments

    result = load_arguments(args.paths)
    print_problems(result.problems, args.json, sys.stdout)
    if not args.json:
        files = len({p.label for p in (r.source for r in result.runs)})
        errors = sum(left_out(p) or 1 for p in result.problems if p.severity == "error")
        warnings = sum(left_out(p) or 1 for p in result.problems) - errors
        verdict = "ok" if result.ok else "invalid"
        bound = "at least " if any(at_least(p) for p in result.problems) else ""
        print(
            f"{verdict}: {files} valid run file(s), {bound}{errors} error(s), "
            f"{warnings} warning(s)",
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
    from reportgen.cli.inputs import load_arguments
    from reportgen.metrics.compute import compute

    if len(args.paths) == 1 and (Path(args.paths[0]) / "article.toml").is_file():
        # an article: its metrics as its build computes them, per-GPU values from its setup too
        from reportgen.article.rundata import article_metrics

        try:
            metrics = article_metrics(Path(args.paths[0]))[1]
        except InputError as exc:
            print_problems(exc.problems, False, sys.stderr)
            return EXIT_INPUT
    else:
        result = load_arguments(args.paths)
        if not result.ok:
            print_problems(result.problems, False, sys.stderr)
            return EXIT_INPUT
        metrics = compute(result.runs)
    if args.json:
        json.dump(_metrics_json(metrics), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_OK
    width = max(len(v.id) for v in metrics.values) if metrics.values else 0
    for v in metrics.values:  # ids and file names come from run files: shown as data
        print(
            one_line(
                f"{v.id:<{width}}  {v.value:>14.4f} {v.unit:<6}  {v.source:<7}  {v.provenance}  "
                f"{v.file}"
            )
        )
    return EXIT_OK


def article_folder(given: Path | None, command: str) -> Path | None:
    """The article folder a command works on: the one given, else the current folder when it
    holds article.toml; None (after saying how to name one) when there is neither."""
    from reportgen.article.publish import MARKER
    from reportgen.article.source.manifest import MANIFEST

    if given is not None:
        if (given / MARKER).is_file() and not (given / MANIFEST).exists():
            print(
                f"reportgen {command}: {given} is a build (it holds {MARKER}), not an article: "
                f"name the article's folder, and this build's with --build-dir {given.parent}",
                file=sys.stderr,
            )
            return None
        return given
    if Path(MANIFEST).is_file():
        return Path(".")
    print(
        f"reportgen {command}: no {MANIFEST} in the current folder: name the article's folder, "
        f"as in `reportgen {command} runs/my-article` (`reportgen init` starts one)",
        file=sys.stderr,
    )
    return None


def cmd_build(args: argparse.Namespace) -> int:
    args.article = article_folder(args.article, "build")
    if args.article is None:
        return EXIT_INPUT
    from reportgen.article.charts.cache import chart_stage, default_folder, expects_drawing
    from reportgen.article.pdf.forked import pdf_stage

    # The PDF stage starts first, in a forked worker that imports WeasyPrint while this process
    # imports the rest and reads the runs; the charts' too (matplotlib), unless the chart cache
    # holds every chart the article's last build had.
    cache = None if args.no_chart_cache else default_folder()
    draw = expects_drawing(cache, args.article)
    with pdf_stage(ahead=True) as pdf, chart_stage(ahead=draw) as drawer:
        from reportgen.article.build import build_article

        target, built = build_article(
            args.article, args.out, chart_cache=cache, pdf=pdf, chart_drawer=drawer
        )
    for finding, (line, col) in built.stale:
        print(one_line(f"{finding.file}:{line}:{col}: warning: {finding.message}"), file=sys.stderr)
    for name in ("index.html", "article.pdf", "metrics.json"):
        print(one_line(str(target / name)))
    return EXIT_OK


def cmd_init(args: argparse.Namespace) -> int:
    from reportgen.init.scaffold import scaffold

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
            print(f"  {one_line(line)}", file=sys.stderr)
    print(f"next: reportgen build {done.folder} && reportgen check {done.folder}", file=sys.stderr)
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    args.article = article_folder(args.article, "check")
    if args.article is None:
        return EXIT_INPUT
    from reportgen.article.charts.cache import default_folder
    from reportgen.check import report
    from reportgen.check.compare import check_article

    try:
        result = check_article(
            args.article,
            args.published,
            build_dir=args.build_dir,
            strict=args.strict,
            chart_cache=default_folder(),
        )
    except InputError as exc:
        if args.summary is not None:
            _summarize_failure(args.summary, args.article, exc)
        raise
    if args.summary is not None:
        from reportgen.cli import summary

        summary.append(args.summary, summary.rows(result))
    render = {"text": report.to_text, "json": report.to_json, "github": report.to_github}
    sys.stdout.write(render[args.format](result))
    return EXIT_FAIL if result.failed else EXIT_OK


def _summarize_failure(path: Path, article: Path, exc: InputError) -> None:
    """The summary's row for an article whose input was unusable (exit 2)."""
    from reportgen.cli import summary

    summary.append(path, summary.error_rows(str(article), [p.format() for p in exc.problems]))


def cmd_diff(args: argparse.Namespace) -> int:
    from reportgen import diff

    rule = None
    if args.fail_on is not None:
        try:
            rule = diff.parse_fail_on(args.fail_on)
        except ValueError as exc:
            print(f"reportgen diff: error: --fail-on {exc}", file=sys.stderr)
            return EXIT_INPUT
    old, new = diff.load_side(args.old), diff.load_side(args.new)
    print_problems([*old.warnings, *new.warnings], False, sys.stderr)
    moved = diff.diff(old.metrics, new.metrics)
    failed = diff.failures(moved, rule) if rule is not None else ()
    if args.json:
        sys.stdout.write(diff.to_json(moved))
    else:
        sys.stdout.write(diff.to_text(moved, all_rows=args.all, failed=failed))
    return EXIT_FAIL if failed else EXIT_OK


def _print_outcome(outcome: Outcome) -> None:
    for problem in (*outcome.problems, *outcome.warnings):
        print(problem.format(), file=sys.stderr)
    if outcome.problems:
        print("the page shows these; the last page that built stays under them", file=sys.stderr)
    elif outcome.changed:
        print(f"built in {outcome.seconds:.2f} s", file=sys.stderr)


def _stop(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM stops the preview as Ctrl-C does


def cmd_serve(args: argparse.Namespace) -> int:
    import signal

    from reportgen.article.charts.cache import default_folder
    from reportgen.serve.session import running

    # Ctrl-C stops it even when started with SIGINT ignored, as a shell starts a background job;
    # the handlers before are put back after (a caller in the same process keeps its own).
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    before_term = signal.signal(signal.SIGTERM, _stop)
    try:
        with running(
            args.article, args.port, report=_print_outcome, chart_cache=default_folder()
        ) as session:
            if args.port and session.server.port != args.port:
                print(f"port {args.port} is in use", file=sys.stderr)
            print(f"serving {one_line(str(args.article))} at {session.url}", file=sys.stderr)
            print("it rebuilds as you save; Ctrl-C stops", file=sys.stderr)
            session.serve()
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        signal.signal(signal.SIGINT, before)
        signal.signal(signal.SIGTERM, before_term)
    return EXIT_OK
