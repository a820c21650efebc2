"""A mutation test of the checker: hundreds of edited copies of published text, each decided by an
oracle computed from the metrics, never typed.

For each article (the bundled one, with its published text; the measured two-tool article, with
a plain copy of its built page's text), the clean text is read once. Every number the checker
ties to a metric is then mutated, one copy per mutation:

- a changed digit: caught exactly when the new value lies outside half a unit of the last shown
  digit of the metric's value (the oracle, from the metric's own value);
- a sign added, ASCII or U+2212 MINUS SIGN: caught (no reported metric is negative);
- a misplaced thousands separator: caught;
- a unit scaled by 1000 beside a number (ms <-> s, tok/s <-> K): caught;
- the values of two cells of one table row swapped: caught where the two metrics differ at the
  precision shown;

and each must be caught at its own line. Edits that keep every number true must pass: rows of a
table moved with their labels, reflowed prose, Windows line endings, a headline in bold Markdown.

A sentence added in the copy's own words (tests/helpers_claims.py), written from the article's
own labels, true (must pass) or false (caught at its line): a ratio of two cells ("3.8x that at
8K context"), "Nx higher than", "fell by P% from ... to ...", "P% faster/slower than", a cell
quoted with its unit (the unit slipped by 1000x too), two cells quoted in one sentence, and a
ratio written with its operands ("3.8x that at 8K context (X vs Y s)", one operand false).
Each is added after the article and again right after its last table, where the built
article's prose goes on with other words that share some of the sentence's.
"""

from __future__ import annotations

import functools
import math
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers_claims import claims, quotes, several

from reportgen.article.build import Built, build, render_article
from reportgen.check.compare import article_shape, check_published
from reportgen.check.readers.pipeline import reported
from reportgen.check.readers.published import parse_number, text_lines
from reportgen.check.readers.reported import Reported
from reportgen.check.readers.shape import Shape
from reportgen.check.result import expected_numbers

ROOT = Path(__file__).resolve().parents[2]
PAITON = ROOT / "runs" / "paiton-kimi-k3.1-pro"
MEASURED = ROOT / "runs" / "tiny-llamacpp-two-tools"


@dataclass(frozen=True)
class Case:
    name: str
    text: str
    caught_at: int | None  # the line an error must be at; None: the copy must pass


@functools.cache
def _article(folder: Path) -> tuple[Built, Shape]:
    built = render_article(folder, {}, charts=False)
    return built, article_shape(built, built.html)


def _errors(folder: Path, text: str) -> list[tuple[str, int]]:
    built, shape = _article(folder)
    expected = expected_numbers(built.article, built.metrics, built.tables)
    result = check_published(text, "copy.txt", built.metrics, expected, shape)
    # a number misread beyond recognition is also "missing" from where the article shows it,
    # located at the top of the text: that is a consequence, not a second finding
    return [(i.severity if i.kind != "missing" else "missing", i.line) for i in result.items]


@functools.cache
def _measured_copy() -> str:
    """The measured article's page as a plain paste gives it: tags gone, cells tab-separated."""
    with tempfile.TemporaryDirectory() as out:
        build(MEASURED, Path(out), environ={"SOURCE_DATE_EPOCH": "0"})
        page = (Path(out) / MEASURED.name / "index.html").read_text(encoding="utf-8")
    page = re.sub(r"(?s)<(script|style|svg|head)\b.*?</\1>", "", page)
    page = re.sub(r"<(br|/p|/h\d|/li|/tr|/div|/caption|/figcaption|/dt|/dd)\b[^>]*>", "\n", page)
    page = re.sub(r"</t[dh]>", "\t", page)
    text = re.sub(r"<[^>]+>", "", page)
    text = text.replace("&amp;", "&").replace("&#39;", "'").replace("&quot;", '"')
    text = text.replace("&lt;", "<").replace("&gt;", ">")
    return "\n".join(line.strip() for line in text.split("\n") if line.strip()) + "\n"


def _source(slug: str) -> tuple[Path, str]:
    if slug == "paiton":
        return PAITON, (PAITON / "published" / "paiton-kimi-k3.1-pro.txt").read_text("utf-8")
    return MEASURED, _measured_copy()


def _tied(folder: Path, text: str) -> list[Reported]:
    _, shape = _article(folder)
    return [r for r in reported(text_lines(text), shape) if r.metric_id and r.malformed is None]


def _at(lines: list[str], r: Reported) -> int:
    """Where the number `r` starts in its line (its text, at or after its reported column)."""
    line = lines[r.line - 1]
    start = line.find(r.text, max(0, r.col - 2))
    return start if start >= 0 else line.find(r.text)


def _edit(text: str, r: Reported, new: str, also: int = 0) -> str:
    """`text` with the number `r` (and the `also` characters after it) replaced by `new`."""
    lines = text.split("\n")
    at = _at(lines, r)
    line = lines[r.line - 1]
    lines[r.line - 1] = line[:at] + new + line[at + len(r.text) + also :]
    return "\n".join(lines)


def _number_part(text: str) -> str:
    found = re.match(r"[\d,.]+", text)
    return found.group(0) if found else ""


def _off(folder: Path, r: Reported, new_text: str) -> bool:
    """The oracle: whether `new_text`, in the unit `r` was read in, misstates the metric's value.
    The unit's factor is the one that made the clean text true."""
    built, _ = _article(folder)
    value = built.metrics.by_id()[r.metric_id or ""].value
    parsed = parse_number(new_text)
    if parsed is None or value == 0 or r.value == 0:
        return True
    factor = 10.0 ** round(math.log10(abs(r.value / value)))
    shown, decimals, _ = parsed
    return abs(shown - value * factor) > 0.5 * 10.0**-decimals * (1 + 1e-9)


def _mutations(slug: str) -> Iterator[Case]:
    folder, text = _source(slug)
    lines = text.split("\n")
    for k, r in enumerate(_tied(folder, text)):
        digits = _number_part(r.text)
        if not any(c.isdigit() for c in digits):
            continue
        where = f"{slug}:{r.line}:{r.metric_id}"
        # a changed digit, the last one and then the first
        for pos in (max(i for i, c in enumerate(digits) if c.isdigit()), 0):
            old = digits[pos]
            new_digits = digits[:pos] + str((int(old) + 1 + k % 8) % 10) + digits[pos + 1 :]
            if new_digits[0] == "0" and len(new_digits) > 1 and new_digits[1] != ".":
                continue  # "0,844" is no well-formed number: a separator case, below
            new = new_digits + r.text[len(digits) :]
            caught = _off(folder, r, new_digits)
            yield Case(
                f"digit {where} {r.text}->{new}", _edit(text, r, new), r.line if caught else None
            )
        sign = "\u2212" if k % 2 else "-"
        if r.value == 0:
            continue  # -0 is 0: no sign to add
        yield Case(f"sign {where}", _edit(text, r, sign + r.text), r.line)
        if "," in digits:
            plain = digits.replace(",", "")
            moved = plain[:-2] + "," + plain[-2:]
            yield Case(f"separator {where}", _edit(text, r, moved + r.text[len(digits) :]), r.line)
        unit_after = re.match(r"\s*(ms|s)\b", lines[r.line - 1][_at(lines, r) + len(r.text) :])
        if unit_after and not r.table:
            other = "s" if unit_after.group(1) == "ms" else "ms"
            line = lines[r.line - 1]
            end = _at(lines, r) + len(r.text) + unit_after.end()
            swapped = line[: end - len(unit_after.group(1))] + other + line[end:]
            yield Case(
                f"unit {where}",
                "\n".join([*lines[: r.line - 1], swapped, *lines[r.line :]]),
                r.line,
            )
    _, shape = _article(folder)
    for r in reported(text_lines(text), shape):
        # a number the source writes literally (a version, a date): any changed digit is caught
        if r.expected_text is not None and r.text[-1:].isdigit():
            changed = r.text[:-1] + str((int(r.text[-1]) + 1) % 10)
            yield Case(f"fact {slug}:{r.line}:{r.text}", _edit(text, r, changed), r.line)
        # a headline (its number and unit) in bold Markdown says the same; its unit slipped
        # by 1000 does not
        if r.metric_id and r.table is None and not r.in_prose and re.search("[ \u00a0]", r.text):
            yield Case(f"bold {slug}:{r.line}", _edit(text, r, f"**{r.text}** "), None)
            number, unit = re.split("[ \u00a0]", r.text, maxsplit=1)
            other = {"ms": "s", "s": "ms", "tok/s": "tok/s"}.get(unit)
            if other:
                scaled = f"{number}K" if unit == "tok/s" else number  # 1000x the tokens
                yield Case(f"unit {slug}:{r.line}", _edit(text, r, f"{scaled} {other}"), r.line)
    yield from _swaps(slug, folder, text)
    yield from _passing(slug, text)
    yield from _sentences(slug, folder, text)


def _sentences(slug: str, folder: Path, text: str) -> Iterator[Case]:
    """A sentence added in the copy's own words, after the article and, as a line of its own,
    right after the last table (where the built article's prose goes on with other words): a
    derived claim, a quoted metric, or several numbers at once, true (must pass) or false
    (caught at its line)."""
    built, shape = _article(folder)
    body = text.rstrip("\n") + "\n\n"
    line = body.count("\n") + 1
    lines = text.split("\n")
    last = max(r.line for r in _tied(folder, text) if r.table)
    said = [
        *claims(built, shape),
        *quotes(shape, _tied(folder, text), built),
        *several(built, shape),
    ]
    for s in said:
        kind, where = s.name.split(" ", 1)
        yield Case(f"{kind} {slug}:{where}", body + s.sentence + "\n", None if s.true else line)
        inserted = "\n".join([*lines[:last], s.sentence, *lines[last:]])
        yield Case(f"after-table {slug}:{kind}:{where}", inserted, None if s.true else last + 1)


def _swaps(slug: str, folder: Path, text: str) -> Iterator[Case]:
    """Two neighbouring cells of one row, their values swapped."""
    tied = [r for r in _tied(folder, text) if r.table]
    for a, b in zip(tied, tied[1:], strict=False):
        if a.line != b.line or a.col > b.col:
            continue
        lines = text.split("\n")
        line = lines[a.line - 1]
        ia, ib = _at(lines, a), _at(lines, b)
        swapped = (
            line[:ia] + b.text + line[ia + len(a.text) : ib] + a.text + line[ib + len(b.text) :]
        )
        differs = _off(folder, a, b.text) or _off(folder, b, a.text)
        lines[a.line - 1] = swapped
        yield Case(
            f"swap {slug}:{a.line}:{a.metric_id}", "\n".join(lines), a.line if differs else None
        )


def _passing(slug: str, text: str) -> Iterator[Case]:
    yield Case(f"crlf {slug}", text.replace("\n", "\r\n"), None)
    lines = text.split("\n")
    # rows of each pipe or tab table moved with their labels: the last two body rows swapped
    rows = [i for i, line in enumerate(lines) if line.startswith("| ") and "---" not in line]
    # a plain copy's tab-separated rows: a row label, then cells
    for first, second in zip(rows, rows[1:], strict=False):
        if second == first + 1 and second + 1 not in rows and first - 1 in rows:
            moved = list(lines)
            moved[first], moved[second] = moved[second], moved[first]
            yield Case(f"rows-moved {slug}:{first + 1}", "\n".join(moved), None)
    # a plain copy's tab-separated table: its last two rows (a row label, then cells) swapped
    tabbed = [i for i, line in enumerate(lines) if re.match(r"[\w.,]+\t[\d.,]+\t", line)]
    for first in tabbed:
        if first + 1 in tabbed and first + 2 not in tabbed:
            moved = list(lines)
            moved[first], moved[first + 1] = moved[first + 1], moved[first]
            yield Case(f"rows-moved {slug}:{first + 1}", "\n".join(moved), None)
    # prose reflowed: each paragraph line of three or more words joined with the next
    for i in range(len(lines) - 1):
        a, b = lines[i], lines[i + 1]
        if (
            len(a.split()) > 8
            and len(b.split()) > 8
            and not a.startswith("|")
            and not b.startswith("|")
        ):
            yield Case(
                f"reflow {slug}:{i + 1}", "\n".join([*lines[:i], f"{a} {b}", *lines[i + 2 :]]), None
            )


@functools.cache
def _corpus() -> tuple[Case, ...]:
    return tuple(_mutations("paiton")) + tuple(_mutations("measured"))


def test_the_corpus_is_large_and_covers_every_class() -> None:
    corpus = _corpus()
    kinds = {c.name.split()[0] for c in corpus}
    assert {
        "digit",
        "sign",
        "separator",
        "unit",
        "swap",
        "crlf",
        "rows-moved",
        "reflow",
        "fact",
        "bold",
        "ratio",
        "ratio-higher",
        "fell-by",
        "faster",
        "quote",
        "quote-unit",
        "several-quotes",
        "ratio-operands",
        "after-table",
    } <= kinds
    # every class that applies to both articles is in both
    both = ("digit", "sign", "unit", "swap", "rows-moved", "reflow", "ratio", "quote")
    for kind in (*both, "several-quotes", "ratio-operands", "after-table"):
        assert {c.name.split()[1].split(":")[0] for c in corpus if c.name.split()[0] == kind} == {
            "paiton",
            "measured",
        }, kind
    for slug in ("paiton", "measured"):
        assert sum(f" {slug}:" in c.name or c.name.endswith(slug) for c in corpus) >= 30
    assert len(corpus) >= 150


@pytest.mark.parametrize("slug", ["paiton", "measured"])
def test_the_clean_text_passes(slug: str) -> None:
    folder, text = _source(slug)
    assert _errors(folder, text) == []


def test_every_mutation_is_caught_at_its_line_and_nothing_else_fails() -> None:
    missed, false_alarm, elsewhere = [], [], []
    for case in _corpus():
        folder = PAITON if "paiton" in case.name.split()[1] else MEASURED
        items = _errors(folder, case.text)
        errors = [(k, n) for k, n in items if k == "error"]
        if case.caught_at is None:
            if items:  # no error, no warning: the clean text has none
                false_alarm.append((case.name, items))
        elif not errors:
            missed.append(case.name)
        elif {n for _, n in errors} - {case.caught_at}:
            elsewhere.append((case.name, case.caught_at, errors))
    print(f"mutation corpus: {len(_corpus())} cases")
    assert (missed, false_alarm, elsewhere) == ([], [], [])
