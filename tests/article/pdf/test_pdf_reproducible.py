"""The PDF is the same bytes in any process, at any time, with either font subsetter, with or
without the machine's own fonts.

Each build runs in a fresh process with SOURCE_DATE_EPOCH unset, so the build's own date is what
every stage stamps; builds are at least 2 s apart, so a wall-clock second would show.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.pdf, pytest.mark.process]  # PDFs built by fresh processes

ROOT = Path(__file__).resolve().parents[3]
SMALL = ROOT / "tests" / "articles" / "small"

BUILD = """
import sys
from pathlib import Path
force_fonttools, out = sys.argv[1] == "fonttools", Path(sys.argv[2])
import reportgen.article.pdf.render  # imports WeasyPrint (and silences its HarfBuzz import warning)
import weasyprint.pdf.fonts as fonts
if force_fonttools:
    fonts.harfbuzz_subset = None  # WeasyPrint then subsets with fontTools
print("harfbuzz" if fonts.harfbuzz_subset is not None else "fonttools")
from reportgen.article.build import build
build(Path(sys.argv[3]), out, {})
"""


def _build(out: Path, subsetter: str, extra_env: dict[str, str] | None = None) -> tuple[str, bytes]:
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    env.update({"PYTHONPATH": str(ROOT), **(extra_env or {})})
    done = subprocess.run(
        [sys.executable, "-c", BUILD, subsetter, str(out), str(SMALL)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip(), (out / SMALL.name / "article.pdf").read_bytes()


def _has_harfbuzz_subset() -> bool:
    probe = (
        "import reportgen.article.pdf.render, weasyprint.text.ffi as f; print(f.harfbuzz_subset)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    return done.returncode == 0 and done.stdout.strip() != "None"


@pytest.mark.parametrize("subsetter", ["fonttools", "harfbuzz"])
def test_two_builds_in_fresh_processes_give_the_same_pdf(tmp_path: Path, subsetter: str) -> None:
    if subsetter == "harfbuzz" and not _has_harfbuzz_subset():
        pytest.skip("libharfbuzz-subset0 is not installed (make test installs it)")
    used, first = _build(tmp_path / "one", subsetter)
    assert used == subsetter
    time.sleep(2.1)
    used, second = _build(tmp_path / "two", subsetter)
    assert used == subsetter
    assert first == second


def test_the_pdf_does_not_depend_on_the_machines_fonts(tmp_path: Path) -> None:
    empty = tmp_path / "fonts.conf"  # a fontconfig that knows no font at all
    empty.write_text(
        '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">'
        f"<fontconfig><cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>"
    )
    _, with_fonts = _build(tmp_path / "system", "fonttools")
    _, without = _build(tmp_path / "none", "fonttools", {"FONTCONFIG_FILE": str(empty)})
    assert with_fonts == without
