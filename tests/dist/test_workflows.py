"""The GitHub workflows (.github/workflows/) and the composite action (action.yml, when there is
one): audited by zizmor, offline, with no finding allowed; and the release's publishing rules
held (only the publish job may ask for an OIDC token, every action pinned by commit)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
AUDITED = WORKFLOWS + [p for p in (ROOT / "action.yml",) if p.is_file()]


def _zizmor() -> str:
    found = shutil.which("zizmor", path=str(Path(sys.executable).parent)) or shutil.which("zizmor")
    if found is None:
        pytest.fail("zizmor is not installed: pip install -e '.[dev]'", pytrace=False)
    return found


def test_the_release_and_ci_workflows_are_there() -> None:
    assert {p.name for p in WORKFLOWS} >= {"release.yml", "ci.yml"}


def _where(finding: dict[str, Any]) -> str:
    """A zizmor finding as `ident: description (file:line)`."""
    first = finding["locations"][0]
    path = first["symbolic"]["key"].get("Local", {}).get("verbatim_path", "?")
    row = first["concrete"]["location"]["start_point"]["row"] + 1
    return f"{finding['ident']}: {finding['desc']} ({path}:{row})"


def audit(paths: list[Path]) -> list[str]:
    """zizmor's findings in these files, offline, at its default persona, each as `_where`."""
    done = subprocess.run(
        [_zizmor(), "--offline", "--format", "json", "--no-progress", *map(str, paths)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    if not done.stdout.strip():
        pytest.fail(f"zizmor exited {done.returncode} with no report: {done.stderr}", pytrace=False)
    return [_where(finding) for finding in json.loads(done.stdout)]


@pytest.mark.process
def test_zizmor_finds_nothing_in_the_workflows_and_the_action() -> None:
    assert audit(AUDITED) == []


@pytest.mark.process
def test_zizmor_names_what_it_finds(tmp_path: Path) -> None:
    """The audit above can fail: a workflow that runs a pull request's title as shell code."""
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "name: bad\non: pull_request\npermissions: {}\njobs:\n  greet:\n    name: greet\n"
        "    runs-on: ubuntu-24.04\n    steps:\n"
        '      - run: echo "${{ github.event.pull_request.title }}"\n',
        encoding="utf-8",
    )
    found = audit([bad])
    assert [line.split(":")[0] for line in found] == ["template-injection"]
    assert found[0].endswith(f"({bad}:9)")


def _jobs(text: str) -> dict[str, str]:
    """Each job of a workflow and its lines (jobs are the keys indented two spaces)."""
    body = text.split("\njobs:\n", 1)[1]
    parts = re.split(r"^  ([\w-]+):\n", body, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_only_the_publish_job_may_ask_for_an_oidc_token() -> None:
    text = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    assert "\npermissions: {}\n" in text  # nothing by default; each job asks for its own
    assert "pull_request_target" not in text
    jobs = _jobs(text)
    assert [name for name, lines in jobs.items() if "id-token: write" in lines] == ["publish"]
    publish = jobs["publish"]
    assert "environment:\n      name: pypi\n" in publish
    assert "pypa/gh-action-pypi-publish@" in publish and "password:" not in publish
    assert "needs: [build, wheel]" in publish  # only a tested wheel is published


def test_every_action_is_pinned_by_commit() -> None:
    uses = [
        (path.name, ref)
        for path in AUDITED
        for ref in re.findall(r"uses:\s*(\S+)", path.read_text(encoding="utf-8"))
    ]
    assert uses, "no action used at all"
    pinned = re.compile(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}|\./.*")  # a local action is its own commit
    loose = [(name, ref) for name, ref in uses if not pinned.fullmatch(ref)]
    assert loose == []
