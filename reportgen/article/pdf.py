"""PDF stage: the article's HTML in, PDF bytes out, rendered by WeasyPrint with print CSS.

WeasyPrint may only read files inside the allowed folders (the article folder and the
templates) and `data:` URLs: no network, no other local file. It reports missing resources in
its log instead of raising, so every warning or error it logs fails the build, located.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

# WeasyPrint warns once, when it is first imported on a machine without HarfBuzz's subsetting
# library (Debian's libharfbuzz-subset0): "HarfBuzz-Subset will be required by future versions of
# WeasyPrint". It then subsets fonts with fontTools instead, which `render_pdf` makes as
# reproducible as the HarfBuzz path. The warning is about this machine, not about an article, so
# exactly that warning is silenced, here, where the import raises it.
with warnings.catch_warnings():
    warnings.filterwarnings(
        "ignore",
        message=r"HarfBuzz-Subset will be required by future versions of WeasyPrint",
        category=DeprecationWarning,
    )
    import weasyprint
from weasyprint.urls import URLFetcher, URLFetchingError

from reportgen.errors import InputError, Problem


class FolderFetcher(URLFetcher):  # type: ignore[misc]
    """A URL fetcher that serves only files under the given folders, and data: URLs."""

    def __init__(self, roots: Sequence[Path]) -> None:
        super().__init__(allowed_protocols=("file", "data"), allow_redirects=False)
        self.roots = tuple(r.resolve() for r in roots)
        self.refused: list[str] = []

    def fetch(self, url: str, headers: Any = None) -> Any:
        parsed = urlparse(url)
        if parsed.scheme == "data":
            return super().fetch(url, headers)
        if parsed.scheme == "file":
            path = Path(unquote(parsed.path)).resolve()
            if any(path.is_relative_to(root) for root in self.roots) and path.is_file():
                return super().fetch(url, headers)
        self.refused.append(url)
        raise URLFetchingError(f"reportgen does not let the PDF load {url}")


# Warnings about this machine's libraries, not about the article: reported by WeasyPrint, harmless.
_ENVIRONMENT_WARNINGS = ("Using fontTools instead of HarfBuzz",)


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno < logging.ERROR and record.getMessage().startswith(_ENVIRONMENT_WARNINGS):
            return
        self.records.append(record)


_EPOCH_LOCK = threading.Lock()


@contextmanager
def _source_date_epoch(created: dt.datetime) -> Iterator[None]:
    """`SOURCE_DATE_EPOCH` set to the build's date while the PDF is written.

    fontTools, which subsets the fonts when HarfBuzz cannot, stamps each subset font's `head`
    table with the current time unless SOURCE_DATE_EPOCH is set: without it, two builds of the
    same article a second apart differ. The variable is the one interface fontTools reads, so the
    build's own date goes there for exactly as long as the PDF is being written.
    """
    with _EPOCH_LOCK:
        before = os.environ.get("SOURCE_DATE_EPOCH")
        os.environ["SOURCE_DATE_EPOCH"] = str(int(created.timestamp()))
        try:
            yield
        finally:
            if before is None:
                del os.environ["SOURCE_DATE_EPOCH"]
            else:
                os.environ["SOURCE_DATE_EPOCH"] = before


@contextmanager
def _weasyprint_log() -> Iterator[_Collect]:
    handler = _Collect()
    logger = logging.getLogger("weasyprint")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def render_pdf(
    html: str,
    *,
    label: str,
    base: Path,
    roots: Sequence[Path],
    created: dt.datetime,
) -> bytes:
    """PDF bytes for `html`; `label` names the HTML in errors, `created` dates the PDF."""
    fetcher = FolderFetcher(roots)
    stamp = created.strftime("%Y-%m-%dT%H:%M:%SZ")
    with _weasyprint_log() as log, _source_date_epoch(created):
        document = weasyprint.HTML(
            string=html, base_url=base.resolve().as_uri() + "/", url_fetcher=fetcher
        ).render()
        document.metadata.created = stamp
        document.metadata.modified = stamp
        pdf: bytes = document.write_pdf()
    problems = [
        Problem(label, 1, 1, "", f"the PDF may not load {url}") for url in fetcher.refused
    ] + [
        Problem(label, 1, 1, "", f"WeasyPrint {r.levelname.lower()}: {r.getMessage()}")
        for r in log.records
        if not any(url in r.getMessage() for url in fetcher.refused)
    ]
    if problems:
        raise InputError(problems)
    return pdf
