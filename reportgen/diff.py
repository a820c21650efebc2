"""Diff stage: two sets of metric values in (metrics.json files, build folders or article
folders), changes out.

Says which reported numbers moved when runs were re-collected, by how much, whether that is
better or worse by each metric's direction, and which would change as the article displays them;
`failures` applies a pull request's `--fail-on` rules. A metrics.json is validated against
`schemas/metrics.schema.json` when it is read back, every problem located at its line.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from reportgen.errors import InputError, Problem
from reportgen.fileio import read_input
from reportgen.formats.json_input.document import parse_json
from reportgen.formats.schema.validate import check, schema_version
from reportgen.metrics.display import Display, display_of, format_number
from reportgen.metrics.registry import DEFINITIONS, SPREAD_STATS

Change = Literal["added", "removed", "up", "down", "same"]


@dataclass(frozen=True)
class Side:
    """One metric as one side of the diff has it."""

    value: float
    unit: str
    key: str  # registry key, for the display precision
    stat: str | None = None


@dataclass(frozen=True, kw_only=True)
class Moved:
    """One metric id's change between OLD and NEW."""

    id: str
    change: Change
    old: float | None
    new: float | None
    unit: str
    old_shown: str | None
    new_shown: str | None
    shown_unit: str = ""  # the unit of `old_shown` and `new_shown`: the article's (ms for a TTFT)

    @property
    def delta(self) -> float | None:
        return None if self.old is None or self.new is None else self.new - self.old

    @property
    def relative(self) -> float | None:
        if self.delta is None or not self.old:
            return None
        return self.delta / abs(self.old)

    key: str = ""  # registry key, for the metric's direction

    @property
    def display_changes(self) -> bool:
        return self.old_shown != self.new_shown

    @property
    def verdict(self) -> Literal["better", "worse", ""]:
        """Better or worse by the metric's direction (throughput up, latency down); "" when it
        has none, did not move, or is on one side only."""
        definition = DEFINITIONS.get(self.key)
        if definition is None or definition.better is None or self.change not in ("up", "down"):
            return ""
        if self.id.rpartition(".")[2] in SPREAD_STATS:  # a wider spread is no better or worse
            return ""
        return "better" if (self.change == "up") == (definition.better == "higher") else "worse"


def _display(side: Side) -> Display | None:
    try:
        return display_of(side.key, side.stat)
    except KeyError:  # a metric this version does not know, or a comparison
        return None


def _shown(side: Side | None) -> str | None:
    """The value as the article's tables show it (in the unit of `_shown_unit`)."""
    if side is None:
        return None
    display = _display(side)
    return f"{side.value:.6g}" if display is None else format_number(side.value, display)


def _shown_unit(side: Side) -> str:
    """The unit the article shows the metric in (ms for a time it shows in ms), else its own."""
    display = _display(side)
    return side.unit if display is None else display.unit


@dataclass(frozen=True)
class LoadedSide:
    """One side of the diff as read: its metrics by id, and the warnings met reading them."""

    metrics: dict[str, Side]
    warnings: tuple[Problem, ...] = ()


def load_side(path: Path) -> LoadedSide:
    """Metric values of a metrics.json file, or computed from an article folder."""
    if path.is_dir():
        from reportgen.article.rundata import article_metrics
        from reportgen.article.source.manifest import MANIFEST
        from reportgen.formats.load import folder_run_files, load
        from reportgen.metrics.compute import compute

        if (path / MANIFEST).is_file():
            _, metrics = article_metrics(path)
            return LoadedSide({v.id: Side(v.value, v.unit, v.key, v.stat) for v in metrics.values})
        if (path / "metrics.json").is_file():  # a build folder
            return load_side(path / "metrics.json")
        result = load(folder_run_files(path))
        if not result.ok:
            raise InputError(result.problems)
        values = compute(result.runs).values
        return LoadedSide({v.id: Side(v.value, v.unit, v.key, v.stat) for v in values})
    return _read_metrics_json(path)


METRICS_SCHEMA = "metrics"  # schemas/metrics.schema.json
UNVERSIONED = 1  # the layout of a metrics.json written before it carried `schema_version`


def _read_metrics_json(path: Path) -> LoadedSide:
    """A metrics.json validated against its schema (every problem located). One without
    `schema_version`, written before reportgen recorded it, is read as `UNVERSIONED` with a
    warning: that is its layout, and it is most often the OLD side of the first diff after an
    upgrade, which refusing it would make impossible."""
    doc = parse_json(str(path), read_input(path, "run"))
    data, warnings = doc.data, []
    known = schema_version(METRICS_SCHEMA)
    version = data.get("schema_version")
    if "schema_version" not in data:
        if "metrics" not in data:
            raise InputError([doc.problem("", "not a metrics.json: no schema_version, no metrics")])
        said = f"no schema_version: written by an older reportgen; read as version {UNVERSIONED}"
        warnings.append(doc.problem("", said, "warning"))
        data = {"schema_version": UNVERSIONED, **data}
    elif isinstance(version, int) and not isinstance(version, bool) and version > known:
        said = f"schema_version {version}: written by a newer reportgen; this one reads {known}"
        raise InputError([doc.problem("/schema_version", said)])
    problems = [doc.problem(p.pointer, p.message) for p in check(METRICS_SCHEMA, data)]
    if problems:
        raise InputError(problems)
    out = {}
    for i, m in enumerate(data["metrics"]):
        value = _float(m["value"])
        if value is None:
            raise InputError([doc.problem(f"/metrics/{i}/value", _NOT_FINITE)])
        # `definition` names the registry entry, and so the display precision.
        out[m["id"]] = Side(value, m["unit"], m["definition"], m.get("statistic"))
    return LoadedSide(out, tuple(warnings))


_NOT_FINITE = "a metric's value must be a finite number that fits a 64-bit float"


def _float(value: int | float) -> float | None:
    """`value` as a finite float; None for 1e999 (read as inf) or an integer beyond a float."""
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


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
                id=mid,
                change=change,
                old=None if a is None else a.value,
                new=None if b is None else b.value,
                unit=either.unit,
                old_shown=_shown(a),
                new_shown=_shown(b),
                shown_unit=_shown_unit(either),
                key=either.key,
            )
        )
    return tuple(out)


@dataclass(frozen=True)
class FailOn:
    """A `--fail-on` rule: metrics that got worse by more than `worse` (relative), or removed."""

    worse: float | None = None
    removed: bool = False


def parse_fail_on(text: str) -> FailOn:
    """`worse`, `worse:5%`, `removed`, or several joined by commas; ValueError says what is
    wrong."""
    worse: float | None = None
    removed = False
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, _, amount = part.partition(":")
        if name == "removed" and not amount:
            removed = True
        elif name == "worse":
            if not amount:
                worse = 0.0
                continue
            number = amount.removesuffix("%")
            try:
                value = float(number)
            except ValueError:
                raise ValueError(
                    f"{part!r}: the threshold must be a percentage, e.g. worse:5%"
                ) from None
            if not amount.endswith("%") or not math.isfinite(value) or value < 0:
                raise ValueError(f"{part!r}: the threshold must be a percentage, e.g. worse:5%")
            worse = value / 100
        else:
            raise ValueError(f"{part!r}: expected worse, worse:PCT% or removed")
    if worse is None and not removed:
        raise ValueError("give at least one rule: worse, worse:PCT% or removed")
    return FailOn(worse, removed)


def failures(moved: tuple[Moved, ...], rule: FailOn) -> tuple[Moved, ...]:
    """The metrics that break `rule`. A change that does not change the displayed value never
    breaks a `worse` rule: the article would not show it."""
    out = []
    for m in moved:
        if rule.removed and m.change == "removed":
            out.append(m)
        elif rule.worse is not None and m.verdict == "worse" and m.display_changes:
            size = abs(m.relative) if m.relative is not None else math.inf
            if size > rule.worse:
                out.append(m)
    return tuple(out)


def _row(m: Moved) -> str:
    rel = f"{m.relative:+.1%}" if m.relative is not None else ""
    return (
        f"{m.id:<44} {m.change:<7} {m.old_shown or '-':>10} -> {m.new_shown or '-':<10} "
        f"{m.shown_unit:<6} {rel:>7}  {m.verdict}".rstrip()
    )


def to_text(
    moved: tuple[Moved, ...], *, all_rows: bool = False, failed: tuple[Moved, ...] = ()
) -> str:
    """What moved as the article shows it, then the changes at full precision only (which the
    article would not show); `all_rows` lists unchanged metrics too; `failed` are marked."""
    shown = [m for m in moved if m.display_changes or (all_rows and m.change == "same")]
    hidden = [m for m in moved if m.change in ("up", "down") and not m.display_changes]
    bad = {m.id for m in failed}
    lines = [("FAIL " if m.id in bad else "") + _row(m) for m in shown]
    if hidden:
        lines.append(f"changed at full precision only, not as displayed ({len(hidden)}):")
        lines += [f"  {_row(m)}" for m in hidden]
    changed = sum(m.display_changes for m in moved)
    lines.append(
        f"{len(moved)} metrics: {sum(m.change == 'up' for m in moved)} up, "
        f"{sum(m.change == 'down' for m in moved)} down, {sum(m.change == 'same' for m in moved)} "
        f"unchanged, {sum(m.change == 'added' for m in moved)} added, "
        f"{sum(m.change == 'removed' for m in moved)} removed; {changed} would change as displayed "
        f"({sum(m.verdict == 'better' and m.display_changes for m in moved)} better, "
        f"{sum(m.verdict == 'worse' and m.display_changes for m in moved)} worse)"
    )
    if failed:
        lines.append(f"FAIL: {len(failed)} metric(s) break --fail-on")
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
                        "shown_unit": m.shown_unit,
                        "display_changes": m.display_changes,
                        "verdict": m.verdict or None,
                    }
                    for m in moved
                ]
            },
            indent=2,
            allow_nan=False,
        )
        + "\n"
    )
