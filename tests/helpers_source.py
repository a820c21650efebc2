"""Python source parsed once per test process, for the tests that read the repository's own code
(layering, references, keyword records, docstrings, the I/O guards, the lint registry).

Each of them walks every module; parsing them all costs about a second, and a worker may run
several of these tests. The trees are shared, so a test must read them and never change them.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path


@cache
def parsed(source: str) -> ast.Module:
    """`source`'s syntax tree, parsed on first use."""
    return ast.parse(source)


@cache
def read(path: Path) -> str:
    """The text of the source file at `path`, read on first use."""
    return path.read_text(encoding="utf-8")


@cache
def nodes(source: str) -> tuple[ast.AST, ...]:
    """Every node of `source`'s tree, in `ast.walk` order, listed once."""
    return tuple(ast.walk(parsed(source)))
