"""Hostile or careless inputs: nothing leaks, nothing hangs, and every refusal is located.

Each case runs the real `reportgen` command in a child process with a timeout, so a hang fails
the test instead of stopping the suite.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reportgen.errors import InputError
from reportgen.fileio import cap_bytes, read_input

pytestmark = pytest.mark.process  # the real `reportgen` command, in a child process

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "tests" / "articles" / "small"
TIMEOUT_S = 60


def reportgen(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reportgen", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture
def article(tmp_path: Path) -> Path:
    folder = tmp_path / "small"
    shutil.copytree(SMALL, folder)
    return folder


def _refused(result: subprocess.CompletedProcess[str], label: str, words: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = (result.stdout + result.stderr).splitlines()  # validate reports on stdout
    assert any(line.startswith(label) and words in line for line in lines), result.stderr


def test_a_prose_symlink_to_etc_passwd_is_refused(article: Path, tmp_path: Path) -> None:
    (article / "notes.md").unlink()
    (article / "notes.md").symlink_to("/etc/passwd")
    result = reportgen("build", str(article), "--out", str(tmp_path / "out"))
    _refused(result, f"{article}/notes.md:1:1", "resolves outside the article folder")
    assert "root:" not in result.stdout + result.stderr
    assert not (tmp_path / "out").exists()


def test_a_prose_symlink_to_a_file_beside_the_article_is_refused(
    article: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("the secret")
    (article / "notes.md").unlink()
    (article / "notes.md").symlink_to(secret)
    result = reportgen("build", str(article), "--out", str(tmp_path / "out"))
    _refused(result, f"{article}/notes.md:1:1", "resolves outside the article folder")


def test_a_symlink_inside_the_article_is_followed(article: Path, tmp_path: Path) -> None:
    (article / "notes-real.md").write_text((article / "notes.md").read_text())
    (article / "notes.md").unlink()
    (article / "notes.md").symlink_to("notes-real.md")
    assert reportgen("build", str(article), "--out", str(tmp_path / "out")).returncode == 0


def test_a_run_file_name_that_is_a_folder_does_not_pull_in_its_files(
    article: Path, tmp_path: Path
) -> None:
    folder = article / "more.json"
    folder.mkdir()
    shutil.copy(article / "bench.json", folder / "a.json")
    manifest = article / "article.toml"
    manifest.write_text(manifest.read_text().replace('"bench.json"]', '"more.json"]'))
    result = reportgen("build", str(article), "--out", str(tmp_path / "out"))
    _refused(result, "more.json:1:1", "is a folder, not a regular file")


@pytest.mark.parametrize("where", ["prose", "run file", "published"])
def test_a_fifo_is_refused_without_waiting(article: Path, tmp_path: Path, where: str) -> None:
    name = {"prose": "notes.md", "run file": "bench.json", "published": "pub.txt"}[where]
    path = (article if where != "published" else tmp_path) / name
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    if where == "published":
        result = reportgen("check", str(article), "--published", str(path))
        label = str(path)
    else:
        result = reportgen("build", str(article), "--out", str(tmp_path / "out"))
        label = f"{article}/{name}" if where == "prose" else name
    _refused(result, f"{label}:1:1", "is a FIFO (named pipe), not a regular file")


def test_a_symlink_to_dev_zero_is_refused_at_once(article: Path, tmp_path: Path) -> None:
    (article / "bench.json").unlink()
    (article / "bench.json").symlink_to("/dev/zero")
    result = reportgen("build", str(article), "--out", str(tmp_path / "out"))
    _refused(result, "bench.json:1:1", "resolves outside the article folder")
    device = reportgen("validate", "/dev/zero")
    _refused(device, "/dev/zero:1:1", "is a device, not a regular file")


def test_prose_over_the_cap_is_refused_and_the_cap_can_be_raised(
    article: Path, tmp_path: Path
) -> None:
    notes = article / "notes.md"
    notes.write_text(notes.read_text() + "More words for the reader to read. " * 40_000)
    assert notes.stat().st_size > 1024 * 1024
    result = reportgen("build", str(article), "--out", str(tmp_path / "out"))
    _refused(result, f"{notes}:1:1", "larger than the 1 MiB allowed for article.toml or a prose")
    assert "REPORTGEN_MAX_TEXT_FILE_MB" in result.stderr
    raised = reportgen("metrics", str(article), env={"REPORTGEN_MAX_TEXT_FILE_MB": "4"})
    # the raised cap lets the file be read; the article's own limit on prose then refuses it
    assert raised.returncode == 2 and "larger than" not in raised.stderr
    assert "bytes of prose; an article may have at most 65,536" in raised.stderr


def test_a_large_file_is_read_only_up_to_its_cap(tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    big.write_bytes(b"x" * (2 * 1024 * 1024))
    with pytest.raises(InputError) as info:
        read_input(big, "text", environ={})
    assert "larger than the 1 MiB" in info.value.problems[0].message
    assert len(read_input(big, "text", environ={"REPORTGEN_MAX_TEXT_FILE_MB": "3"})) == 2**21
    with pytest.raises(InputError):
        cap_bytes("text", {"REPORTGEN_MAX_TEXT_FILE_MB": "lots"})


def test_a_deeply_nested_manifest_is_a_located_error(article: Path, tmp_path: Path) -> None:
    manifest = article / "article.toml"
    manifest.write_text(manifest.read_text() + "deep = " + "[" * 5000 + "]" * 5000 + "\n")
    result = reportgen("build", str(article), "--out", str(tmp_path / "out"))
    _refused(result, f"{manifest}:1:1", "nested too deeply")
