"""The PDF is the same bytes in any process, at any time, with either font subsetter, with or
without the machine's own fonts.

Each build runs in a fresh process with SOURCE_DATE_EPOCH unset, so the build's own date is what
every stage stamps. The two builds compared start 2.1 s apart, so a wall-clock second would show;
they overlap, so the wait is spent building.
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


def _start(
    out: Path, subsetter: str, extra_env: dict[str, str] | None = None
) -> subprocess.Popen[str]:
    """A build of the small article into `out`, in a fresh process, under way."""
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    env.update({"PYTHONPATH": str(ROOT), **(extra_env or {})})
    return subprocess.Popen(
        [sys.executable, "-c", BUILD, subsetter, str(out), str(SMALL)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _finish(build: subprocess.Popen[str], out: Path) -> tuple[str, bytes]:
    """The subsetter the build used, and its PDF."""
    try:
        stdout, stderr = build.communicate(timeout=300)
    finally:
        build.kill()
    assert build.returncode == 0, stderr
    return stdout.strip(), (out / SMALL.name / "article.pdf").read_bytes()


def _has_harfbuzz_subset() -> bool:
    """Whether WeasyPrint found HarfBuzz's subsetter here (asked in this process, which may
    import WeasyPrint: the module's tests are marked pdf)."""
    import reportgen.article.pdf.render  # noqa: F401 -- imports WeasyPrint, quietly

    # isort: split
    import weasyprint.text.ffi as ffi

    return ffi.harfbuzz_subset is not None


def _no_fonts(tmp_path: Path) -> dict[str, str]:
    """The environment of a machine with no fonts at all: a fontconfig that knows none."""
    empty = tmp_path / "fonts.conf"
    empty.write_text(
        '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">'
        f"<fontconfig><cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>"
    )
    return {"FONTCONFIG_FILE": str(empty)}


@pytest.mark.parametrize("subsetter", ["fonttools", "harfbuzz"])
def test_a_build_later_in_another_process_without_the_machines_fonts_is_the_same_pdf(
    tmp_path: Path, subsetter: str
) -> None:
    """Two fresh processes 2.1 s apart, the second on a machine with no fonts: one PDF. A
    difference is in time, process state or fonts; the README's claim holds only with none."""
    if subsetter == "harfbuzz" and not _has_harfbuzz_subset():
        pytest.skip("libharfbuzz-subset0 is not installed (make test installs it)")
    one = _start(tmp_path / "one", subsetter)
    time.sleep(2.1)
    two = _start(tmp_path / "two", subsetter, _no_fonts(tmp_path))
    (used, first), (used_too, second) = (
        _finish(one, tmp_path / "one"),
        _finish(two, tmp_path / "two"),
    )
    assert used == used_too == subsetter
    assert first == second
