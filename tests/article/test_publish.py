"""Build outputs: never missing while swapped, never at the expense of the user's files.

The swap is tested with real processes: writers publishing builds in a loop, some killed with
SIGKILL at random moments, while this process reads the output folder continuously.
"""

from __future__ import annotations

import fcntl
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from reportgen.article.build import build
from reportgen.article.publish import MARKER, marker_text, publish, remove_stale
from reportgen.cli.main import main
from reportgen.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "tests" / "articles" / "small"

# A writer process: publishes generation after generation of three large files.
WRITER = """
import json, sys
from pathlib import Path
from reportgen.article.publish import publish
target, tag, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
pad = b"x" * (3 * 1024 * 1024)
for i in range(count):
    gen = f"{tag}-{i}".encode()
    publish(target, {
        "index.html": b"<!-- " + gen + b" -->" + pad + b"</html>",
        "article.pdf": b"%PDF-" + gen + b"\\n" + pad + b"%%EOF",
        "metrics.json": json.dumps({"gen": gen.decode()}).encode(),
    })
"""


def _generation(folder_fd: int) -> str:
    """The generation of the build the folder (opened once) holds; each file must agree."""

    def read(name: str) -> bytes:
        fd = os.open(name, os.O_RDONLY, dir_fd=folder_fd)
        with os.fdopen(fd, "rb") as handle:
            return handle.read()

    html, pdf = read("index.html"), read("article.pdf")
    meta = json.loads(read("metrics.json"))
    assert html.endswith(b"</html>") and pdf.endswith(b"%%EOF")
    gen = meta["gen"]
    assert html.startswith(f"<!-- {gen} -->".encode()) and pdf.startswith(f"%PDF-{gen}".encode())
    return str(gen)


def _temp_folders(parent: Path, name: str) -> list[Path]:
    return [p for p in parent.glob(f".{name}.build-*") if p.is_dir()]


def _held(lock: Path) -> bool:
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


@pytest.mark.process
def test_readers_always_see_a_whole_build_while_builds_swap_and_die(tmp_path: Path) -> None:
    target = tmp_path / "out" / "article"
    publish(
        target,
        {
            "index.html": b"<!-- seed -->x</html>",
            "article.pdf": b"%PDF-seed\n%%EOF",
            "metrics.json": b'{"gen": "seed"}',
        },
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def writer(tag: str, count: int, *, errors: bool = False) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-c", WRITER, str(target), tag, str(count)],
            env=env,
            stderr=subprocess.PIPE if errors else subprocess.DEVNULL,
        )

    problems: list[str] = []
    seen: set[str] = set()
    stop = threading.Event()

    def read_continuously() -> None:
        reads = 0
        while not stop.is_set() or reads == 0:
            try:
                for name in ("index.html", "article.pdf", "metrics.json"):
                    (target / name).stat()  # the files are there, by path, at every moment
                fd = os.open(target, os.O_RDONLY | os.O_DIRECTORY)
                try:
                    seen.add(_generation(fd))
                finally:
                    os.close(fd)
            except (OSError, AssertionError, ValueError) as exc:
                problems.append(f"{type(exc).__name__}: {exc}")
            reads += 1

    reader = threading.Thread(target=read_continuously)
    reader.start()
    rng = random.Random(20261203)
    survivors = [writer(f"w{i}", 12, errors=True) for i in range(2)]  # racing to the end
    killed = 0
    deadline = time.monotonic() + 60
    for round_ in range(6):  # writers killed at random moments, mid-write or mid-swap
        victim = writer(f"k{round_}", 1000)
        time.sleep(rng.uniform(0.05, 0.6))
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=30)
        killed += 1
    for proc in survivors:
        _, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
        assert proc.returncode == 0, err.decode()
    stop.set()
    reader.join(timeout=30)
    assert problems == []
    assert len(seen) > 3  # the reader saw builds come and go
    assert killed == 6
    # The next build removes what the killed ones left behind.
    publish(
        target,
        {
            "index.html": b"<!-- last -->x</html>",
            "article.pdf": b"%PDF-last\n%%EOF",
            "metrics.json": b'{"gen": "last"}',
        },
    )
    assert _temp_folders(target.parent, target.name) == []
    assert not any(_held(lock) for lock in target.parent.glob(".article.build-*.lock"))
    fd = os.open(target, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert _generation(fd) == "last"
    finally:
        os.close(fd)


def _killed_build(folder: Path, name: str, files: dict[str, bytes]) -> Path:
    """A folder as a build of `name` killed after writing `files` leaves it."""
    folder.mkdir(parents=True)
    (folder / MARKER).write_text(marker_text(name, {"index.html": b"whole", **files}))
    for relative, data in files.items():
        (folder / relative).write_bytes(data)
    return folder


def test_stale_temporary_folders_are_removed_and_live_ones_kept(tmp_path: Path) -> None:
    dead = _killed_build(tmp_path / ".article.build-dead_000", "article", {"index.html": b"half"})
    (tmp_path / ".article.build-dead_000.lock").write_text("")
    live = _killed_build(tmp_path / ".article.build-live_000", "article", {})
    lock = tmp_path / ".article.build-live_000.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    # Killed while writing its marker (files.write_output's temporary file), or before.
    early = tmp_path / ".article.build-early_00"
    early.mkdir()
    (early / f".{MARKER}.0123456789abcdef.tmp").write_text("Written by")
    empty = tmp_path / ".article.build-empty_00"
    empty.mkdir()
    try:
        assert remove_stale(tmp_path, "article") == [dead, early, empty]
        assert live.is_dir() and not dead.exists() and not early.exists()
    finally:
        os.close(fd)


@pytest.mark.pdf
@pytest.mark.process
def test_two_real_builds_into_one_folder_at_once_both_succeed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "reportgen", "build", str(SMALL), "--out", str(out)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(2)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()
    # besides the build, only hidden folders of the builds it replaced, kept for their readers
    assert [p.name for p in out.iterdir() if not p.name.startswith(".")] == ["small"]
    assert (out / "small" / MARKER).is_file()


@pytest.mark.pdf
def test_a_killed_real_build_is_cleaned_up_by_the_next(tmp_path: Path) -> None:
    out = tmp_path / "out"
    build(SMALL, out, {})
    _killed_build(out / ".small.build-killed00", "small", {"article.pdf": b"%PDF-half"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "reportgen", "build", str(SMALL), "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    build(SMALL, out, {})
    assert _temp_folders(out, "small") == []
    assert {p.name for p in (out / "small").iterdir()} == {
        "index.html",
        "article.pdf",
        "metrics.json",
        "data",
        "tables",
        MARKER,
    }


def _copy_article(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    article = runs / "small"
    shutil.copytree(SMALL, article)
    return article


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_building_into_the_folder_that_holds_the_article_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    article = _copy_article(tmp_path)
    before = _snapshot(article.parent)
    monkeypatch.chdir(article.parent)
    assert main(["build", "small", "--out", "."]) == 2  # `cd runs && reportgen build X --out .`
    err = capsys.readouterr().err
    assert "--out holds the article small itself" in err
    assert _snapshot(article.parent) == before


@pytest.mark.parametrize(
    "out",  # a build inside the article is allowed, and makes its PDF
    ["article", "article_parent_of_parent", pytest.param("article_inside", marks=pytest.mark.pdf)],
)
def test_other_outputs_at_the_article_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], out: str
) -> None:
    article = _copy_article(tmp_path)
    before = _snapshot(tmp_path)
    folder = {
        "article": article,
        "article_parent_of_parent": tmp_path,
        "article_inside": article / "build",
    }[out]
    code = main(["build", str(article), "--out", str(folder)])
    if out == "article_inside":  # a build folder inside the article is allowed: it holds no article
        assert code == 0
        assert (folder / "small" / MARKER).is_file()
        assert {k: v for k, v in _snapshot(tmp_path).items() if "/build/" not in k} == before
    else:
        assert code == 2
        assert _snapshot(tmp_path) == before
        assert "Traceback" not in capsys.readouterr().err


def test_a_folder_the_build_did_not_write_is_never_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    mine = out / "small"
    mine.mkdir(parents=True)
    (mine / "notes.txt").write_text("my own notes")
    assert main(["build", str(SMALL), "--out", str(out)]) == 2
    assert "was not written by reportgen build" in capsys.readouterr().err
    assert (mine / "notes.txt").read_text() == "my own notes"
    assert sorted(p.name for p in out.iterdir()) == ["small"]


@pytest.mark.parametrize(
    "names",
    [
        ("index.html",),
        ("article.pdf", "metrics.json"),
        ("index.html", "article.pdf", "metrics.json"),
    ],
)
def test_a_folder_of_hand_written_outputs_without_the_marker_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], names: tuple[str, ...]
) -> None:
    out = tmp_path / "out"
    mine = out / "small"
    mine.mkdir(parents=True)
    for name in names:
        (mine / name).write_text(f"my own {name}")
    before = _snapshot(out)
    assert main(["build", str(SMALL), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{mine}:1:1" in err and "was not written by reportgen build" in err
    assert "Traceback" not in err
    assert _snapshot(out) == before and sorted(p.name for p in out.iterdir()) == ["small"]


@pytest.mark.parametrize("change", ["added", "edited", "other_article", "forged_marker"])
def test_a_build_folder_is_replaced_only_as_its_marker_lists_it(
    tmp_path: Path, change: str
) -> None:
    target = tmp_path / "out" / "article"
    publish(target, {"index.html": b"one", "tables/t.csv": b"a,b\n"})
    assert (target / MARKER).read_text().startswith("Written by `reportgen build`")
    if change == "added":
        (target / "tables" / "mine.csv").write_text("my own table")
    elif change == "edited":
        (target / "index.html").write_text("edited by hand")
    elif change == "other_article":
        (target / MARKER).write_text(marker_text("other", {"index.html": b"one"}))
    else:  # the old marker's fixed text, or a marker that is not reportgen's
        (target / MARKER).write_text("Written by `reportgen build`\n")
    before = _snapshot(target.parent)
    with pytest.raises(InputError, match="left alone"):
        publish(target, {"index.html": b"two"})
    assert _snapshot(target.parent) == before


def test_a_build_folder_is_replaced_and_retired_with_its_marker(tmp_path: Path) -> None:
    target = tmp_path / "out" / "article"
    publish(target, {"index.html": b"one", "tables/t.csv": b"a,b\n"})
    publish(target, {"index.html": b"two"})
    assert (target / "index.html").read_bytes() == b"two"
    assert not (target / "tables").exists()
    (retired,) = [p for p in target.parent.iterdir() if ".article.old-" in p.name]
    assert (retired / "index.html").read_bytes() == b"one"
    assert remove_stale(target.parent, "article", now=time.time() + 3600) == [retired]


def _retired(parent: Path, name: str, article: str, marked: bool = True) -> Path:
    folder = parent / name
    folder.mkdir(parents=True)
    (folder / "index.html").write_bytes(b"kept")
    if marked:
        (folder / MARKER).write_text(marker_text(article, {"index.html": b"kept"}))
    return folder


def test_cleanup_takes_the_article_name_literally(tmp_path: Path) -> None:
    # An article folder named `*` must not clean up the leftovers of article X.
    others = [
        _retired(tmp_path, ".X.old-1000-abcdefgh", "X"),
        _killed_build(tmp_path / ".X.build-abcdefgh", "X", {}),
        _retired(tmp_path, ".ab.old-1000-abcdefgh", "ab"),
    ]
    for name in ("*", "?", "[a-z]*", "a?"):
        assert remove_stale(tmp_path, name, now=time.time()) == []
    assert all(p.is_dir() for p in others)


@pytest.mark.parametrize(
    ("name", "marked"),
    [
        (".small.old-1000-my-notes", True),  # not the suffix a build makes
        (".small.old-1000-abcdefgh-mine", True),
        (".small.old-1000-abcdefgh", False),  # the exact name, but no marker
        (".small.build-abcdefgh", False),  # a user's folder named like a temporary one
        (".small.build-abcdefgh", True),  # ... with a marker, but a file it does not list
    ],
)
def test_cleanup_leaves_a_users_folder_named_like_a_leftover(
    tmp_path: Path, name: str, marked: bool
) -> None:
    mine = _retired(tmp_path, name, "small", marked=marked)
    (mine / "notes.txt").write_text("mine")
    assert remove_stale(tmp_path, "small", now=time.time()) == []
    assert (mine / "index.html").read_bytes() == b"kept"
