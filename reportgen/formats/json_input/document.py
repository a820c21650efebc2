"""Load stage for JSON input: bytes in, a parsed document with a position map out.

The fast path is the C `json` parser with two hooks (duplicate keys, NaN/Infinity). Positions are
only worked out when something needs a location: `JsonDocument.locate` walks the text along one
JSON pointer, letting the C scanner skip every value off that path.

Infinity. vLLM and SGLang write an unbounded request rate (and vLLM an infinite burstiness) as a
bare `Infinity`, Python's `json.dumps` of `float("inf")`, which is not JSON. Exactly that token,
as the value of a top-level key of `INFINITY_KEYS` in an object (a JSON file's, or a JSON Lines
record's), is read as `float("inf")`. `Infinity` anywhere else, and `-Infinity` or `NaN` anywhere,
are refused with their position. So is a number that overflows to infinity as such a value
(`1e999`): an infinite request rate always means the tool wrote `Infinity`.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

from reportgen.errors import Capped, InputError, Problem, whole_file

_BOM = b"\xef\xbb\xbf"
FLOAT_MAX = sys.float_info.max
TOO_LARGE = "number too large: it does not fit a 64-bit float"
EXTRA_DATA = "invalid JSON: more data after the end of the top-level value"
_WS = " \t\n\r"
_DECODER = json.JSONDecoder()


class Rejected(Exception):
    """Raised from a parser hook: the fast path gives up and the slow walk locates the cause."""


# the top-level keys whose value may be a bare Infinity (see the module's notes)
INFINITY_KEYS = ("request_rate", "burstiness")
_BARE = object()  # what the parser hook returns for an Infinity token, until it is checked


class Overflow(ValueError):
    """A number that overflows to infinity as the value of an `INFINITY_KEYS` key."""

    def __init__(self, key: str) -> None:
        super().__init__(TOO_LARGE)
        self.key = key


def loads_object(text: str) -> Any:
    """`text` parsed by the fast path, a bare `Infinity` allowed as a top-level `INFINITY_KEYS`
    value; `Rejected` when the slow walk must locate a problem, `Overflow` for `1e999` there."""
    tokens = 0

    def constant(name: str) -> Any:
        nonlocal tokens
        if name != "Infinity":
            raise Rejected
        tokens += 1
        return _BARE

    value = json.loads(text, object_pairs_hook=strict_pairs, parse_constant=constant)
    if has_lone_surrogate(text, value):
        raise Rejected
    if not isinstance(value, dict):
        if tokens:
            raise Rejected
        return value
    bare = [key for key in INFINITY_KEYS if value.get(key) is _BARE]
    if tokens != len(bare):
        raise Rejected
    for key in INFINITY_KEYS:
        if key in bare:
            value[key] = math.inf
        elif isinstance(value.get(key), float) and math.isinf(value[key]):
            raise Overflow(key)
    return value


# A `\\uD800`-`\\uDFFF` escape in JSON text: the only way a parsed string can hold a surrogate
# (UTF-8 input cannot encode one). A pair of them is one character; one alone is not text.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")
LONE_SURROGATE = (
    "{} is not valid Unicode text: it holds {}, half of a UTF-16 surrogate pair escaped alone"
)


def lone_surrogate(text: str) -> str | None:
    """The first lone surrogate in the decoded string `text`, as its JSON escape; else None."""
    found = _SURROGATE.search(text)
    return None if found is None else f"\\u{ord(found[0]):04x}"


def has_lone_surrogate(text: str, value: Any) -> bool:
    """True when a string (key or value) of `value`, parsed from the JSON `text`, holds a lone
    surrogate. Only text with a surrogate's escape is walked, so most files cost one search."""
    if _SURROGATE_ESCAPE.search(text) is None:
        return False
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def infinity_allowed(problem: Problem, text: str) -> bool:
    """True for the slow walk's refusal of an Infinity that `loads_object` reads."""
    at = {f"/{key}" for key in INFINITY_KEYS}
    return problem.pointer in at and text.startswith("Infinity", problem.col - 1)


def strict_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The `object_pairs_hook` of the fast path: a dict, or `Rejected` on a duplicate key."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise Rejected
    return obj


def no_constant(_name: str) -> Any:
    """The `parse_constant` hook of the fast path: NaN or Infinity is `Rejected`."""
    raise Rejected


def escape_pointer_token(token: str | int) -> str:
    """Escape one JSON pointer reference token (RFC 6901)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer_of(path: Iterator[str | int] | tuple[str | int, ...] | list[str | int]) -> str:
    """Join path tokens into a JSON pointer."""
    return "".join("/" + escape_pointer_token(t) for t in path)


def split_pointer(pointer: str) -> list[str]:
    """Split a JSON pointer into unescaped reference tokens."""
    if not pointer:
        return []
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


@dataclass(frozen=True, kw_only=True)
class JsonDocument:
    """A parsed JSON file: its label (path as shown), raw digest, text and data."""

    label: str
    sha256: str
    text: str
    data: dict[str, Any]
    _cache: dict[str, tuple[int, int]] = field(default_factory=dict, compare=False, repr=False)

    def locate(self, pointer: str) -> tuple[int, int]:
        """Line and column of the value at `pointer` (or of its nearest existing ancestor)."""
        if pointer not in self._cache:
            self._cache[pointer] = line_col(self.text, offset_of(self.text, split_pointer(pointer)))
        return self._cache[pointer]

    def problem(self, pointer: str, message: str, severity: str = "error") -> Problem:
        """A problem located at `pointer` in this file."""
        line, col = self.locate(pointer)
        return Problem(
            path=self.label,
            line=line,
            col=col,
            pointer=pointer,
            message=message,
            severity=severity,  # type: ignore[arg-type]
        )


@dataclass(frozen=True, kw_only=True)
class JsonArrayDocument(JsonDocument):
    """A JSON file whose top level is an array (`parse_json(..., top_list=True)`): `data` maps
    each item's index ("0", "1", ...) to the item, so `/3/avg_ts` is a pointer into the file and
    `locate` walks the text as it is."""


def not_an_object(label: str, text: str, kind: str) -> Problem:
    """The problem of a file whose top level is `kind` ("an array"), at its first character."""
    line, col = line_col(text, skip_ws(text, 0))
    return Problem(
        path=label,
        line=line,
        col=col,
        pointer="",
        message=f"top level must be an object, not {kind}",
    )


def skip_ws(text: str, i: int) -> int:
    """The offset of the first non-whitespace character of `text` at or after `i`."""
    n = len(text)
    while i < n and text[i] in _WS:
        i += 1
    return i


def offset_of(text: str, tokens: list[str]) -> int:
    """Offset of the value at the path `tokens`; the deepest existing ancestor if it is absent."""
    i = skip_ws(text, 0)
    for token in tokens:
        if i >= len(text) or text[i] not in "{[":
            return i
        found = child_offset(text, i, token)
        if found is None:
            return i
        i = found
    return i


def child_offset(text: str, i: int, token: str) -> int | None:
    """Offset of the member `token` of the object or array opening at `i`; None if absent."""
    opener = text[i]
    i = skip_ws(text, i + 1)
    if opener == "{":
        while i < len(text) and text[i] == '"':
            key, i = scanstring(text, i + 1)
            i = skip_ws(text, skip_ws(text, i) + 1)  # past ':'
            if key == token:
                return i
            _, i = _DECODER.raw_decode(text, i)
            i = skip_ws(text, i)
            if i < len(text) and text[i] == ",":
                i = skip_ws(text, i + 1)
        return None
    if not token.isdigit():
        return None
    want, index = int(token), 0
    while i < len(text) and text[i] != "]":
        if index == want:
            return i
        _, i = _DECODER.raw_decode(text, i)
        i = skip_ws(text, i)
        if i < len(text) and text[i] == ",":
            i = skip_ws(text, i + 1)
        index += 1
    return None


class _Walk:
    """The slow full walk over one JSON text, collecting its located problems.

    Each nesting level is one `value` frame, as many as Python's recursion limit allows.
    """

    def __init__(self, label: str, text: str, overflows: bool) -> None:
        self.label, self.text, self.overflows = label, text, overflows
        # a file of a million NaNs: the first ones kept, the others counted
        self.problems = Capped()

    def add(self, at: int, path: list[str | int], message: str) -> None:
        line, col = line_col(self.text, at)
        self.problems.add(
            Problem(path=self.label, line=line, col=col, pointer=pointer_of(path), message=message)
        )

    def lone(self, string: str, at: int, path: list[str | int], what: str = "string") -> None:
        escape = lone_surrogate(string)  # a key's is placed at its object: no pointer holds one
        if escape is not None:
            self.add(at, path, LONE_SURROGATE.format(what, escape))

    def value(self, i: int, path: list[str | int]) -> int:
        """Walk the value at `i`; the index just after it."""
        text = self.text
        i = skip_ws(text, i)
        ch = text[i]
        if ch == "{":
            seen: set[str] = set()
            i = skip_ws(text, i + 1)
            while text[i] == '"':
                key_at = i
                key, i = scanstring(text, i + 1)
                self.lone(key, key_at, path, "a key")
                if key in seen:
                    self.add(key_at, [*path, key], f"duplicate key {key!r} in object")
                seen.add(key)
                i = skip_ws(text, i) + 1
                i = skip_ws(text, self.value(i, [*path, key]))
                if text[i] == ",":
                    i = skip_ws(text, i + 1)
            return i + 1
        if ch == "[":
            i = skip_ws(text, i + 1)
            index = 0
            while text[i] != "]":
                i = skip_ws(text, self.value(i, [*path, index]))
                if text[i] == ",":
                    i = skip_ws(text, i + 1)
                index += 1
            return i + 1
        return self.scalar(i, path)

    def scalar(self, i: int, path: list[str | int]) -> int:
        """Walk the string, number or literal at `i`; the index just after it."""
        text, ch = self.text, self.text[i]
        if text.startswith(("NaN", "Infinity", "-Infinity"), i):
            word = "-Infinity" if ch == "-" else ("NaN" if ch == "N" else "Infinity")
            self.add(i, path, f"{word} is not valid JSON; a measurement must be a finite number")
            return i + len(word)
        try:
            decoded, end = _DECODER.raw_decode(text, i)
            if isinstance(decoded, str):
                self.lone(decoded, i, path)
            elif (
                self.overflows
                and type(decoded) in (int, float)
                and not -FLOAT_MAX <= decoded <= FLOAT_MAX
            ):
                self.add(i, path, TOO_LARGE)
        except json.JSONDecodeError:
            raise
        except ValueError:  # more digits than int() converts (sys.get_int_max_str_digits)
            end = i + 1
            while end < len(text) and text[end].isdigit():
                end += 1
            self.add(
                i,
                path,
                f"integer with {end - i - (ch == '-')} digits is far too long for a measurement",
            )
        return int(end)


def walk_problems(label: str, text: str, *, overflows: bool = False) -> list[Problem]:
    """Slow full walk: every duplicate key, NaN/Infinity, over-long integer and string with a
    lone surrogate, located; with `overflows`, every number no 64-bit float holds too (10**400,
    1e999), which the formats otherwise judge one by one.

    The walk is lenient about syntax; a permissive parse afterwards reports any syntax error.
    """
    walk = _Walk(label, text, overflows)
    problems = walk.problems
    try:
        walk.value(0, [])
    except RecursionError:
        problems.add(whole_file(label, "JSON nested too deeply"))
    except (ValueError, IndexError):
        pass  # malformed JSON: the permissive parse below locates the syntax error
    try:
        json.loads(text, parse_int=float)  # accepts NaN, duplicates and long integers
    except json.JSONDecodeError as exc:
        problems.add(syntax_problem(label, text, exc))
    except RecursionError:
        pass
    return problems.problems() or [whole_file(label, "invalid JSON")]


_LITERALS = ("true", "false", "null", "NaN", "Infinity", "-Infinity")


def syntax_problem(label: str, text: str, exc: json.JSONDecodeError) -> Problem:
    """A JSON syntax error as a problem; says so when the file just stops (a truncated file)."""
    rest = text[exc.pos :].strip()
    if not text.strip():
        what = "file is empty"
    elif exc.msg.startswith("Unterminated string") or (
        # json's message for a \u escape cut short by the end of the file
        exc.msg.startswith("Invalid \\u") and '"' not in text[exc.pos :]
    ):
        what = "string never closed: the file ends inside it (truncated?)"
    elif (
        not rest
        or any(word.startswith(rest) for word in _LITERALS)
        or (rest[0] in ".eE" and not rest.strip(".eE+-0123456789"))
    ):
        what = "file ends in the middle of a value (truncated?)"
    elif exc.msg == "Extra data":
        what = EXTRA_DATA
    else:
        what = f"invalid JSON: {exc.msg}"
    return Problem(path=label, line=exc.lineno, col=exc.colno, pointer="", message=what)


def parse_json(label: str, raw: bytes, *, top_list: bool = False) -> JsonDocument:
    """Parse one JSON file's bytes; raise `InputError` with located problems if it is malformed.
    `top_list`: a top-level array is a `JsonArrayDocument` (else refused, as any non-object)."""
    digest = hashlib.sha256(raw).hexdigest()
    if raw.startswith(_BOM):
        raise InputError(
            [whole_file(label, "file starts with a UTF-8 byte order mark; JSON must not")]
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        col = len(before[before.rfind(b"\n") + 1 :].decode("utf-8", "replace")) + 1
        raise InputError(
            [
                Problem(
                    path=label,
                    line=line,
                    col=col,
                    pointer="",
                    message=f"invalid UTF-8 (byte 0x{raw[exc.start]:02x})",
                )
            ]
        ) from None
    try:
        data = loads_object(text)
    except Rejected:
        walked = [p for p in walk_problems(label, text) if not infinity_allowed(p, text)]
        raise InputError(walked or [whole_file(label, "invalid JSON")]) from None
    except json.JSONDecodeError as exc:
        raise InputError([syntax_problem(label, text, exc)]) from None
    except Overflow as exc:
        line, col = line_col(text, offset_of(text, [exc.key]))
        raise InputError(
            [Problem(path=label, line=line, col=col, pointer=f"/{exc.key}", message=TOO_LARGE)]
        ) from None
    except ValueError:  # an integer with more digits than int() converts
        raise InputError(walk_problems(label, text)) from None
    except RecursionError:
        raise InputError([whole_file(label, "JSON nested too deeply")]) from None
    huge = too_large_integers(label, text)
    if huge:
        raise InputError(huge)
    if isinstance(data, list) and top_list:
        return JsonArrayDocument(
            label=label, sha256=digest, text=text, data={str(i): v for i, v in enumerate(data)}
        )
    if not isinstance(data, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
            type(data), "a number"
        )
        raise InputError([not_an_object(label, text, kind)])
    return JsonDocument(label=label, sha256=digest, text=text, data=data)


# A run of 309 digits or more starting a number: an integer that may not fit a 64-bit float
# (FLOAT_MAX is about 1.8e308). The lookbehind starts a match only where a run starts: linear.
_LONG_DIGITS = re.compile(r"(?<![0-9])[0-9]{309}")


def too_large_integers(label: str, text: str) -> list[Problem]:
    """The located numbers in the parsed JSON `text` that no 64-bit float can hold, when it has an
    integer of 309 digits or more (10**400): every reader of such an integer would fail on it, so
    the file (or line) is refused, at every number too large (1e999 too)."""
    if _LONG_DIGITS.search(text) is None:
        return []
    found = walk_problems(label, text, overflows=True)
    return [p for p in found if p.message == TOO_LARGE]


def unfit_numbers(raw: Mapping[str, Any]) -> list[str]:
    """Keys of `raw` holding a number no 64-bit float can hold (1e999 reads as inf, or 10**400),
    except an infinite `INFINITY_KEYS` value: the reader allows only the token Infinity there."""
    return [
        k
        for k, v in raw.items()
        if isinstance(v, int | float)
        and not -FLOAT_MAX <= v <= FLOAT_MAX
        and not (k in INFINITY_KEYS and v == math.inf)
    ]
