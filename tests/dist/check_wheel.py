"""The built distribution as a user gets it: the wheel installed into a fresh virtualenv, used from
an empty folder outside the clone, and the sdist's list of files.

Not collected by a plain `pytest` (the file is not named test_*.py, as tests/realtools/ is kept
out): creating a virtualenv and installing the wheel's dependencies takes a minute or more.
`make dist-test` builds dist/ and runs it:

    .venv/bin/pytest tests/dist/check_wheel.py

DIST_DIR names another folder of built files (default: dist/ of this clone); DIST_PYTHON the
Python the virtualenv is made with (default: the one running the tests), so a release can try
each Python version it claims.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

import reportgen

ROOT = Path(__file__).resolve().parents[2]
DIST = Path(os.environ.get("DIST_DIR", ROOT / "dist"))
PYTHON = os.environ.get("DIST_PYTHON", sys.executable)
STEM = f"reportgen_bench-{reportgen.__version__}"
# A real GuideLLM run (tests/realtools/README.md says how it was made): one load point, small.
RUN_FILE = ROOT / "tests" / "data" / "realtools" / "guidellm" / "c1" / "benchmarks.json"


def _built(name: str) -> Path:
    path = DIST / name
    if not path.is_file():
        pytest.fail(f"{path} is missing: build it first (make dist)", pytrace=False)
    return path


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Run a command and return its output; fail with both streams when it exits non-zero."""
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.fail(
            f"{' '.join(argv)} exited {done.returncode}\n{done.stdout}\n{done.stderr}",
            pytrace=False,
        )
    return done.stdout


class Installed:
    """A fresh virtualenv with the wheel installed, and an environment that sees only it."""

    def __init__(self, venv: Path, cache: Path) -> None:
        self.bin = venv / "bin"
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env["PATH"] = f"{self.bin}{os.pathsep}{env.get('PATH', '')}"
        env["REPORTGEN_CACHE_DIR"] = str(cache)  # charts drawn here, never in ~/.cache
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        self.env = env

    def run(self, *argv: str, cwd: Path) -> str:
        return _run([str(self.bin / argv[0]), *argv[1:]], cwd, self.env)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    wheel = _built(f"{STEM}-py3-none-any.whl")
    venv = tmp_path_factory.mktemp("venv")
    _run([PYTHON, "-m", "venv", str(venv)], venv, dict(os.environ))
    env = Installed(venv, tmp_path_factory.mktemp("cache"))
    # The dependencies come from the package index (or pip's cache), as for a user.
    env.run("python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
            str(wheel), cwd=venv)  # fmt: skip
    return env


def test_the_wheel_installs_the_command_that_names_its_distribution(
    installed: Installed, tmp_path: Path
) -> None:
    lines = installed.run("reportgen", "--version", cwd=tmp_path).splitlines()
    assert lines[0] == f"reportgen {reportgen.__version__} (reportgen-bench)"
    assert lines[2].startswith("WeasyPrint ") and lines[3].startswith("matplotlib ")
    assert "not installed" not in "\n".join(lines)


def test_the_installed_package_finds_its_data_inside_itself(
    installed: Installed, tmp_path: Path
) -> None:
    code = (
        "import reportgen, reportgen.resources as r, reportgen.article.pdf.render as p\n"
        "print(reportgen.__file__, r.template_dir(), r.schema_dir(), p.font_dir(), sep='\\n')"
    )
    package, templates, schemas, fonts = installed.run(
        "python", "-c", code, cwd=tmp_path
    ).splitlines()
    inside = Path(package).parent
    assert "site-packages" in inside.parts and ROOT not in inside.parents
    assert Path(templates) == inside / "templates" and (Path(templates) / "article.css").is_file()
    assert Path(schemas) == inside / "schemas" and any(Path(schemas).glob("*.schema.json"))
    assert "site-packages" in Path(fonts).parts


def test_init_build_and_check_from_an_empty_folder_outside_the_clone(
    installed: Installed, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    assert ROOT not in work.parents
    shutil.copy(RUN_FILE, work / "benchmarks.json")
    installed.run("reportgen", "init", "article", "--from", "benchmarks.json", cwd=work)
    assert (work / "article" / "article.toml").is_file()
    installed.run("reportgen", "build", "article", "--out", "site", cwd=work)
    built = work / "site" / "article"
    for name in ("index.html", "article.pdf", "metrics.json"):
        assert (built / name).stat().st_size > 0, name
    assert (built / "article.pdf").read_bytes().startswith(b"%PDF-")
    out = installed.run(
        "reportgen", "check", "article",
        "--published", str(built / "index.html"), "--published", str(built / "article.pdf"),
        cwd=work,
    )  # fmt: skip
    last = out.splitlines()[-1]
    assert last.startswith("PASS: ") and " 0 mismatched, 0 unverified, 0 missing" in last


def _sdist_files() -> set[str]:
    with tarfile.open(_built(f"{STEM}.tar.gz")) as sdist:
        names = sdist.getnames()
    prefix = f"{STEM}/"
    assert all(name.startswith(prefix) for name in names)
    return {name.removeprefix(prefix) for name in names}


def test_the_sdist_holds_the_docs_the_tests_the_data_and_the_license() -> None:
    files = _sdist_files()
    for folder in ("docs", "tests", "schemas", "templates", "runs", "reportgen"):
        assert any(name.startswith(f"{folder}/") for name in files), folder
    for name in ("LICENSE", "README.md", "CONTRIBUTING.md", "Makefile", "pyproject.toml"):
        assert name in files, name


def test_the_sdist_holds_every_file_git_tracks() -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git clone (an unpacked sdist): nothing to compare with")
    tracked = _run(["git", "ls-files", "-z"], ROOT, dict(os.environ)).split("\0")
    missing = sorted(set(filter(None, tracked)) - _sdist_files())
    assert missing == [], "files git tracks that the sdist leaves out"
