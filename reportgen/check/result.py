"""What `reportgen check` finds: one `Item` per number to look at, grouped per checked source,
and the whole `CheckResult` with the lints' findings and the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from reportgen.article.manifest import ArticleSource
from reportgen.article.tableview import table_views
from reportgen.errors import Severity
from reportgen.metrics import MetricSet, MetricValue
from reportgen.metrics.display import shown_text
from reportgen.metrics.lints import Finding

Kind = Literal["mismatch", "unverified", "missing", "duplicate"]
SEVERITY: dict[Kind, Severity] = {
    "mismatch": "error",
    "unverified": "warning",
    "missing": "warning",
    "duplicate": "warning",
}
# shown unit -> metric unit -> factor such that shown = value * factor


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class SourceResult:
    """What checking one article text gave."""

    source: str
    kind: Literal["built", "published"]
    matched: int
    items: tuple[Item, ...]


@dataclass(frozen=True)
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
        """True when a number mismatches, a lint error stands, or (strict) any warning."""
        if any(i.severity == "error" for i in self.items):
            return True
        if any(f.severity == "error" for f in self.findings):
            return True
        return self.strict and (bool(self.items) or bool(self.findings))


def expected_ids(article: ArticleSource, metrics: MetricSet) -> tuple[str, ...]:
    """The metric ids an article shows: every table cell with data, and its headlines."""
    ids = [h.metric for h in article.headlines]
    for view in table_views(metrics):
        ids.extend(c.metric for _, cells in view.rows for c in cells if c.metric)
    return tuple(dict.fromkeys(ids))


def missing_item(source: str, value: MetricValue) -> Item:
    return Item(
        "missing",
        source,
        1,
        1,
        f"does not show {value.id} ({shown_text(value, unit=True)} from {value.file})",
        value.id,
        None,
        value.value,
        value.file,
    )
