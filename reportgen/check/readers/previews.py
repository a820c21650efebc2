"""A built page's link preview, read in a copy where it keeps the build's words (pure).

A built page's `<meta>` description (and its Open Graph twin) is its title and first headline,
which search results and shared links show; the page says where each of its numbers is and
its metric (`data-metrics`). An HTML copy's preview texts are lines of their own (html/text.py
`previews`). A line whose words are a preview's, its numbers aside, is read here, first: each
number is reported as the metric the build names for it, so a changed number is a mismatch at
its place. A preview in other words is left to the readers after this one, as any text is.

Worst case: linear in the lines, times the article's previews (one or two).
"""

from __future__ import annotations

import re

from reportgen.check.readers.protocol import Found, Reading
from reportgen.check.readers.published import UNITS, parse_number
from reportgen.check.readers.reported import Reported
from reportgen.check.readers.shape import Preview

_WORD = re.compile(r"\S+")
_UNIT = re.compile(rf"^({UNITS})[,.;:]?$")


def preview(text: str, metrics: str) -> Preview:
    """A built page's preview `text` with its `data-metrics` ("offset:metric" for each number
    the build names a metric for): each word with the metric of the number it holds."""
    at = {}
    for place in metrics.split():
        offset, _, metric = place.partition(":")
        if offset.isdigit() and metric:
            at[int(offset)] = metric
    words, owners = [], []
    for found in _WORD.finditer(text):
        words.append(found.group())
        owners.append(next((m for k, m in at.items() if found.start() <= k < found.end()), None))
    return Preview(tuple(words), tuple(owners))


def _numbers(line: int, raw: str, preview: Preview) -> list[Reported] | None:
    """Each number of `raw` that stands where `preview` has a metric's, or None when the line
    is not `preview` in its words."""
    if (
        preview.metrics
        and preview.metrics[0] is None
        and not raw.lstrip().startswith(preview.words[0])
    ):
        return None  # most lines: not the preview's first word (its title's), and no split
    words = [(found.start() + 1, found.group()) for found in _WORD.finditer(raw)]
    if len(words) != len(preview.words):
        return None
    out = []
    for k, ((col, shown), built, metric) in enumerate(
        zip(words, preview.words, preview.metrics, strict=True)
    ):
        if metric is None:
            if shown != built:
                return None
            continue
        parsed = parse_number(shown.rstrip(",.;:"))
        if parsed is None:
            return None
        value, decimals, unit = parsed
        after = _UNIT.match(words[k + 1][1]) if k + 1 < len(words) else None
        out.append(
            Reported(
                line=line,
                col=col,
                text=shown.rstrip(",.;:"),
                value=value,
                decimals=decimals,
                unit=unit or (after.group(1) if after else None),
                metric_id=metric,
            )
        )
    return out


class _Previews:
    name = "link previews"

    def read(self, reading: Reading) -> Found:
        previews = reading.shape.previews
        numbers: list[Reported] = []
        lines: set[int] = set()
        for n, raw in reading.unread_lines() if previews else ():
            for preview in previews:
                found = _numbers(n, raw, preview)
                if found is not None:
                    numbers += found
                    lines.add(n)
                    break
        return Found(numbers=tuple(numbers), lines=frozenset(lines))


READER = _Previews()
