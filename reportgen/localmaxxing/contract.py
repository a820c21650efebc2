"""Submission contract: what the LocalMaxxing API accepts (`Contract`), and where that comes from.

The API's `GET /api/agent-context` document comes from one of three places in decreasing order of
authority: a live fetch (through an injected `httpx.Client`), the cached copy of the last live
fetch (in the user's cache folder, never the repo), or the dated snapshot bundled in `schemas/`
(reconstructed from public docs, not fetched). `reportgen.localmaxxing.conformance` checks a
payload against it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx

from reportgen.fileio import read_cached, read_input, write_output
from reportgen.frozendict import FrozenDict
from reportgen.resources import schema_dir

AGENT_CONTEXT_PATH = "/api/agent-context"
SNAPSHOT_FILE = "localmaxxing-agent-context.json"
DEFAULT_SUBMIT_PATH = "/api/benchmarks"
DEFAULT_DRY_RUN_PATH = "/api/benchmarks/dry-run"
REQUIRED = ("hfId", "hardware", "engineName", "quantization", "tokSOut")
DEFAULT_METRICS = ("tokSPrefill", "tokSTotal", "ttftMs", "peakVramGb")
HW_CLASSES = ("DISCRETE_GPU", "UNIFIED", "CPU_ONLY")
MAX_CONTEXT_BYTES = 8 * 1024 * 1024
_PATH = re.compile(r"^/[A-Za-z0-9/_.-]*$")

Origin = Literal["live", "cached", "bundled"]
Severity = Literal["error", "warning"]


class ContractError(Exception):
    """The contract could not be fetched or is not an agent-context document."""


@dataclass(frozen=True)
class CanonicalPrompt:
    """One of the API's canonical prompts."""

    id: str
    sha256: str | None
    min_output_tokens: int | None


@dataclass(frozen=True, kw_only=True)
class Contract:
    """The accepted values and endpoints of the submission API, as one agent-context told them."""

    origin: Origin
    source: str
    fetched_at: str | None  # None: never fetched live (the bundled snapshot)
    as_of: str | None
    partial: bool
    submit_path: str
    dry_run_path: str
    engine_names: tuple[str, ...]
    gpu_names: tuple[str, ...]
    common_quantizations: tuple[str, ...]
    max_lengths: FrozenDict[str, int]
    metric_fields: tuple[str, ...]
    engine_flag_keys: tuple[str, ...]  # empty: the contract names none
    prompts: tuple[CanonicalPrompt, ...]

    def describe(self) -> str:
        """Which contract this is, in words, for every message that relies on it."""
        partial = "; partial" if self.partial else ""
        if self.origin == "bundled":
            when = self.as_of or "an unknown date"
            return (
                f"the bundled contract snapshot (reconstructed from public docs as of {when}; "
                f"not a live fetch{partial})"
            )
        how = "fetched just now, at" if self.origin == "live" else "cached copy, fetched"
        return f"the agent-context from {self.source} ({how} {self.fetched_at}{partial})"


def _strings(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    out = []
    for item in value:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict) and isinstance(item.get("name"), str):
            out.append(item["name"])
    return tuple(out)


def _path(endpoint: Any, default: str) -> str:
    """The path of an endpoint string such as "POST https://host/api/x"; only the path is kept,
    so a key is only ever sent to the API base the user chose."""
    if not isinstance(endpoint, str) or not endpoint.strip():
        return default
    path = urlsplit(endpoint.split()[-1]).path
    return path if _PATH.match(path) else default


def obj(value: Any) -> dict[str, Any]:
    """`value` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def parse(data: Any, *, origin: Origin, source: str) -> Contract:
    """A `Contract` from an agent-context document (live, cached or the bundled snapshot)."""
    if not isinstance(data, dict) or not (
        isinstance(data.get("requiredFields"), dict) or isinstance(data.get("_meta"), dict)
    ):
        raise ContractError(f"{source}: not an agent-context document (no requiredFields or _meta)")
    meta, fields = obj(data.get("_meta")), obj(data.get("requiredFields"))
    snap, flags = obj(data.get("_snapshot")), obj(data.get("engineFlagsSchema"))
    lengths = FrozenDict(
        (name, int(spec["maxLength"]))
        for name, spec in sorted(fields.items())
        if isinstance(spec, dict) and isinstance(spec.get("maxLength"), int)
    )
    metrics = _strings(obj(fields.get("atLeastOneMetricRequired")).get("fields")) or (
        DEFAULT_METRICS
    )
    prompts = []
    for p in data.get("canonicalPrompts") or []:
        if isinstance(p, dict) and isinstance(p.get("id"), str):
            sha, least = p.get("sha256"), p.get("minOutputTokens")
            prompts.append(
                CanonicalPrompt(
                    p["id"],
                    sha.lower() if isinstance(sha, str) else None,
                    least if isinstance(least, int) and not isinstance(least, bool) else None,
                )
            )
    fetched = snap.get("fetchedAt")
    return Contract(
        origin=origin,
        source=str(snap.get("source") or source),
        fetched_at=fetched if isinstance(fetched, str) else None,
        as_of=str(snap["asOf"]) if snap.get("asOf") else None,
        partial=bool(snap.get("partial", False)),
        submit_path=_path(meta.get("submitEndpoint"), DEFAULT_SUBMIT_PATH),
        dry_run_path=_path(meta.get("dryRunEndpoint"), DEFAULT_DRY_RUN_PATH),
        engine_names=_strings(obj(fields.get("engineName")).get("acceptedValues")),
        gpu_names=_strings(obj(data.get("hardwareOptions")).get("discreteGpuNames")),
        common_quantizations=_strings(obj(fields.get("quantization")).get("commonValues")),
        max_lengths=lengths,
        metric_fields=metrics,
        engine_flag_keys=_strings(flags.get("knownKeys")) or tuple(obj(flags.get("properties"))),
        prompts=tuple(prompts),
    )


def bundled(folder: Path | None = None) -> Contract:
    """The dated snapshot shipped with reportgen (reconstructed from public docs)."""
    path = (folder or schema_dir()) / SNAPSHOT_FILE
    raw = read_input(path, "cache")  # reportgen's own file, through the one way in all the same
    return parse(json.loads(raw.decode("utf-8")), origin="bundled", source=str(path))


def cache_file(api_base: str, env: Mapping[str, str]) -> Path:
    """Where the last live agent-context of `api_base` is cached: $XDG_CACHE_HOME/reportgen."""
    root = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    host = re.sub(r"[^A-Za-z0-9.-]+", "_", urlsplit(api_base).netloc or "default")
    return root / "reportgen" / f"agent-context-{host}.json"


def cached(api_base: str, env: Mapping[str, str]) -> Contract | None:
    """The cached live contract of `api_base`, or None when there is none (or it is unreadable)."""
    path = cache_file(api_base, env)
    raw = read_cached(path)  # none, a symlink, a FIFO, a device or too large: no cached copy
    if raw is None:
        return None
    try:
        return parse(json.loads(raw.decode("utf-8")), origin="cached", source=str(path))
    except (ValueError, RecursionError, ContractError):
        return None


def read_body(response: httpx.Response, *, limit: int, deadline: float) -> bytes:
    """Read a streamed response body, refusing more than `limit` bytes or reading past
    `deadline` (a `time.monotonic()` value)."""
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > limit:
            raise ContractError(f"the answer is larger than {limit} bytes; refusing it")
        if time.monotonic() > deadline:
            raise httpx.ReadTimeout("the whole answer took too long", request=response.request)
        chunks.append(chunk)
    return b"".join(chunks)


def refresh(
    client: httpx.Client,
    api_base: str,
    *,
    env: Mapping[str, str],
    now: Callable[[], datetime],
    timeout_s: float,
) -> Contract:
    """Fetch the live agent-context (no credentials sent), cache it, return it."""
    url = api_base.rstrip("/") + AGENT_CONTEXT_PATH
    try:
        with client.stream(
            "GET", url, headers={"Accept": "application/json"}, timeout=timeout_s
        ) as response:
            body = read_body(
                response, limit=MAX_CONTEXT_BYTES, deadline=time.monotonic() + 2 * timeout_s
            )
    except httpx.HTTPError as exc:
        raise ContractError(f"GET {url} failed: {type(exc).__name__}: {exc}") from None
    if response.status_code != 200:
        raise ContractError(f"GET {url} answered {response.status_code}")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):  # RecursionError: nested past Python's limit
        raise ContractError(f"GET {url} did not answer JSON (or nested it too deep)") from None
    if not isinstance(data, dict):
        raise ContractError(f"GET {url} did not answer a JSON object")
    data["_snapshot"] = {
        "fetchedAt": now().isoformat(timespec="seconds"),
        "source": url,
        "note": "live fetch of GET /api/agent-context",
        "partial": False,
    }
    contract = parse(data, origin="live", source=url)
    path = cache_file(api_base, env)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        write_output(path, text.encode("utf-8"))
    except OSError:
        pass  # an unwritable cache only costs the next offline check its freshness
    return contract


def current(
    api_base: str,
    *,
    client: httpx.Client | None,
    env: Mapping[str, str],
    now: Callable[[], datetime],
    timeout_s: float,
) -> tuple[Contract, tuple[str, ...]]:
    """The most authoritative contract available: live (when a client is given), else the
    cached live copy, else the bundled snapshot; plus notes on what was tried."""
    notes: list[str] = []
    if client is not None:
        try:
            return refresh(client, api_base, env=env, now=now, timeout_s=timeout_s), ()
        except ContractError as exc:
            notes.append(f"could not refresh the contract: {exc}")
    found = cached(api_base, env)
    return (found if found is not None else bundled()), tuple(notes)
