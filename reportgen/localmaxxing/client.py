"""The HTTP side of a submission: one bounded POST, and what the server's answer means.

No redirect is followed (the key goes only to --api-base), nothing is retried, and every
non-2xx or non-JSON answer is a failure. The server's words are shown as data: each text cut to a
length, redacted, escaped onto one visible line (reportgen/terminal.py), and withheld whole when
the answer holds the API key in some form (`keys.leaks`).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any, Literal

import httpx

from reportgen import __version__
from reportgen.localmaxxing import contract as lmx_contract
from reportgen.localmaxxing.keys import guard, leaks, redact
from reportgen.localmaxxing.payload import Payload
from reportgen.terminal import one_line

Status = Literal["checked", "dry-run passed", "submitted", "refused", "failed", "not sent"]
MAX_ANSWER_BYTES = 1024 * 1024
_ID_KEYS = ("id", "runId", "benchmarkId", "submissionId")
MAX_SHOWN = 500  # characters of one server text shown
MAX_LISTED = 20  # errors or issues shown of one answer
_JUDGED = 64 * 1024  # characters of an answer's texts searched for the key as a whole
WITHHELD = "[withheld: the server's answer holds the API key, or part of it, in some form]"
Show = Callable[[Any], str]
_MAX_WAIT_S = 366 * 24 * 3600.0


def _server_texts(body: Any, raw: bytes, response: httpx.Response | None) -> str:
    """Every string of an answer (its JSON strings, or its text, and the status line and
    headers that may be shown), cut to what is ever shown."""
    found: list[str] = []
    if response is not None:
        found.append(response.reason_phrase)
        found += [response.headers.get(h, "") for h in ("content-type", "location")]
    size = 0
    todo = [body] if body is not None else [raw[:MAX_SHOWN].decode("utf-8", "replace")]
    while todo and size < _JUDGED:
        item = todo.pop()
        if isinstance(item, dict):
            todo += [*item.keys(), *item.values()]
        elif isinstance(item, list):
            todo += item
        elif item is not None:
            found.append(str(item)[:MAX_SHOWN])
            size += len(found[-1])
    return "\n".join(found)


def shower(body: Any, raw: bytes, key: str | None, response: httpx.Response | None = None) -> Show:
    """How each server text is shown: cut, redacted, on one visible line; or withheld, every one
    of them, when the answer's texts together hold the key in some form."""
    texts = _server_texts(body, raw, response)
    withhold = key is not None and leaks(redact(texts, key), key)

    def show(value: Any) -> str:
        if withhold:
            return WITHHELD
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        cut = f" ... ({len(text) - MAX_SHOWN} more characters)" if len(text) > MAX_SHOWN else ""
        return one_line(guard(text[:MAX_SHOWN], key)) + cut

    return show


@dataclass(frozen=True, kw_only=True)
class Answer:
    """The server's answer to one dry-run or submission, as reportgen judges it."""

    status: Status
    lines: tuple[str, ...]
    http_status: int | None = None
    submission_id: str | None = None
    stop: str | None = None  # why no further request should be made, if so
    verified: bool | None = None


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
    if wait is not None and not (math.isfinite(wait) and abs(wait) < _MAX_WAIT_S):
        wait = None  # nan, inf or centuries: not a time to show
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


def _listed(items: list[str], found: int) -> list[str]:
    more = found - MAX_LISTED
    return items[:MAX_LISTED] + ([f"... and {more} more"] if more > 0 else [])


def _issues(body: dict[str, Any], show: Show) -> list[str]:
    found = _dict(body.get("verification")).get("issues") or body.get("verificationIssues") or []
    found = found if isinstance(found, list) else [found]
    out = []
    for issue in found[:MAX_LISTED]:
        if isinstance(issue, dict):
            where = issue.get("field") or issue.get("path") or issue.get("code")
            text = issue.get("message") or json.dumps(issue, sort_keys=True)
            out.append(f"{show(where)}: {show(text)}" if where else show(text))
        else:
            out.append(show(issue))
    return _listed(out, len(found))


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _excerpt(raw: bytes, show: Show) -> str:
    text = raw[:200].decode("utf-8", "replace")
    return f"'{show(text)}'" + ("..." if len(raw) > 200 else "")


def interpret(
    action: Literal["dry-run", "submit"],
    response: httpx.Response,
    raw: bytes,
    now: datetime,
    key: str | None = None,
) -> Answer:
    """What one HTTP answer means: every non-2xx or non-JSON answer is a failure. `key`: the
    API key, never shown in any form."""
    code = response.status_code
    try:
        body: Any = json.loads(raw) if raw else None
    except (ValueError, RecursionError):  # RecursionError: JSON nested past Python's limit
        body = None
    show = shower(body, raw, key, response)
    ok = 200 <= code < 300 and isinstance(body, dict)
    if ok and (body.get("valid") is False or body.get("ok") is False or body.get("errors")):
        ok = False
    issues = _issues(body, show) if isinstance(body, dict) else []
    if not ok:
        return _failed(action, response, raw, body, show, issues, now)
    if action == "dry-run":
        return _dry_run(code, body, issues)
    return _submitted(response, body, show, issues, now)


def _failed(
    action: Literal["dry-run", "submit"],
    response: httpx.Response,
    raw: bytes,
    body: Any,
    show: Show,
    issues: list[str],
    now: datetime,
) -> Answer:
    """A failed answer: what the server said, and why to stop (a refused key, a rate limit)."""
    code = response.status_code
    lines = [f"{action} failed: HTTP {code} {show(response.reason_phrase)}".rstrip()]
    if isinstance(body, dict):
        if body.get("error"):
            lines.append(f"server error: {show(body['error'])}")
        errors = body.get("errors")
        errors = errors if isinstance(errors, list) else []
        lines += _listed([f"server error: {show(e)}" for e in errors], len(errors))
        if body.get("suggestedHfId"):
            lines.append(f"the server suggests hfId '{show(body['suggestedHfId'])}'")
    else:
        kind = show(response.headers.get("content-type", "no content type"))
        lines.append(f"the answer is not a JSON object ({kind}): {_excerpt(raw, show)}")
    lines += [f"verification issue: {i}" for i in issues]
    if 300 <= code < 400 and response.headers.get("location"):
        lines.append(
            f"the server redirects to {show(response.headers['location'])} (not followed: the "
            "key goes only to --api-base); if that is the API, pass its base as --api-base"
        )
    stop = None
    if code == 401:
        stop = "the API key was refused"
        lines.append(
            "the API key is missing, expired or invalid: set LOCALMAXXING_API_KEY (or LMX_API_KEY)"
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
    return Answer(status="failed", lines=tuple(lines), http_status=code, stop=stop)


def _dry_run(code: int, body: dict[str, Any], issues: list[str]) -> Answer:
    """A dry run the server accepted, and whether it verified the run."""
    verification = _dict(body.get("verification"))
    verified = verification.get("verified")
    lines = [f"dry-run passed (HTTP {code})"]
    if isinstance(verified, bool):
        lines.append("verification: " + ("verified run" if verified else "not verified"))
    lines += [f"verification issue: {i}" for i in issues]
    verdict = verified if isinstance(verified, bool) else None
    return Answer(status="dry-run passed", lines=tuple(lines), http_status=code, verified=verdict)


def _submitted(
    response: httpx.Response, body: dict[str, Any], show: Show, issues: list[str], now: datetime
) -> Answer:
    """A stored submission: its id, whether it verified, and whether the rate limit is used up."""
    code = response.status_code
    ident = next((body[k] for k in _ID_KEYS if body.get(k) is not None), None)
    for nested in ("run", "benchmark", "submission"):
        if ident is None:
            ident = _dict(body.get(nested)).get("id")
    sub_id = None if ident is None else show(str(ident))
    verified_run = body.get("verifiedRun")
    lines = [f"submitted (HTTP {code}); submission id {sub_id or 'not given by the server'}"]
    sub_id = None if sub_id is not None and sub_id.startswith("[withheld") else sub_id
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
    return Answer(
        status="submitted",
        lines=tuple(lines),
        http_status=code,
        submission_id=sub_id,
        stop=stop,
        verified=verdict,
    )


def send(
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
        return Answer(status="failed", lines=tuple(lines), stop="timed out")
    except (httpx.HTTPError, lmx_contract.ContractError) as exc:
        lines = [f"{action} failed: {type(exc).__name__}: {one_line(guard(str(exc), key))}"]
        return Answer(status="failed", lines=tuple(lines), stop="no usable connection")
    return interpret(action, response, raw, now(), key)
