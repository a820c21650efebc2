"""Problems and the one exception type that carries them.

Every stage reports bad input as `Problem` values (file, JSON pointer, line:column, message) and
raises `InputError` when it cannot go on. Rendering problems as text or JSON is the CLI's job.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from reportgen.terminal import one_line

Severity = Literal["error", "warning"]


@dataclass(frozen=True, order=True)
class Problem:
    """One located problem in one input file."""

    path: str
    line: int
    col: int
    pointer: str
    message: str
    severity: Severity = "error"

    def format(self) -> str:
        """Render as `path:line:col /pointer: message` (warnings say so)."""
        pointer = self.pointer or "/"
        prefix = "warning: " if self.severity == "warning" else ""
        text = f"{self.path}:{self.line}:{self.col} {pointer}: {prefix}{self.message}"
        # Paths, keys and quoted values come from files: print them as data (a lone surrogate,
        # "\ud800" in the JSON, cannot be printed at all; escapes would act on the terminal).
        return one_line(text)

    def as_json(self) -> dict[str, object]:
        """The problem as a JSON-ready mapping."""
        return {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "pointer": self.pointer or "/",
            "severity": self.severity,
            "message": self.message,
        }


class InputError(Exception):
    """Bad input: one or more located problems. The CLI turns this into exit code 2."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(sorted(problems))
        super().__init__("\n".join(p.format() for p in self.problems))


def has_errors(problems: Iterable[Problem]) -> bool:
    """True when any problem is an error rather than a warning."""
    return any(p.severity == "error" for p in problems)
