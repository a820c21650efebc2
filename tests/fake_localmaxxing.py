"""A stand-in for the LocalMaxxing API on 127.0.0.1, started by the tests; plus shared test data.

It behaves as the documented API does (run-formats.md section 3): `GET /api/agent-context`,
`POST /api/benchmarks/dry-run` (200 with `verification`), `POST /api/benchmarks` (201 with
`X-RateLimit-*` headers; one per window, then 429 with `retryAfterMs`), 401 for a wrong key,
400 with `error` and `suggestedHfId` for an unknown model. Tests can queue scripted replies per
path (a non-JSON 200, a slow answer, an echoed key...). Every request is recorded.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from reportgen.model import Hardware, Setup
from reportgen.resources import schema_dir

KEY = "bhk_" + "0123456789abcdef" * 2 + "89abcdef"  # 40 hex, the documented shape
FIXTURES = Path(__file__).parent / "fixtures_submit"
BUNDLED_ARTICLE = Path(__file__).parent.parent / "runs" / "paiton-kimi-k3.1-pro"
MODEL = "moonshotai/Kimi-K3.1-Pro"

SETUP = Setup(
    hardware=Hardware(
        gpu_name="AMD Instinct MI355X",
        gpu_count=6,
        gpu_vram_gb=288,
        gpu_power_cap_w=800,
        gpu_rated_power_w=1400,
        gpu_note="2 of the node's 8 GPUs unused",
        cpu="2x AMD EPYC 9575F",
        ram_gb=2200,
    ),
    hf_id=MODEL,
    checkpoint="released MXFP4 checkpoint",
    quantization="MXFP4",
    engine_name="Paiton",
    engine_build="b94aef4f",
    engine_description=(
        "our own HIP kernels, DSpark speculative decoding, 1M-token context, up to 16 sequences"
    ),
    spec_decoding="DSpark",
)


def future_context() -> dict[str, Any]:
    """The bundled contract as the live API might answer once it takes the MI355X and Paiton."""
    data: dict[str, Any] = json.loads(
        (schema_dir() / "localmaxxing-agent-context.json").read_text(encoding="utf-8")
    )
    del data["_snapshot"]
    data["hardwareOptions"]["discreteGpuNames"].append("AMD Instinct MI355X")
    data["requiredFields"]["engineName"]["acceptedValues"].append("paiton")
    return data


def article(tmp: Path, *runs: str, reconstructed: bool = False) -> Path:
    """An article folder in `tmp` with an article.toml and copies of fixture runs."""
    folder = tmp / "article"
    folder.mkdir(exist_ok=True)
    listed = ", ".join(f'"{name}"' for name in runs)
    (folder / "article.toml").write_text(
        'title = "test"\ndate = "2026-11-11"\n'
        f"[[runs]]\nfiles = [{listed}]\n"
        '[runs.setup.hardware]\ngpu_name = "AMD Instinct MI355X"\ngpu_count = 6\n'
        'gpu_vram_gb = 288\n[runs.setup.model]\nhf_id = "moonshotai/Kimi-K3.1-Pro"\n'
        '[runs.setup.engine]\nname = "Paiton"\n[[sections]]\nkind = "setup"\n',
        encoding="utf-8",
    )
    for name in runs:
        data = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
        if reconstructed:
            data["dataProvenance"] = {
                "status": "reconstructed",
                "reconstructedFrom": "a published table",
                "generator": "tests",
            }
        (folder / name).write_text(json.dumps(data, indent=2), encoding="utf-8")
    return folder


def measured_copy(src: Path, dst: Path) -> Path:
    """A copy of a run file without its dataProvenance (so: measured), for tests only."""
    data = json.loads(src.read_text(encoding="utf-8"))
    data.pop("dataProvenance", None)
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return dst


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up (the timeout test) is not a test failure


@dataclass
class Reply:
    """A scripted answer."""

    status: int
    body: Any = None  # dict/list: JSON; bytes/str: sent as is
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    echo_key: bool = False  # put the received Authorization header into body["error"]


@dataclass(frozen=True)
class Seen:
    """A request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class FakeLocalMaxxing:
    """The fake API; use as a context manager."""

    def __init__(self, *, key: str = KEY, context: dict[str, Any] | None = None) -> None:
        self.key = key
        self.context = future_context() if context is None else context
        self.known_models = {MODEL: MODEL}
        self.requests: list[Seen] = []
        self.script: dict[str, list[Reply]] = {}
        self.window_used = False
        self.clock: Callable[[], float] = time.time  # for X-RateLimit-Reset
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def posts(self, path: str | None = None) -> list[Seen]:
        """The POST requests received (to `path`, when given)."""
        return [r for r in self.requests if r.method == "POST" and path in (None, r.path)]

    def queue(self, path: str, *replies: Reply) -> None:
        """Answer the next requests to `path` with `replies`, in order."""
        self.script.setdefault(path, []).extend(replies)

    def __enter__(self) -> FakeLocalMaxxing:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _documented(self, seen: Seen) -> Reply:
        if seen.method == "GET" and seen.path == "/api/agent-context":
            return Reply(200, self.context)
        if seen.method != "POST" or seen.path not in ("/api/benchmarks", "/api/benchmarks/dry-run"):
            return Reply(404, {"error": "Not found"})
        if seen.headers.get("authorization") != f"Bearer {self.key}":
            return Reply(401, {"error": "Unauthorized: missing or invalid API key"})
        try:
            body = json.loads(seen.body)
        except ValueError:
            return Reply(400, {"error": "Body is not JSON"})
        if body.get("hfId") not in self.known_models:
            return Reply(
                400, {"error": f"Unknown model {body.get('hfId')!r}", "suggestedHfId": MODEL}
            )
        gpus = self.context["hardwareOptions"]["discreteGpuNames"]
        if body.get("hardware", {}).get("gpuName") not in gpus:
            return Reply(400, {"error": "Unknown gpuName; see hardwareOptions.discreteGpuNames"})
        issues = ["outputSha256 does not match outputSample", "engineTimingsRaw missing"]
        if seen.path.endswith("/dry-run"):
            return Reply(200, {"ok": True, "verification": {"verified": False, "issues": issues}})
        if self.window_used:
            return Reply(429, {"error": "Rate limit exceeded", "retryAfterMs": 240_000})
        self.window_used = True
        reset = str(int(self.clock()) + 300)
        return Reply(
            201,
            {
                "id": "bm_0001",
                "status": "pending",
                "verifiedRun": False,
                "verificationIssues": issues,
            },
            {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset},
        )

    def _answer(self, seen: Seen) -> Reply:
        with self._lock:
            self.requests.append(seen)
            scripted = self.script.get(seen.path)
            return scripted.pop(0) if scripted else self._documented(seen)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # The headers and the body are two writes. On a kept-alive connection, Nagle's
            # algorithm held the body until the client acknowledged the headers, which it
            # delays by up to 40 ms: 42 ms a request, 5 s of the suite's test time.
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = min(int(self.headers.get("Content-Length") or 0), 1 << 20)
                seen = Seen(
                    self.command,
                    self.path.split("?")[0],
                    {k.lower(): v for k, v in self.headers.items()},
                    self.rfile.read(length) if length else b"",
                )
                reply = fake._answer(seen)
                if reply.delay_s and fake._stopping.wait(reply.delay_s):
                    return
                body = reply.body
                if reply.echo_key and isinstance(body, dict):
                    body = {
                        **body,
                        "error": f"{body.get('error')}: {seen.headers.get('authorization')}",
                    }
                if isinstance(body, dict | list):
                    raw, kind = json.dumps(body).encode(), "application/json"
                else:
                    raw, kind = (
                        (body.encode() if isinstance(body, str) else body or b""),
                        "text/html",
                    )
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.headers.get("Content-Type", kind))
                    self.send_header("Content-Length", str(len(raw)))
                    for name, value in reply.headers.items():
                        if name != "Content-Type":
                            self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(raw)
                except OSError:
                    pass  # the client gave up (timeout tests)

            do_GET = _serve
            do_POST = _serve

        return Handler
