"""PDF stage started ahead: the PDF is rendered by a forked process that imported WeasyPrint
while this one read the runs, computed the metrics and drew the charts.

Importing WeasyPrint costs a fresh `reportgen build` about as much as everything before the PDF
(reading, metrics, charts, HTML), and neither needs the other. `pdf_stage(ahead=True)` forks a
worker that imports WeasyPrint at once, on the machine's other core, then waits for the HTML,
renders it with `article.pdf.render_pdf` and sends the bytes back: the same function, in a copy of
this process, so the same bytes. An `InputError` comes back as the same error. When the worker
cannot help (no `os.fork`, other threads running, WeasyPrint already imported here) or fails in
any other way, the PDF is rendered in this process instead, where an unexpected error is raised
as it would have been. The worker is killed if the build stops before asking for its PDF.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import pickle
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportgen.errors import InputError


@dataclass(frozen=True)
class Request:
    """What `render_pdf` takes."""

    html: str
    label: str
    base: Path
    roots: tuple[Path, ...]
    created: dt.datetime

    def render(self) -> bytes:
        """The PDF, rendered in this process."""
        from reportgen.article.pdf import render_pdf

        return render_pdf(
            self.html, label=self.label, base=self.base, roots=self.roots, created=self.created
        )


class InProcess:
    """The PDF stage in this process: `submit` keeps the request, `result` renders it."""

    def __init__(self) -> None:
        self.request: Request | None = None

    def submit(self, request: Request) -> None:
        """Hand over the HTML to render."""
        self.request = request

    def result(self) -> bytes:
        """The PDF bytes (an `InputError` when WeasyPrint reported problems)."""
        assert self.request is not None, "submit() first"
        return self.request.render()


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _serve(requests: int, replies: int) -> None:
    """The worker: import WeasyPrint, then render the one request and reply with its outcome."""
    reply: tuple[str, Any]
    try:
        import reportgen.article.pdf  # noqa: F401  (WeasyPrint, imported while the parent works)

        request = pickle.loads(_read_all(requests))
        try:
            reply = ("pdf", request.render())
        except InputError as exc:
            reply = ("problems", exc.problems)
    except BaseException as exc:  # anything else: the parent renders in-process and raises it
        reply = ("failed", repr(exc))
    _write_all(replies, pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL))


class Forked:
    """The PDF stage in a forked worker (see the module docstring)."""

    def __init__(self) -> None:
        requests_r, self._requests = os.pipe()
        self._replies, replies_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the worker: never returns into the build
            code = 1
            try:
                os.close(self._requests)
                os.close(self._replies)
                _serve(requests_r, replies_w)
                code = 0
            finally:
                os._exit(code)
        os.close(requests_r)
        os.close(replies_w)
        self.request: Request | None = None
        self.done = False

    def submit(self, request: Request) -> None:
        """Send the HTML to the worker (waits until the worker has imported WeasyPrint)."""
        self.request = request
        try:
            _write_all(self._requests, pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL))
        except OSError:  # the worker is gone: result() renders here
            pass
        finally:
            os.close(self._requests)

    def result(self) -> bytes:
        """The worker's PDF; rendered here when the worker could not make it."""
        assert self.request is not None, "submit() first"
        data = _read_all(self._replies)
        self.close()
        try:
            kind, value = pickle.loads(data)
        except Exception:
            kind, value = "failed", None
        if kind == "pdf" and isinstance(value, bytes):
            return value
        if kind == "problems":
            raise InputError(value)
        return self.request.render()

    def close(self) -> None:
        """Stop and reap the worker, if it still runs; close the pipes."""
        if self.done:
            return
        self.done = True
        for fd in (self._requests, self._replies):
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)


def can_fork() -> bool:
    """Whether a forked worker can import WeasyPrint ahead, safely and usefully."""
    return (
        hasattr(os, "fork")
        and threading.active_count() == 1  # forking with other threads can deadlock the copy
        and "weasyprint" not in sys.modules  # already imported: nothing to gain
    )


@contextlib.contextmanager
def pdf_stage(ahead: bool) -> Iterator[InProcess | Forked]:
    """The PDF stage, started ahead in a forked worker when `ahead` and `can_fork()`."""
    stage = Forked() if ahead and can_fork() else InProcess()
    try:
        yield stage
    finally:
        if isinstance(stage, Forked):
            stage.close()


def request(
    html: str, *, label: str, base: Path, roots: Sequence[Path], created: dt.datetime
) -> Request:
    """A request for `render_pdf`."""
    return Request(html, label, base, tuple(roots), created)
