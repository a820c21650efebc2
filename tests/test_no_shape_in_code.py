"""No article's shape lives in code: the bundled article's contexts, concurrency levels, model,
GPU and engine appear in reportgen/ and templates/ nowhere (the reconstruction of that one
article, off the main path, excepted). They come from article.toml and the run files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAITON = ROOT / "runs" / "paiton-kimi-k3.1-pro"

# The bundled article's shape, as code would spell it.
FORBIDDEN = [
    r"\b(8|32|64|128)K\b",  # its context labels
    r"\b(8192|32768|65536|131072)\b",  # its contexts in tokens
    r"\bc(2|4|8|16)\b",  # its concurrency levels as id parts
    r"\b16 requests\b",
    r"Kimi",
    r"moonshotai",
    r"Paiton",
    r"MI355X",
    r"EPYC",
    r"DSpark",
]


def _code_files() -> list[Path]:
    files = [p for p in (ROOT / "reportgen").rglob("*.py") if "reconstruct" not in p.parts]
    return files + sorted((ROOT / "templates").iterdir())


@pytest.mark.slow
def test_the_bundled_articles_shape_is_not_in_code() -> None:
    found = []
    for path in _code_files():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for pattern in FORBIDDEN:
                if re.search(pattern, line):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {pattern}: {line.strip()}")
    assert found == []


def test_the_patterns_would_catch_it() -> None:
    manifest = (PAITON / "article.toml").read_text(encoding="utf-8")
    for pattern in (r"Paiton", r"MI355X", r"moonshotai", r"\b(8|32|64|128)K\b"):
        assert re.search(pattern, manifest), pattern
