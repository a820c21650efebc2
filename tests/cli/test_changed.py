"""`reportgen check-changed` (reportgen/cli/changed.py), the pre-commit hook's command: changed
files mapped to their article folders, and each such article checked once."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_hooks import PUBLISHED, break_published, copy_article

from reportgen.cli.changed import article_folders
from reportgen.cli.main import main


def _tree(root: Path, *files: str) -> None:
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")


def test_each_file_maps_to_its_nearest_article(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _tree(
        tmp_path,
        "a/article.toml",
        "a/intro.md",
        "a/published/post.html",
        "a/runs/deep/r1.json",
        "a/inner/article.toml",
        "a/inner/run.json",
        "b/article.toml",
        "README.md",
        "notes/todo.md",
    )
    monkeypatch.chdir(tmp_path)  # pre-commit names files relative to the repository's root
    given = [
        "README.md",
        "a/runs/deep/r1.json",
        "b/article.toml",
        "a/intro.md",
        "a/inner/run.json",
        "notes/todo.md",
        "a/published/post.html",
    ]
    assert article_folders(Path(p) for p in given) == [Path("a"), Path("b"), Path("a/inner")]


def test_a_folder_named_is_its_own_article(tmp_path: Path) -> None:
    _tree(tmp_path, "a/article.toml", "a/sub/x.md")
    assert article_folders([tmp_path / "a", tmp_path / "a" / "sub"]) == [tmp_path / "a"]
    assert article_folders([tmp_path / "a" / "sub" / "x.md"]) == [tmp_path / "a"]
    assert article_folders([]) == []


def test_no_article_no_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _tree(tmp_path, "README.md")
    assert main(["check-changed", str(tmp_path / "README.md")]) == 0
    assert capsys.readouterr().out == ""


def test_a_broken_published_number_fails_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    article = copy_article(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["check-changed", f"{article.name}/article.toml"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("PASS: ")
    line = break_published(article)
    changed = [f"{article.name}/{PUBLISHED}", f"{article.name}/article.toml"]
    assert main(["check-changed", *changed]) == 1
    out = capsys.readouterr().out
    assert out.count(f"reportgen check {article.name}") == 1  # two files, one article, one check
    assert f"{article.name}/{PUBLISHED}:{line}:" in out
    assert "[mismatch]" in out
    assert out.splitlines()[-1].startswith("FAIL: ")
