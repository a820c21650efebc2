"""Reading and writing files safely: the one way in and the one way out of reportgen.

Every file reportgen reads (run files, article.toml, prose, published versions, metrics.json,
cache entries, submission records, files already in an `init` target) comes through
`read_input` or `open_input`. It resolves the path first and, when the input belongs to a folder
(an article's files), refuses one that resolves outside it, as a symlink to /etc/passwd would.
It opens without blocking and refuses anything but a regular file (a FIFO, a device such as
/dev/zero, a folder). It reads at most the cap for that kind of input, plus one byte to tell.

The caps are generous for real inputs and stop runaway ones; each can be raised through its
environment variable (in MiB): REPORTGEN_MAX_RUN_FILE_MB, REPORTGEN_MAX_TEXT_FILE_MB,
REPORTGEN_MAX_PUBLISHED_MB, REPORTGEN_MAX_CACHE_FILE_MB. A published copy's words, numbers, HTML
tags and the characters of its text are capped too (`COUNT_CAPS`): its bytes alone do not bound
its reading.

Every file reportgen writes (build outputs, cache entries, submission records, saved payloads,
`init`'s files) goes through `write_output`: the bytes go to a new temporary file in the target's
folder, created exclusively without following a link, written and synced, then renamed over the
target in one step (or linked in place only where nothing is, for a file that must not replace
another). The target itself is never opened for writing, so a symlink named like it, or like any
temporary file, is never followed, and a reader sees the whole old file or the whole new one.
One file is appended to instead, as its owner expects: a CI job's summary (`append_output`,
for `reportgen check --summary`), opened without following a link and only when it is a regular
file.

The names of the files reportgen itself writes beside run files are here too, so that folder
readers skip them: `reportgen submit` records submissions in an article folder and may save
payloads next to run files; neither is a run file, and a payload even looks like one.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from reportgen.errors import InputError, Problem, whole_file

Kind = Literal["run", "text", "published", "cache"]

RECORD_FILE = "submissions.json"  # successful submissions, in the article folder
PAYLOAD_SUFFIX = ".payload.json"  # a saved submission payload: `<run file stem>.payload.json`


@dataclass(frozen=True)
class Cap:
    """The cap of one kind of input: its environment variable, its default (in MiB for a size)
    and what it caps."""

    env: str
    default: int
    what: str


CAPS: dict[Kind, Cap] = {
    "run": Cap("REPORTGEN_MAX_RUN_FILE_MB", 1024, "a run file"),
    "text": Cap("REPORTGEN_MAX_TEXT_FILE_MB", 1, "article.toml or a prose file"),
    "published": Cap("REPORTGEN_MAX_PUBLISHED_MB", 8, "a published article"),
    "cache": Cap(
        "REPORTGEN_MAX_CACHE_FILE_MB", 16, "a cache entry, a record or reportgen's own file"
    ),
}
_MB = 1024 * 1024


# A size in MiB as the environment gives it: plain decimal digits, an optional fraction; no sign,
# exponent, `inf` or `nan`, so that every accepted value is a whole number of bytes a file can have.
_SIZE = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,6})?")


def cap_bytes(kind: Kind, environ: Mapping[str, str] | None = None) -> int:
    """The cap in bytes for `kind`: its environment variable (MiB) if set, else the default; a
    value that is not a size from 1 byte to 999,999,999 MiB is an `InputError` naming it."""
    cap = CAPS[kind]
    raw = (os.environ if environ is None else environ).get(cap.env, "").strip()
    if not raw:
        return cap.default * _MB
    size = int(float(raw) * _MB) if _SIZE.fullmatch(raw) else 0
    if size < 1:
        message = (
            f"{raw[:40]!r} is not a size in MiB: write a number above 0 without a sign or "
            f"exponent, such as {cap.default} (the default)"
        )
        raise InputError([whole_file(cap.env, message)])
    return size


# What bounds the time and memory of reading a published copy, beside its bytes: its readers cost
# a few microseconds a character of its text, more a word, far more a number (each is matched with
# tables, headlines and claims), and HTML's parser a few a tag. docs/commands.md gives the worst
# case of each at its cap, which benchmarks/worst_case.py measures.
Count = Literal["chars", "words", "numbers", "tags"]
COUNT_CAPS: dict[Count, Cap] = {
    "chars": Cap("REPORTGEN_MAX_PUBLISHED_CHARS", 500_000, "characters of a published copy's text"),
    "words": Cap("REPORTGEN_MAX_PUBLISHED_WORDS", 50_000, "words of a published copy"),
    "numbers": Cap("REPORTGEN_MAX_PUBLISHED_NUMBERS", 5_000, "numbers of a published copy"),
    "tags": Cap("REPORTGEN_MAX_PUBLISHED_TAGS", 100_000, "HTML tags of a published page"),
}
_COUNT = re.compile(r"[0-9]{1,9}")


def cap_count(name: Count, environ: Mapping[str, str] | None = None) -> int:
    """How many `name` check reads of a published copy: its environment variable if set, else the
    default; a value that is not a whole number from 1 to 999,999,999 is an `InputError`."""
    cap = COUNT_CAPS[name]
    raw = (os.environ if environ is None else environ).get(cap.env, "").strip()
    if not raw:
        return cap.default
    count = int(raw) if _COUNT.fullmatch(raw) else 0
    if count < 1:
        message = (
            f"{raw[:40]!r} is not a count: write a whole number above 0 without a sign or "
            f"exponent, such as {cap.default} (the default)"
        )
        raise InputError([whole_file(cap.env, message)])
    return count


def check_caps(environ: Mapping[str, str] | None = None) -> None:
    """Raise one `InputError` with a problem for each cap set to something not a size or count."""
    problems: list[Problem] = []
    for kind in CAPS:
        try:
            cap_bytes(kind, environ)
        except InputError as exc:
            problems.extend(exc.problems)
    for name in COUNT_CAPS:
        try:
            cap_count(name, environ)
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)


def _kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _refuse(label: str, message: str) -> InputError:
    return InputError([whole_file(label, message)])


def too_big(label: str, kind: Kind, limit: int) -> InputError:
    """The refusal of a file of `kind` larger than its cap of `limit` bytes."""
    cap = CAPS[kind]
    return _refuse(
        label,
        f"is larger than the {limit / _MB:g} MiB allowed for {cap.what}; "
        f"set {cap.env} (MiB) to allow more",
    )


def open_input(
    path: Path,
    kind: Kind,
    *,
    label: str | None = None,
    inside: Path | None = None,
    environ: Mapping[str, str] | None = None,
    follow: bool = True,
    dir_fd: int | None = None,
) -> BinaryIO:
    """The regular file `path` open for reading in binary, or `InputError` naming what is wrong
    with it; one larger than the cap for `kind` is refused by its size. The caller reads it (at
    most `cap_bytes(kind)`) and closes it.

    `inside`: the folder the file must resolve into (symlinks followed first). `follow=False`:
    refuse `path` when it is itself a symlink (a cache entry or record is never one). `dir_fd`:
    an open folder that a relative `path` is taken in (a folder that may be renamed meanwhile).
    """
    label = label or str(path)
    limit = cap_bytes(kind, environ)
    target = path
    if inside is not None:
        root = inside.resolve()
        target = path.resolve()
        if not target.is_relative_to(root):
            raise _refuse(
                label,
                f"resolves outside the article folder {inside} (a symlink or '..'); "
                "an article may read only its own files",
            )
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: the resolved path
        # cannot be swapped for a symlink between the check above and the open.
        flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
        if inside is not None or not follow:
            flags |= getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(target, flags, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _refuse(label, "is a symlink; refusing to follow it") from None
        raise _refuse(label, f"cannot read file: {exc.strerror}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise _refuse(label, f"is {_kind_of(info.st_mode)}, not a regular file; refusing it")
    if info.st_size > limit:
        os.close(fd)
        raise too_big(label, kind, limit)
    return os.fdopen(fd, "rb")


def read_input(
    path: Path,
    kind: Kind,
    *,
    label: str | None = None,
    inside: Path | None = None,
    environ: Mapping[str, str] | None = None,
    follow: bool = True,
    dir_fd: int | None = None,
) -> bytes:
    """The bytes of the regular file `path`, or `InputError` naming what is wrong with it.

    `inside`: the folder the file must resolve into (symlinks followed first). `follow=False`:
    refuse `path` when it is itself a symlink. `dir_fd`: see `open_input`.
    """
    label = label or str(path)
    limit = cap_bytes(kind, environ)
    opened = open_input(
        path, kind, label=label, inside=inside, environ=environ, follow=follow, dir_fd=dir_fd
    )
    with opened as handle:
        data = handle.read(limit + 1)  # the file may have grown since it was opened
    if len(data) > limit:
        raise too_big(label, kind, limit)
    return data


def read_cached(path: Path) -> bytes | None:
    """The bytes of the cache entry or record `path`, or None when there is none or it cannot be
    used (missing, a symlink, not a regular file, over its cap): a cache is never an error."""
    try:
        return read_input(path, "cache", follow=False)
    except InputError:
        return None


_TEMP_TRIES = 100


def _create_temp(folder: Path, name: str, mode: int) -> tuple[int, Path]:
    """A new file in `folder`, created exclusively and without following a link, open for
    writing; its name is hidden and random, never one a user or an earlier run left there."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    for _ in range(_TEMP_TRIES):
        temp = folder / f".{name[:64]}.{secrets.token_hex(8)}.tmp"
        try:
            return os.open(temp, flags, mode), temp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(folder))


def _sync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems cannot sync a folder; the rename is still atomic
    finally:
        os.close(fd)


def write_output(path: Path, data: bytes, *, replace: bool = True, mode: int = 0o666) -> None:
    """Write `data` to `path` whole and atomically, never opening `path` itself.

    `replace=True`: the new file takes the place of whatever is at `path` (a file, or a symlink,
    which is replaced and not followed). `replace=False`: `FileExistsError` when anything is at
    `path`, which is left as it is. Raises `OSError` when the folder cannot be written.
    """
    fd, temp = _create_temp(path.parent, path.name, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if replace:
            os.replace(temp, path)
        else:
            move_output(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _sync_folder(path.parent)


def move_output(source: Path, target: Path) -> None:
    """Move the file `source`, which reportgen wrote, to `target` on the same filesystem,
    never replacing anything there: `FileExistsError` when anything (even a dangling symlink)
    is at `target`, which is left as it is."""
    os.link(source, target, follow_symlinks=False)  # atomic, and fails when `target` exists
    os.unlink(source)


def append_output(path: Path, data: Callable[[bytes], bytes], *, tail: int = 64 * 1024) -> None:
    """Append to the regular file `path` (created when absent, never through a symlink) the
    bytes `data` makes of the last `tail` bytes the file holds, read through the same open file.

    For a file another program gave to be added to (a CI job's summary), which a rename would
    take from a reader that holds it open. Raises `OSError` when `path` is a symlink or cannot be
    written, `InputError` when it is not a regular file.
    """
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o666)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise _refuse(str(path), f"is {_kind_of(info.st_mode)}, not a regular file")
    with os.fdopen(fd, "r+b") as handle:
        handle.seek(max(0, info.st_size - tail))
        handle.write(data(handle.read(tail)))
        handle.flush()


def is_written_by_reportgen(name: str) -> bool:
    """True for a file name reportgen writes (never a run file)."""
    return name == RECORD_FILE or name.endswith(PAYLOAD_SUFFIX)
