"""The pre-commit hook (.pre-commit-hooks.yaml) run by pre-commit itself, on a temporary git
repository that holds the bundled article: a commit of a good article passes, one whose
published copy shows a wrong number fails with the number's file and line.

pre-commit builds the hook's virtualenv and pip-installs this repository into it (minutes, and
the package index), so this file is not named test_*.py: plain `pytest` leaves it out, and
`make hooks-test` runs it (`.ci/run` calls that after `make test`). The repository under test
is a snapshot of this checkout's files, committed, so that pre-commit installs what is here,
edits not yet committed included, and builds its environment once for both cases.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers_hooks import PUBLISHED, break_published, copy_article

ROOT = Path(__file__).resolve().parents[2]
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This checkout's files (tracked and new, not ignored), committed in a new repository."""
    snapshot = tmp_path_factory.mktemp("hook-repo")
    listed = _git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, snapshot / name)
    _git(snapshot, "init", "-q")
    _git(snapshot, "add", "-A")
    _git(snapshot, "commit", "-q", "-m", "snapshot")
    return snapshot, _git(snapshot, "rev-parse", "HEAD")


@pytest.fixture
def project(tmp_path: Path, hook_repo: tuple[Path, str]) -> Path:
    """A user's repository that uses the hook, with the bundled article in it."""
    repo, rev = hook_repo
    (tmp_path / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {repo}\n    rev: {rev}\n    hooks:\n      - id: reportgen-check\n"
    )
    copy_article(tmp_path)
    (tmp_path / "notes.md").write_text("not an article\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    return tmp_path


def _run(project: Path, *files: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    # one pre-commit home for both cases and for every run, outside the clone (the tests that
    # read every file of the clone must not walk a virtualenv): the environment is built once
    env["PRE_COMMIT_HOME"] = str(Path.home() / ".cache" / "reportgen-hooks")
    env.pop("PYTHONPATH", None)  # the hook runs the reportgen pre-commit installed
    return subprocess.run(
        [*PRE_COMMIT, "run", "reportgen-check", "--files", *files],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )


def test_a_good_article_passes(project: Path) -> None:
    article = next(p for p in project.iterdir() if (p / "article.toml").is_file())
    done = _run(project, f"{article.name}/article.toml", "notes.md")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "reportgen check (articles whose files changed)" in done.stdout
    assert "Passed" in done.stdout


def test_a_wrong_published_number_fails_at_its_line(project: Path) -> None:
    article = next(p for p in project.iterdir() if (p / "article.toml").is_file())
    line = break_published(article)
    _git(project, "add", "-A")
    done = _run(project, f"{article.name}/{PUBLISHED}")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Failed" in done.stdout
    assert f"{article.name}/{PUBLISHED}:{line}:" in done.stdout
    assert "[mismatch]" in done.stdout
