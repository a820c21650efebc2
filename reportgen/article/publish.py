"""Writing a build's files into `OUT/<article>/` so that nothing is ever missing or destroyed.

The files are written and synced into a fresh folder beside the target, which then takes the
target's place in one atomic exchange (Linux `renameat2(RENAME_EXCHANGE)`): a reader or web server
polling the folder sees the complete old build or the complete new one, never a gap, and two
builds finishing at once both succeed. The old build then goes.

A build replaces only what a build wrote: every output folder holds a `.reportgen-build` marker,
and a folder without it (a user's folder, an article) is never replaced or moved. An output folder
that is an article, or holds the article being built, is refused. Temporary folders of builds that
were killed are removed by the next build: each is held by a lock its build owns while it lives.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import shutil
import tempfile
import time
from pathlib import Path

from reportgen.article.manifest import MANIFEST
from reportgen.errors import InputError, Problem

MARKER = ".reportgen-build"
MARKER_TEXT = "Written by `reportgen build`, which may replace this folder as a whole.\n"
# What a build wrote before the marker existed: a folder of exactly these files is a build too.
LEGACY_OUTPUTS = frozenset({"index.html", "article.pdf", "metrics.json"})
_TEMP = ".{name}.build-"
_RETIRED = ".{name}.old-"  # + the retirement time in ns: a replaced build, kept for a while
# How long a replaced build stays: a reader that opened the old folder (a web server mid-page)
# can finish reading it whole before it goes.
RETIRED_KEEP_S = 60.0
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _refuse(path: Path, message: str) -> InputError:
    return InputError([Problem(str(path), 1, 1, "", message)])


def is_build_folder(path: Path) -> bool:
    """True when `path` is a folder that `reportgen build` wrote (and may replace)."""
    if path.is_symlink() or not path.is_dir():
        return False
    if (path / MARKER).is_file():
        return True
    names = {p.name for p in path.iterdir()}
    return bool(names) and names <= LEGACY_OUTPUTS  # what builds wrote before the marker


def check_output(article: Path, out: Path, target: Path) -> None:
    """Refuse an output folder that would put the article or a user's folder at risk."""
    out_real, article_real = out.resolve(), article.resolve()
    if (out / MANIFEST).exists():
        raise _refuse(out, f"--out is an article folder (it has {MANIFEST}); choose another")
    if article_real == out_real or article_real.is_relative_to(out_real):
        raise _refuse(out, f"--out holds the article {article} itself; choose a folder outside it")
    if out.exists() and not out.is_dir():
        raise _refuse(out, "--out is not a folder")
    if out.is_dir():
        for child in out.iterdir():
            if child.is_dir() and (child / MANIFEST).exists():
                raise _refuse(
                    out, f"--out holds an article ({child.name}/{MANIFEST}); choose another folder"
                )
    if target.is_symlink() or (target.exists() and not is_build_folder(target)):
        raise _refuse(
            target,
            f"exists and was not written by reportgen build (no {MARKER} marker): it is left "
            "alone; remove it yourself or choose another --out",
        )


def _exchange(a: Path, b: Path) -> None:
    """Swap two folders atomically; OSError when the system cannot."""
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        raise OSError(errno.ENOSYS, "renameat2 is not available")
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), str(b))


_ORPHAN_LOCK_AGE_S = 60.0  # a lock file with no folder, older than this, is left from a kill


def _open_lock(lock: Path) -> int | None:
    try:
        return os.open(lock, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None


def _free(fd: int) -> bool:
    """Take the lock if no live build holds it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def remove_stale(parent: Path, name: str, *, now: float | None = None) -> list[Path]:
    """Remove the temporary folders (and lock files) of builds of `name` that were killed.

    A build creates and locks `<temp>.lock` before it creates `<temp>/`, and removes the folder
    before the lock: a folder whose lock is free, or that has no lock, is a dead build's.
    """
    removed = []
    prefix = _TEMP.format(name=name)
    for path in sorted(parent.glob(prefix + "*")):
        if path.name.endswith(".lock") or not path.is_dir() or path.is_symlink():
            continue
        lock = path.with_name(path.name + ".lock")
        fd = _open_lock(lock)
        try:
            if fd is not None and not _free(fd):
                continue  # a live build owns it
            shutil.rmtree(path, ignore_errors=True)
            lock.unlink(missing_ok=True)
            removed.append(path)
        finally:
            if fd is not None:
                os.close(fd)
    clock = time.time() if now is None else now
    for path in sorted(parent.glob(_RETIRED.format(name=name) + "*")):
        stamp = path.name.rsplit("-", 2)[-2] if path.name.count("-") >= 2 else ""
        if stamp.isdigit() and clock - int(stamp) / 1e9 > RETIRED_KEEP_S:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    for lock in sorted(parent.glob(prefix + "*.lock")):
        if lock.with_name(lock.name.removesuffix(".lock")).exists():
            continue
        fd = _open_lock(lock)
        if fd is None:
            continue
        try:
            # Young: its build may have just created it and not locked it yet.
            if _free(fd) and clock - os.fstat(fd).st_mtime > _ORPHAN_LOCK_AGE_S:
                lock.unlink(missing_ok=True)
        finally:
            os.close(fd)
    return removed


def _write_all(folder: Path, files: dict[str, bytes]) -> None:
    for name, data in {**files, MARKER: MARKER_TEXT.encode()}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        with open(folder / name, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    folder.chmod(0o755)
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _swap_in(fresh: Path, target: Path) -> None:
    """Put `fresh` at `target`; what was there before ends up at `fresh` (or nothing)."""
    try:
        os.rename(fresh, target)  # no target yet: a plain rename is atomic
        return
    except OSError as exc:
        if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY, errno.EISDIR, errno.ENOTDIR):
            raise
    if not is_build_folder(target):  # appeared meanwhile, and is not ours
        raise _refuse(target, f"exists and was not written by reportgen build (no {MARKER})")
    try:
        _exchange(fresh, target)
    except OSError as exc:
        if exc.errno not in (errno.ENOSYS, errno.EINVAL):
            raise
        # No atomic exchange here (not Linux, or a filesystem without it): move the old build
        # aside, then the new one in. A reader may find the folder missing for that moment.
        aside = fresh.with_name(fresh.name + ".old")
        os.rename(target, aside)
        os.rename(fresh, target)
        os.rename(aside, fresh)


def publish(target: Path, files: dict[str, bytes]) -> None:
    """Replace folder `target` with exactly `files` (and the build marker), atomically."""
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    remove_stale(parent, target.name)
    fd, lock_name = tempfile.mkstemp(
        prefix=_TEMP.format(name=target.name), suffix=".lock", dir=parent
    )
    lock = Path(lock_name)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # held until the temporary folder is gone
        fresh = lock.with_name(lock.name.removesuffix(".lock"))
        fresh.mkdir()
        try:
            _write_all(fresh, files)
            _swap_in(fresh, target)
            if fresh.is_dir():  # the build it replaced: kept a while for readers still in it
                retired = _RETIRED.format(name=target.name) + f"{time.time_ns()}-{fresh.name[-8:]}"
                os.rename(fresh, parent / retired)
        finally:
            shutil.rmtree(fresh, ignore_errors=True)  # a failed new build
    finally:
        lock.unlink(missing_ok=True)
        os.close(fd)
