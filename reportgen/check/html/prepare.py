"""A published HTML page made safe for `html.parser` to read in linear time (pure): text in, text
out, every line where it was.

Python 3.11's `HTMLParser` reads an unterminated construct (a tag or declaration with no `>`
after it, a comment with no `-->` after it) by searching to the end of the page, then takes one
character as text and searches again from the next `<`: a page of repeated `<!--`, `<a ` or `</x`
costs time quadratic in its length (CPython gh-135462, fixed in 3.11.13 and 3.12.11). Only a
construct after the page's last `>` (or a comment opener after its last comment close) can be
unterminated, so those openers' `<` are written as `&lt;`: the parser reads them as the same text
it made of them before, in one pass. `<![` (a CDATA or marked section, which the parser raises
an AssertionError on unless it knows the keyword) becomes `<! `, a bogus comment to the next
`>`, as HTML5 reads it outside SVG and MathML.

Worst case: linear in the page's length, and the parser after it too.
"""

from __future__ import annotations

import re

# A comment's close as both html.parser (`--\s*>`) and a browser (`-->` or `--!>`) read one.
_COMMENT_CLOSE = re.compile(r"-->")


def defused(html: str) -> str:
    """`html` with every construct the parser would search to the end for written as text."""
    html = html.replace("<![", "<! ")
    close = -1
    for found in _COMMENT_CLOSE.finditer(html):
        close = found.start()
    cut = max(0, close - 3)  # a comment opened at `cut` or later has no close after its `<!--`
    html = html[:cut] + html[cut:].replace("<!--", "&lt;!--")
    end = html.rfind(">") + 1
    return html[:end] + html[end:].replace("<", "&lt;")
