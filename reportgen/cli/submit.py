"""CLI glue for `reportgen submit`: parse options, load the runs and the article's setup, call
`reportgen.localmaxxing.submit.submit_runs`, print its report.

Exit codes: 0 ok; 1 a request failed or the server refused it; 2 bad input or usage, or refused
locally (reconstructed data, a contract violation, already submitted, no API key).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import urlsplit

from reportgen.cli.helptext import Help
from reportgen.errors import InputError, Problem
from reportgen.localmaxxing.api import DEFAULT_API_BASE, DEFAULT_TIMEOUT_S
from reportgen.model import Setup
from reportgen.terminal import one_line

if TYPE_CHECKING:  # the HTTP stack is imported only when a submission runs
    import httpx

    from reportgen.localmaxxing.payload import Payload
    from reportgen.localmaxxing.submit import SubmitReport

EXIT_OK, EXIT_FAIL, EXIT_INPUT = 0, 1, 2
SetupLoader = Callable[[Path], Setup]

EPILOG = """\
Every mode first checks the payload against the API contract: the live GET /api/agent-context
when online (then cached in $XDG_CACHE_HOME/reportgen), else the last cached copy, else the dated
snapshot bundled with reportgen. --local stops there and never goes online; --dry-run then asks
the server to validate the payload without storing it; with neither flag the run is submitted for
real: reportgen shows what will be sent and asks first (--yes skips the question, and is needed
when stdin is not a terminal). Runs whose data is reconstructed are always refused. The key is
read from LOCALMAXXING_API_KEY (or LMX_API_KEY) and never written anywhere, and it goes only to
--api-base: proxies, certificates and netrc of the environment are ignored unless --trust-env is
given. The server's words are printed as data (escapes visible, one line each), and withheld when
they hold the key in any form. A submitted run is recorded in ARTICLE_DIR/submissions.json;
sending it again needs --force.

examples:
  reportgen submit runs/my-article --local --save-payload build/payloads
  reportgen submit runs/my-article/canonical.json --dry-run
  reportgen submit runs/my-article/canonical.json
  reportgen submit runs/my-article/canonical.json --yes   # from a script
  HTTPS_PROXY=http://proxy.example:3128 reportgen submit RUN_FILE --dry-run --trust-env
"""


def add_parser(sub: argparse._SubParsersAction[Any]) -> None:
    """Add the `submit` command to the `reportgen` subcommands."""
    p = sub.add_parser(
        "submit",
        help="send measured runs to the LocalMaxxing leaderboard (checked, dry-run or real)",
        description="Map each measured lmx run to a LocalMaxxing submission payload, check it "
        "against the API contract, then dry-run or submit it.",
        epilog=EPILOG,
        formatter_class=Help,
    )
    p.add_argument("path", type=Path, metavar="RUN_FILE|ARTICLE_DIR")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--local", action="store_true", help="check against the contract only; no network"
    )
    mode.add_argument(
        "--dry-run", action="store_true", help="let the server validate; nothing is stored"
    )
    p.add_argument(
        "--api-base",
        default=DEFAULT_API_BASE,
        metavar="URL",
        help=f"the API's base URL (default {DEFAULT_API_BASE}); plain http only to localhost",
    )
    p.add_argument(
        "--save-payload",
        type=Path,
        metavar="FILE",
        help="write the ready payload here, even when it is refused (a folder for several runs)",
    )
    p.add_argument(
        "--article",
        type=Path,
        metavar="DIR",
        help="the article folder (article.toml) of a RUN_FILE; default: the file's folder",
    )
    p.add_argument("--force", action="store_true", help="submit a run already submitted")
    p.add_argument(
        "--yes",
        action="store_true",
        help="submit for real without asking (needed when stdin is not a terminal)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help=f"network timeout per step (default {DEFAULT_TIMEOUT_S:g}; a whole answer gets 2x)",
    )
    p.add_argument(
        "--trust-env",
        action="store_true",
        help="send through the proxy the environment names (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, "
        "NO_PROXY) and use its certificates (SSL_CERT_FILE, SSL_CERT_DIR), ~/.netrc and "
        "SSLKEYLOGFILE; the proxy then sees the key. Off by default: the key goes only to "
        "--api-base",
    )
    p.set_defaults(func=cmd_submit)


def cmd_submit(args: argparse.Namespace) -> int:
    """The `submit` command."""
    return run(args)


def _api_base_problem(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        return f"--api-base {url!r} is not an http(s) URL"
    if parts.username or parts.password or parts.query or parts.fragment:
        return "--api-base must not carry credentials, a query or a fragment"
    if parts.scheme == "http":
        host = parts.hostname
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = host == "localhost"
        if not loopback:
            return "--api-base must use https (plain http is allowed only to localhost)"
    return None


def _default_loader(article_dir: Path) -> Setup:
    from reportgen.article.source.manifest import load_setup

    return load_setup(article_dir)


def _print(report: SubmitReport, out: TextIO) -> None:
    for note in report.notes:
        out.write(one_line(note) + "\n")
    for outcome in report.outcomes:
        out.write(one_line(f"{outcome.run_file}: {outcome.status}") + "\n")
        for line in outcome.lines:
            out.write(f"  {one_line(line)}\n")


def _number(value: Any, unit: str) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value:,g} {unit}"
    return "-"


def describe(payload: Payload) -> list[str]:
    """What a payload sends, in a few lines: the run, model, engine, GPUs and headline numbers."""
    body = payload.body()
    hw: dict[str, Any] = body["hardware"] if isinstance(body.get("hardware"), dict) else {}
    flags: dict[str, Any] = body["engineFlags"] if isinstance(body.get("engineFlags"), dict) else {}
    gpus = hw.get("gpus")
    if isinstance(gpus, list) and gpus:
        gpu = ", ".join(f"{g.get('count', '?')}x {g.get('gpuName', '?')}" for g in gpus)
    else:
        gpu = f"{hw.get('gpuCount', '?')}x {hw.get('gpuName', hw.get('cpu', '?'))}"
    return [
        f"{payload.run_file}:",
        f"  model {body.get('hfId')} ({body.get('quantization')}), engine "
        f"{body.get('engineName')} {body.get('engineVersion') or ''}".rstrip(),
        f"  hardware {gpu}; {flags.get('concurrency', 1)} request(s) at a time",
        f"  output {_number(body.get('tokSOut'), 'tok/s')}, TTFT "
        f"{_number(body.get('ttftMs'), 'ms')}, prefill {_number(body.get('tokSPrefill'), 'tok/s')}",
    ]


def _confirmer(
    api_base: str, yes: bool, err: TextIO, ask: Callable[[str], str]
) -> Callable[[Sequence[Payload]], bool]:
    def confirm(payloads: Sequence[Payload]) -> bool:
        err.write(one_line(f"about to submit {len(payloads)} run(s) to {api_base}:") + "\n")
        for p in payloads:
            err.write("".join(one_line(line) + "\n" for line in describe(p)))
        if yes:
            return True
        try:
            answer = ask(f"Submit {len(payloads)} run(s) for real? [y/N] ")
        except EOFError:
            answer = ""
        return answer.strip().lower() in ("y", "yes")

    return confirm


def _input_error(problems: tuple[Problem, ...], key: str | None, err: TextIO) -> int:
    from reportgen.localmaxxing.submit import shown

    for p in problems:
        err.write(shown(p.format(), key) + "\n")
    return EXIT_INPUT


def _proxy_problem() -> str | None:
    """Why the environment's proxy settings cannot be used (for --trust-env), or None."""
    from reportgen.localmaxxing.submit import http_client

    try:
        http_client(trust_env=True).close()
    except InputError as exc:
        return f"--trust-env: {exc.problems[0].message}"
    return None


def run(
    args: argparse.Namespace,
    *,
    client: httpx.Client | None = None,
    env: Mapping[str, str] | None = None,
    now: Callable[[], datetime] | None = None,
    load_setup: SetupLoader | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    interactive: bool | None = None,
    ask: Callable[[str], str] = input,
) -> int:
    """Run `reportgen submit` with injectable network client, environment, clock, loader and
    terminal (`interactive`: stdin is a terminal; `ask`: how a question is answered)."""
    from reportgen.cli.inputs import load_arguments
    from reportgen.localmaxxing.keys import api_key, leaks
    from reportgen.localmaxxing.submit import (
        SubmitReport,
        SubmitRequest,
        reconstructed,
        submit_runs,
    )
    from reportgen.metrics.compute import compute

    env = os.environ if env is None else env
    out, err = out or sys.stdout, err or sys.stderr
    try:
        key = api_key(env)
    except InputError as exc:
        return _input_error(exc.problems, None, err)
    real = not (args.local or args.dry_run)
    interactive = sys.stdin.isatty() if interactive is None else interactive
    usage = _api_base_problem(args.api_base)
    if usage is None and leaks(args.api_base, key):
        usage = (
            "--api-base holds the API key, or part of it: the key goes in LOCALMAXXING_API_KEY "
            "(or LMX_API_KEY) only, never in a URL that is shown and recorded"
        )
    if usage is None and real and not args.yes and not interactive:
        usage = (
            "a real submission needs --yes when stdin is not a terminal (a script cannot "
            "answer the confirmation); try --dry-run first"
        )
    if usage is None and not 0 < args.timeout <= 600:
        usage = "--timeout must be above 0 and at most 600 seconds"
    if usage is None and args.trust_env and not args.local:
        usage = _proxy_problem()
    if usage is None and not args.path.exists():
        usage = f"{args.path}: no such file or folder"
    if usage:
        err.write(one_line(f"reportgen submit: error: {usage}") + "\n")
        return EXIT_INPUT
    # A folder's run files, without what reportgen writes there (submission records, payloads).
    result = load_arguments([args.path])
    if not result.ok:
        return _input_error(result.problems, key, err)
    refused = reconstructed(result.runs)
    if refused:  # before the setup, the contract or any network access
        _print(SubmitReport((), refused), out)
        err.write("submit: refused (reconstructed data)\n")
        return EXIT_INPUT
    article_dir = args.article or (args.path if args.path.is_dir() else args.path.parent)
    if args.article is None and not (article_dir / "article.toml").is_file():
        err.write(
            f"reportgen submit: error: {article_dir} has no article.toml; name the article "
            "folder with --article DIR (its setup describes the hardware)\n"
        )
        return EXIT_INPUT
    try:
        setup = (load_setup or _default_loader)(article_dir)
    except InputError as exc:
        return _input_error(exc.problems, key, err)
    except (ImportError, AttributeError) as exc:
        err.write(f"reportgen submit: error: cannot read the article's setup: {exc}\n")
        return EXIT_INPUT
    try:
        request = SubmitRequest(
            runs=result.runs,
            metrics=compute(result.runs),
            setup=setup,
            article_dir=article_dir,
            mode="local" if args.local else "dry-run" if args.dry_run else "submit",
            api_base=args.api_base.rstrip("/"),
            save_payload=args.save_payload,
            force=args.force,
            timeout_s=args.timeout,
            confirm=_confirmer(args.api_base, args.yes, err, ask) if real else None,
            trust_env=args.trust_env,
        )
        report = submit_runs(request, client=client, env=env, now=now)
    except InputError as exc:
        return _input_error(exc.problems, key, err)
    _print(report, out)
    counts = Counter(o.status for o in report.outcomes)
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    err.write(f"submit: {summary or 'nothing to do'}\n")
    return report.exit_code
