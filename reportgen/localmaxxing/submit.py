"""Submit stage (an I/O edge): measured runs to the LocalMaxxing leaderboard, honestly and safely.

In: loaded runs, their metric values, the article's setup and a `SubmitRequest`; an injected
`httpx.Client`, environment and clock. Out: a `SubmitReport` of one `Outcome` per run, every line
already redacted. Validation goes in increasing order of authority: the local contract check,
then the server's dry-run, then the real submission. Reconstructed runs are refused before
anything else happens; a key is read from the environment when needed and never written.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

import httpx

from reportgen import __version__
from reportgen.errors import InputError, Problem
from reportgen.localmaxxing import contract as lmx_contract
from reportgen.localmaxxing import payload as lmx_payload
from reportgen.localmaxxing.api import DEFAULT_API_BASE, DEFAULT_TIMEOUT_S
from reportgen.localmaxxing.payload import Payload
from reportgen.metrics import MetricSet
from reportgen.model import CanonicalRun, Run, Setup
from reportgen.written import PAYLOAD_SUFFIX, RECORD_FILE

KEY_VARS = ("LOCALMAXXING_API_KEY", "LMX_API_KEY")
MAX_ANSWER_BYTES = 1024 * 1024
REDACTED = "[redacted]"
_KEYLIKE = re.compile(r"bhk_[A-Za-z0-9]{4,}")
_BEARER = re.compile(r"(?i)(bearer\s+)(?!\[redacted\])[^\s\"',;]+")
_ID_KEYS = ("id", "runId", "benchmarkId", "submissionId")

Mode = Literal["local", "dry-run", "submit"]
Status = Literal["checked", "dry-run passed", "submitted", "refused", "failed", "not sent"]


def api_key(env: Mapping[str, str]) -> str | None:
    """The API key from LOCALMAXXING_API_KEY or LMX_API_KEY, read when called."""
    for name in KEY_VARS:
        value = env.get(name, "").strip()
        if value:
            return value
    return None


def redact(text: str, key: str | None) -> str:
    """`text` with the key (in its plain, JSON and URL forms) and anything key-like removed."""
    if key:
        for form in sorted({key, json.dumps(key)[1:-1], quote(key, safe="")}, key=len)[::-1]:
            text = text.replace(form, REDACTED)
    text = _KEYLIKE.sub(REDACTED, text)
    return _BEARER.sub(lambda m: m.group(1) + REDACTED, text)


@dataclass(frozen=True)
class Record:
    """One successful submission, as kept in the article folder's `submissions.json`."""

    run_file: str
    run_sha256: str
    payload_sha256: str
    submission_id: str | None
    submitted_at: str
    api_base: str
    verified_run: bool | None


@dataclass(frozen=True)
class Outcome:
    """What happened to one run; `lines` are redacted and ready to show."""

    run_file: str
    status: Status
    lines: tuple[str, ...]
    http_status: int | None = None
    submission_id: str | None = None
    stop: str | None = None  # why no further request should be made, if so


@dataclass(frozen=True)
class Answer:
    """The server's answer to one dry-run or submission, as reportgen judges it."""

    status: Status
    lines: tuple[str, ...]
    http_status: int | None = None
    submission_id: str | None = None
    stop: str | None = None  # why no further request should be made, if so
    verified: bool | None = None


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


@dataclass(frozen=True)
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
                run.source.label,
                "refused",
                (
                    f"refused: the file's data is {prov.status} (dataProvenance.status: "
                    f"{prov.status}{origin}), not measured. A leaderboard takes measurements "
                    "only, so reportgen never submits reconstructed data, whatever the flags; "
                    "replace it with the original run file.",
                ),
            )
        )
    return tuple(out)


def load_records(article_dir: Path) -> tuple[Record, ...]:
    """The submissions recorded in `article_dir`; raises `InputError` on a damaged file."""
    path = article_dir / RECORD_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return ()
    except (OSError, ValueError) as exc:
        raise InputError([Problem(str(path), 1, 1, "", f"unreadable record file: {exc}")]) from None
    try:
        return tuple(
            Record(
                str(r["runFile"]),
                str(r["runSha256"]),
                str(r["payloadSha256"]),
                None if r.get("submissionId") is None else str(r["submissionId"]),
                str(r["submittedAt"]),
                str(r["apiBase"]),
                r.get("verifiedRun") if isinstance(r.get("verifiedRun"), bool) else None,
            )
            for r in data["submissions"]
        )
    except (KeyError, TypeError) as exc:
        raise InputError(
            [Problem(str(path), 1, 1, "/submissions", f"not a reportgen record file ({exc})")]
        ) from None


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def add_record(article_dir: Path, record: Record, key: str | None) -> None:
    """Append `record` to the article's `submissions.json` (atomically, redacted)."""
    records = (*load_records(article_dir), record)
    data = {
        "about": "Runs of this article submitted to LocalMaxxing by `reportgen submit`. A run "
        "listed here (by sha256) is not submitted again without --force.",
        "submissions": [
            {
                "runFile": r.run_file,
                "runSha256": r.run_sha256,
                "payloadSha256": r.payload_sha256,
                "submissionId": r.submission_id,
                "submittedAt": r.submitted_at,
                "apiBase": r.api_base,
                "verifiedRun": r.verified_run,
            }
            for r in records
        ],
    }
    _write(article_dir / RECORD_FILE, redact(json.dumps(data, indent=2) + "\n", key))


def _save(payloads: Sequence[Payload], target: Path) -> list[str]:
    try:
        return _save_to(payloads, target)
    except OSError as exc:
        raise InputError([Problem(str(target), 1, 1, "", f"cannot save: {exc}")]) from None


def _save_to(payloads: Sequence[Payload], target: Path) -> list[str]:
    if len(payloads) == 1 and not target.is_dir():
        _write(target, payloads[0].text)
        return [f"{payloads[0].run_file}: payload saved to {target}"]
    if target.exists() and not target.is_dir():
        raise InputError(
            [Problem(str(target), 1, 1, "", "several runs: --save-payload needs a folder")]
        )
    notes = []
    for p in payloads:
        path = target / (Path(p.run_file).stem + PAYLOAD_SUFFIX)
        _write(path, p.text)
        notes.append(f"{p.run_file}: payload saved to {path}")
    return notes


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    minutes, rest = divmod(seconds, 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def retry_hint(body: Any, headers: httpx.Headers, now: datetime) -> str:
    """When a rate-limited request may be retried, from `retryAfterMs` or the headers."""
    wait: float | None = None
    ms = body.get("retryAfterMs") if isinstance(body, dict) else None
    if isinstance(ms, int | float) and not isinstance(ms, bool):
        wait = ms / 1000
    elif headers.get("Retry-After"):
        value = headers["Retry-After"].strip()
        try:
            wait = float(value)
        except ValueError:
            try:
                wait = (parsedate_to_datetime(value) - now).total_seconds()
            except (TypeError, ValueError):
                wait = None
    if wait is None and headers.get("X-RateLimit-Reset"):
        try:
            wait = float(headers["X-RateLimit-Reset"]) - now.timestamp()
        except ValueError:
            wait = None
    if wait is None:
        return (
            "the server did not say when to retry (the documented limit is 1 submission per "
            "5 minutes per key); reportgen does not retry by itself"
        )
    at = (now + timedelta(seconds=max(wait, 0))).astimezone(UTC)
    return (
        f"retry after {_duration(wait)} (at {at:%Y-%m-%d %H:%M:%S} UTC); reportgen does not "
        "retry by itself"
    )


def _issues(body: dict[str, Any]) -> list[str]:
    found = _dict(body.get("verification")).get("issues") or body.get("verificationIssues") or []
    out = []
    for issue in found if isinstance(found, list) else [found]:
        if isinstance(issue, dict):
            where = issue.get("field") or issue.get("path") or issue.get("code")
            text = issue.get("message") or json.dumps(issue, sort_keys=True)
            out.append(f"{where}: {text}" if where else str(text))
        else:
            out.append(str(issue))
    return out


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _excerpt(raw: bytes) -> str:
    text = raw[:200].decode("utf-8", "replace")
    return re.sub(r"[\x00-\x1f\x7f]", " ", text) + ("..." if len(raw) > 200 else "")


def _interpret(
    action: Literal["dry-run", "submit"],
    response: httpx.Response,
    raw: bytes,
    now: datetime,
) -> Answer:
    """What one HTTP answer means: every non-2xx or non-JSON answer is a failure."""
    code = response.status_code
    try:
        body: Any = json.loads(raw) if raw else None
    except ValueError:
        body = None
    ok = 200 <= code < 300 and isinstance(body, dict)
    if ok and (body.get("valid") is False or body.get("ok") is False or body.get("errors")):
        ok = False
    lines: list[str] = []
    issues = _issues(body) if isinstance(body, dict) else []
    if not ok:
        lines.append(f"{action} failed: HTTP {code} {response.reason_phrase}".rstrip())
        if isinstance(body, dict):
            if body.get("error"):
                lines.append(f"server error: {body['error']}")
            errors = body.get("errors")
            for err in errors if isinstance(errors, list) else []:
                lines.append(f"server error: {err}")
            if body.get("suggestedHfId"):
                lines.append(f"the server suggests hfId {body['suggestedHfId']!r}")
        else:
            kind = response.headers.get("content-type", "no content type")
            lines.append(f"the answer is not a JSON object ({kind}): {_excerpt(raw)!r}")
        lines += [f"verification issue: {i}" for i in issues]
        if 300 <= code < 400 and response.headers.get("location"):
            lines.append(
                f"the server redirects to {response.headers['location']} (not followed: the "
                "key goes only to --api-base); if that is the API, pass its base as --api-base"
            )
        stop = None
        if code == 401:
            stop = "the API key was refused"
            lines.append(
                "the API key is missing, expired or invalid: set LOCALMAXXING_API_KEY "
                "(or LMX_API_KEY)"
            )
        elif code == 429:
            stop = "rate limited"
            lines.append(f"rate limited: {retry_hint(body, response.headers, now)}")
        elif code >= 500 or (action == "submit" and 200 <= code < 300):
            stop = "the server's answer is unusable"
            if action == "submit" and 200 <= code < 300:
                lines.append(
                    "the submission may or may not have been stored: check your submissions "
                    "on the site before sending it again"
                )
        return Answer("failed", tuple(lines), code, stop=stop)
    if action == "dry-run":
        verification = _dict(body.get("verification"))
        verified = verification.get("verified")
        lines.append(f"dry-run passed (HTTP {code})")
        if isinstance(verified, bool):
            lines.append("verification: " + ("verified run" if verified else "not verified"))
        lines += [f"verification issue: {i}" for i in issues]
        verdict = verified if isinstance(verified, bool) else None
        return Answer("dry-run passed", tuple(lines), code, verified=verdict)
    ident = next((body[k] for k in _ID_KEYS if body.get(k) is not None), None)
    for nested in ("run", "benchmark", "submission"):
        if ident is None:
            ident = _dict(body.get(nested)).get("id")
    sub_id = None if ident is None else str(ident)
    verified_run = body.get("verifiedRun")
    lines.append(f"submitted (HTTP {code}); submission id {sub_id or 'not given by the server'}")
    lines.append("it waits for admin approval before it is listed")
    if isinstance(verified_run, bool):
        lines.append("verification: " + ("verified run" if verified_run else "not verified"))
    lines += [f"verification issue: {i}" for i in issues]
    stop = None
    if response.headers.get("X-RateLimit-Remaining", "").strip() == "0":
        stop = "rate-limit window used up"
        lines.append(
            f"no submissions left in this rate-limit window: "
            f"{retry_hint(None, response.headers, now)}"
        )
    verdict = verified_run if isinstance(verified_run, bool) else None
    return Answer("submitted", tuple(lines), code, sub_id, stop, verdict)


def _send(
    client: httpx.Client,
    action: Literal["dry-run", "submit"],
    url: str,
    body: Payload,
    key: str,
    *,
    timeout_s: float,
    now: Callable[[], datetime],
) -> Answer:
    """POST one payload; a bounded wait, no redirects followed, no retry."""
    headers = {
        "Authorization": f"Bearer {key}",
        "Content-Type": "application/json",
        "Accept": "application/json",
        "User-Agent": f"reportgen/{__version__}",
    }
    deadline = time.monotonic() + 2 * timeout_s
    try:
        with client.stream(
            "POST",
            url,
            content=body.text.encode("utf-8"),
            headers=headers,
            timeout=timeout_s,
            follow_redirects=False,
        ) as response:
            raw = lmx_contract.read_body(response, limit=MAX_ANSWER_BYTES, deadline=deadline)
    except httpx.TimeoutException:
        lines = [f"{action} failed: no answer from {url} within the {timeout_s:g} s timeout"]
        if action == "submit":
            lines.append(
                "the submission may have reached the server: check your submissions on the "
                "site before sending it again"
            )
        return Answer("failed", tuple(lines), stop="timed out")
    except (httpx.HTTPError, lmx_contract.ContractError) as exc:
        lines = [f"{action} failed: {type(exc).__name__}: {exc}"]
        return Answer("failed", tuple(lines), stop="no usable connection")
    return _interpret(action, response, raw, now())


def _outcome(
    key: str | None, run_file: str, status: Status, lines: Sequence[str], **kw: Any
) -> Outcome:
    return Outcome(run_file, status, tuple(redact(line, key) for line in lines), **kw)


def _payloads(request: SubmitRequest, key: str | None, notes: list[str]) -> list[Payload]:
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
        findings = lmx_contract.check(p.body(), contract, prompt_id=p.prompt_id)
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
        answer = _send(http, action, url, p, key, timeout_s=request.timeout_s, now=clock)
        lines = list(answer.lines)
        if answer.status == "submitted":
            record = Record(
                p.run_file,
                p.run_sha256,
                p.sha256,
                answer.submission_id,
                clock().isoformat(timespec="seconds"),
                request.api_base,
                answer.verified,
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


def submit_runs(
    request: SubmitRequest,
    *,
    client: httpx.Client | None = None,
    env: Mapping[str, str] | None = None,
    now: Callable[[], datetime] | None = None,
) -> SubmitReport:
    """Check, dry-run or submit every measured canonical run of `request`."""
    env = os.environ if env is None else env
    clock = now or (lambda: datetime.now(UTC))
    refused = reconstructed(request.runs)
    if refused:
        return SubmitReport((), refused)  # before any payload, file or network access
    key = api_key(env)
    notes: list[str] = []
    payloads = _payloads(request, key, notes)
    if not payloads:
        line = "nothing to submit: no lmx speed-test run among the files"
        return SubmitReport(
            tuple(notes), (_outcome(key, str(request.article_dir), "refused", [line]),)
        )
    if request.save_payload is not None:
        notes += _save(payloads, request.save_payload)
    outcomes = _already_sent(request, payloads, key)
    if not payloads:
        return SubmitReport(tuple(redact(n, key) for n in notes), tuple(outcomes))
    online = request.mode != "local"
    http = client if client is not None or not online else httpx.Client(follow_redirects=False)
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
        if ready and http is not None and key is not None:
            outcomes += _send_all(request, ready, contract, http, key, clock)
    finally:
        if http is not None and http is not client:
            http.close()
    return SubmitReport(tuple(redact(n, key) for n in notes), tuple(outcomes))
