"""TOML with locations: parse article.toml, and find the line and column of any key path in it;
and `toml_string`, the one way `reportgen init` writes a string into the TOML it makes.

tomllib gives values without positions; `Locator` reads the text's table headers and keys (arrays
of tables nested in arrays of tables included) so that a problem at a JSON pointer such as
`/sections/2/table/0/metric` is reported at its line.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

from reportgen.errors import InputError, Problem, whole_file
from reportgen.formats.json_input.document import split_pointer

_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\"' ]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-\"']+)\s*=")


# What a TOML basic string may not hold as itself: the quote, the backslash, every control
# character but tab (U+0000-U+001F, U+007F), and a lone surrogate (no Unicode scalar value, so
# no TOML escape either: written as U+FFFD). C1 controls and the bidirectional overrides are
# valid TOML but would hide or reorder what the file shows an editor: escaped too.
_UNSAFE = re.compile(r'["\\\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]')
_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _escape(found: re.Match[str]) -> str:
    char = found[0]
    if "\ud800" <= char <= "\udfff":
        return "\ufffd"
    return _SHORT.get(char) or f"\\u{ord(char):04X}"


def toml_string(text: str) -> str:
    """`text` as a TOML basic string (`"..."`) that tomllib reads back as `text` (a lone
    surrogate, which no TOML string can hold, as U+FFFD)."""
    return '"' + _UNSAFE.sub(_escape, text) + '"'


def parse_toml(text: str, label: str) -> dict[str, Any]:
    """The TOML document, or `InputError` located at the syntax error."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line, col = (int(found.group(1)), int(found.group(2))) if found else (1, 1)
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise InputError(
            [
                Problem(
                    path=label, line=line, col=col, pointer="", message=f"invalid TOML: {message}"
                )
            ]
        ) from None
    except RecursionError:
        raise InputError(
            [whole_file(label, "invalid TOML: tables or arrays nested too deeply")]
        ) from None


class Locator:
    """Line and column of a key path in a TOML text (tables, arrays of tables, plain keys)."""

    def __init__(self, text: str) -> None:
        self.places: dict[str, tuple[int, int]] = {}
        table: list[str] = []
        index: dict[tuple[str, ...], int] = {}  # array of tables (by key path) -> current entry
        for n, line in enumerate(text.splitlines(), start=1):
            header = _HEADER.match(line)
            if header and not _KEY.match(line):
                keys = tuple(p.strip().strip("\"'") for p in header.group(2).split("."))
                if header.group(1) == "[[":
                    index[keys] = index.get(keys, -1) + 1
                    for other in [
                        k for k in index if len(k) > len(keys) and k[: len(keys)] == keys
                    ]:
                        del index[other]  # a new entry starts its own nested arrays afresh
                table = self._path(keys, index)
                self.places.setdefault("/" + "/".join(table), (n, line.index("[") + 1))
                continue
            key_match = _KEY.match(line)
            if key_match:
                key = key_match.group(1).strip("\"'")
                value_col = line.index("=") + 2
                while value_col <= len(line) and line[value_col - 1] == " ":
                    value_col += 1
                self.places["/" + "/".join([*table, key])] = (n, value_col)

    @staticmethod
    def _path(keys: tuple[str, ...], index: dict[tuple[str, ...], int]) -> list[str]:
        """The pointer tokens of a table header: each array of tables on the way, with its index."""
        out: list[str] = []
        for i, key in enumerate(keys):
            out.append(key)
            if keys[: i + 1] in index:
                out.append(str(index[keys[: i + 1]]))
        return out

    def locate(self, pointer: str) -> tuple[int, int]:
        """Where the value at `pointer` (or its nearest located ancestor) is written."""
        tokens = split_pointer(pointer)
        while tokens:
            place = self.places.get("/" + "/".join(tokens))
            if place:
                return place
            tokens = tokens[:-1]
        return 1, 1


def value_at(data: Any, pointer: str) -> Any:
    """The value at a JSON pointer into parsed TOML; None when absent."""
    value = data
    for token in split_pointer(pointer):
        if isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        elif isinstance(value, dict) and token in value:
            value = value[token]
        else:
            return None
    return value
