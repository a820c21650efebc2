"""Text from outside reportgen is printed as data (reportgen/terminal.py): a published copy's
words in `check`'s report, in every format, and the errors that name a published file.

Control and escape characters show as visible escapes, and no printed line begins a GitHub Actions
workflow command. (A server's text in `submit`'s output: tests/localmaxxing/test_submit.py.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reportgen.cli.main import main
from reportgen.terminal import lines, one_line

ROOT = Path(__file__).resolve().parents[2]
ARTICLE = ROOT / "runs" / "paiton-kimi-k3.1-pro"
SEED = ARTICLE / "published" / "paiton-kimi-k3.1-pro.txt"
# What a hostile text might hold: ANSI colour, cursor and title sequences, CR, BEL, backspace, a C1
# CSI, bidi overrides and isolates, a line separator and a workflow command on a line of its own.
HOSTILE = "\x1b[32mPASS\x1b[0m\x1b]0;title\x07\r\x08\x9b2J\u202e\u2066\u2028\x7f\n::error::fake"
# Characters that must never reach a terminal raw.
INVISIBLE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
COMMAND = re.compile(r"^\s*(::|##\[)")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain 183 tok/s", "plain 183 tok/s"),
        ("\x1b[31mred", "\\x1b[31mred"),
        ("a\rb\nc\td", "a\\rb\\nc\\td"),
        ("\x07\x08\x00\x7f\x85\x9b", "\\x07\\x08\\x00\\x7f\\x85\\x9b"),
        ("\u202eevil\u202c \u2066x\u2069", "\\u202eevil\\u202c \\u2066x\\u2069"),
        ("\u2028\u2029\ufeff\u200b", "\\u2028\\u2029\\ufeff\\u200b"),
        ("\ud800", "\\ud800"),
        ("no-break\u00a0space, 日本語, µs", "no-break\u00a0space, 日本語, µs"),
        ("::error::x", "\\x3a:error::x"),
        ("   ::add-mask::x", "   \\x3a:add-mask::x"),
        ("\t::stop-commands::t", "\\t::stop-commands::t"),
        ("##[group]x", "\\x23#[group]x"),
        ("std::vector ::x", "std::vector ::x"),
    ],
)
def test_one_line_shows_every_character_visibly(text: str, shown: str) -> None:
    assert one_line(text) == shown


def test_each_line_is_safe_and_line_breaks_stay() -> None:
    assert lines("ok\n  ::set-output name=a::b\n\x1b[2K") == (
        "ok\n  \\x3a:set-output name=a::b\n\\x1b[2K"
    )
    for line in lines(HOSTILE).splitlines():
        assert not INVISIBLE.search(line) and not COMMAND.match(line)


def _hostile_copy(tmp_path: Path) -> Path:
    """The bundled article's published text, with a row whose label is hostile, in a file whose
    name is hostile too."""
    text = SEED.read_text(encoding="utf-8").split("\n")
    start = next(n for n, line in enumerate(text) if line.startswith("Decode throughput"))
    at = next(n for n in range(start, len(text)) if text[n].startswith("| 64K |"))
    label = re.sub("[\r\n\u2028]", " ", HOSTILE)  # the reader splits lines at these
    text.insert(at + 1, f"| 256K{label} | 1 | 2 | 3 | 4 | 5 |")
    copy = tmp_path / "pub\x1b[2J\n::error::named.txt"
    copy.write_text("\n".join(text), encoding="utf-8")
    return copy


@pytest.mark.parametrize("form", ["text", "github", "json"])
def test_check_prints_a_published_copys_words_as_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    copy = _hostile_copy(tmp_path)
    args = ["check", str(ARTICLE), "--published", str(copy), "--build-dir", str(tmp_path / "b")]
    code = main([*args, "--format", form])
    out = capsys.readouterr().out
    assert code in (0, 1) and "5 matches no metric of the run files" in out
    assert not INVISIBLE.search(out.replace("\n", " ")), out
    printed = out.splitlines()
    if form == "github":
        # every line is one of reportgen's own annotations, or the verdict
        for line in printed[:-1]:
            assert re.match(
                r"::(error|warning|notice) file=[^:,]*,line=\d+,col=\d+,title=", line
            ), line
        assert printed[-1].startswith(("PASS", "FAIL"))
        assert "%0A" not in out and "\\x1b[2J\\n\\x3a:error\\x3a:named.txt" not in out
        assert "file=" + str(copy).replace("\n", "\\n").replace("\x1b", "\\x1b").replace(
            ":", "%3A"
        ) in out.replace("\\x3a", "%3A")
    else:
        assert not [line for line in printed if COMMAND.match(line)]
    if form == "json":
        doc = json.loads(out)
        rows = {i["row"] for s in doc["sources"] for i in s["items"] if i["row"]}
        assert any(r.startswith("256K\x1b[32mPASS") and "\u202e" in r for r in rows)
        assert any(s["source"] == str(copy) for s in doc["sources"])


def test_an_error_naming_a_published_file_is_printed_as_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "x\x1b[2J\n::error::pwned.pdf"
    copy.write_bytes(b"not a pdf\n")
    assert main(["check", str(ARTICLE), "--published", str(copy)]) == 2
    err = capsys.readouterr().err
    assert "named .pdf but is not a PDF" in err and "\\x1b[2J\\n::error::pwned.pdf" in err
    assert not INVISIBLE.search(err.replace("\n", " ")), err
    assert not [line for line in err.splitlines() if COMMAND.match(line)]


def test_every_rendering_of_a_hostile_item_is_data() -> None:
    from reportgen.check import report
    from reportgen.check.result import CheckResult, Item, SourceResult

    item = Item(
        kind="mismatch",
        source="a,b:c%d\n::error::x.md",
        line=3,
        col=7,
        message=f"shows 999 where the article says 183 (after '{HOSTILE}')",
        row=HOSTILE,
        column=HOSTILE,
        table=HOSTILE,
    )
    result = CheckResult(
        article="art",
        sources=(SourceResult(source=item.source, kind="published", matched=1, items=(item,)),),
        findings=(),
    )
    github = report.to_github(result).splitlines()
    assert github[0].startswith("::error file=a%2Cb%3Ac%25d\\n%3A%3Aerror%3A%3Ax.md,line=3,col=7,")
    assert "::shows 999 where the article says 183 (after '\\x1b[32mPASS" in github[0]
    assert "%0A" not in github[0] and "\\n::error::fake')" in github[0]
    assert len(github) == 2 and github[1].startswith("FAIL")
    for text in (report.to_text(result), report.to_json(result)):
        assert not INVISIBLE.search(text.replace("\n", " ")), text
        assert not [line for line in text.splitlines() if COMMAND.match(line)]
    assert json.loads(report.to_json(result))["sources"][0]["items"][0]["row"] == HOSTILE
