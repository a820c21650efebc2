"""Diff stage: two sets of metric values in (metrics.json files or article folders), changes out.

Says which reported numbers moved when runs were re-collected, by how much and in which
direction, and which would change as the article displays them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from reportgen.errors import InputError
from reportgen.files import read_input
from reportgen.formats.jsonfile import parse_json
from reportgen.metrics.display import display_of, format_number

Change = Literal["added", "removed", "up", "down", "same"]


@dataclass(frozen=True)
class Side:
    """One metric as one side of the diff has it."""

    value: float
    unit: str
    key: str  # registry key, for the display precision
    stat: str | None = None


@dataclass(frozen=True)
class Moved:
    """One metric id's change between OLD and NEW."""

    id: str
    change: Change
    old: float | None
    new: float | None
    unit: str
    old_shown: str | None
    new_shown: str | None

    @property
    def delta(self) -> float | None:
        return None if self.old is None or self.new is None else self.new - self.old

    @property
    def relative(self) -> float | None:
        if self.delta is None or not self.old:
            return None
        return self.delta / abs(self.old)

    @property
    def display_changes(self) -> bool:
        return self.old_shown != self.new_shown


def _shown(side: Side | None) -> str | None:
    if side is None:
        return None
    try:
        display = display_of(side.key, side.stat)
    except KeyError:  # a metric this version does not know, or a comparison
        return f"{side.value:.6g}"
    return format_number(side.value, display)


def load_side(path: Path) -> dict[str, Side]:
    """Metric values of a metrics.json file, or computed from an article folder."""
    if path.is_dir():
        from reportgen.article.data import article_metrics
        from reportgen.article.manifest import MANIFEST
        from reportgen.formats.load import folder_run_files, load
        from reportgen.metrics import compute

        if (path / MANIFEST).is_file():
            _, metrics = article_metrics(path)
            return {v.id: Side(v.value, v.unit, v.key, v.stat) for v in metrics.values}
        result = load(folder_run_files(path))
        if not result.ok:
            raise InputError(result.problems)
        return {v.id: Side(v.value, v.unit, v.key, v.stat) for v in compute(result.runs).values}
    doc = parse_json(str(path), read_input(path, "run"))
    listed = doc.data.get("metrics")
    if not isinstance(listed, list):
        raise InputError([doc.problem("", "not a metrics.json: no `metrics` list")])
    out = {}
    for i, m in enumerate(listed):
        ok = (
            isinstance(m, dict)
            and isinstance(m.get("id"), str)
            and isinstance(m.get("value"), int | float)
            and not isinstance(m.get("value"), bool)
        )
        if not ok:
            raise InputError([doc.problem(f"/metrics/{i}", "a metric needs an id and a value")])
        # `definition` names the registry entry, and so the display precision.
        stat = m.get("statistic")
        out[m["id"]] = Side(
            float(m["value"]),
            str(m.get("unit", "")),
            str(m.get("definition")),
            stat if isinstance(stat, str) else None,
        )
    return out


def diff(old: dict[str, Side], new: dict[str, Side]) -> tuple[Moved, ...]:
    """Every metric id of either side, with its change (pure)."""
    out = []
    for mid in sorted(old.keys() | new.keys()):
        a, b = old.get(mid), new.get(mid)
        if a is None or b is None:
            change: Change = "added" if a is None else "removed"
        else:
            change = "up" if b.value > a.value else "down" if b.value < a.value else "same"
        either = b or a
        assert either is not None
        out.append(
            Moved(
                mid,
                change,
                None if a is None else a.value,
                None if b is None else b.value,
                either.unit,
                _shown(a),
                _shown(b),
            )
        )
    return tuple(out)


def to_text(moved: tuple[Moved, ...], *, all_rows: bool = False) -> str:
    """A table of what moved; `all_rows` lists unchanged metrics too."""
    rows = [m for m in moved if all_rows or m.change != "same"]
    lines = []
    for m in rows:
        rel = f"{m.relative:+.1%}" if m.relative is not None else ""
        flag = (
            "  display changes"
            if m.display_changes and m.change not in ("added", "removed")
            else ""
        )
        lines.append(
            f"{m.id:<44} {m.change:<7} {m.old_shown or '-':>10} -> {m.new_shown or '-':<10} "
            f"{m.unit:<6} {rel:>7}{flag}"
        )
    changed = sum(m.display_changes for m in moved)
    lines.append(
        f"{len(moved)} metrics: {sum(m.change == 'up' for m in moved)} up, "
        f"{sum(m.change == 'down' for m in moved)} down, {sum(m.change == 'same' for m in moved)} "
        f"unchanged, {sum(m.change == 'added' for m in moved)} added, "
        f"{sum(m.change == 'removed' for m in moved)} removed; {changed} would change as displayed"
    )
    return "\n".join(lines) + "\n"


def _finite(x: float | None) -> float | None:
    """`x`, or None when it is not a finite number (a difference that overflowed)."""
    return x if x is not None and math.isfinite(x) else None


def to_json(moved: tuple[Moved, ...]) -> str:
    """The diff as JSON (strict JSON: a difference too large for a float is null)."""
    return (
        json.dumps(
            {
                "metrics": [
                    {
                        "id": m.id,
                        "change": m.change,
                        "old": m.old,
                        "new": m.new,
                        "unit": m.unit,
                        "delta": _finite(m.delta),
                        "relative": _finite(m.relative),
                        "old_shown": m.old_shown,
                        "new_shown": m.new_shown,
                        "display_changes": m.display_changes,
                    }
                    for m in moved
                ]
            },
            indent=2,
            allow_nan=False,
        )
        + "\n"
    )
