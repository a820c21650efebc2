"""A table's cells: a number with its count and lint marks, the reason a cell has no number,
a comparison's verdict, and the footnotes and notes (`Notes`) that say each reason once."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from markupsafe import Markup, escape

from reportgen.article.axes import STATUS_WORDS
from reportgen.article.page.numbers import number_html
from reportgen.article.source.declarations import ArticleSource, Column, TableDecl, Uncertainty
from reportgen.errors import InputError
from reportgen.metrics.display import Display, format_number, shown_in
from reportgen.metrics.lints.findings import LINTS, Finding
from reportgen.metrics.registry import (
    DEFINITIONS,
    CellState,
    MetricSet,
    MetricValue,
    repeat_part,
    split_metric,
)
from reportgen.metrics.slo import NO_RECORDS, PER_REQUEST_KEYS, VERDICT_KEYS
from reportgen.model import Scalar

MARKS = "*†‡§¶#"


@dataclass(frozen=True, kw_only=True)
class CellView:
    """One table cell: a number, or a word; with its footnote marks."""

    html: Markup
    note: str | None = None  # footnote marks ("a", "*", "a,*")
    missing: bool = False
    metric: str | None = None  # the id of the metric shown
    gated: bool = False  # the metric's value is computed but not measurable (its gate's words)


@dataclass
class Notes:
    """The reasons cells have no number, each written out once in the article: the first table
    or chart that needs one says it in full; later ones point back to it."""

    first: dict[str, tuple[str, str]] = field(default_factory=dict)  # reason -> (where, anchor)
    # lint id -> the footnote mark of its findings, the same in every table, in one fixed order
    lint_marks: dict[str, str] = field(default_factory=dict)

    def mark_lints(self, findings: Iterable[Finding]) -> None:
        """Give each lint whose findings mark table cells its mark: `*`, `†`, ... in the order
        the data-quality list shows the lints (the order their first finding comes)."""
        for f in findings:
            if f.id not in self.lint_marks and _marks_cells(f):
                i = len(self.lint_marks)
                self.lint_marks[f.id] = MARKS[i % len(MARKS)] * (i // len(MARKS) + 1)

    def text(self, reason: str, where: str) -> Markup:
        """The footnote text for `reason`, in the table or chart called `where`."""
        if reason not in self.first:
            anchor = f"note-{len(self.first) + 1}"
            self.first[reason] = (where, anchor)
            return Markup('<span id="{}">{}</span>').format(anchor, reason)
        seen, anchor = self.first[reason]
        return Markup('as in <a href="#{}">the note under "{}"</a>').format(anchor, seen)

    def refer(self, message: str, *, longer_than: int = 80) -> Markup:
        """`message` with every long reason already written out in a note replaced by a link
        to that note (a finding repeats the cell's reason; the page says it once)."""
        out = escape(message)
        for reason, (seen, anchor) in self.first.items():
            if len(reason) > longer_than and reason in message:
                link = Markup('the reason in <a href="#{}">the note under "{}"</a>').format(
                    anchor, seen
                )
                out = Markup(out.replace(escape(reason), link))
        return out


class Footnotes:
    """One table's footnotes: letters for the reasons a cell has no number, each lint's own
    mark (`Notes.lint_marks`) for its findings; listed letters first, then marks in their
    article-wide order."""

    def __init__(self, order: tuple[str, ...] = ()) -> None:
        self.marks: dict[str, tuple[str, Markup]] = {}
        self.order = order  # the lint marks in their fixed order

    def mark(self, key: str, text: Markup, *, symbol: bool = False, fixed: str = "") -> str:
        if fixed:
            self.marks.setdefault(key, (fixed, text))
        elif key not in self.marks:
            letters = [m for m, _ in self.marks.values() if m.isalpha()]
            symbols = [m for m, _ in self.marks.values() if not m.isalpha()]
            mark = (
                MARKS[len(symbols) % len(MARKS)]
                if symbol
                else "abcdefghijklmnopqrstuvwxyz"[len(letters) % 26]
            )
            self.marks[key] = (mark, text)
        return self.marks[key][0]

    def items(self) -> tuple[tuple[str, Markup], ...]:
        return tuple(sorted(self.marks.values(), key=lambda item: self.rank(item[0])))

    def rank(self, mark: str) -> int:
        """Where `mark` goes among a cell's or a table's marks: letters first, as they came."""
        return self.order.index(mark) if mark in self.order else -1


def flags_of(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    """Metric id -> the findings that name it (to mark the cells that show it)."""
    out: dict[str, list[Finding]] = {}
    for f in findings:
        if _marks_cells(f):
            for metric in f.metrics:
                out.setdefault(metric, []).append(f)
    return out


def _marks_cells(f: Finding) -> bool:
    """A finding marks the cells of its metrics (an invalid cell shows its reason instead)."""
    return bool(f.metrics) and (f.severity == "warning" or f.id != "cell-invalid")


class CellBuilder:
    def __init__(
        self,
        decl: TableDecl,
        metrics: MetricSet,
        article: ArticleSource,
        flags: dict[str, list[Finding]],
        notes: Notes,
    ) -> None:
        self.decl, self.metrics, self.article, self.flags, self.notes = (
            decl,
            metrics,
            article,
            flags,
            notes,
        )
        self.footnotes = Footnotes(tuple(notes.lint_marks.values()))
        # an `at_interactivity` table's series name -> the mark of the note on the gated
        # points its frontier leaves out (`layout._with_left_out`)
        self.left_out: dict[str, str] = {}

    def number(self, value: MetricValue, column: Column | None) -> CellView:
        if value.gate is not None:  # computed, but not shown as a measurement
            text = Markup(escape(value.gate.words()[0].upper() + value.gate.words()[1:] + "."))
            mark = self.footnotes.mark(
                f"gate:{value.gate.reason}", self.notes.text(text, self.decl.title)
            )
            html = Markup('<span class="gated">not measurable</span>')
            # the lints about the cell still mark it (its failed requests: the gate's cause)
            marked = "".join(
                sorted(dict.fromkeys([mark, *self._lint_marks(value)]), key=self.footnotes.rank)
            )
            return CellView(html=html, note=marked, missing=True, metric=value.id, gated=True)
        if value.key in VERDICT_KEYS:  # an SLO's verdict, a word check reads back as its value
            return CellView(html=number_html(value, css="num slo-verdict"), metric=value.id)
        try:
            display = _column_display(value, column)
        except ValueError as exc:
            raise table_problem(self.decl, str(exc)) from None
        html, shown_id = number_html(value, display=display), value.id
        mode = (column.uncertainty if column is not None else None) or self.decl.uncertainty
        uncertain = self._uncertain(value, display, mode) if mode else None
        if uncertain is not None:
            html, shown_id = uncertain
        if self.decl.counts and value.n is not None:
            count = self.metrics.find(f"{value.key}.n", **_coords(value))
            shown = number_html(count) if count is not None else escape(f"{value.n:,}")
            html = Markup('{} <span class="count">n={}</span>').format(html, shown)
        marks = []
        price = self.article.cost
        if value.unit == "USD/Mtok" and price is not None:  # the price beside every cost
            marks.append(self.footnotes.mark("price", Markup(escape(f"Cost at {price.words()}."))))
        marks += self._lint_marks(value)
        note = "".join(sorted(dict.fromkeys(marks), key=self.footnotes.rank)) or None
        return CellView(html=html, note=note, metric=shown_id)

    def _lint_marks(self, value: MetricValue) -> list[str]:
        """The marks of the lints whose findings name `value`."""
        marks = []
        for f in self.flags.get(value.id, []):
            text = Markup('{} (see <a href="#data-quality">Data quality</a>)').format(
                LINTS[f.id].title
            )
            fixed = self.notes.lint_marks.get(f.id, "")
            marks.append(self.footnotes.mark(f"lint:{f.id}", text, symbol=True, fixed=fixed))
        return marks

    def _uncertain(
        self, value: MetricValue, display: Display | None, mode: Uncertainty
    ) -> tuple[Markup, str] | None:
        """A repeated cell as its repetitions' mean with the half-width of its 95% interval
        ("pm") or the interval ("interval"), each number a span of its own; None for a value
        that is not a median over repetitions. A percentile's repetitions are shown as the bare
        value's are (`X.p99.rep_mean` ± `X.p99.rep_hw`). A value derived from repeated cells
        with a bootstrap interval (a frontier's, `reportgen.metrics.frontier.interval_values`)
        is shown itself, with that interval or the larger distance to its ends."""
        if repeat_part(value.stat) is not None:
            return None
        spread = ("rep_hw",) if mode == "pm" else ("rep_ci_lo", "rep_ci_hi")
        if value.resamples:
            centre: MetricValue | None = value
        elif value.source == "repetitions":
            centre = self.metrics.get(f"{value.id}.rep_mean")
        else:
            return None
        found = [centre, *(self.metrics.get(f"{value.id}.{stat}") for stat in spread)]
        if any(f is None for f in found):
            return None
        spans = [number_html(f, display=display) for f in found if f is not None]
        form = "{} \u00b1 {}" if mode == "pm" else "{} [{}, {}]"
        assert centre is not None
        return Markup(form).format(*spans), centre.id

    def absent(self, state: CellState | None, metric: str | None = None) -> CellView:
        key = None if metric is None else split_metric(metric)[0]
        if state is None:
            text, word = "not measured: the run has no such cell", "—"
        elif state.status == "ok" and (key in PER_REQUEST_KEYS or key in VERDICT_KEYS):
            text, word = NO_RECORDS, "—"
        elif state.status == "ok":
            text, word = "measured, but the cell holds no samples for this metric", "—"
        else:
            text, word = state.reason or state.status, STATUS_WORDS[state.status]
        mark = self.footnotes.mark(f"state:{text}", self.notes.text(text, self.decl.title))
        return CellView(html=Markup(escape(word)), note=mark, missing=True)


def _coords(value: MetricValue) -> dict[str, Scalar]:
    return {
        "run": value.run,
        "context": value.context,
        "concurrency": value.concurrency,
        "point": value.point,
    }


def _column_display(value: MetricValue, column: Column | None) -> Display | None:
    if column is None or (column.unit is None and column.decimals is None):
        return None
    return shown_in(value, column.unit, column.decimals)


def table_problem(decl: TableDecl, message: str) -> InputError:
    return InputError([decl.place.problem(f"table {decl.id!r}: {message}")])


def check_metric(decl: TableDecl, metric: str) -> tuple[str, str | None]:
    key, stat = split_metric(metric)
    if key not in DEFINITIONS:
        import difflib

        near = difflib.get_close_matches(metric, list(DEFINITIONS), n=3)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        raise table_problem(decl, f"unknown metric {metric!r}{hint}")
    return key, stat


def verdict(key: str, change: MetricValue) -> Markup:
    """better / worse / same, by the metric's direction, for a delta or a ratio."""
    better = DEFINITIONS[key].better
    shown = format_number(change.value, Display(decimals=3, unit=""))
    neutral = 0.0 if change.key == "compare.delta" else 1.0
    if better is None or float(shown) == neutral:
        return Markup('<span class="verdict">(same)</span>') if better else Markup("")
    up = change.value > neutral
    good = up == (better == "higher")
    word = "better" if good else "worse"
    return Markup('<span class="verdict {}">({})</span>').format(word, word)
