"""Draft text: the placeholders `reportgen init` writes for the author to replace, all marked
with `DRAFT`, and where an article's source still has them (part of the load stage: the
manifest's text and the prose in, places out; `draft_findings` makes them lint warnings).

One marker, defined here, makes every placeholder findable: the intro's "say here what was
measured", an engine the run files do not name, whatever init writes next. A plain build warns;
`reportgen check --strict` fails until each is replaced. They cannot be acknowledged.
"""

from __future__ import annotations

from collections.abc import Iterable

from reportgen.article.source.declarations import Place, Text
from reportgen.metrics.lints.findings import Finding, define_lint

# The mark each placeholder of `reportgen init` carries, shown as it is on a draft's page.
DRAFT = "[draft]"

LINT = define_lint(
    "draft-text",
    severity="warning",
    rule=f"text marked {DRAFT} by reportgen init is still in the article",
    title="Draft text still in the article",
    why="reportgen init wrote a placeholder for the author to replace; published, it reads as "
    "the author's word.",
)


def drafted(text: str, file: str, line: int = 1, col: int = 1) -> list[Place]:
    """Where `DRAFT` stands in `text`, which starts at (`line`, `col`) of `file`."""
    places = []
    at = text.find(DRAFT)
    while at >= 0:
        before = text[:at]
        n = before.count("\n")
        places.append(Place(file, line + n, (col + at) if n == 0 else at - before.rfind("\n"), ""))
        at = text.find(DRAFT, at + len(DRAFT))
    return places


def source_drafts(manifest: Text, prose: Iterable[Text]) -> tuple[Place, ...]:
    """Every placeholder left in an article's manifest (its whole text) and its prose files."""
    return tuple(p for t in (manifest, *prose) for p in drafted(t.text, t.file, t.line, t.col))


def draft_findings(places: Iterable[Place]) -> tuple[tuple[Finding, tuple[int, int]], ...]:
    """A warning for each placeholder, with its (line, col)."""
    return tuple(
        (
            Finding(
                id=LINT.id,
                severity=LINT.severity,
                file=place.file,
                pointer=place.pointer,
                cell=None,
                metrics=(),
                evidence=f"line {place.line}",
                message=f"Text marked {DRAFT} by reportgen init is still here: replace it with "
                "the article's own words.",
            ),
            (place.line, place.col),
        )
        for place in places
    )
