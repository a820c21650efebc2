"""`check` says when a build is older than its article: the sources the build's marker records
against the article's now, by content, whatever the files' times say."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from reportgen.article.build import render_article
from reportgen.article.publish import MARKER, built_from, marker_text, publish
from reportgen.check.compare import check_article
from reportgen.check.stale import changed_sources
from reportgen.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "tests" / "articles" / "small"


def _built(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the small article and a build of it (its page, without the PDF), published
    as `reportgen build` publishes one."""
    folder, out = tmp_path / "small", tmp_path / "out"
    shutil.copytree(SMALL, folder)
    built = render_article(folder, {}, charts=False)
    publish(out / "small", {"index.html": built.html.encode("utf-8")}, built.sources)
    return folder, out


def _stale(folder: Path, out: Path) -> list[str]:
    result = check_article(folder, build_dir=out)
    return [i.message for i in result.items if i.kind == "stale"]


def test_the_build_records_what_it_was_built_from(tmp_path: Path) -> None:
    folder, out = _built(tmp_path)
    recorded = built_from(out / "small", "small")
    assert recorded is not None
    assert sorted(recorded) == [
        "article.toml",
        "bench.json",
        "canonical.json",
        "intro.md",
        "notes.md",
    ]
    assert _stale(folder, out) == []


def test_a_prose_edit_not_built_fails_check_and_says_how_to_rebuild(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, out = _built(tmp_path)
    notes = folder / "notes.md"
    stat = notes.stat()
    notes.write_text(notes.read_text() + "\nAgain: {{ canonical.c1.output_tok_s }}.\n")
    os.utime(notes, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # by content, not by time
    assert _stale(folder, out) == [
        f"the build in {out / 'small'} is older than its sources: notes.md changed; run "
        f"`reportgen build {folder} --out {out}`"
    ]
    assert main(["check", str(folder), "--build-dir", str(out)]) == 1
    assert "[stale]" in capsys.readouterr().out
    # the edit undone, and a run file changed (its content, not its data): said by name
    notes.write_text((SMALL / "notes.md").read_text())
    run = folder / "canonical.json"
    run.write_bytes(run.read_bytes() + b"\n")
    (message,) = _stale(folder, out)
    assert "older than its sources: canonical.json changed;" in message


def test_a_build_that_records_no_sources_is_not_taken_as_current(tmp_path: Path) -> None:
    folder, out = _built(tmp_path)
    target = out / "small"
    files = {"index.html": (target / "index.html").read_bytes()}
    (target / MARKER).write_text(marker_text("small", files))  # as an older reportgen wrote it
    assert built_from(target, "small") == {}
    (message,) = _stale(folder, out)
    assert "does not record its sources" in message


def test_a_page_with_no_marker_this_reportgen_reads_is_not_taken_as_current(
    tmp_path: Path,
) -> None:
    folder, out = _built(tmp_path)
    target = out / "small"
    (target / MARKER).write_text(marker_text("small", {}).split("\n")[0] + "\n")  # an early one
    assert built_from(target, "small") is None
    (message,) = _stale(folder, out)
    assert "has no build record this reportgen reads" in message
    (target / MARKER).unlink()  # a page someone put there by hand
    (message,) = _stale(folder, out)
    assert "has no build record this reportgen reads" in message


def test_the_build_folder_named_as_the_article_says_what_to_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = _built(tmp_path)
    assert main(["check", str(out / "small")]) == 2
    assert capsys.readouterr().err == (
        f"reportgen check: {out / 'small'} is a build (it holds {MARKER}), not an article: "
        f"name the article's folder, and this build's with --build-dir {out}\n"
    )


def test_changes_in_words() -> None:
    assert changed_sources({"a": "1", "b": "2", "c": "3"}, {"a": "1", "b": "9", "d": "4"}) == [
        "b changed",
        "c is gone",
        "d is new",
    ]
