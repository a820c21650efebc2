"""Submit stage (an I/O edge): measured runs to the LocalMaxxing leaderboard, honestly and safely.

In: loaded runs, their metric values, the article's setup and a `SubmitRequest`; an injected
`httpx.Client`, environment and clock. Out: a `SubmitReport` of one `Outcome` per run, every line
already redacted. Validation goes in increasing order of authority: the local contract check,
then the server's dry-run, then the real submission. Reconstructed runs are refused before
anything else happens; a key is read from the environment when needed and never written.
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import certifi
import httpx

from reportgen.errors import InputError, whole_file
from reportgen.fileio import RECORD_FILE
from reportgen.localmaxxing import conformance
from reportgen.localmaxxing import contract as lmx_contract
from reportgen.localmaxxing import payload as lmx_payload
from reportgen.localmaxxing.api import DEFAULT_API_BASE, DEFAULT_TIMEOUT_S
from reportgen.localmaxxing.client import Status, send
from reportgen.localmaxxing.keys import WITHHELD, api_key, covered, guard, leaks, redact
from reportgen.localmaxxing.payload import Payload
from reportgen.localmaxxing.records import Record, add_record, load_records, save_payloads
from reportgen.metrics.registry import MetricSet
from reportgen.model import CanonicalRun, Run, Setup
from reportgen.terminal import one_line

Mode = Literal["local", "dry-run", "submit"]


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What happened to one run; `lines` are redacted and ready to show."""

    run_file: str
    status: Status
    lines: tuple[str, ...]
    http_status: int | None = None
    submission_id: str | None = None
    stop: str | None = None  # why no further request should be made, if so


@dataclass(frozen=True)
class SubmitReport:
    """Every run's outcome, plus notes on the contract used and the payloads saved."""

    notes: tuple[str, ...]
    outcomes: tuple[Outcome, ...]

    @property
    def exit_code(self) -> int:
        """0 all done; 1 a request failed or was refused by the server; 2 refused locally."""
        if any(o.status in ("failed", "not sent") for o in self.outcomes):
            return 1
        return 2 if any(o.status == "refused" for o in self.outcomes) else 0


@dataclass(frozen=True, kw_only=True)
class SubmitRequest:
    """What to submit and how."""

    runs: tuple[Run, ...]
    metrics: MetricSet
    setup: Setup
    article_dir: Path
    mode: Mode
    api_base: str = DEFAULT_API_BASE
    save_payload: Path | None = None
    force: bool = False
    timeout_s: float = DEFAULT_TIMEOUT_S
    # Asked with the payloads about to be submitted for real (after every local check); False
    # sends nothing. None: no confirmation asked (the caller decided, e.g. --yes).
    confirm: Callable[[Sequence[Payload]], bool] | None = None
    # Use the environment's proxies, certificates, netrc and TLS key log (HTTP(S)_PROXY,
    # ALL_PROXY, NO_PROXY, SSL_CERT_FILE, SSL_CERT_DIR, ~/.netrc, SSLKEYLOGFILE). Off: the key
    # goes only to api_base, directly.
    trust_env: bool = False


PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR")


def _tls() -> ssl.SSLContext:
    """Certificates verified against certifi's roots, hostnames checked; unlike Python's
    `create_default_context`, TLS secrets are never logged to $SSLKEYLOGFILE."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.load_verify_locations(cafile=certifi.where())
    return context


def http_client(*, trust_env: bool = False) -> httpx.Client:
    """The client that sends a submission: no redirects followed and, unless `trust_env`, no
    proxy, certificate, netrc or TLS key log taken from the environment, so the key goes only
    to --api-base.

    Raises `InputError` when `trust_env` and the environment's proxy settings cannot be used
    (a SOCKS proxy without httpx's socks extra, a malformed URL); the message names the
    variables, never their values (a proxy URL may hold a password).
    """
    try:
        if trust_env:
            return httpx.Client(follow_redirects=False, trust_env=True)
        return httpx.Client(follow_redirects=False, trust_env=False, verify=_tls())
    except (ImportError, ValueError, httpx.InvalidURL) as exc:
        names = [n for n in PROXY_VARS if os.environ.get(n) or os.environ.get(n.lower())]
        why = (
            "a SOCKS proxy needs httpx's socks extra (pip install 'httpx[socks]')"
            if isinstance(exc, ImportError)
            else f"a proxy URL is not usable ({type(exc).__name__})"
        )
        message = (
            f"the environment's proxy settings ({', '.join(names) or 'none found'}) cannot be "
            f"used: {why}; fix or unset them, or drop --trust-env"
        )
        raise InputError([whole_file("--trust-env", message)]) from None


def reconstructed(runs: Sequence[Run]) -> tuple[Outcome, ...]:
    """A refusal for every run whose data is not measured."""
    out = []
    for run in runs:
        prov = run.source.provenance
        if prov.status == "measured":
            continue
        origin = f", from {prov.reconstructed_from}" if prov.reconstructed_from else ""
        out.append(
            Outcome(
                run_file=run.source.label,
                status="refused",
                lines=(
                    f"refused: the file's data is {prov.status} (dataProvenance.status: "
                    f"{prov.status}{origin}), not measured. A leaderboard takes measurements "
                    "only, so reportgen never submits reconstructed data, whatever the flags; "
                    "replace it with the original run file.",
                ),
            )
        )
    return tuple(out)


def shown(text: str, key: str | None) -> str:
    """One line ready to print: redacted (withheld if it still holds the key in some form), its
    control characters visible, never a CI workflow command."""
    return one_line(guard(text, key))


def _outcome(
    key: str | None, run_file: str, status: Status, lines: Sequence[str], **kw: Any
) -> Outcome:
    return Outcome(
        run_file=shown(run_file, key),
        status=status,
        lines=tuple(shown(line, key) for line in lines),
        **kw,
    )


def _strings(value: Any) -> str:
    """Every string of a JSON value (its keys too), one a line: where a key could be pasted."""
    found, todo = [], [value]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            todo += [*item.keys(), *item.values()]
        elif isinstance(item, list):
            todo += item
        elif isinstance(item, str):
            found.append(item)
    return "\n".join(found)


def _payloads(
    request: SubmitRequest, key: str | None, notes: list[str], refused: list[Outcome]
) -> list[Payload]:
    """The payloads of the canonical runs, key-like values redacted; a payload that still holds
    the key in some form (spaced out, reversed, encoded) is refused into `refused`."""
    out = []
    for run in request.runs:
        if not isinstance(run, CanonicalRun):
            notes.append(
                f"{run.source.label}: skipped: an llm-inference-bench matrix run; the "
                "submission API takes lmx speed-test runs"
            )
            continue
        built = lmx_payload.build(run, request.metrics, request.setup)
        text = redact(built.text, key)
        if text != built.text:
            notes.append(f"{built.run_file}: a key-like value in the payload was redacted")
            built = replace(built, text=text)
        if leaks(_strings(built.body()), key):
            line = (
                "refused: the payload holds the API key, or part of it, in some spelling or "
                "encoding; remove it from the run file (a note or command line?). Nothing of "
                "this run is sent or saved"
            )
            refused.append(_outcome(key, built.run_file, "refused", [line]))
            continue
        out.append(built)
    return out


def _already_sent(
    request: SubmitRequest, payloads: list[Payload], key: str | None
) -> list[Outcome]:
    """A refusal for each payload whose run is recorded as submitted (removed from `payloads`)."""
    if request.mode != "submit" or request.force:
        return []
    done = {r.run_sha256: r for r in load_records(request.article_dir)}
    out = []
    for p in [p for p in payloads if p.run_sha256 in done]:
        r = done[p.run_sha256]
        line = (
            f"refused: already submitted to {r.api_base} at {r.submitted_at} (submission id "
            f"{r.submission_id}); pass --force to submit it again"
        )
        out.append(_outcome(key, p.run_file, "refused", [line]))
        payloads.remove(p)
    return out


def _checked(
    request: SubmitRequest,
    payloads: list[Payload],
    contract: lmx_contract.Contract,
    key: str | None,
    outcomes: list[Outcome],
) -> list[tuple[Payload, list[str]]]:
    """The payloads that pass the local contract check, with its warnings; outcomes for the
    rest (and for all of them when checking locally only)."""
    ready = []
    for p in payloads:
        findings = conformance.check(p.body(), contract, prompt_id=p.prompt_id)
        lines = [f.format() for f in findings]
        if any(f.severity == "error" for f in findings):
            lines.insert(0, "refused by the local contract check:")
            if request.save_payload is not None:
                lines.append("the saved payload can be sent unchanged once the contract accepts it")
            outcomes.append(_outcome(key, p.run_file, "refused", lines))
        elif request.mode == "local":
            lines.insert(0, "passes the local contract check")
            outcomes.append(_outcome(key, p.run_file, "checked", lines))
        elif key is None:
            lines.insert(0, "no API key: set LOCALMAXXING_API_KEY (or LMX_API_KEY)")
            outcomes.append(_outcome(key, p.run_file, "refused", lines))
        else:
            ready.append((p, lines))
    return ready


def _send_all(
    request: SubmitRequest,
    ready: list[tuple[Payload, list[str]]],
    contract: lmx_contract.Contract,
    http: httpx.Client,
    key: str,
    clock: Callable[[], datetime],
) -> list[Outcome]:
    """Send each payload once, in order; stop at the first answer that says to."""
    action: Literal["dry-run", "submit"] = "dry-run" if request.mode == "dry-run" else "submit"
    path = contract.dry_run_path if action == "dry-run" else contract.submit_path
    url = request.api_base.rstrip("/") + path
    stop: str | None = None
    out = []
    for p, warnings in ready:
        if stop is not None:
            out.append(_outcome(key, p.run_file, "not sent", [f"not sent: {stop}"]))
            continue
        answer = send(http, action, url, p, key, timeout_s=request.timeout_s, now=clock)
        lines = list(answer.lines)
        if answer.status == "submitted":
            record = Record(
                run_file=p.run_file,
                run_sha256=p.run_sha256,
                payload_sha256=p.sha256,
                submission_id=answer.submission_id,
                submitted_at=clock().isoformat(timespec="seconds"),
                api_base=request.api_base,
                verified_run=answer.verified,
            )
            try:
                add_record(request.article_dir, record, key)
                lines.append(f"recorded in {request.article_dir / RECORD_FILE}")
            except (OSError, InputError) as exc:
                lines.append(f"NOT recorded ({exc}): keep the submission id above")
        stop = answer.stop
        out.append(
            _outcome(
                key,
                p.run_file,
                answer.status,
                lines + warnings,
                http_status=answer.http_status,
                submission_id=answer.submission_id,
                stop=stop,
            )
        )
    return out


def _withheld_across(report: SubmitReport, key: str | None) -> SubmitReport:
    """The report with every line that shows a piece of the key withheld, when its lines
    together show the key (a piece in each answer of a batch, say)."""
    lines = [*report.notes, *(line for o in report.outcomes for line in o.lines)]
    if not leaks("\n".join(lines), key):
        return report

    def cut(lines: Sequence[str]) -> tuple[str, ...]:
        return tuple(WITHHELD if covered(line, key) else line for line in lines)

    outcomes = tuple(replace(o, lines=cut(o.lines)) for o in report.outcomes)
    return SubmitReport(cut(report.notes), outcomes)


def submit_runs(
    request: SubmitRequest,
    *,
    client: httpx.Client | None = None,
    env: Mapping[str, str] | None = None,
    now: Callable[[], datetime] | None = None,
) -> SubmitReport:
    """Check, dry-run or submit every measured canonical run of `request`; every line of the
    report is safe to print (see `shown`), and the lines together never show the key."""
    env = os.environ if env is None else env
    key = api_key(env)
    return _withheld_across(_submit_runs(request, client, env, now), key)


def _submit_runs(
    request: SubmitRequest,
    client: httpx.Client | None,
    env: Mapping[str, str],
    now: Callable[[], datetime] | None,
) -> SubmitReport:
    clock = now or (lambda: datetime.now(UTC))
    refused = reconstructed(request.runs)
    if refused:
        return SubmitReport((), refused)  # before any payload, file or network access
    key = api_key(env)
    notes: list[str] = []
    outcomes: list[Outcome] = []
    payloads = _payloads(request, key, notes, outcomes)
    if not payloads and outcomes:
        return SubmitReport(tuple(shown(n, key) for n in notes), tuple(outcomes))
    if not payloads:
        line = "nothing to submit: no lmx speed-test run among the files"
        return SubmitReport(
            tuple(shown(n, key) for n in notes),
            (_outcome(key, str(request.article_dir), "refused", [line]),),
        )
    if request.save_payload is not None:
        notes += save_payloads(payloads, request.save_payload)
    outcomes += _already_sent(request, payloads, key)
    if not payloads:
        return SubmitReport(tuple(shown(n, key) for n in notes), tuple(outcomes))
    online = request.mode != "local"
    http = client if client is not None or not online else http_client(trust_env=request.trust_env)
    try:
        contract, tried = lmx_contract.current(
            request.api_base,
            client=http if online else None,
            env=env,
            now=clock,
            timeout_s=request.timeout_s,
        )
        notes += [*tried, f"contract: {contract.describe()}"]
        ready = _checked(request, payloads, contract, key, outcomes)
        confirmed = (
            request.mode != "submit"
            or request.confirm is None
            or not ready
            or request.confirm([p for p, _ in ready])
        )
        if not confirmed:
            line = "not sent: the submission was not confirmed"
            outcomes += [_outcome(key, p.run_file, "not sent", [line]) for p, _ in ready]
        elif ready and http is not None and key is not None:
            outcomes += _send_all(request, ready, contract, http, key, clock)
    finally:
        if http is not None and http is not client:
            http.close()
    return SubmitReport(tuple(shown(n, key) for n in notes), tuple(outcomes))
