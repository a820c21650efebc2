"""Text from outside reportgen (a server's answer, a published copy, a run file) made safe to print.

In: any string. Out: the same text as visible characters, for a terminal or a CI log. Control and
escape characters (ANSI ESC, CR, BEL, backspace, other C0 and C1 codes, DEL), bidirectional
overrides and isolates, other invisible format characters, lone surrogates and line or paragraph
separators are written as Python escapes (`\\x1b`, `\\u202e`). A line never begins (after its
indent) a GitHub Actions workflow command (`::error::`, `::add-mask::`, `##[group]`...): its first
character is written escaped. `one_line` also escapes newlines, so a text stays on its line;
`lines` keeps them and makes each line safe. `visible` escapes the same characters, newlines
too, and is how the page, the PDF, the charts and the CSVs show a string from a run file: a
control character reads the same everywhere, `del\\x7fname`.
"""

from __future__ import annotations

import re
from unicodedata import category

_COMMAND = re.compile(r"\s*(?=::|##\[)")


def _escape(char: str) -> str:
    code = ord(char)
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char)
    if named:
        return named
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def visible(text: str) -> str:
    """`text` with every character that shows nothing, or acts, written as its Python escape."""
    if text.isprintable():
        return text
    # isprintable() is False for Cc, Cf, Cs, Co, Cn, Zl, Zp and for spaces other than " ": those
    # spaces (no-break, thin, ideographic) are shown as they are.
    return "".join(c if c.isprintable() or category(c) == "Zs" else _escape(c) for c in text)


def _defused(line: str) -> str:
    found = _COMMAND.match(line)
    if found is None:
        return line
    at = found.end()
    return line[:at] + _escape(line[at]) + line[at + 1 :]


def one_line(text: str) -> str:
    """`text` as one line of visible characters that no CI runner reads as a command."""
    return _defused(visible(text))


def lines(text: str) -> str:
    """`text` with its line breaks kept ("\\n"), each line made safe as by `one_line`."""
    return "\n".join(one_line(line) for line in text.split("\n"))
