"""The axes of the data, as tables and charts lay them out: how a value of each axis is named,
in what order values come, and whether a value or cell passes a declaration's filter."""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Sequence
from typing import Protocol

from reportgen.article.source.declarations import ArticleSource, Where
from reportgen.model import Scalar, context_label
from reportgen.terminal import visible

KINDS = {"decode": "decode", "prefill": "prefill", "load": "load"}
# llama-bench's test lengths as its own output names them: pp512, tg128, and the depth as a context.
LLAMA_BENCH_LENGTHS = {
    "meta.n_prompt": lambda n: f"pp{n}",
    "meta.n_gen": lambda n: f"tg{n}",
    "meta.n_depth": context_label,
}
# A cell status in the words tables and prose use.
STATUS_WORDS = {
    "skipped_capacity": "skipped",
    "skipped_user": "skipped",
    "loop_detected": "invalid",
    "error": "failed",
    "failed": "failed",
    "ok": "measured",
}


class Placed(Protocol):
    """A metric value or a cell state: anything with coordinates."""

    def coord(self, axis: str) -> Scalar: ...


def kind_of(key: str) -> str | None:
    """The kind of cell a metric belongs to (decode, prefill, load), or None (run settings)."""
    return KINDS.get(key.split(".", 1)[0])


def axis_label(axis: str, value: Scalar, article: ArticleSource | None = None) -> str:
    """How tables and charts name a value of `axis`: 4096 -> "4K", a run id -> its label; a
    control character in it (from a run file) as its escape, as every output shows it."""
    return visible(_label(axis, value, article))


def _label(axis: str, value: Scalar, article: ArticleSource | None) -> str:
    if value is None:
        return "max" if axis == "rate" else "—"
    if axis == "context" and isinstance(value, int):
        return context_label(value)
    if axis == "rate" and isinstance(value, int | float):
        return f"{value:g}/s"
    if axis == "run" and article is not None:
        run = article.run(str(value))
        return run.label if run is not None else str(value)
    if axis in ("prompt_tokens", "max_tokens") and isinstance(value, int):
        return f"{value:,}"
    if axis in LLAMA_BENCH_LENGTHS and isinstance(value, int) and not isinstance(value, bool):
        return LLAMA_BENCH_LENGTHS[axis](value)
    if isinstance(value, float):
        return f"{value:g}"  # a setting: 1.0 -> "1"
    return str(value)


def _natural(text: str) -> list[object]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def sort_values(
    axis: str, values: Iterable[Scalar], article: ArticleSource | None = None
) -> list[Scalar]:
    """The values of `axis` in reading order: runs as declared, numbers ascending, labels
    naturally (c3 before c10)."""
    found = list(dict.fromkeys(values))
    if axis == "run" and article is not None:
        order = {r.id: i for i, r in enumerate(article.runs)}
        return sorted(found, key=lambda v: order.get(str(v), len(order)))
    numbers = [v for v in found if isinstance(v, int | float) and not isinstance(v, bool)]
    if len(numbers) == len(found) or (axis == "rate" and len(numbers) == len(found) - 1):
        # a rate of None ("as fast as the concurrency allows") comes after every finite rate
        return sorted(found, key=lambda v: math.inf if v is None else float(v))
    return sorted(found, key=lambda v: _natural(str(v)))


def matches(item: Placed, where: Where) -> bool:
    """True when `item` passes the filter: on each axis, its value (or its label) is listed."""
    for axis, allowed in where.items():
        value = item.coord(axis)
        if value in allowed:
            continue
        if axis_label(axis, value) in {str(a) for a in allowed}:
            continue
        return False
    return True


def filter_problem(where: Where, items: Sequence[Placed], article: ArticleSource) -> str | None:
    """Why a declaration's `where` or `meta.` axes cannot match the data, naming what the data
    has; None when they can. `items` are the metric values (and cells) of its kind."""
    named = {k for item in items for k in getattr(item, "extra", ()) if k.startswith("meta.")}
    for axis, allowed in where.items():
        if axis.startswith("meta.") and axis not in named:
            return unknown_setting(axis, named)
        have = {axis_label(axis, item.coord(axis), article) for item in items}
        have |= {str(item.coord(axis)) for item in items}
        missing = [
            str(a) for a in allowed if str(a) not in have and axis_label(axis, a) not in have
        ]
        if missing:
            shown = sorted_labels(axis, items, article)
            return f"no data for {axis} {', '.join(missing)}; the data has {shown}"
    return None


def unknown_setting(axis: str, named: set[str]) -> str:
    """No run file states the setting `axis` names: say which ones they state."""
    near = difflib.get_close_matches(axis, sorted(named), n=1)
    hint = f"; did you mean {near[0]}?" if near else ""
    listed = ", ".join(sorted(named)) or "none"
    return f"no run file states {axis}{hint} (they state: {listed})"


def sorted_labels(axis: str, items: Sequence[Placed], article: ArticleSource) -> str:
    values = sort_values(axis, {i.coord(axis) for i in items if i.coord(axis) is not None}, article)
    return ", ".join(axis_label(axis, v, article) for v in values) or "none"
