"""Commands that work on an article take its folder, or the current folder when it holds
article.toml; never the bundled article by default."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reportgen.cli.commands import article_folder
from reportgen.cli.main import main
from reportgen.cli.parser import build_parser

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "tests" / "articles" / "small"
BUNDLED = "paiton-kimi-k3.1-pro"


@pytest.mark.parametrize("command", ["build", "check"])
def test_without_a_folder_and_without_article_toml_it_says_how_to_name_one(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([command]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"reportgen {command}: no article.toml in the current folder: name the article's folder, "
        f"as in `reportgen {command} runs/my-article` (`reportgen init` starts one)\n"
    )
    assert list(tmp_path.iterdir()) == []  # nothing built


def test_without_a_folder_the_current_one_holding_article_toml_is_the_article(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    article = tmp_path / "small"
    shutil.copytree(SMALL, article)
    monkeypatch.chdir(article)
    assert article_folder(None, "build") == Path(".")
    assert article_folder(Path("elsewhere"), "build") == Path("elsewhere")
    code = main(["check"])
    out = capsys.readouterr().out
    assert code in (0, 1) and out.startswith("reportgen check small\n")


def test_help_examples_name_the_authors_own_folder() -> None:
    """Each example names a folder of the reader's (runs/my-article, or none); the bundled
    article appears once, said to be the bundled one."""
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.choices and "build" in a.choices)
    assert isinstance(subparsers.choices, dict)
    bundled = []
    for name, sub in subparsers.choices.items():
        examples = (sub.epilog or "").split("examples:")[-1]
        assert "runs/" not in examples or "runs/my-article" in examples, name
        bundled += [line for line in examples.splitlines() if BUNDLED in line]
    assert len(bundled) == 1 and "bundled" in bundled[0]
