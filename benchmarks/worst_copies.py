"""The worst published copies the caps of `reportgen check` allow, one for each cap, each at it.

Each copy is the input found slowest per unit of what its cap counts (docs/commands.md gives the
measurements): numbers in one endless sentence of claims, or one a line; words that are a table's
title over and over; characters of a single line of emphasis marks, or of empty lines; HTML tags;
bytes of an HTML page that is one comment; a PDF whose extraction never ends. `mixed` puts the
slowest numbers, words and characters together into one copy, each up to its own cap, and
`html-mixed` does the same inside the largest page the byte cap allows.

`copy(name)` gives a copy's bytes and its file suffix; `refused(name)` one just past the cap,
which check must refuse with the cap's message (`REFUSAL`). `PAST_CAPS` are copies at the byte
cap that a count cap refuses: what is read before the refusal costs too.
benchmarks/worst_case.py checks each against the two-tool article; tests/check/test_input_caps.py
reads them at small sizes.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

from reportgen.fileio import cap_bytes, cap_count

CLAIM = "3x faster than 2 s "  # two numbers, five words
NUMBER_LINE = "183 tok/s\n"
TITLE = "Time to first token "  # a table title of the two-tool article: four words
REFUSAL = "check reads at most"


def _fill(unit: str, count: int) -> str:
    return unit * count


def _numbers(extra: int = 0) -> str:
    return _fill(NUMBER_LINE, cap_count("numbers") + extra)


def _claims(extra: int = 0) -> str:
    return _fill(CLAIM, (cap_count("numbers") + extra) // 2)


def _titles(extra: int = 0) -> str:
    return _fill(TITLE, (cap_count("words") + extra) // 4)


def _stars(extra: int = 0) -> str:
    return _fill("*", cap_count("chars") + extra)


def _newlines(extra: int = 0) -> str:
    return _fill("\n", cap_count("chars") + extra)


def _mixed(extra: int = 0) -> str:
    """The slowest numbers, then the slowest words, then the slowest characters, each up to its
    cap in what is left."""
    claims = _claims()  # every number allowed, and 5 words for each 2
    words = cap_count("words") - len(claims.split()) - 1  # the last line is one word
    titles = _fill(TITLE, max(0, words) // 4)
    text = claims + "\n" + titles + "\n"
    return text + _fill("*", cap_count("chars") - len(text) + extra)


def _tags(extra: int = 0) -> str:
    return "<!doctype html>" + _fill("<br>", cap_count("tags") - 1 + extra)


def _comment(extra: int = 0) -> str:
    head = "<!doctype html><p>1 ms</p><!-- "
    return head + _fill("x", cap_bytes("published") - len(head) - 4 + extra) + " -->"


def _html_mixed(extra: int = 0) -> str:
    """A page at the byte cap: the slowest text at its caps in paragraphs, tags up to their cap
    (each paragraph's two among them), and a comment filling the rest of the bytes."""
    lines = _mixed().split("\n")
    body = "<!doctype html>" + "".join(f"<p>{line}</p>" for line in lines)
    head = body + _fill("<br>", cap_count("tags") - body.count("<") - 1) + "<!-- "
    return head + _fill("x", cap_bytes("published") - len(head.encode()) - 4 + extra) + " -->"


def pdf_bytes(content: bytes, form: bytes | None = None) -> bytes:
    """A one-page PDF whose page draws `content` (and the form XObject `form`, as /X)."""
    xobject = " /XObject << /X 5 0 R >>" if form is not None else ""
    font = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"

    def stream(data: bytes, head: str = "") -> bytes:
        packed = zlib.compress(data, 9)
        return (
            f"<< {head}/Length {len(packed)} /Filter /FlateDecode >>\nstream\n".encode()
            + packed
            + b"\nendstream"
        )

    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources "
        + f"<< /Font << /F1 6 0 R >>{xobject} >> >>".encode(),
        stream(content),
        stream(
            form or b"",
            "/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 6 0 R "
            ">> >> ",
        ),
        font,
    ]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{at:010d} 00000 n \n".encode() for at in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\n".encode()
    return bytes(out + f"startxref\n{xref}\n%%EOF\n".encode())


def _pdf_text(text: str) -> bytes:
    """A one-page PDF that shows `text`, one line of it a line."""
    shown = [
        f"({line.replace(chr(92), chr(92) * 2).replace('(', '[').replace(')', ']')}) Tj T*"
        for line in text.split("\n")
    ]
    return pdf_bytes(("BT /F1 12 Tf 14 TL 72 700 Td\n" + "\n".join(shown) + "\nET\n").encode())


def _endless_pdf() -> bytes:
    """A 1 KB PDF whose one page draws, 5,000 times, a form of 2,000 words: pypdf parses the form
    each time, which no stream limit of its own stops."""
    return pdf_bytes(b"/X Do\n" * 5000, b"BT /F1 12 Tf 72 700 Td (a) Tj ET\n" * 2000)


Text = Callable[..., str]
COPIES: dict[str, tuple[Text, str, str]] = {  # name: (the copy, its suffix, the cap it is at)
    "numbers": (_numbers, ".md", "numbers"),
    "claims": (_claims, ".md", "numbers"),
    "titles": (_titles, ".md", "words"),
    "stars": (_stars, ".md", "chars"),
    "newlines": (_newlines, ".md", "chars"),
    "mixed": (_mixed, ".md", "chars"),
    "tags": (_tags, ".html", "tags"),
    "comment": (_comment, ".html", "published MB"),
    "html-mixed": (_html_mixed, ".html", "published MB"),
}


def _page_of_words() -> str:
    """A page at the byte cap of one paragraph of words: refused by the loose count of its words
    before it is parsed (`sources._words_before_parsing`)."""
    head = "<!doctype html><p>"
    return head + _fill("the quick brown fox ", (cap_bytes("published") - len(head) - 4) // 20)


def _page_at_loose_words() -> str:
    """A page of one paragraph just within the loose count (4 times the words cap): parsed into
    its tree, then refused by the words cap. The most a page's tree holds."""
    head = "<!doctype html><p>"
    return head + _fill("the quick brown fox ", cap_count("words") - 1)  # 4 words each


def _lines_at_byte_cap() -> str:
    """Markdown at the byte cap, all empty lines: refused before it is split into lines."""
    return _fill("\n", cap_bytes("published"))


# Copies at the byte cap that a count cap refuses: what reading costs before the refusal.
PAST_CAPS: dict[str, tuple[Callable[[], str], str]] = {
    "page of words (refused)": (_page_of_words, ".html"),
    "page of words parsed (refused)": (_page_at_loose_words, ".html"),
    "empty lines (refused)": (_lines_at_byte_cap, ".md"),
}


def copy(name: str) -> tuple[bytes, str]:
    """The copy `name` at its cap: its bytes and its file suffix."""
    if name == "pdf":
        return _endless_pdf(), ".pdf"
    if name == "pdf-mixed":
        return _pdf_text(_mixed()), ".pdf"
    if name in PAST_CAPS:
        text, suffix = PAST_CAPS[name]
        return text().encode("utf-8"), suffix
    make, suffix, _ = COPIES[name]
    return make().encode("utf-8"), suffix


def refused(name: str) -> tuple[bytes, str]:
    """The copy `name` just past its cap."""
    make, suffix, _ = COPIES[name]
    return make(4).encode("utf-8"), suffix  # one more of the largest unit (a title: 4 words)
