"""Work started ahead: a forked worker imports what a stage needs while this process does the stages
before it, then runs the one job it is sent and sends back the outcome.

A fresh `reportgen build` spends most of its time before the PDF importing WeasyPrint and
matplotlib, and neither import needs the run files. `Forked(module)` forks a worker that imports
`module` at once (on the machine's other core) and calls the module's `prepare()` if it has one. It
then waits for a job (a picklable object with a `run()` method), runs it and replies with its
result, or with the problems of the `InputError` it raised. A job that `follows` is started before
all it needs is known: it is run as `run(receive)`, and `receive()` waits for the part the build
sends later with `follow` (the PDF's layout starts while the charts are drawn). It runs the same
code in a copy of this process, so its result is the same. When the worker fails in any other way,
or is gone, the job is run in this process instead, where an unexpected error is raised as it would
have been. `InProcess` has the same interface and runs the job here: both are a `Stage`, the one
type the build and its stages hold. A worker is killed and reaped by `close()` if its result was
never asked for.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pickle
import signal
import struct
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, Protocol, cast

from reportgen.errors import InputError


class WholeJob(Protocol):
    """Work a worker can be sent: picklable, with everything it needs."""

    def run(self) -> Any: ...


class FollowedJob(Protocol):
    """Work a worker can be sent before all it needs is known: picklable, it `follows`, and
    `receive()` gives it the part sent later with `Stage.follow`."""

    follows: bool

    def run(self, receive: Callable[[], Any]) -> Any: ...


Job = WholeJob | FollowedJob


def run_job(job: Job, receive: Callable[[], Any]) -> Any:
    """Run `job`: as `job.run(receive)` when it `follows`, else as `job.run()`."""
    if getattr(job, "follows", False):
        return cast(FollowedJob, job).run(receive)
    return cast(WholeJob, job).run()


class Stage(Protocol):
    """Where a stage's job runs, a forked worker (`Forked`) or this process (`InProcess`): it is
    sent one job, asked for its result once, and closed."""

    def submit(self, job: Job) -> None:
        """Hand over the job."""

    def follow(self, part: Any) -> None:
        """Hand over the part a job that `follows` waits for (picklable)."""

    def result(self) -> Any:
        """The job's result (raises the `InputError` the job raised)."""

    def close(self) -> None:
        """Stop whatever still runs for the job."""


class InProcess:
    """A stage run in this process: `submit` keeps the job, `result` runs it."""

    def __init__(self) -> None:
        self.job: Job | None = None
        self.part: Any = None

    def submit(self, job: Job) -> None:
        """Hand over the job."""
        self.job = job

    def follow(self, part: Any) -> None:
        """Hand over the part the job waits for."""
        self.part = part

    def result(self) -> Any:
        """The job's result (its `InputError` when it raises one)."""
        assert self.job is not None, "submit() first"
        return run_job(self.job, lambda: self.part)

    def close(self) -> None:
        """Nothing to stop."""


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


_LENGTH = struct.Struct("<Q")  # each message on a jobs pipe: its length, then its pickle


def _read_exactly(fd: int, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError("the build closed the pipe mid-message")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _receive(fd: int) -> Any:
    (size,) = _LENGTH.unpack(_read_exactly(fd, _LENGTH.size))
    return pickle.loads(_read_exactly(fd, size))


def _send(fd: int, value: Any) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    _write_all(fd, _LENGTH.pack(len(data)) + data)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _serve(module: str, jobs: int, replies: int) -> None:
    """The worker: import `module`, then run the one job and reply with its outcome."""
    reply: tuple[str, Any]
    try:
        imported = importlib.import_module(module)  # while the parent works
        prepare = getattr(imported, "prepare", None)
        if prepare is not None:  # work of the stage that needs no job, such as loading fonts
            prepare()
        job = _receive(jobs)
        try:
            reply = ("done", run_job(job, lambda: _receive(jobs)))
        except InputError as exc:
            reply = ("problems", exc.problems)
    except BaseException as exc:  # anything else: the parent runs the job and raises it
        reply = ("failed", repr(exc))
    _write_all(replies, pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL))


# This process's ends of its workers' pipes: a worker forked later closes its copies, or a
# worker waiting for the end of its job would wait for the later one to exit.
_PARENT_ENDS: set[int] = set()


class Forked:
    """A stage in a forked worker that imports `module` at once (see the module docstring)."""

    def __init__(self, module: str) -> None:
        jobs_r, self._jobs = os.pipe()
        self._replies, replies_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the worker: never returns into the build
            code = 1
            try:
                for fd in (self._jobs, self._replies, *_PARENT_ENDS):
                    os.close(fd)
                _serve(module, jobs_r, replies_w)
                code = 0
            finally:
                os._exit(code)
        os.close(jobs_r)
        os.close(replies_w)
        self._open = {self._jobs, self._replies}
        _PARENT_ENDS.update(self._open)
        self.job: Job | None = None
        self.part: Any = None
        self.done = False

    def submit(self, job: Job) -> None:
        """Send the job (waits until the worker has imported its module and reads it)."""
        self.job = job
        self._send(job, last=not getattr(job, "follows", False))

    def follow(self, part: Any) -> None:
        """Send the part the job waits for."""
        self.part = part
        self._send(part, last=True)

    def _send(self, value: Any, *, last: bool) -> None:
        try:
            if self._jobs in self._open:
                _send(self._jobs, value)
        except OSError:  # the worker is gone: result() runs the job here
            self._close(self._jobs)
        if last:
            self._close(self._jobs)

    def result(self) -> Any:
        """The worker's result; the job run here when the worker could not run it."""
        assert self.job is not None, "submit() first"
        data = _read_all(self._replies)
        self.close()
        try:
            kind, value = pickle.loads(data)
        except Exception:
            kind, value = "failed", None
        if kind == "done":
            return value
        if kind == "problems":
            raise InputError(value)
        return run_job(self.job, lambda: self.part)

    def _close(self, fd: int) -> None:
        if fd in self._open:
            self._open.discard(fd)
            _PARENT_ENDS.discard(fd)
            os.close(fd)

    def close(self) -> None:
        """Stop and reap the worker, if it still runs; close the pipes."""
        if self.done:
            return
        self.done = True
        for fd in (self._jobs, self._replies):
            self._close(fd)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(self.pid, 0)


def can_fork(module: str) -> bool:
    """Whether a forked worker can import `module` ahead, safely and usefully."""
    return (
        hasattr(os, "fork")
        and threading.active_count() == 1  # forking with other threads can deadlock the copy
        and module not in sys.modules  # already imported: nothing to gain
    )


@contextlib.contextmanager
def started(module: str, ahead: bool) -> Iterator[Stage]:
    """A stage that imports `module` in a forked worker when `ahead` and `can_fork(module)`,
    else runs its job here; its worker is stopped on the way out."""
    stage: Stage = Forked(module) if ahead and can_fork(module) else InProcess()
    try:
        yield stage
    finally:
        stage.close()
