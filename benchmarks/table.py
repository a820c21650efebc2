"""Benchmark table: figures, their goals, recorded figures, and which regressed (issue 14 item 5).

Pure logic only so far: `rows` takes measured figures and recorded ones and returns table rows;
`render` formats them. The runner that collects figures from the benchmark scripts is not
written yet.
"""

from __future__ import annotations

from dataclasses import dataclass

REGRESSION = 1.10  # a figure more than 10% worse than the recorded one is named
WIDTH = 48  # the figure column: the longest figure name


@dataclass(frozen=True)
class Row:
    """One figure: its goal, what was measured, the recorded figure, and the verdicts."""

    name: str
    goal: float
    measured: float
    recorded: float | None

    @property
    def passed(self) -> bool:
        """Whether the measured figure is at or below its goal (lower is better)."""
        return self.measured <= self.goal

    @property
    def regressed(self) -> bool:
        """Whether the measured figure is more than 10% worse than the recorded one."""
        return self.recorded is not None and self.measured > self.recorded * REGRESSION


def rows(
    goals: dict[str, float], measured: dict[str, float], recorded: dict[str, float]
) -> list[Row]:
    """Rows for every measured figure that has a goal, in the goals' order."""
    return [
        Row(name, goal, measured[name], recorded.get(name))
        for name, goal in goals.items()
        if name in measured
    ]


def render(table: list[Row], color: bool) -> str:
    """The table as text; regressed figures marked REGRESSED, and red when `color`."""
    lines = [f"{'figure':<{WIDTH}} {'goal':>8} {'measured':>9} {'ratio':>7}  result"]
    for r in table:
        verdict = "pass" if r.passed else "FAIL"
        if r.regressed:
            verdict += f" REGRESSED (recorded {r.recorded:.3f})"
        line = f"{r.name:<{WIDTH}} {r.goal:>8.3f} {r.measured:>9.3f} {r.measured / r.goal:>7.2f}  "
        line += verdict
        lines.append(f"\033[31m{line}\033[0m" if color and r.regressed else line)
    return "\n".join(lines)
