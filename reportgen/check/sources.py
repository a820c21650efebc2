"""Reading a published article: whether it is a PDF, HTML, or Markdown and plain text, and its
text as numbered lines for the readers.

A PDF's text is extracted with pypdf (no external tool); a file that is none of these (binary, not
UTF-8, a damaged PDF) is refused with a located error.
"""

from __future__ import annotations

import io
import logging
import urllib.parse
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from reportgen.check.htmlstyles import Fetch, Unreadable
from reportgen.check.htmltext import Page, read_html
from reportgen.check.published import Lines, text_lines
from reportgen.errors import InputError, Problem
from reportgen.files import read_input

SourceKind = Literal["html", "text", "pdf"]


@dataclass(frozen=True)
class PublishedText:
    """A published article as text lines, and what kind of file it was."""

    label: str
    kind: SourceKind
    lines: Lines
    page: Page | None = None  # an HTML page: where its words are, what check cannot see


def _refuse(label: str, message: str, line: int = 1) -> InputError:
    return InputError([Problem(label, line, 1, "", message)])


def pdf_text(data: bytes, label: str) -> str:
    """The text of a PDF, page after page, as pypdf extracts it."""
    import pypdf

    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.ERROR)  # pypdf logs recoverable oddities; a failure raises
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
            pages = [page.extract_text() or "" for page in reader.pages]
    except (pypdf.errors.PyPdfError, ValueError, KeyError, TypeError, OSError) as exc:
        raise _refuse(label, f"not a readable PDF: {exc}") from None
    finally:
        logger.setLevel(level)
    return "\n".join(pages)


def _looks_html(path: Path, text: str) -> bool:
    head = text.lstrip()[:200].lower()
    return path.suffix.lower() in (".html", ".htm") or head.startswith(("<!doctype html", "<html"))


def read_published(
    path: Path, *, inside: Path | None = None, label: str | None = None
) -> PublishedText:
    """A published article file as text lines (`inside`: it must be one of that folder's files)."""
    label = label or str(path)
    data = read_input(path, "published", label=label, inside=inside)
    if data.startswith(b"%PDF-"):
        return PublishedText(label, "pdf", text_lines(pdf_text(data, label)))
    if path.suffix.lower() == ".pdf":
        raise _refuse(label, "named .pdf but is not a PDF (no %PDF- header)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise _refuse(
            label, "not an HTML, Markdown, text or PDF file: not valid UTF-8 text", line
        ) from None
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise _refuse(label, "not an HTML, Markdown, text or PDF file: it holds NUL bytes", line)
    if _looks_html(path, text):
        page = read_html(text, beside(path))
        return PublishedText(label, "html", page.lines, page)
    return PublishedText(label, "text", text_lines(text))


def beside(page: Path) -> Fetch:
    """How a page's linked stylesheets are read: files in its folder (or below), by the
    relative address the page links them by; nothing on a server or outside that folder."""
    folder = page.parent

    def fetch(href: str) -> str:
        address = urllib.parse.urlsplit(href)
        if address.scheme or address.netloc:
            raise Unreadable("it is on a server; check reads no network")
        name = urllib.parse.unquote(address.path)
        if not name or name.startswith("/"):
            raise Unreadable("its address starts from the site's root, which check does not know")
        if not (folder / name).resolve().is_relative_to(folder.resolve()):
            raise Unreadable("it is outside the copy's folder, and check reads only inside it")
        try:
            data = read_input(folder / name, "published", label=name, inside=folder)
        except InputError as exc:
            raise Unreadable(exc.problems[0].message if exc.problems else str(exc)) from None
        return data.decode("utf-8-sig", "replace")

    return fetch
