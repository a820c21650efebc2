"""The axes of the data, as tables and charts lay them out: how a value of each axis is named,
in what order values come, and whether a value or cell passes a declaration's filter."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Protocol

from reportgen.article.decl import ArticleSource, Where
from reportgen.model import Scalar, context_label

KINDS = {"decode": "decode", "prefill": "prefill", "load": "load"}
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
    """How tables and charts name a value of `axis`: 4096 -> "4K", a run id -> its label."""
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
    for axis, allowed in where:
        value = item.coord(axis)
        if value in allowed:
            continue
        if axis_label(axis, value) in {str(a) for a in allowed}:
            continue
        return False
    return True
