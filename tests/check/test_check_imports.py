"""`reportgen check` builds an article's numbers without drawing charts or making a PDF, so a
check process never imports matplotlib or WeasyPrint (they are most of its start-up time)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import sys
from pathlib import Path
from reportgen.check.compare import check_article
result = check_article(Path(sys.argv[1]))
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("matplotlib", "weasyprint"))
print("FAILED" if result.failed else "ok", len(heavy), heavy[:3])
"""


@pytest.mark.process
def test_a_check_loads_neither_matplotlib_nor_weasyprint() -> None:
    article = ROOT / "runs" / "paiton-kimi-k3.1-pro"
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(article)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout.split()
    assert out[:2] == ["ok", "0"], out
