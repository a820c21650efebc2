"""PDF stage started ahead: the PDF is rendered by a forked worker (article/workers.py) that
imported WeasyPrint while this process read the runs, computed the metrics and drew the charts.

Importing WeasyPrint costs a fresh `reportgen build` about as much as everything before the PDF, and
neither needs the other. Laying the page out needs no chart drawn either, only its size: a `Sketch`
job lays out the page with an empty stand-in for each chart being drawn, and puts the charts in when
they follow (`render.render_pdf`'s `charts`). The worker renders with `pdf.render.render_pdf`, the
same function in a copy of this process, so the same bytes; an `InputError` comes back as the same
error. When it cannot help (no `os.fork`, other threads running, WeasyPrint already imported here)
the PDF is rendered in this process.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from reportgen.article.workers import Stage, started

WEASYPRINT = "reportgen.article.pdf.render"  # what the worker imports: WeasyPrint, through it


@dataclass(frozen=True)
class Request:
    """What `render_pdf` takes: a job for the PDF stage."""

    html: str
    label: str
    roots: tuple[Path, ...]
    created: dt.datetime

    def run(self) -> bytes:
        """The PDF, rendered in this process."""
        from reportgen.article.pdf.render import render_pdf

        return render_pdf(self.html, label=self.label, roots=self.roots, created=self.created)


@dataclass(frozen=True)
class Charts:
    """What a `Sketch` waits for: the page as published, and the SVGs of its stand-ins."""

    html: str
    drawn: tuple[str, ...]


@dataclass(frozen=True)
class Sketch:
    """A job for the PDF stage that follows (article/workers.py): `request`'s HTML has a stand-in
    for each chart being drawn, and the `Charts` are sent when drawn."""

    request: Request
    follows = True

    def run(self, receive: Callable[[], Charts]) -> bytes:
        """The PDF, laid out here before the charts are in."""
        from reportgen.article.pdf.render import render_pdf

        def charts() -> tuple[str, tuple[str, ...]]:
            got = receive()
            return got.html, got.drawn

        r = self.request
        return render_pdf(r.html, label=r.label, roots=r.roots, created=r.created, charts=charts)


def request(html: str, *, label: str, roots: Sequence[Path], created: dt.datetime) -> Request:
    """A job for the PDF stage."""
    return Request(html, label, tuple(roots), created)


def pdf_result(stage: Stage) -> bytes:
    """The PDF the stage was asked for."""
    pdf = stage.result()
    assert isinstance(pdf, bytes), f"the PDF stage returned {type(pdf).__name__}"
    return pdf


def pdf_stage(ahead: bool) -> contextlib.AbstractContextManager[Stage]:
    """The PDF stage, started ahead in a forked worker when `ahead` and it can be."""
    return started(WEASYPRINT, ahead)
