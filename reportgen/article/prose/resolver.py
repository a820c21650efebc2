"""What a reference in article text names: `Resolver` turns `{{ metric.id }}`, `{{ setup.FIELD }}`,
`{{ version.TOOL }}`, a cell's status or reason and `{{ article.date }}` into HTML, or says why
it has no value.

A cost (a value in USD/Mtok) is written with the price it comes from, its source and its date
after it ("1.65 USD/Mtok at 2.50 USD per GPU-hour (an example price, 2026-11-01)"), as every
cost in a table carries them in a note: the author cannot leave them out, and they change with
the price. `| number` is refused for a cost, since the number alone would drop them. An end of
a cost's interval (`X.rep_ci_lo`) is written as any number: it stands beside its cost."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, fields

from markupsafe import Markup, escape

from reportgen.article.axes import STATUS_WORDS
from reportgen.article.page.numbers import gated_html, number_html
from reportgen.article.source.declarations import ArticleSource
from reportgen.errors import did_you_mean
from reportgen.frozendict import FrozenDict
from reportgen.metrics.claims import claim_problem, claim_value, is_claim
from reportgen.metrics.cost import Price
from reportgen.metrics.registry import CellState, MetricSet, MetricValue, repeat_part
from reportgen.metrics.slo import Slo
from reportgen.model import Hardware, Run, Setup, context_label

# {{ name }} or {{ name | filter }}; the only filter is `number` (the number without its unit).
REFERENCE = re.compile(r"\{\{\s*([^{}\s|]*)\s*(?:\|\s*([A-Za-z]*)\s*)?\}\}")
FILTERS = ("number",)
COST_UNIT = "USD/Mtok"  # the unit of every cost (`reportgen.metrics.cost`)
# The fields `{{ setup.FIELD }}` takes: the hardware's, then the setup's own scalars.
HARDWARE_FIELDS = tuple(f.name for f in fields(Hardware))
SETUP_FIELDS = HARDWARE_FIELDS + tuple(f.name for f in fields(Setup) if f.name != "hardware")


def tool_versions(runs: tuple[Run, ...]) -> FrozenDict[str, str]:
    """(tool, version) of each tool that wrote the runs, for `{{ version.TOOL }}`."""
    found = {run.source.tool.split(" ")[0]: run.source.format_version for run in runs}
    return FrozenDict(sorted(found.items()))


def cell_name(cell: CellState, *, runs: bool = False) -> str:
    """How prose names a cell: decode.4K.c3, prefill.16K, load.c3; with `runs` (an article of
    several runs) the run's id in front."""
    if cell.kind == "load":
        base = f"load.{cell.point}"
    elif cell.kind == "prefill":
        base = f"prefill.{context_label(cell.context or 0)}"
    else:
        base = f"decode.{context_label(cell.context or 0)}.c{cell.concurrency}"
    if cell.kind != "load" and cell.point is not None:  # one of several tests of the cell
        base = f"{base}.{cell.point}"
    return f"{cell.run}.{base}" if runs and cell.run else base


class Unresolved(Exception):
    """A reference names something real that has no value here; the message says why."""


def ordinal(n: int) -> str:
    """90 -> "90th", 1 -> "1st", 22 -> "22nd", 13 -> "13th"."""
    last = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{last}"


@dataclass(frozen=True, kw_only=True)
class Resolver:
    """Turns reference names into HTML."""

    metrics: MetricSet
    setup: Setup
    tools: FrozenDict[str, str]  # tool name -> version
    date: str
    setups: FrozenDict[str, Setup] = FrozenDict()  # run id -> setup, in an article of several runs
    price: Price | None = None  # the article's [cost]: written after every cost
    slo: Slo | None = None  # the article's [slo]: `{{ slo.NAME }}` states what it declares

    @classmethod
    def of(cls, article: ArticleSource, metrics: MetricSet) -> Resolver:
        """The references of `article` over `metrics`: what the page, its charts' captions and
        `check` resolve alike."""
        runs = article.runs
        return cls(
            metrics=metrics,
            setup=article.setup,
            tools=tool_versions(metrics.runs),
            date=article.date,
            setups=FrozenDict((r.id, r.setup) for r in runs) if len(runs) > 1 else FrozenDict(),
            price=article.cost,
            slo=article.slo,
        )

    def resolve(self, name: str, flt: str | None = None) -> Markup | None:
        """The HTML for a reference, None when nothing has that name; `Unresolved` when it
        names a cell or metric that exists but has no value."""
        value = self.metrics.get(name)
        if value is None and is_claim(name):
            problem = claim_problem(name, self.metrics.get)
            if problem is not None:
                raise Unresolved(problem)
            value = claim_value(name, self.metrics.get)
        if value is not None and value.gate is not None:
            return gated_html(value)
        if value is not None:
            if value.unit == COST_UNIT and self.price is not None and not _interval_end(value):
                return self._cost(name, value, flt)
            return number_html(value, unit=flt != "number")
        kind, _, rest = name.partition(".")
        if kind == "setup":
            return self._setup(rest)
        if kind == "slo":
            return self._slo(rest)
        if kind == "version":
            version = self.tools.get(rest)
            if version == "":
                raise Unresolved(f"the {rest} files do not record the tool's version")
            return None if version is None else escape(version)
        if name == "article.date":
            return escape(long_date(self.date))
        varying = self.metrics.varying.get(name)
        if varying is not None:
            raise Unresolved(f"{name} is not one value for the run: {varying}")
        return self._cell(name)

    def _cost(self, name: str, value: MetricValue, flt: str | None) -> Markup:
        """A cost with its price, source and date after it."""
        assert self.price is not None
        if flt == "number":
            raise Unresolved(
                f"{{{{ {name} | number }}}}: a cost is written with the price it comes from; "
                f"refer to {{{{ {name} }}}}, which adds the price, its source and its date"
            )
        return Markup('{} <span class="price">at {}</span>').format(
            number_html(value, unit=True), self.price.words()
        )

    def _slo(self, rest: str) -> Markup:
        """What `[slo]` declares, as the article states it: an objective ({{ slo.ttft_ms }}) is
        its limit with its unit ("1,000 ms"), the objective's name and then `percentile` its
        percentile ("90th"), and the attainment the share of requests ("90%")."""
        if self.slo is None:
            raise Unresolved(f"slo.{rest}: the article declares no [slo]")
        if rest == "attainment":
            return escape(f"{self.slo.attainment:.0%}")
        name, _, field = rest.partition(".")
        objective = next((o for o in self.slo.objectives if o.name == name), None)
        if objective is None or field not in ("", "percentile"):
            names = [o.name for o in self.slo.objectives]
            wanted = [f"slo.{n}{f}" for n in names for f in ("", ".percentile")]
            hint = did_you_mean(f"slo.{rest}", [*wanted, "slo.attainment"])
            declared = ", ".join(names)
            raise Unresolved(f"unknown reference slo.{rest}: [slo] declares {declared}{hint}")
        if field == "":
            return escape(f"{objective.limit:,g}\u00a0{objective.name.rsplit('_', 1)[1]}")
        if objective.percentile is None:
            raise Unresolved(f"slo.{rest}: {name} is judged for each request, not at a percentile")
        return escape(ordinal(objective.percentile))

    def _cells(self) -> dict[str, CellState]:
        many = len({c.run for c in self.metrics.cells}) > 1
        return {cell_name(c, runs=many): c for c in self.metrics.cells}

    def _cell(self, name: str) -> Markup | None:
        cells = self._cells()
        head, _, last = name.rpartition(".")
        if last in ("status", "reason") and head in cells:
            cell = cells[head]
            if last == "status":
                return escape(STATUS_WORDS.get(cell.status, cell.status))
            # without its final full stop: prose goes on after it
            return escape((cell.reason or "measured").rstrip().removesuffix("."))
        for cell_id, cell in cells.items():
            if name.startswith(cell_id + "."):
                if cell.status != "ok":
                    raise Unresolved(
                        f"{name} has no value: the cell {cell_id} {STATUS_WORDS[cell.status]} "
                        f"({cell.reason or cell.status}); refer to {{{{ {cell_id}.status }}}} or "
                        f"{{{{ {cell_id}.reason }}}} instead"
                    )
                given = [v.id for v in self.metrics.values if v.id.startswith(cell_id + ".")]
                hint = did_you_mean(name, given, prefix=cell_id + ".")
                if hint:  # a misspelled metric, not a missing one
                    raise Unresolved(f"unknown metric {name}: the cell {cell_id} has none{hint}")
                raise Unresolved(
                    f"{name} has no value: the cell {cell_id} was measured, but gives no such "
                    "metric (reportgen metrics lists the ids it has)"
                )
        return None

    def _setup(self, name: str) -> Markup | None:
        run, _, field_name = name.partition(".")
        setup = self.setups.get(run) if field_name else None
        if setup is None:
            setup, field_name = self.setup, name
        if field_name not in SETUP_FIELDS:
            return None
        if field_name in HARDWARE_FIELDS and setup.hardware is None:
            raise Unresolved(
                f"{{{{ {name} }}}}: the article states no hardware ([runs.setup.hardware])"
            )
        holder = setup.hardware if field_name in HARDWARE_FIELDS else setup
        value = getattr(holder, field_name)
        if value is None:
            raise Unresolved(f"{{{{ {name} }}}}: article.toml does not state {field_name}")
        if isinstance(value, int | float) and not isinstance(value, bool):
            return escape(f"{value:,g}" if isinstance(value, float) else f"{value:,}")
        return escape(str(value))

    def known(self) -> list[str]:
        """Every name that resolves, for "did you mean" suggestions."""
        names = [v.id for v in self.metrics.values]
        names += [f"setup.{f}" for f in SETUP_FIELDS]
        names += [f"setup.{run}.{f}" for run in self.setups if run for f in SETUP_FIELDS]
        names += [f"version.{tool}" for tool in self.tools] + ["article.date"]
        names += [f"{c}.{w}" for c in self._cells() for w in ("status", "reason")]
        return names


def long_date(date: str) -> str:
    """An ISO date as the article writes it: 2026-11-11 -> 11 November 2026."""
    day = dt.date.fromisoformat(date)
    return f"{day.day} {day:%B %Y}"


def _interval_end(value: MetricValue) -> bool:
    """Whether `value` states how uncertain another is (an end of its interval, a spread)."""
    return repeat_part(value.stat) is not None
