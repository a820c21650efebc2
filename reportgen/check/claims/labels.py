"""Which metric a sentence names, by the words and labels around a number (pure).

A copy of an article may say things in its own words: "time to first token at 4K context and 12
concurrent requests", "GuideLLM's output at 4 requests at a time". Each metric the built article
shows is described here by what the article labels it with:

- its quantity words: the table's title and unit words, a column or row header that names a
  quantity, a headline's caption, and the registry's title and key of its definition;
- where it stands on each axis, from its id: run, context ("4K"), concurrency (a load point
  "c3" counts as concurrency 3) and statistic (a distribution's plain value is its median).

A sentence's words are read the same way: a number followed by "concurrent", "requests" or
"users" (or "one"/"single" before "request") names a concurrency, one with a K or M suffix or
followed by "context" names a context ("no", "zero" or "without" before "context": a context of
0), a run's name names the run, "median", "p99" or "mean" a
statistic; every other word is a quantity word. `score` ranks metrics by how well they fit:
an axis value said and matching counts most, one said and contradicted counts against, an
axis the metric has but the sentence leaves open counts a little against (a sentence that
names no context means no context), and shared quantity words count one each. A metric is
named only when it scores best alone: a tie is no answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from reportgen.check.readers.shape import HeadlineShape, Metric, Shape, TableShape, normalize
from reportgen.metrics.registry import DEFINITIONS, coordinates
from reportgen.model import context_label

_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "at",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "by",
        "to",
        "from",
        "in",
        "on",
        "for",
        "with",
        "as",
        "its",
        "it",
        "this",
        "that",
        "than",
        "per",
        "s",
        "ms",
        "x",
        "tok/s",
        "req/s",
        "%",
        "vs",
        "over",
        "under",
        "while",
        "when",
        "which",
        "what",
    ]
)
# words that mark a number as an axis value, not a quantity
_CONCURRENT = ("concurr", "request", "user", "stream", "client", "parall", "sequen", "simult")
_MARKERS = frozenset(("concur", "reques", "user", "stream", "client", "parall", "sequen", "contex"))
_STATS = {"median": "p50", "p50": "p50", "p90": "p90", "p95": "p95", "p99": "p99"}
_STATS |= {"mean": "mean", "average": "mean", "99th": "p99", "95th": "p95", "90th": "p90"}
_CONTEXT = re.compile(r"^(\d+(?:\.\d+)?)([kKmM])$")
_PLAIN = re.compile(r"^\d+$")
_LOAD_POINT = re.compile(r"c\d+")  # "c12": concurrency 12
_N_REQUEST = re.compile(r"(?<!\d)(\d+)-(?:request|user|stream|client)s?")  # "12-request"
_ONE = ("one", "single")
# words that name an axis's value of 0 before the axis's word: "with no context", "without
# context", "at zero context" (a context of 0 tokens; no other axis has a value of 0)
_NONE = ("no", "zero", "without", "empty")


@lru_cache(maxsize=1 << 14)  # a copy says the same words over and over
def stem(word: str) -> str:
    """A word as compared: lower case, possessive and plural off, its first six letters."""
    w = re.sub(r"[^\w/%]", "", word.lower().removesuffix("'s").removesuffix("\u2019s"))
    w = w.removesuffix("s") if len(w) > 3 else w
    return w[:6]


@lru_cache(maxsize=1 << 14)
def _words(text: str) -> frozenset[str]:
    return frozenset(
        s
        for w in normalize(text).split()
        if (s := stem(w)) and s not in _STOP and not s[0].isdigit() and s not in _MARKERS
    )


def _axes(found: dict[str, str], stats: bool) -> dict[str, str]:
    axes = {k: stem(v) if k == "run" else v.lower() for k, v in found.items()}
    point = axes.pop("point", None)
    if point is not None:
        digits = re.fullmatch(r"c(\d+)", point)
        axes["concurrency" if digits else "point"] = digits.group(1) if digits else point
    if stats:
        axes.setdefault("stat", "p50")
    return axes


def metrics_shown(shape: Shape) -> tuple[Metric, ...]:
    """Every metric the built article shows, with the words it labels it by."""
    words: dict[str, set[str]] = {}
    for table in shape.tables:
        for metric, text in _table_words(table):
            words.setdefault(metric, set()).update(_words(text))
    for headline in shape.headlines:
        words.setdefault(headline.metric, set()).update(_caption_words(headline))
    for metric in shape.times:
        words.setdefault(metric, set())
    out = []
    for metric, said in words.items():
        found = coordinates(metric)
        if found is None or found[0].startswith(("compare.", "claim.")):
            continue
        key, axes = found
        definition = DEFINITIONS[key]
        said |= _words(definition.title) | _words(key.replace("_", " ").replace(".", " "))
        said -= set(_STATS)
        out.append(
            Metric(
                id=metric,
                key=key,
                unit=definition.unit,
                axes=_axes(axes, definition.stats),
                words=frozenset(said),
            )
        )
    return tuple(sorted(out, key=lambda m: m.id))


def _table_words(table: TableShape) -> Iterable[tuple[str, str]]:
    grid = table.grid
    if grid is None:
        return
    for row, _ in grid.rows:
        for col in grid.columns:
            metric = table.cell(row, col)
            if metric is None:
                continue
            labels = [t for t in (row, col) if not _is_value(t)]
            yield metric, " ".join((table.title, table.unit_words, *labels))


def _is_value(label: str) -> bool:
    """Whether a row or column label is an axis value (a number, a context, a run's name)
    rather than a quantity's name."""
    text = label.strip()
    return bool(_PLAIN.match(text.replace(",", "")) or _CONTEXT.match(text)) or " " not in text


def _caption_words(headline: HeadlineShape) -> frozenset[str]:
    return _words(headline.caption.replace("{N}", " "))


@dataclass
class Said:
    """What a stretch of a sentence names: quantity words, axis values, and which tokens named
    each axis value (numbers that are labels, not claims)."""

    words: set[str] = field(default_factory=set)
    axes: dict[str, set[str]] = field(default_factory=dict)
    at: dict[tuple[str, str], list[int]] = field(default_factory=dict)

    def add(self, axis: str, value: str, k: int) -> None:
        """Record that token `k` names `value` on `axis`."""
        self.axes.setdefault(axis, set()).add(value)
        self.at.setdefault((axis, value), []).append(k)


def said(texts: Sequence[str], picks: Iterable[int], runs: frozenset[str]) -> Said:
    """What the tokens `texts[k]`, k in `picks`, name."""
    out = Said()
    for k in picks:
        word = _plain(texts[k])
        after = " ".join(_plain(t) for t in texts[k + 1 : k + 3])
        before = _plain(texts[k - 1]) if k > 0 else ""
        context = _CONTEXT.match(word)
        if context:
            out.add("context", word, k)
        elif _PLAIN.match(word.replace(",", "")):
            number = word.replace(",", "")
            if after.startswith(("context", "-token", "token context")):
                out.add("context", context_label(int(number)).lower(), k)
            elif after.startswith(_CONCURRENT) or before.startswith("concurren"):
                out.add("concurrency", str(int(number)), k)
        elif word in _ONE and after.startswith(_CONCURRENT):
            out.add("concurrency", "1", k)
        elif word in _NONE and after.startswith("context"):
            out.add("context", context_label(0).lower(), k)
        elif _LOAD_POINT.fullmatch(word):
            out.add("concurrency", word[1:], k)
        elif found := _N_REQUEST.fullmatch(word):
            out.add("concurrency", found.group(1), k)
        elif stem(word) in runs:
            out.add("run", stem(word), k)
        elif word in _STATS:
            out.add("stat", _STATS[word], k)
        else:  # "per-request", "inter-token": each part a word, as a title's are
            out.words |= _words(word)
    return out


def across(
    texts: Sequence[str], low: int, high: int, runs: frozenset[str]
) -> tuple[str, tuple[str, str]] | None:
    """The axis and its two values of "from 1 to 12 concurrent requests" or "from 1K to 4K"
    (`low`, `high`: the tokens of the two numbers): the second names the axis, the first is a
    value of the same axis or a bare number read as one. None when the second names no single
    axis value, or the first names another axis."""
    second = said(texts, [high], runs)
    if len(second.axes) != 1:
        return None
    (axis, values), first = next(iter(second.axes.items())), said(texts, [low], runs)
    if len(values) != 1 or axis not in ("context", "concurrency"):
        return None
    value = next(iter(first.axes[axis])) if set(first.axes) == {axis} else None
    number = _plain(texts[low]).replace(",", "")
    if value is None and not first.axes and _PLAIN.match(number):
        value = str(int(number)) if axis == "concurrency" else context_label(int(number)).lower()
    return None if value is None else (axis, (value, next(iter(values))))


@lru_cache(maxsize=1 << 14)
def _plain(text: str) -> str:
    return text.strip("()[]{},;:!?\"'\u201c\u201d\u2018\u2019.").lower()


def score(m: Metric, s: Said, like: Metric | None = None) -> int:
    """How well metric `m` fits what `s` names; `like`: the metric the sentence named first,
    whose axes and quantity a second one shares unless it says otherwise."""
    total = len(s.words & m.words)
    for axis, values in s.axes.items():
        value = m.axes.get(axis)
        total += -1 if value is None else 3 if value in values else -3
    for axis, value in m.axes.items():
        if axis in s.axes:
            continue
        if like is not None:
            total += 2 if like.axes.get(axis) == value else 0
        elif axis != "stat" or value != "p50":
            total -= 1
    if like is not None and m.key == like.key:
        total += 2
    return total


def best(candidates: Iterable[Metric], s: Said, like: Metric | None = None) -> Metric | None:
    """The one metric that fits `s` best; None when none fits or two fit equally."""
    ranked = sorted(((score(m, s, like), m) for m in candidates), key=lambda p: -p[0])
    if not ranked or ranked[0][0] <= 0 or (len(ranked) > 1 and ranked[1][0] == ranked[0][0]):
        return None
    return ranked[0][1]


def runs_of(metrics: Iterable[Metric]) -> frozenset[str]:
    """The runs' names, as a sentence's words would be compared with them."""
    return frozenset(stem(m.axes["run"]) for m in metrics if "run" in m.axes)
