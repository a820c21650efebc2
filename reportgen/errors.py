"""Problems and the one exception type that carries them.

Every stage reports bad input as `Problem` values (file, JSON pointer, line:column, message) and
raises `InputError` when it cannot go on. Rendering problems as text or JSON is the CLI's job.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from reportgen.terminal import one_line

Severity = Literal["error", "warning"]


@dataclass(frozen=True, order=True, kw_only=True)
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


def whole_file(path: str, message: str) -> Problem:
    """An error about a file (or folder) as a whole, placed at its start: line 1, column 1, no
    pointer."""
    return Problem(path=path, line=1, col=1, pointer="", message=message)


def did_you_mean(word: str, choices: Iterable[str], *, prefix: str = "") -> str:
    """ "; did you mean 'x'?" for the choice closest to a misspelled `word`, or "" when none is
    close: the hint every unknown name gets (a manifest key, a metric, a run file, a lint).
    With `prefix`, a part `word` and the choices share, only what follows it is compared."""
    rest = [c.removeprefix(prefix) for c in choices]
    close = difflib.get_close_matches(word.removeprefix(prefix), rest, n=1, cutoff=0.6)
    return f"; did you mean {prefix + close[0]!r}?" if close else ""


class InputError(Exception):
    """Bad input: one or more located problems. The CLI turns this into exit code 2."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        # sorted, and at most PER_FILE of each file with one that counts the rest
        self.problems: tuple[Problem, ...] = tuple(cap_problems(problems))
        super().__init__("\n".join(p.format() for p in self.problems))


def has_errors(problems: Iterable[Problem]) -> bool:
    """True when any problem is an error rather than a warning."""
    return any(p.severity == "error" for p in problems)


# How many problems of one file are kept and reported; the rest are counted, never held, and said
# in one last problem at the first one left out: "... and 299,990 more problems in this file".
# Explaining a problem costs far more than finding one (a schema violation is explained by
# jsonschema), so past the first PER_FILE a reader may stop explaining and count what it still
# finds more cheaply, a bad record as one problem: the count is then a lower bound, "at least".
PER_FILE = 100
_MORE = re.compile(r"\.\.\. and (at least )?([0-9,]+) more problems? in this file")


def more_problems(count: int, at_least: bool = False) -> str:
    """The message of the problem that stands for `count` problems left out (`at_least`: or more,
    when some were counted as one without being explained)."""
    bound = "at least " if at_least else ""
    plural = "s" if count != 1 else ""
    return f"... and {bound}{count:,} more problem{plural} in this file, from here on"


def counted(message: str) -> tuple[int, bool]:
    """How many problems a `more_problems` message stands for (0 for any other message), and
    whether that count is only a lower bound."""
    found = _MORE.match(message)
    return (int(found.group(2).replace(",", "")), bool(found.group(1))) if found else (0, False)


def left_out(problem: Problem) -> int:
    """How many problems `problem` stands for, when it is a `more_problems` one; else 0."""
    return counted(problem.message)[0]


def at_least(problem: Problem) -> bool:
    """True when `problem` stands for a count of problems that is only a lower bound."""
    return counted(problem.message)[1]


class Capped:
    """The problems of one file as they are found: the first `limit` kept, the others counted,
    so that memory stays bounded however many a file has."""

    def __init__(self, limit: int = PER_FILE) -> None:
        self.limit = limit
        self.kept: list[Problem] = []
        self.more = 0
        self.at_least = False  # `more` is a lower bound: some were counted without explaining
        self.first_left_out: Problem | None = None

    def add(self, problem: Problem) -> bool:
        """Keep or count `problem`; True when it was kept."""
        count, lower = counted(problem.message)
        if count == 0 and len(self.kept) < self.limit:
            self.kept.append(problem)
            return True
        self.more += count or 1
        self.at_least = self.at_least or lower
        if self.first_left_out is None:
            self.first_left_out = problem
        return False

    def count(self, problem: Problem) -> None:
        """Count one or more problems at `problem`'s place without explaining them (its message
        is not read): the count becomes a lower bound."""
        self.more += 1
        self.at_least = True
        if self.first_left_out is None:
            self.first_left_out = problem

    @property
    def full(self) -> bool:
        """True once `limit` problems are kept: any more are only counted."""
        return len(self.kept) >= self.limit

    def __bool__(self) -> bool:
        return bool(self.kept) or self.more > 0

    def problems(self) -> list[Problem]:
        """The kept problems, and one standing for those counted (at the first left out)."""
        if self.first_left_out is None:
            return list(self.kept)
        first = self.first_left_out
        return [
            *self.kept,
            Problem(
                path=first.path,
                line=first.line,
                col=first.col,
                pointer=first.pointer,
                message=more_problems(self.more, self.at_least),
                severity=first.severity,
            ),
        ]


def cap_problems(problems: Iterable[Problem], limit: int = PER_FILE) -> list[Problem]:
    """`problems` sorted, with at most `limit` of each file kept and one more that counts the
    others (counting those that earlier `more_problems` problems stood for)."""
    by_file: dict[str, Capped] = {}
    for p in sorted(problems, key=lambda p: (left_out(p) > 0, p)):
        by_file.setdefault(p.path, Capped(limit)).add(p)
    return sorted(p for capped in by_file.values() for p in capped.problems())
