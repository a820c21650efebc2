"""The composite action (action.yml): its scripts, taken from the file and run with bash as a
GitHub runner would, with the environment the action's `env:` gives them, a job summary file,
and `reportgen` on PATH. What GitHub itself does (setup-python, the annotations' display) cannot
run here."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers_articles import MEASURED, PAITON, built_article, plain_copy, table_of

from reportgen.check.compare import check_article

ROOT = Path(__file__).resolve().parents[2]
ACTION: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]


def _step(name: str) -> dict[str, Any]:
    [step] = [s for s in STEPS if s.get("name") == name]
    return step


def _bin(tmp_path: Path, name: str, body: str) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    script = folder / name
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    return folder


def _run_check(
    tmp_path: Path, articles: str, published: str = "", strict: str = "false"
) -> tuple[subprocess.CompletedProcess[str], str]:
    """The check step's script, run in `tmp_path` (no build there: articles are built in
    memory) with `reportgen` on PATH running this checkout."""
    bin_dir = _bin(tmp_path, "reportgen", f'exec "{sys.executable}" -m reportgen "$@"')
    summary = tmp_path / "step-summary.md"
    summary.write_text("")
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "HOME": str(tmp_path),
        "REPORTGEN_CACHE_DIR": os.environ.get("REPORTGEN_CACHE_DIR", str(tmp_path / "cache")),
        "GITHUB_STEP_SUMMARY": str(summary),
        "INPUT_ARTICLES": articles,
        "INPUT_PUBLISHED": published,
        "INPUT_STRICT": strict,
    }
    step = _step("Check the articles")
    assert set(step["env"]) == {"INPUT_ARTICLES", "INPUT_PUBLISHED", "INPUT_STRICT"}
    done = subprocess.run(
        ["bash", "-c", step["run"]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done, summary.read_text()


def _rows(table: str) -> list[list[str]]:
    lines = [line for line in table.splitlines() if line.startswith("| ")]
    return [[c.strip() for c in line[1:-1].split("|")] for line in lines[2:]]


def test_no_input_is_spliced_into_a_script() -> None:
    # ${{ inputs.x }} in a run: would make a workflow's input part of the script (injection);
    # inputs go through env: only.
    scripts = [s["run"] for s in STEPS if "run" in s]
    assert len(scripts) == 2
    assert not [s for s in scripts if "${{" in s]
    for step in STEPS:
        if "uses" in step:  # a pinned commit, not a tag that can move
            ref = step["uses"].split("@", 1)[1]
            assert len(ref) == 40 and all(c in "0123456789abcdef" for c in ref)


@pytest.mark.process
@pytest.mark.parametrize(
    ("version", "installs"), [("0.1.0", "reportgen-bench==0.1.0"), ("", "/the/action")]
)
def test_the_install_step_installs_the_version_or_the_action(
    tmp_path: Path, version: str, installs: str
) -> None:
    log = tmp_path / "calls"
    bin_dir = _bin(tmp_path, "python", f'echo "python $*" >> "{log}"')
    _bin(tmp_path, "reportgen", f'echo "reportgen $*" >> "{log}"')
    step = _step("Install reportgen")
    env = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin", "INPUT_VERSION": version}
    env["ACTION_PATH"] = "/the/action"
    assert set(step["env"]) == {"INPUT_VERSION", "ACTION_PATH"}
    subprocess.run(["bash", "-c", step["run"]], env=env, check=True, timeout=30)
    assert log.read_text().splitlines() == [
        f"python -m pip install --disable-pip-version-check {installs}",
        "reportgen --version",
    ]


@pytest.mark.process
def test_a_good_article_passes_with_annotations_and_a_summary(tmp_path: Path) -> None:
    article = tmp_path / PAITON.name
    shutil.copytree(PAITON, article)
    done, table = _run_check(tmp_path, f"{PAITON.name}\n")
    assert done.returncode == 0, done.stdout + done.stderr
    expected = check_article(article)
    lines = done.stdout.splitlines()
    # the acknowledged data findings are notices, each at its place in its run file
    notices = [line for line in lines if line.startswith(f"::notice file={PAITON.name}/")]
    assert len(notices) == len(expected.findings) > 0
    assert all(",line=" in n and "title=reportgen lint " in n for n in notices)
    assert not [line for line in lines if line.startswith(("::error", "::warning"))]
    assert lines[-1].startswith("PASS: ")
    rows = _rows(table)
    assert [r[1] for r in rows] == [
        f"build: {PAITON.name} (built in memory)",
        f"{PAITON.name}/published/{PAITON.name}.txt",
        "data lints of the run files",
    ]
    for row, source in zip(rows, expected.sources, strict=False):
        assert row[3] == str(source.matched) and row[5] == "pass"
    assert rows[2][5] == f"pass: 0 error(s), {len(expected.findings)} warning(s) " + (
        f"({len(expected.findings)} acknowledged)"
    )


def _broken_copy(tmp_path: Path) -> tuple[Path, int]:
    """The measured article's plain copy with its first table cell's last digit changed; and
    the line it is on."""
    built, _ = built_article(MEASURED)
    table = table_of(built.tables[0])
    label, cells = table.rows[0]
    row = "\t".join((label, *cells))
    wrong = cells[0][:-1] + str((int(cells[0][-1]) + 1) % 10)
    lines = plain_copy(MEASURED).split("\n")
    at = lines.index(row)
    lines[at] = "\t".join((label, wrong, *cells[1:]))
    copy = tmp_path / "post.txt"
    copy.write_text("\n".join(lines))
    return copy, at + 1


@pytest.mark.process
def test_a_mismatching_copy_fails_at_its_line_and_the_table_says_so(tmp_path: Path) -> None:
    shutil.copytree(MEASURED, tmp_path / MEASURED.name)
    copy, line = _broken_copy(tmp_path)
    done, table = _run_check(tmp_path, MEASURED.name, published=copy.name)
    assert done.returncode == 1
    errors = [x for x in done.stdout.splitlines() if x.startswith("::error ")]
    assert errors == [x for x in errors if x.startswith(f"::error file=post.txt,line={line},")]
    assert any("title=reportgen mismatch::" in x for x in errors)
    assert done.stdout.splitlines()[-1].startswith("FAIL: ")
    rows = {r[1]: r for r in _rows(table)}
    assert rows["post.txt"][4] == "1 / 0"
    assert rows["post.txt"][5].startswith("FAIL: 1 mismatched")
    assert rows[f"build: {MEASURED.name} (built in memory)"][5] == "pass"


@pytest.mark.process
def test_two_articles_make_one_table_and_the_worst_exit(tmp_path: Path) -> None:
    shutil.copytree(MEASURED, tmp_path / MEASURED.name)
    (tmp_path / "empty").mkdir()
    done, table = _run_check(tmp_path, f"empty  {MEASURED.name}")
    assert done.returncode == 2  # the folder without article.toml is unusable input
    assert table.count("| article |") == 1
    articles = [r[0] for r in _rows(table)]
    assert articles[0] == "empty" and MEASURED.name in articles
    assert _rows(table)[0][5].startswith("ERROR: ")


@pytest.mark.process
def test_published_copies_with_several_articles_are_refused(tmp_path: Path) -> None:
    done, table = _run_check(tmp_path, "a b", published="post.md")
    assert done.returncode == 2 and table == ""
    assert done.stdout.startswith("::error title=reportgen::'published' copies need exactly one")


@pytest.mark.process
def test_strict_is_passed_on_and_checked(tmp_path: Path) -> None:
    shutil.copytree(PAITON, tmp_path / PAITON.name)
    done, _ = _run_check(tmp_path, PAITON.name, strict="true")
    assert done.returncode == 0 and done.stdout.splitlines()[-1].endswith("(strict)")
    done, _ = _run_check(tmp_path, PAITON.name, strict="yes")
    assert done.returncode == 2 and "must be true or false" in done.stdout
