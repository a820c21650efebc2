"""Markdown's inline markup, blanked out so the number readers see the text a reader sees (pure).

`**57 tok/s**`, `` `240 ms` ``, `[410 tok/s](https://...)` and `<b>12</b>` all read as the
number they show. Every markup character becomes a space, so each number keeps the line and column
it has in the file, and findings point at the source. A link's target and an HTML tag's attributes
are blanked with it: a number in a URL is never read as one the article reports.

Grid tables (`+----+----+` borders, `+====+` under the header) are recognised by the table reader
beside pipe tables; their border lines are `GRID_BORDER`.

Worst case: linear in the line's length. The patterns here are possessive or stop at the
character that would start another construct (a link's label and target stop at `[`, an
autolink at `<`), so no start position scans past the next one; code spans and emphasis are
paired by one pass over their delimiters (`_spans`), not by a lazy match that would rescan the
rest of the line from every unclosed opener.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache

GRID_BORDER = re.compile(r"^\s*+\+[-=:+]+\+\s*+$")  # anchored: one start, linear

_LINK = re.compile(r"!?\[([^\[\]\n]*+)\]\(([^)\s\[]*+)(?:\s++\"[^\"]*+\")?\)")
_AUTOLINK = re.compile(r"<(?:https?|mailto):[^<>\s]*+>")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*+(?:\s[^<>]*+)?/?>")
_TICKS = re.compile(r"`+")
_SPACE = re.compile(r"\s")
_WORD = re.compile(r"\w")

Check = Callable[[str, int], bool]  # (line, index) -> whether a delimiter there opens (closes)


def _blank(text: str) -> str:
    return " " * len(text)


def _keep_group(pattern: re.Pattern[str], group: int, line: str) -> str:
    """Blank what `pattern` matches in `line` except its `group`, which stays where it was."""

    def sub(found: re.Match[str]) -> str:
        start, end = found.span(group)
        whole = found.group(0)
        a, b = start - found.start(), end - found.start()
        return _blank(whole[:a]) + whole[a:b] + _blank(whole[b:])

    return pattern.sub(sub, line)


def _blanked(line: str, spans: Iterable[tuple[int, int, int]], *, keep: bool) -> str:
    """`line` with each span's delimiters (`size` characters at either end) blanked, and the
    text between them too unless `keep`: (start, end, size)."""
    chars = list(line)
    for a, b, size in spans:
        for k in (range(a, a + size), range(b - size, b)) if keep else (range(a, b),):
            chars[k.start : k.stop] = " " * len(k)
    return "".join(chars)


def _code_spans(line: str) -> Iterator[tuple[int, int, int]]:
    """Code spans as CommonMark reads them: a run of k backticks opens one that the next run of
    exactly k closes; a run with none after it is text. One pass over the runs."""
    runs = [found.span() for found in _TICKS.finditer(line)]
    later: dict[int, int] = {}  # run length -> the index of the next run of that length
    closer: list[int | None] = [None] * len(runs)
    for n in range(len(runs) - 1, -1, -1):
        size = runs[n][1] - runs[n][0]
        closer[n] = later.get(size)
        later[size] = n
    n = 0
    while n < len(runs):
        close = closer[n]
        if close is None:
            n += 1
            continue
        yield runs[n][0], runs[close][1], runs[n][1] - runs[n][0]
        n = close + 1


def _pairs(line: str, kinds: Sequence[tuple[str, Check, Check]]) -> Iterator[tuple[int, int, int]]:
    """Where delimiter pairs stand, as a lazy regex `(D)(?=...)(.+?)(?<=...)D` finds them left to
    right (an opener takes the first closer of its kind after at least one character), from the
    delimiters' places alone: (start, end, size). Linear, apart from a bisection per opener."""
    openers: list[tuple[int, int]] = []  # (place, kind)
    closers: list[list[int]] = []
    for n, (delim, opens, closes) in enumerate(kinds):
        at = [found.start() for found in re.finditer(f"(?={re.escape(delim)})", line)]
        openers += [(p, n) for p in at if opens(line, p)]
        closers.append([q for q in at if closes(line, q)])
    done = 0
    for p, n in sorted(openers):
        size = len(kinds[n][0])
        k = bisect.bisect_left(closers[n], p + size + 1)
        if p < done or k == len(closers[n]):
            continue
        done = closers[n][k] + size
        yield p, done, size


def _is(pattern: re.Pattern[str], line: str, at: int) -> bool:
    return 0 <= at < len(line) and pattern.match(line, at) is not None


def _flank(delim: str, marks: str, *, strict: bool) -> tuple[str, Check, Check]:
    """An emphasis delimiter's rules: it opens after neither a word character nor one of `marks`
    and before a non-space (with `strict`, before none of `marks` either); it closes the same
    way around."""
    size = len(delim)

    def edge(line: str, at: int) -> bool:  # no word character or mark at `at`
        return not (_is(_WORD, line, at) or (0 <= at < len(line) and line[at] in marks))

    def inner(line: str, at: int) -> bool:  # a non-space (with `strict`, no mark) at `at`
        if not 0 <= at < len(line) or _is(_SPACE, line, at):
            return False
        return not (strict and line[at] in marks)

    def opens(line: str, p: int) -> bool:
        return edge(line, p - 1) and inner(line, p + size)

    def closes(line: str, q: int) -> bool:
        return inner(line, q - 1) and edge(line, q + size)

    return delim, opens, closes


def _struck(delim: str) -> tuple[str, Check, Check]:
    """`~~`: opens before a non-space, closes after one."""
    size = len(delim)

    def opens(line: str, p: int) -> bool:
        return p + size < len(line) and not _is(_SPACE, line, p + size)

    def closes(line: str, q: int) -> bool:
        return q > 0 and not _is(_SPACE, line, q - 1)

    return delim, opens, closes


_STRIKE = (_struck("~~"),)
_STRONG = (_flank("**", "*", strict=False), _flank("__", "*", strict=False))
_EMPHASIS = (_flank("*", "*", strict=True),)
_UNDERSCORE = (_flank("_", "_", strict=True),)


def plain_line(line: str) -> str:
    """The line with inline Markdown (and inline HTML) blanked, columns unchanged."""
    return _plain(line) if len(line) <= _CACHED_CHARS else _plain.__wrapped__(line)


# Copies checked one after another (the edits of one post) share most of their lines: each is
# blanked once. A line with markup takes up to 30 us to blank; text_lines was 4% of the check
# of a post (cProfile, 700 edits of the bundled posts). Bounded: 4,096 lines of at most
# `_CACHED_CHARS` characters (a longer one is blanked afresh, by the function under the cache).
_CACHED_CHARS = 1_000


@lru_cache(maxsize=1 << 12)
def _plain(line: str) -> str:
    """`plain_line`, for a line of at most `_CACHED_CHARS` characters."""
    if not any(c in line for c in "*_`[<~"):
        return line
    line = _AUTOLINK.sub(lambda m: _blank(m.group(0)), line)
    line = _keep_group(_LINK, 1, line)
    line = _TAG.sub(lambda m: _blank(m.group(0)), line)
    line = _blanked(line, _code_spans(line), keep=True)
    line = _blanked(line, _pairs(line, _STRIKE), keep=False)  # struck out: no longer stated
    line = _blanked(line, _pairs(line, _STRONG), keep=True)
    line = _blanked(line, _pairs(line, _EMPHASIS), keep=True)
    return _blanked(line, _pairs(line, _UNDERSCORE), keep=True)


def forget_lines() -> None:
    """Drop the lines' plain text kept so far (`pipeline.forget_copies`)."""
    _plain.cache_clear()
