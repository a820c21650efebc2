"""Start and stop a real llama.cpp OpenAI-compatible server (the ``xllamacpp`` wheel) on loopback.

From Python::

    with LlamaServer(model_path, parallel=4, python=core_venv_python) as srv:
        httpx.get(srv.base_url + "/v1/models")

From a shell::

    python tests/realtools/server.py run --model M.gguf --parallel 4 --port 0
        (serves in the foreground until SIGINT/SIGTERM; prints the address)

The server always listens on 127.0.0.1 only, with one compute thread (two threads spin against
each other on a shared 2-core box), ``--parallel`` slots of ``--ctx-per-slot`` tokens each, the
prompt cache off (every TTFT includes the whole prefill), and ``/metrics`` on. The context manager
runs the server in a child process (``run`` below), waits at most ``ready_timeout`` seconds for
``/v1/models`` to answer, and always kills that child on exit.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

XLLAMACPP_VERSION = "2026.10.11549"
HOST = "127.0.0.1"


@dataclass(frozen=True)
class ServerSettings:
    parallel: int = 4
    ctx_per_slot: int = 1024
    threads: int = 1
    threads_http: int = 16
    cache_prompt: bool = False
    alias: str = "tiny-llama"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def serve_forever(model: Path, port: int, settings: ServerSettings) -> None:
    """Run the server in this process until SIGINT or SIGTERM."""
    import xllamacpp

    p = xllamacpp.CommonParams()
    p.model.path = str(model)
    p.model_alias = {settings.alias}
    p.hostnames = [HOST]
    p.port = port
    p.n_parallel = settings.parallel
    p.n_ctx = settings.parallel * settings.ctx_per_slot
    p.cache_prompt = settings.cache_prompt
    p.cache_ram_mib = 0
    p.cpuparams.n_threads = settings.threads
    p.cpuparams_batch.n_threads = settings.threads
    p.n_threads_http = settings.threads_http
    p.endpoint_metrics = True
    p.warmup = True
    stop = threading.Event()
    server = xllamacpp.Server(p)
    # Installed after the native server starts, which sets handlers of its own that do not end
    # the process.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    print(f"listening {server.listening_address}", flush=True)
    while not stop.wait(timeout=0.5):
        pass
    # The native server has no clean shutdown call here; leaving the process ends it.
    os._exit(0)


def _die_with_parent() -> None:
    """In the child, before exec: get SIGTERM when the parent dies (Linux), so no server is left."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _get(url: str, timeout: float) -> Any:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


@dataclass
class LlamaServer:
    """Context manager around a server child process (see the module docstring)."""

    model: Path
    settings: ServerSettings = field(default_factory=ServerSettings)
    python: str = sys.executable
    port: int = 0
    ready_timeout: float = 60.0
    log_path: Path | None = None
    proc: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self) -> LlamaServer:
        if not self.model.is_file():
            raise FileNotFoundError(f"model not found: {self.model}")
        if self.port == 0:
            self.port = free_port()
        s = self.settings
        cmd = [
            self.python,
            str(Path(__file__).resolve()),
            "run",
            "--model",
            str(self.model),
            "--port",
            str(self.port),
            "--parallel",
            str(s.parallel),
            "--ctx-per-slot",
            str(s.ctx_per_slot),
            "--threads",
            str(s.threads),
            "--alias",
            s.alias,
        ]
        if s.cache_prompt:
            cmd.append("--cache-prompt")
        log = self.log_path.open("ab") if self.log_path else subprocess.DEVNULL
        try:
            self.proc = subprocess.Popen(
                cmd,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                preexec_fn=_die_with_parent if sys.platform == "linux" else None,
            )
        finally:
            if self.log_path and not isinstance(log, int):
                log.close()
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.ready_timeout
        last: Exception | None = None
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"llama.cpp server exited with code {self.proc.returncode} before it was "
                    f"ready (log: {self.log_path})"
                )
            try:
                models = _get(self.base_url + "/v1/models", timeout=2.0)
                if models.get("data"):
                    return
            except (urllib.error.URLError, OSError, ValueError) as e:
                last = e
            time.sleep(0.2)
        self.stop()
        raise TimeoutError(
            f"llama.cpp server not ready after {self.ready_timeout:.0f} s "
            f"(last error: {last}; log: {self.log_path})"
        )

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.proc = None

    def model_id(self) -> str:
        return str(_get(self.base_url + "/v1/models", timeout=5.0)["data"][0]["id"])

    def tokenize(self, text: str, *, add_special: bool = True) -> list[int]:
        body = json.dumps({"content": text, "add_special": add_special}).encode()
        req = urllib.request.Request(
            self.base_url + "/tokenize", data=body, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            return [int(t) for t in json.loads(r.read())["tokens"]]

    def metrics_text(self) -> str:
        with urllib.request.urlopen(self.base_url + "/metrics", timeout=5) as r:
            return str(r.read().decode())

    def describe(self) -> dict[str, Any]:
        """What a COMMAND.json records about the server."""
        return {
            "implementation": "llama.cpp server via the xllamacpp wheel",
            "xllamacpp_version": XLLAMACPP_VERSION,
            "host": HOST,
            "port": self.port,
            "settings": self.settings.as_dict(),
            "n_ctx_total": self.settings.parallel * self.settings.ctx_per_slot,
        }

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="serve in the foreground until SIGINT/SIGTERM")
    run.add_argument("--model", type=Path, required=True)
    run.add_argument("--port", type=int, default=0, help="0 picks a free port")
    run.add_argument("--parallel", type=int, default=ServerSettings.parallel)
    run.add_argument("--ctx-per-slot", type=int, default=ServerSettings.ctx_per_slot)
    run.add_argument("--threads", type=int, default=ServerSettings.threads)
    run.add_argument("--alias", default=ServerSettings.alias)
    run.add_argument("--cache-prompt", action="store_true", help="turn the prompt cache on")
    a = ap.parse_args(argv)
    settings = ServerSettings(
        parallel=a.parallel,
        ctx_per_slot=a.ctx_per_slot,
        threads=a.threads,
        cache_prompt=a.cache_prompt,
        alias=a.alias,
    )
    serve_forever(a.model, a.port or free_port(), settings)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
