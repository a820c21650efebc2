"""Every number a published text reports, by every reader in turn (pure).

1. `published.reported_in_lines`: pipe and grid tables, headlines number-first, declared sentences;
2. `stream.stream_tables`: the tables not laid out as pipe or grid tables, from the word stream;
3. `headlines.stream_headlines`: the declared headlines not yet found, caption first or as blocks;
4. `prose.prose_numbers`: every other number, aligned with the built article's prose.

A number the first reader could tie to nothing (a line that starts with a number and a unit but
no declared caption) is offered to the later readers first, and stays unverified only if none
of them claims it.

Worst case: the sum of the readers', each linear in the lines (see each module).
"""

from __future__ import annotations

from reportgen.check.readers.headlines import stream_headlines
from reportgen.check.readers.pipetables import find_tables
from reportgen.check.readers.prose import prose_numbers
from reportgen.check.readers.published import Lines, Reported, reported_in_lines
from reportgen.check.readers.shape import Shape
from reportgen.check.readers.stream import stream_tables, tokens


def _untied(r: Reported) -> bool:
    return r.metric_id is None and r.table is None and r.malformed is None


def reported(lines: Lines, shape: Shape) -> list[Reported]:
    """Every number the lines report, each once, in text order."""
    piped = find_tables(lines, shape)
    first = reported_in_lines(lines, shape, piped)
    found_tables = {t.shape.id for t in piped if t.shape}
    in_pipes = {n for t in piped for n, _ in t.rows} | {t.line for t in piped}
    out = [r for r in first if not _untied(r)]
    untied = [r for r in first if _untied(r)]
    toks = tokens(lines, in_pipes)
    rest = [t for t in shape.tables if t.id not in found_tables]
    cells, spans = stream_tables(toks, rest, [t.title for t in shape.tables])
    out += cells
    claimed = {(r.line, r.col) for r in out}
    free = [t for t in toks if (t.line, t.col) not in spans]
    seen = {r.metric_id for r in out if r.metric_id and r.table is None}
    out += [h for h in stream_headlines(free, shape, seen) if (h.line, h.col) not in claimed]
    claimed = {(r.line, r.col) for r in out}
    if shape.prose:
        rest_toks = [t for t in free if (t.line, t.col) not in claimed]
        out += prose_numbers(rest_toks, shape.prose, shape.chart_text, shape.shown, shape.aligner)
    else:
        out += [r for r in untied if (r.line, r.col) not in claimed]
    return sorted(out, key=lambda r: (r.line, r.col))
