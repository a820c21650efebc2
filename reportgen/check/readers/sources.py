"""Reading a published article: whether it is a PDF, HTML, or Markdown and plain text, and its
text as numbered lines for the readers.

A PDF's text is extracted with pypdf (no external tool), in a child process bounded in CPU time
and memory (`readers.pdftext`); a file that is none of these (binary, not UTF-8, a damaged PDF) is
refused with a located error.

Caps. Reading costs by what a copy holds, not only by its bytes: each reader takes a few
microseconds a word, each number more (it is matched with tables, headlines and claims), and
HTML's parser a few a tag. So besides its bytes (`REPORTGEN_MAX_PUBLISHED_MB`) a copy may hold at
most `cap_count("words")` words, `cap_count("numbers")` numbers (words with a digit) and, in
HTML, `cap_count("tags")` tags (each `<` counts); past a cap it is refused with the line where
the cap is passed, never read in part. docs/commands.md gives the worst case at each cap.
"""

from __future__ import annotations

import itertools
import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from reportgen.check.html.styles import Fetch, Unreadable
from reportgen.check.html.text import Page, read_html
from reportgen.check.readers.pdftext import pdf_text
from reportgen.check.readers.published import text_lines
from reportgen.check.readers.reported import Lines
from reportgen.errors import InputError, Problem
from reportgen.fileio import COUNT_CAPS, Count, cap_count, read_input

SourceKind = Literal["html", "text", "pdf"]


@dataclass(frozen=True)
class PublishedText:
    """A published article as text lines, and what kind of file it was."""

    label: str
    kind: SourceKind
    lines: Lines
    page: Page | None = None  # an HTML page: where its words are, what check cannot see


def _refuse(label: str, message: str, line: int = 1) -> InputError:
    return InputError([Problem(path=label, line=line, col=1, pointer="", message=message)])


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
        return _capped(PublishedText(label, "pdf", text_lines(pdf_text(data, label))))
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
        tags = text.count("<")
        if tags > cap_count("tags"):
            line = _line_of_nth(text, "<", cap_count("tags") + 1)
            raise _refuse(label, _over("tags", f"{tags:,}"), line)
        _words_before_parsing(label, text)
        page = read_html(text, beside(path))
        return _capped(PublishedText(label, "html", page.lines, page))
    if len(text) > cap_count("chars"):  # refused before it is split into lines
        line = text.count("\n", 0, cap_count("chars")) + 1
        raise _refuse(label, _over("chars", f"more than {cap_count('chars'):,}"), line)
    return _capped(PublishedText(label, "text", text_lines(text)))


# A number: a digit that does not continue a word or a number ("183", "1,234.5", "-2", "3x" are
# one each, "word12" none). The lookbehind fails at once inside a word, so a search never
# restarts inside a run it has scanned.
_NUMBER = re.compile(r"(?<![\w.,])[0-9]")
_WORD = re.compile(r"\S+")


# The page's tree holds each word it reads with its place (about 560 bytes a word), so the
# words cap is first applied, loosely, before the page is parsed: the words outside its tags,
# scripts and styles counted too, may be `_RAW_WORDS` times the cap. An 8 MiB page of words
# took 900 MB to be refused after parsing; this refuses it before, and a page that passes holds
# at most that many words (about 110 MB of tree at the default cap).
_RAW_WORDS = 4


def _words_before_parsing(label: str, text: str) -> None:
    """`InputError` when the text between `text`'s tags holds more than `_RAW_WORDS` times the
    words cap. One pass: each piece after a `<` is read from its first `>` (all of it when it
    has none, as the parser reads a `<` that opens no tag)."""
    cap = _RAW_WORDS * cap_count("words")
    seen, line = 0, 1
    for k, piece in enumerate(text.split("<")):
        _tag, closed, body = piece.partition(">")
        if not k or not closed:
            body = piece
        start = len(piece) - len(body)
        for found in _WORD.finditer(body):
            seen += 1
            if seen > cap:
                at = line + piece.count("\n", 0, start + found.start())
                raise _refuse(label, _over("words", f"more than {cap:,}"), at)
        line += piece.count("\n")


def _over(name: Count, held: str) -> str:
    cap = COUNT_CAPS[name]
    what = cap.what.split(" of ")[0]
    return (
        f"the copy holds {held} {what}; check reads at most {cap_count(name):,}: set {cap.env} "
        "to read more"
    )


def _capped(found: PublishedText) -> PublishedText:
    """`found`, or `InputError` at the line where its text passes the cap on its characters,
    words or numbers."""
    text = "\n".join(line for _, line in found.lines)
    counted: tuple[tuple[Count, re.Pattern[str] | None], ...] = (
        ("chars", None),
        ("words", _WORD),
        ("numbers", _NUMBER),
    )
    for name, pattern in counted:
        cap = cap_count(name)
        if pattern is None:
            at = cap if len(text) > cap else None
        else:  # the match past the cap, if any, without counting further
            past = next(itertools.islice(pattern.finditer(text), cap, None), None)
            at = past.start() if past else None
        if at is not None:
            line = found.lines[text.count("\n", 0, at)][0]
            if found.page is not None:  # the page's own line, not the reader's
                line = found.page.place(line, 1)[0]
            raise _refuse(found.label, _over(name, f"more than {cap:,}"), line)
    return found


def _line_of_nth(text: str, char: str, n: int) -> int:
    """The line number of the `n`th `char` in `text`."""
    at = -1
    for _ in range(n):
        at = text.find(char, at + 1)
    return text.count("\n", 0, at) + 1


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
