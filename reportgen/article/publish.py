"""Writing a build's files into `OUT/<article>/` so that nothing is ever missing or destroyed.

The files are written and synced into a fresh folder beside the target, which then takes the
target's place in one atomic exchange (Linux `renameat2(RENAME_EXCHANGE)`): a reader or web server
polling the folder sees the complete old build or the complete new one, never a gap, and two
builds finishing at once both succeed. The old build then goes.

A build replaces only what its marker proves a build wrote: every output folder holds a
`.reportgen-build` marker, written first, that names the article and lists each file the build
wrote with its SHA-256 (and a build id, the SHA-256 of that list), then each source it was built
from (article.toml, the prose, the run files) with its SHA-256, so that `reportgen check` can say
when a build is older than its sources (`built_from`). A folder is replaced only when
its marker names this article and it holds exactly the files listed, unchanged; any other folder
(a user's, one holding only a hand-written `index.html`, a build a user has added a file to or
edited) is refused and left whole. An output folder that is an article, or holds the article
being built, is refused. Temporary folders of builds that were killed are removed by the next
build: each is held by a lock its build owns while it lives. Cleanup considers only names a build
makes, matched whole with the article's name taken literally, and removes only folders whose
marker names the article.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import time
from pathlib import Path

from reportgen.article.source.manifest import MANIFEST
from reportgen.errors import InputError, Problem
from reportgen.fileio import open_input, read_input, write_output

MARKER = ".reportgen-build"
# The marker's first line; then `article <name as JSON>`, `build <id>`, and one line per file the
# build wrote: `<sha256> <path as JSON>`; then one line per source it was built from:
# `from <sha256> <path in the article folder as JSON>`. The id is the SHA-256 of the file lines,
# so the marker, like the outputs, is the same for the same inputs.
MARKER_HEAD = "Written by `reportgen build`, which may replace this folder as a whole."
_NAMED = re.compile(r"article (\".*\")")
_BUILD = re.compile(r"build ([0-9a-f]{64})")
_FILE = re.compile(r"([0-9a-f]{64}) (\".*\")")
_FROM = re.compile(r"from ([0-9a-f]{64}) (\".*\")")
# mkstemp's random part: 8 of these characters. The names below are matched whole, never globbed.
_RANDOM = r"[a-z0-9_]{8}"
_TEMP = ".{name}.build-"
_RETIRED = ".{name}.old-"  # + the retirement time in ns, "-", the build folder's random part
# How long a replaced build stays: a reader that opened the old folder (a web server mid-page)
# can finish reading it whole before it goes.
RETIRED_KEEP_S = 60.0
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_HASH_CHUNK = 1 << 20


def _refuse(path: Path, message: str) -> InputError:
    return InputError([Problem(path=str(path), line=1, col=1, pointer="", message=message)])


def marker_text(name: str, files: dict[str, bytes], sources: dict[str, str] | None = None) -> str:
    """The marker of a build of the article `name` that wrote `files` from `sources` (path in
    the article folder: SHA-256), see MARKER_HEAD."""
    lines = [
        f"{hashlib.sha256(data).hexdigest()} {json.dumps(p)}" for p, data in sorted(files.items())
    ]
    build_id = hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()
    origins = [f"from {digest} {json.dumps(p)}" for p, digest in sorted((sources or {}).items())]
    head = [MARKER_HEAD, f"article {json.dumps(name)}", f"build {build_id}"]
    return "\n".join([*head, *lines, *origins]) + "\n"


def _marker(folder: int, name: str) -> tuple[dict[str, str], dict[str, str]] | None:
    """The files a build of `name` wrote and the sources it was built from (relative path:
    SHA-256), as the marker in the open `folder` lists them; None when there is no such marker:
    missing, a link, or not one reportgen wrote."""
    try:
        raw = read_input(Path(MARKER), "text", follow=False, dir_fd=folder)
        lines = raw.decode("utf-8").split("\n")
        named, build = _NAMED.fullmatch(lines[1]), _BUILD.fullmatch(lines[2])
        body = lines[3:-1]
        cut = next((i for i, line in enumerate(body) if line.startswith("from ")), len(body))
        files = [_FILE.fullmatch(line) for line in body[:cut]]
        origins = [_FROM.fullmatch(line) for line in body[cut:]]
        if lines[0] != MARKER_HEAD or lines[-1] or not named or not build:
            return None
        if None in files or None in origins:
            return None
        listed = {json.loads(m.group(2)): m.group(1) for m in files if m}
        sources = {json.loads(m.group(2)): m.group(1) for m in origins if m}
        wanted = hashlib.sha256("\n".join(body[:cut]).encode("utf-8")).hexdigest()
        if json.loads(named.group(1)) != name or build.group(1) != wanted:
            return None
    except (InputError, UnicodeDecodeError, IndexError, ValueError):
        return None
    if not all(isinstance(p, str) for p in (*listed, *sources)):
        return None
    return listed, sources


def _listed(folder: int, name: str) -> dict[str, str] | None:
    """The files (relative path: SHA-256) the marker in the open `folder` says a build of `name`
    wrote, or None when there is no such marker."""
    found = _marker(folder, name)
    return None if found is None else found[0]


def built_from(path: Path, name: str) -> dict[str, str] | None:
    """The sources (path in the article folder: SHA-256) the build of `name` in folder `path`
    was built from, as its marker records them ({} for a build that recorded none); None when
    `path` holds no marker of a build of `name`."""
    fd = _open_folder(path)
    if fd is None:
        return None
    try:
        found = _marker(fd, name)
    finally:
        os.close(fd)
    return None if found is None else found[1]


def _sha256(name: str, folder: int) -> str | None:
    try:
        with open_input(Path(name), "run", follow=False, dir_fd=folder) as handle:
            digest = hashlib.sha256()
            while chunk := handle.read(_HASH_CHUNK):
                digest.update(chunk)
    except InputError:
        return None
    return digest.hexdigest()


def _open_folder(path: Path) -> int | None:
    """`path` open as a folder (not followed if a link), to read it whole even while another
    build renames it; None when it is not a folder."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        return os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None


def _files(folder: int, *, digests: bool = True) -> tuple[dict[str, str | None], str | None]:
    """Every file below the open `folder` with its SHA-256 (relative path: digest, None when
    not `digests`), or the first entry that is neither a file nor a folder (a link, a FIFO)."""
    found: dict[str, str | None] = {}
    for top, folders, names, fd in os.fwalk(".", dir_fd=folder, follow_symlinks=False):
        for entry in [*folders, *names]:
            relative = os.path.normpath(os.path.join(top, entry))
            mode = os.stat(entry, dir_fd=fd, follow_symlinks=False).st_mode
            if stat.S_ISREG(mode):
                found[relative] = _sha256(entry, fd) if digests else None
            elif not stat.S_ISDIR(mode):
                return found, relative
    return found, None


def not_ours(path: Path, name: str) -> str | None:
    """Why the folder `path` is not a build of the article `name` that reportgen may replace,
    or None when it is one: its marker names `name` and lists exactly the files in it, unchanged.
    """
    fd = _open_folder(path)
    if fd is None:
        return "is not a folder"
    try:
        listed = _listed(fd, name)
        if listed is None:
            try:
                os.stat(MARKER, dir_fd=fd, follow_symlinks=False)
            except OSError:
                return f"was not written by reportgen build (no {MARKER} marker)"
            return (
                f"was not written by reportgen build for {name!r} (its {MARKER} is not a marker "
                "this reportgen writes for it, such as an older version's)"
            )
        found, odd = _files(fd)
    finally:
        os.close(fd)
    if odd is not None:
        return f"holds {odd}, which reportgen build does not write"
    found.pop(MARKER, None)
    extra = sorted(set(found) - set(listed))
    if extra:
        return f"holds {extra[0]}, which reportgen build did not write"
    for relative, digest in sorted(listed.items()):
        if found.get(relative) != digest:
            return f"its {relative} is missing or changed since reportgen build wrote it"
    return None


# The temporary file `fileio.write_output` makes for a file it writes (left by a kill).
_WRITER_TEMP = re.compile(r"\.[^/]{1,64}\.[0-9a-f]{16}\.tmp")


def _marked(path: Path, name: str) -> bool:
    """True when the folder `path` holds a marker of a build of `name` and nothing else but the
    files it lists (some may be missing: a killed build) and the writer's temporary files."""
    fd = _open_folder(path)
    if fd is None:
        return False
    try:
        listed = _listed(fd, name)
        found, odd = _files(fd, digests=False) if listed is not None else ({}, None)
    finally:
        os.close(fd)
    if listed is None or odd is not None:
        return False
    return all(
        f in listed or f == MARKER or _WRITER_TEMP.fullmatch(os.path.basename(f)) for f in found
    )


# What `fileio.write_output` leaves of the marker when killed while writing it.
_MARKER_TEMP = re.compile(re.escape(f".{MARKER}.") + r"[0-9a-f]{16}\.tmp")


def _unmarked_start(path: Path) -> bool:
    """True for a build's temporary folder killed before its marker was in place: empty, or
    holding only the marker's own temporary file."""
    try:
        return all(_MARKER_TEMP.fullmatch(entry) for entry in os.listdir(path))
    except OSError:
        return False


def is_build_folder(path: Path, name: str | None = None) -> bool:
    """True when `path` is a folder that `reportgen build` wrote for the article `name` (by
    default the folder's name) and that holds nothing else: a folder it may replace."""
    return not_ours(path, path.name if name is None else name) is None


def check_output(article: Path, out: Path, target: Path) -> None:
    """Refuse an output folder that would put the article or a user's folder at risk."""
    out_real, article_real = out.resolve(), article.resolve()
    if (out / MANIFEST).exists():
        raise _refuse(out, f"--out is an article folder (it has {MANIFEST}); choose another")
    if article_real == out_real or article_real.is_relative_to(out_real):
        raise _refuse(out, f"--out holds the article {article} itself; choose a folder outside it")
    if out.exists() and not out.is_dir():
        raise _refuse(out, "--out is not a folder")
    above = next((p for p in out.absolute().parents if p.exists()), None)
    if above is not None and not above.is_dir():  # found before the article is rendered
        raise _refuse(above, f"is not a folder, so --out {out} cannot be made inside it")
    if out.is_dir():
        for child in out.iterdir():
            if child.is_dir() and (child / MANIFEST).exists():
                raise _refuse(
                    out, f"--out holds an article ({child.name}/{MANIFEST}); choose another folder"
                )
    why = not_ours(target, target.name) if target.is_symlink() or target.exists() else None
    if why is not None:
        raise _refuse(
            target,
            f"exists and {why}: it is left alone; remove it yourself or choose another --out",
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
    """The lock file `lock` open (never followed if a link, never waited on if a FIFO)."""
    flags = os.O_RDWR | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(lock, flags)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def _free(fd: int) -> bool:
    """Take the lock if no live build holds it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _named(parent: Path, pattern: re.Pattern[str]) -> list[tuple[Path, re.Match[str]]]:
    """The entries of `parent` whose whole name matches `pattern`, with the match."""
    try:
        names = sorted(os.listdir(parent))
    except OSError:
        return []
    return [(parent / n, m) for n in names if (m := pattern.fullmatch(n)) is not None]


def _real_folder(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


def remove_stale(parent: Path, name: str, *, now: float | None = None) -> list[Path]:
    """Remove what builds of `name` left in `parent`: the temporary folders (and lock files) of
    builds that were killed, and the builds they replaced once kept long enough.

    Only entries named exactly as a build names them (`.NAME.build-XXXXXXXX[.lock]`,
    `.NAME.old-<ns>-XXXXXXXX`, with NAME matched literally) are considered, and a folder goes
    only when its marker shows a build of `name` wrote it (or, for a build killed before it
    wrote its marker, when it is empty). A build creates and locks `<temp>.lock` before it
    creates `<temp>/`, and removes the folder before the lock: a folder whose lock is free, or
    that has no lock, is a dead build's.
    """
    removed = []
    temp = re.escape(_TEMP.format(name=name)) + _RANDOM
    for path, _ in _named(parent, re.compile(temp)):
        lock = path.with_name(path.name + ".lock")
        if not _real_folder(path):
            continue
        fd = _open_lock(lock)
        try:
            if fd is not None and not _free(fd):
                continue  # a live build owns it
            if _marked(path, name) or _unmarked_start(path):
                shutil.rmtree(path, ignore_errors=True)
            if not path.exists():
                lock.unlink(missing_ok=True)
                removed.append(path)
        finally:
            if fd is not None:
                os.close(fd)
    clock = time.time() if now is None else now
    retired = re.escape(_RETIRED.format(name=name)) + r"([0-9]{1,20})-" + _RANDOM
    for path, match in _named(parent, re.compile(retired)):
        old = clock - int(match.group(1)) / 1e9 > RETIRED_KEEP_S
        if old and _real_folder(path) and is_build_folder(path, name):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    for lock, _ in _named(parent, re.compile(temp + r"\.lock")):
        if lock.with_name(lock.name.removesuffix(".lock")).exists():
            continue
        fd = _open_lock(lock)
        if fd is None:
            continue
        try:
            # Young: its build may have just created it and not locked it yet.
            info = os.fstat(fd)
            if info.st_size == 0 and _free(fd) and clock - info.st_mtime > _ORPHAN_LOCK_AGE_S:
                lock.unlink(missing_ok=True)
        finally:
            os.close(fd)
    return removed


def _write_all(
    folder: Path, name: str, files: dict[str, bytes], sources: dict[str, str] | None
) -> None:
    """Write the marker first (a killed build's folder is then known as one), then `files`."""
    marker = marker_text(name, files, sources).encode("utf-8")
    write_output(folder / MARKER, marker, replace=False)
    for relative, data in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        write_output(folder / relative, data, replace=False)
    folder.chmod(0o755)


def _swap_in(fresh: Path, target: Path) -> None:
    """Put `fresh` at `target`; what was there before ends up at `fresh` (or nothing)."""
    try:
        os.rename(fresh, target)  # no target yet: a plain rename is atomic
        return
    except OSError as exc:
        if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY, errno.EISDIR, errno.ENOTDIR):
            raise
    why = not_ours(target, target.name)
    if why is not None:  # appeared or changed meanwhile, and is not ours
        raise _refuse(target, f"exists and {why}: it is left alone")
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


def publish(target: Path, files: dict[str, bytes], sources: dict[str, str] | None = None) -> None:
    """Replace folder `target` with exactly `files` (and the build marker, which records the
    `sources` they were built from), atomically."""
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
            _write_all(fresh, target.name, files, sources)
            _swap_in(fresh, target)
            if fresh.is_dir():  # the build it replaced: kept a while for readers still in it
                retired = _RETIRED.format(name=target.name) + f"{time.time_ns()}-{fresh.name[-8:]}"
                os.rename(fresh, parent / retired)
        finally:
            shutil.rmtree(fresh, ignore_errors=True)  # a failed new build
    finally:
        lock.unlink(missing_ok=True)
        os.close(fd)
