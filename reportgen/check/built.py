"""The built article checked exactly: every number span's metric id and full value, read from its
data attributes, against the recomputed metric.
"""

from __future__ import annotations

from collections.abc import Iterable
from html.parser import HTMLParser

from reportgen.check.result import Item, Shown, SourceResult, missing_item
from reportgen.metrics.claims import lookup
from reportgen.metrics.display import parse_display_attr, shown_text
from reportgen.metrics.registry import MetricSet


class _Spans(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        # line, col, id, value, display (or None), text
        self.found: list[tuple[int, int, str, str, str | None, str]] = []
        self._open: tuple[int, int, str, str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "span" and a.get("data-metric"):
            line, col = self.getpos()
            display = a.get("data-display")
            self._open = (line, col + 1, str(a["data-metric"]), str(a.get("data-value")), display)
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "span" and self._open:
            self.found.append((*self._open, "".join(self._text)))
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open:
            self._text.append(data)


def check_built(
    html: str, source: str, metrics: MetricSet, expected: Iterable[Shown]
) -> SourceResult:
    """Compare every number span of a built page with the recomputed metric, exactly."""
    parser = _Spans()
    parser.feed(html)
    parser.close()
    by_id = metrics.by_id()
    value_of = lookup(by_id)
    items: list[Item] = []
    matched = 0
    seen: set[str] = set()
    for line, col, metric, raw_value, how, text in parser.found:
        seen.add(metric)
        value = value_of(metric)
        if value is None:
            items.append(
                Item(
                    kind="unverified",
                    source=source,
                    line=line,
                    col=col,
                    message=f"shows {text} for {metric}, which the run files do not give",
                    metric=metric,
                    shown=text,
                )
            )
            continue
        display = None if how is None else parse_display_attr(how, value)
        if how is not None and display is None:
            items.append(
                Item(
                    kind="mismatch",
                    source=source,
                    line=line,
                    col=col,
                    message=f"shows {text} for {metric} with data-display {how!r}, which is not a "
                    f"way to show a value in {value.unit}",
                    metric=metric,
                    shown=text,
                    computed=value.value,
                    run_file=value.file,
                )
            )
            continue
        # shown with its unit: after a space ("57 tok/s") or attached ("3.4x", "+12%")
        with_unit = " " in text.replace("\u00a0", " ") or not text[-1:].isdigit()
        want = shown_text(value, unit=with_unit, display=display)
        try:
            exact = float(raw_value) == value.value
        except ValueError:
            exact = False
        if not exact or text != want:
            items.append(
                Item(
                    kind="mismatch",
                    source=source,
                    line=line,
                    col=col,
                    message=f"shows {text} (data-value {raw_value}) but the run files give "
                    f"{want} ({value.value!r})",
                    metric=metric,
                    shown=text,
                    computed=value.value,
                    run_file=value.file,
                )
            )
        else:
            matched += 1
    for shown in expected:
        if shown.metric not in seen and shown.metric in by_id:
            items.append(missing_item(source, by_id[shown.metric], shown))
    return SourceResult(source=source, kind="built", matched=matched, items=tuple(items))
