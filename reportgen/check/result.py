"""What `reportgen check` finds: one `Item` per number to look at, grouped per checked source,
and the whole `CheckResult` with the lints' findings and the verdict.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from reportgen.article.prose.render import plain
from reportgen.article.prose.resolver import Resolver
from reportgen.article.source.declarations import ArticleSource
from reportgen.article.tables.layout import TableView
from reportgen.errors import Severity
from reportgen.metrics.display import shown_text
from reportgen.metrics.lints.findings import Finding, fails
from reportgen.metrics.registry import MetricSet, MetricValue

Kind = Literal[
    "mismatch",
    "unverified",
    "missing",
    "duplicate",
    "no-numbers",
    "unseen",
    "unread",
    "unresolved",
    "stale",
    "gated",
]
SEVERITY: dict[Kind, Severity] = {
    "mismatch": "error",
    "unverified": "warning",
    # A number the article shows that a text does not is an error: a checker that cannot see a
    # number must not pass it (unless the article declares that its published version omits it).
    "missing": "error",
    "duplicate": "warning",
    "no-numbers": "error",  # a text in which none of the article's numbers was found
    # HTML: where readers may see something other than what check reads (hidden or generated
    # text, a drawing, a stylesheet check cannot read): it fails closed
    "unseen": "error",
    # HTML: what check reads the page without (its scripts, a document it embeds, a tooltip)
    "unread": "warning",
    # braces of a reference shown as they were written: the copy shows no number there
    "unresolved": "error",
    # a build made from other sources than the article has now: what it shows is not checked
    "stale": "error",
    # a number where the article shows "not measurable" (a gate): a warning, an error with --strict
    "gated": "warning",
}


@dataclass(frozen=True, kw_only=True)
class Item:
    """One thing the checker found about one number."""

    kind: Kind
    source: str  # the checked file (or "<name> (built in memory)")
    line: int
    col: int
    message: str
    metric: str | None = None
    shown: str | None = None
    computed: float | None = None
    run_file: str | None = None
    table: str | None = None
    row: str | None = None
    column: str | None = None

    @property
    def severity(self) -> Severity:
        return SEVERITY[self.kind]

    def as_json(self) -> dict[str, object]:
        """The item as a JSON-ready mapping (see schemas/check-result.schema.json)."""
        return {
            "kind": self.kind,
            "severity": self.severity,
            "source": self.source,
            "line": self.line,
            "col": self.col,
            "table": self.table,
            "row": self.row,
            "column": self.column,
            "metric": self.metric,
            "shown": self.shown,
            "computed": self.computed,
            "run_file": self.run_file,
            "message": self.message,
        }


@dataclass(frozen=True, kw_only=True)
class SourceResult:
    """What checking one article text gave."""

    source: str
    kind: Literal["built", "published"]
    matched: int
    items: tuple[Item, ...]
    # what check says of a number it judged in a way a reader should see, whether it matched
    # or not: an "up to" and the cell it comes from
    notes: tuple[str, ...] = ()
    # the claim findings of the ratios and changes it says in its own words
    # (`check.claims.upto.claim_finding`)
    findings: tuple[Finding, ...] = ()


@dataclass(frozen=True, kw_only=True)
class CheckResult:
    """Everything `reportgen check` found: per source, and the lints' findings."""

    article: str
    sources: tuple[SourceResult, ...]
    findings: tuple[Finding, ...]
    strict: bool = False
    # (line, col) of each finding's JSON pointer in its run file, aligned with `findings`
    finding_places: tuple[tuple[int, int] | None, ...] = ()
    items: tuple[Item, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "items", tuple(i for s in self.sources for i in s.items))

    @property
    def failed(self) -> bool:
        """True when a number mismatches or is missing, a lint error stands, or (strict) any
        warning that the article does not acknowledge."""
        if any(i.severity == "error" for i in self.items):
            return True
        return fails(self.findings, strict=self.strict) or (self.strict and bool(self.items))


@dataclass(frozen=True, kw_only=True)
class Shown:
    """A number the built article shows: its metric, and its table, row and column (or, for a
    headline, its caption as the row)."""

    metric: str
    table_id: str | None = None
    table: str | None = None
    row: str | None = None
    column: str | None = None

    def place(self) -> str:
        """Where it is, in words: "table T, row R, column C" or "headline H"."""
        if self.table is None:
            return f"headline {self.row!r}" if self.row else "a headline"
        return f"table {self.table!r}, row {self.row}, column {self.column}"


def expected_numbers(
    article: ArticleSource, metrics: MetricSet, views: Iterable[TableView]
) -> tuple[Shown, ...]:
    """Every number the built article shows in a headline or a table, where it shows it."""
    resolver = Resolver.of(article, metrics)
    gated = {v.id for v in metrics.values if v.gate is not None}  # shown as "not measurable"
    out = [
        Shown(metric=h.metric, row=plain(h.caption, resolver))
        for h in article.headlines
        if h.metric not in gated
    ]
    for view in views:
        for row, cells in view.rows:
            for column, cell in zip(view.columns, cells, strict=True):
                if cell.metric and not cell.gated:  # a gated cell shows no number
                    out.append(
                        Shown(
                            metric=cell.metric,
                            table_id=view.id,
                            table=view.title,
                            row=row,
                            column=column,
                        )
                    )
    first: dict[str, Shown] = {}
    for shown in out:
        first.setdefault(shown.metric, shown)
    return tuple(first.values())


def missing_item(
    source: str, value: MetricValue, shown: Shown | None = None, line: int = 1
) -> Item:
    """A number the article shows and `source` does not, located at its table, row and column."""
    place = f" ({shown.place()})" if shown else ""
    return Item(
        kind="missing",
        source=source,
        line=line,
        col=1,
        message=f"does not show {value.id}{place}: "
        f"{shown_text(value, unit=True)} from {value.file}",
        metric=value.id,
        shown=None,
        computed=value.value,
        run_file=value.file,
        table=shown.table if shown else None,
        row=shown.row if shown else None,
        column=shown.column if shown else None,
    )
