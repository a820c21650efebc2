"""The article's data-quality findings: the lints' findings with the acknowledgements that
article.toml gives applied, and a warning for each acknowledgement that matches nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from reportgen.article.source.declarations import ArticleSource
from reportgen.article.source.manifest import MANIFEST
from reportgen.metrics.lints.findings import Finding, define_lint

# Not about the data: article.toml acknowledges a finding that the data does not give.
UNUSED = define_lint(
    "acknowledgement-unused",
    severity="warning",
    rule="an acknowledgement in article.toml matches no finding",
    title="Acknowledgements that match no finding",
    why="A stale acknowledgement hides nothing; remove it or fix its lint id or cells.",
)


@dataclass(frozen=True)
class Reviewed:
    """Findings after the article's acknowledgements: the data's, and the manifest's own."""

    findings: tuple[Finding, ...]  # every lint finding, `acknowledged` set where the author did
    stale: tuple[tuple[Finding, tuple[int, int]], ...]  # unused acknowledgements, with their place


def review(article: ArticleSource, findings: tuple[Finding, ...]) -> Reviewed:
    """Apply `article`'s acknowledgements to `findings`."""
    used = [False] * len(article.acknowledgements)
    run_of = article.run_of() if len(article.runs) > 1 else {}
    out = []
    for f in findings:
        run = run_of.get(Path(f.file).name)
        if run is not None:
            f = replace(f, run=run)
        for i, ack in enumerate(article.acknowledgements):
            if ack.covers(f.id, f.cell, f.run):
                used[i] = True
                f = replace(f, acknowledged=ack.reason.text)
                break
        out.append(f)
    stale = []
    for i, (ack, hit) in enumerate(zip(article.acknowledgements, used, strict=True)):
        if hit:
            continue
        cells = f" for {', '.join(ack.cells)}" if ack.cells else ""
        finding = Finding(
            id=UNUSED.id,
            severity=UNUSED.severity,
            file=str(article.folder / MANIFEST),
            pointer=f"/acknowledge/{i}",
            cell=None,
            metrics=(),
            evidence=f"lint {ack.lint}{cells}",
            message=f"The acknowledgement of {ack.lint}{cells} matches no finding of the data: "
            "remove it, or correct its lint id or cells.",
        )
        stale.append((finding, (ack.reason.line, 1)))
    return Reviewed(tuple(out), tuple(stale))
