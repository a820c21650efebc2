"""`reportgen init`: a new article folder from run files, that builds at once.

The run files are validated and copied in; they are grouped into the article's runs (one per
tool, engine and model; files that measure the same cell again are its repetitions, which the
metrics combine into a median with its spread); the setup is written from what the files
record, and what they do not record (the GPU, often the engine) is left for the author to fill
in, never guessed. Tables, charts and key
results are declared for the shape the data has: a decode matrix, a sweep of load points, or
canonical runs; side by side, with delta and ratio, when there are two runs.

This module writes everything into a fresh folder beside the target, builds it in memory there,
and only then moves it into place: a failure leaves nothing half-written. The runs are grouped in
`init/runs.py`, the manifest written by `init/manifest.py` and
`init/sections.py`.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import os
import re
import secrets
import shutil
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from reportgen.article.source.manifest import MANIFEST
from reportgen.errors import InputError, Problem, has_errors, whole_file
from reportgen.fileio import move_output, read_input, write_output
from reportgen.formats.load import load
from reportgen.init.manifest import acknowledgements, intro_text, manifest_text
from reportgen.init.runs import default_title, file_names, group_runs
from reportgen.metrics.compute import compute
from reportgen.metrics.measured import unmeasured


@dataclass(frozen=True)
class Scaffold:
    """What `init` wrote."""

    folder: Path
    files: tuple[str, ...]  # the run files, as named in the folder
    runs: int
    findings: tuple[str, ...]  # the lint findings the author should review


def scaffold(
    folder: Path,
    paths: Sequence[Path],
    *,
    title: str | None = None,
    date: str | None = None,
    hardware: tuple[str, int] | None = None,
) -> Scaffold:
    """Write a new article in `folder` from the run files `paths`; `InputError` when a file is
    not a valid run file or the folder already holds an article (nothing is written then)."""
    if (folder / MANIFEST).exists():
        raise InputError(
            [whole_file(str(folder / MANIFEST), "already exists: init never overwrites")]
        )
    if folder.exists() and not folder.is_dir():
        raise InputError([whole_file(str(folder), "exists and is not a folder")])
    if date is not None and not _is_date(date):
        raise InputError([whole_file("--date", f"{date!r} is not a date written YYYY-MM-DD")])
    names = file_names(paths)
    origin = dict(zip(names, paths, strict=True))
    parent = folder.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    remove_stale_inits(parent, folder.name)
    work, lock = work_folder(parent, folder.name)
    try:
        # Each file is read once, through the guarded reader, and what is validated below is
        # that copy: the path cannot be swapped (for a device, a FIFO) between check and copy.
        _copy_in(paths, names, work)
        relabelled = load([work / n for n in names], label_root=work)
        problems = [*relabelled.problems, *unmeasured(relabelled.runs)]
        if has_errors(problems):
            raise InputError(_placed(problems, work, folder, origin))
        runs = group_runs([(r.source.label, r) for r in relabelled.runs])
        run_of = {f: r.id for r in runs for f in r.files} if len(runs) > 1 else {}
        metrics = compute(relabelled.runs, run_of=run_of)
        text = manifest_text(
            title or default_title(runs),
            date or dt.date.today().isoformat(),
            runs,
            metrics,
            hardware,
        )
        write_output(work / MANIFEST, text.encode("utf-8"))
        write_output(work / "intro.md", intro_text(metrics).encode("utf-8"))
        from reportgen.article.build import render_article

        try:
            built = render_article(work)
        except InputError as exc:  # located in `work`, which is deleted: say where it came from
            raise InputError(_placed(exc.problems, work, folder, origin)) from None
        if built.findings:
            write_output(work / MANIFEST, (text + acknowledgements(built.findings)).encode())
        _move_in(work, folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        os.close(lock)
    findings = tuple(f.format(reason=False) for f in built.findings)
    return Scaffold(folder, tuple(names), len(runs), findings)


def _copy_in(paths: Sequence[Path], names: Sequence[str], work: Path) -> None:
    """Copy each run file into `work` under its name, from one guarded read of it; every file
    that cannot be read is reported."""
    problems: list[Problem] = []
    for path, name in zip(paths, names, strict=True):
        try:
            write_output(work / name, read_input(path, "run"), replace=False)
        except InputError as exc:
            problems += exc.problems
    if problems:
        raise InputError(problems)


def _is_date(text: str) -> bool:
    """True for a calendar date written YYYY-MM-DD."""
    try:
        return re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text) is not None and bool(
            dt.date.fromisoformat(text)
        )
    except ValueError:
        return False


def _placed(
    problems: Sequence[Problem], work: Path, folder: Path, origin: dict[str, Path]
) -> list[Problem]:
    """The problems of the trial build in `work`, each at the run file it came from (a copy of
    it was read) or at the file init would have written in `folder`, never in `work`."""
    out = []
    for problem in problems:
        path = Path(problem.path)
        path = path if path.is_absolute() else work / path  # a run file's label is relative
        name = path.name if path.parent.resolve() == work.resolve() else None
        if name in origin:
            out.append(replace(problem, path=str(origin[name])))
        elif name is not None:
            note = (
                f"{problem.message} (in the {name} init made for {folder} from these run files; "
                "nothing was written: report this with the run files)"
            )
            out.append(replace(problem, path=str(folder / name), message=note))
        else:
            out.append(problem)
    return out


def _same(target: Path, item: Path) -> bool:
    """Whether `target` (already in the folder) is a regular file with the bytes of `item`."""
    try:
        return read_input(target, "run", follow=False) == read_input(item, "run")
    except InputError:  # a link, a FIFO, a device, too large: not the same file
        return False


def _move_in(work: Path, folder: Path) -> None:
    """Move the written files into `folder` (created if missing; files already there are kept)."""
    folder.mkdir(parents=True, exist_ok=True)
    for item in sorted(work.iterdir()):
        target = folder / item.name
        if item.name == INIT_MARKER:
            continue
        run_file = item.suffix in (".json", ".jsonl")
        if not os.path.lexists(target):
            continue
        if run_file and _same(target, item):
            continue  # the run file was already in the folder
        raise InputError([whole_file(str(target), "already exists: init never overwrites")])
    for item in sorted(work.iterdir()):
        target = folder / item.name
        if item.name != INIT_MARKER and not os.path.lexists(target):
            try:
                move_output(item, target)  # never replaces what appeared there meanwhile
            except FileExistsError:
                raise InputError(
                    [whole_file(str(target), "already exists: init never overwrites")]
                ) from None


# init's work folder, `.<article>.init-<16 hex digits>` beside the article, holds this marker,
# locked while its init runs. A killed init leaves both; the next init of that article removes
# every such folder whose name is exactly of that form, whose marker is a file and unlocked, and
# that is older than STALE_AFTER_S (an init that has made its folder but not yet locked it).
INIT_MARKER = ".reportgen-init"
_WORK = ".{}.init-"
STALE_AFTER_S = 60.0


def work_folder(parent: Path, name: str) -> tuple[Path, int]:
    """A new work folder for an init of article `name`, and the open, locked descriptor of
    its marker (closing it releases the lock)."""
    while True:
        work = parent / f"{_WORK.format(name)}{secrets.token_hex(8)}"
        try:
            work.mkdir(mode=0o700)
            break
        except FileExistsError:
            continue
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(work / INIT_MARKER, flags, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, b"reportgen init's work folder: removed when it ends or is found stale\n")
    return work, fd


def remove_stale_inits(parent: Path, name: str, *, now: float | None = None) -> list[Path]:
    """Remove the work folders that killed inits of article `name` left in `parent` (see
    INIT_MARKER); never a folder init did not make, nor one a live init holds."""
    exact = re.compile(re.escape(_WORK.format(name)) + "[0-9a-f]{16}")
    clock = time.time() if now is None else now
    removed = []
    for path in sorted(parent.iterdir()):
        if not exact.fullmatch(path.name) or path.is_symlink() or not path.is_dir():
            continue
        try:
            fd = os.open(path / INIT_MARKER, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue  # no marker (or a link): not a folder init made, or not yet marked
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            if clock - os.fstat(fd).st_mtime < STALE_AFTER_S:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # a live init holds it
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
        finally:
            os.close(fd)
    return removed
