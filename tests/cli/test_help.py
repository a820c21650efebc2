"""`reportgen --help` shows the workflow (reportgen/cli/parser.py): init, serve or build, check
and diff, in that order, each with an example that the parser itself accepts."""

from __future__ import annotations

import re
import shlex

import pytest

from reportgen.cli.main import main
from reportgen.cli.parser import build_parser


def _help(capsys: pytest.CaptureFixture[str]) -> str:
    """The help's text before the list of subcommands."""
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    assert "the workflow" in text.split("positional arguments")[0]
    return text.split("positional arguments")[0]


def test_the_help_shows_the_workflow_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys)
    steps = re.findall(r"^ +(?:\d\. )?(init|serve|build|check|diff) ", text, re.MULTILINE)
    assert steps == ["init", "serve", "build", "check", "diff"]


def test_each_example_of_the_workflow_parses(capsys: pytest.CaptureFixture[str]) -> None:
    examples = re.findall(r"^ +(reportgen .+)$", _help(capsys), re.MULTILINE)
    commands = [shlex.split(e)[1] for e in examples]
    assert commands == ["init", "serve", "build", "check", "diff"]
    for example in examples:
        args = build_parser().parse_args(shlex.split(example)[1:])
        assert args.func.__name__ == f"cmd_{args.command}"
