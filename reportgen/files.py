"""Reading input files safely: regular files only, inside their folder, and no larger than a cap.

Every input reportgen reads (run files, article.toml, prose, published versions, metrics.json)
comes through `read_input`. It resolves the path first and, when the input belongs to a folder
(an article's files), refuses one that resolves outside it, as a symlink to /etc/passwd would.
It opens without blocking and refuses anything but a regular file (a FIFO, a device such as
/dev/zero, a folder). It reads at most the cap for that kind of input, plus one byte to tell.

The caps are generous for real inputs and stop runaway ones; each can be raised through its
environment variable (in MiB): REPORTGEN_MAX_RUN_FILE_MB, REPORTGEN_MAX_TEXT_FILE_MB,
REPORTGEN_MAX_PUBLISHED_MB.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from reportgen.errors import InputError, Problem

Kind = Literal["run", "text", "published"]


@dataclass(frozen=True)
class Cap:
    """The size cap of one kind of input."""

    env: str
    default_mb: int
    what: str


CAPS: dict[Kind, Cap] = {
    "run": Cap("REPORTGEN_MAX_RUN_FILE_MB", 1024, "a run file"),
    "text": Cap("REPORTGEN_MAX_TEXT_FILE_MB", 1, "article.toml or a prose file"),
    "published": Cap("REPORTGEN_MAX_PUBLISHED_MB", 64, "a published article"),
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
        return cap.default_mb * _MB
    size = int(float(raw) * _MB) if _SIZE.fullmatch(raw) else 0
    if size < 1:
        message = (
            f"{raw[:40]!r} is not a size in MiB: write a number above 0 without a sign or "
            f"exponent, such as {cap.default_mb} (the default)"
        )
        raise InputError([Problem(cap.env, 1, 1, "", message)])
    return size


def check_caps(environ: Mapping[str, str] | None = None) -> None:
    """Raise one `InputError` with a problem for each size cap set to something not a size."""
    problems: list[Problem] = []
    for kind in CAPS:
        try:
            cap_bytes(kind, environ)
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
    return InputError([Problem(label, 1, 1, "", message)])


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
) -> BinaryIO:
    """The regular file `path` open for reading in binary, or `InputError` naming what is wrong
    with it; one larger than the cap for `kind` is refused by its size. The caller reads it (at
    most `cap_bytes(kind)`) and closes it.

    `inside`: the folder the file must resolve into (symlinks followed first).
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
        if inside is not None:
            flags |= getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(target, flags)
    except OSError as exc:
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
) -> bytes:
    """The bytes of the regular file `path`, or `InputError` naming what is wrong with it.

    `inside`: the folder the file must resolve into (symlinks followed first).
    """
    label = label or str(path)
    limit = cap_bytes(kind, environ)
    with open_input(path, kind, label=label, inside=inside, environ=environ) as handle:
        data = handle.read(limit + 1)  # the file may have grown since it was opened
    if len(data) > limit:
        raise too_big(label, kind, limit)
    return data
