"""The API key: read from the environment when needed, and redacted from everything shown.

The key is never written to a file, a log or an error message: every line reportgen prints about a
submission passes through `redact` first. A server may echo the key back in another form (upper
case, without its `bhk_` prefix, hex, base64 at any alignment, URL- or JSON-escaped): each of
those is removed too. What `redact` cannot cut out, `leaks` finds: the key's distinctive part
(the 40 hex after `bhk_`), or pieces of it (5 characters or more; longer in long texts) that
together cover a third of it (13 characters at least), in any spacing, case, order of pieces or
direction; URL-, JSON-, octal- or HTML-escaped, full-width, in Cyrillic or Greek lookalikes,
ROT13; as hex, base64, base32, base85 or decimal bytes at any alignment, split across lines, or
one encoding inside another. A text that leaks is never shown: `guard` withholds it. Pieces of
4 characters or fewer, scattered among other letters, are not recognised.
"""

from __future__ import annotations

import base64
import codecs
import functools
import html
import json
import math
import re
import unicodedata
from collections.abc import Iterator, Mapping
from urllib.parse import quote, unquote

from reportgen.errors import InputError, whole_file

KEY_VARS = ("LOCALMAXXING_API_KEY", "LMX_API_KEY")
KEY_PREFIX = "bhk_"
REDACTED = "[redacted]"
_KEYLIKE = re.compile(r"(?i)bhk_[a-z0-9]{4,}")
_BEARER = re.compile(r"(?i)(bearer\s+)(?!\[redacted\])[^\s\"',;]+")
_MIN_FORM = 8  # shorter forms of a key would redact ordinary words


def api_key(env: Mapping[str, str]) -> str | None:
    """The API key from LOCALMAXXING_API_KEY or LMX_API_KEY, read when called.

    Raises `InputError` for a key an HTTP header cannot carry (non-ASCII or control characters);
    the message never holds the key.
    """
    for name in KEY_VARS:
        value = env.get(name, "").strip()
        if value:
            if not (value.isascii() and value.isprintable()) or " " in value:
                message = (
                    "holds characters an HTTP header cannot carry (non-ASCII, spaces or control "
                    "characters): check that it is the key, copied whole"
                )
                raise InputError([whole_file(name, message)])
            return value
    return None


def _base64_cores(secret: bytes) -> set[str]:
    """The base64 text that `secret` gives inside any longer base64 string, at each alignment.

    Inside base64(prefix + secret + suffix) the characters that depend only on `secret` are
    those of the 4-character groups made of its bytes alone; which groups those are depends on
    len(prefix) % 3, so each of the three alignments is one core to look for.
    """
    cores = set()
    for pad in range(3):
        encoded = base64.b64encode(b"\0" * pad + secret).decode()
        start = 4 * -(-pad // 3)  # the first group holding no padding byte
        end = 4 * ((pad + len(secret)) // 3)  # the last group holding only secret bytes
        core = encoded[start:end]
        if len(core) >= _MIN_FORM:
            cores |= {core, core.replace("+", "-").replace("/", "_")}
    return cores


@functools.lru_cache(maxsize=8)
def _patterns(key: str) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
    """(case-insensitive plain forms, case-sensitive base64 forms) of `key`."""
    secrets = {key}
    if key.lower().startswith(KEY_PREFIX) and len(key) - len(KEY_PREFIX) >= _MIN_FORM:
        secrets.add(key[len(KEY_PREFIX) :])
    plain: set[str] = set()
    encoded: set[str] = set()
    for secret in secrets:
        raw = secret.encode()
        plain |= {secret, json.dumps(secret)[1:-1], quote(secret, safe=""), raw.hex()}
        encoded |= _base64_cores(raw)
    alternatives = sorted((f for f in plain if len(f) >= _MIN_FORM), key=len, reverse=True)
    insensitive = re.compile("|".join(map(re.escape, alternatives)), re.IGNORECASE)
    sensitive = (
        re.compile("|".join(map(re.escape, sorted(encoded, key=len, reverse=True))))
        if encoded
        else None
    )
    return insensitive, sensitive


def redact(text: str, key: str | None) -> str:
    """`text` with the key, in every form a server might echo it, and anything key-like removed."""
    if key and len(key) >= _MIN_FORM:
        insensitive, sensitive = _patterns(key)
        text = insensitive.sub(REDACTED, text)
        if sensitive is not None:
            text = sensitive.sub(REDACTED, text)
    elif key:
        text = text.replace(key, REDACTED)
    text = _KEYLIKE.sub(REDACTED, text)
    return _BEARER.sub(lambda m: m.group(1) + REDACTED, text)


WITHHELD = "[withheld: it holds the API key, or part of it, in some spelling or encoding]"
_PIECE = 5  # characters of the key's distinctive part that count as a piece of it
_NEED = 13  # characters of it shown, at least (a third of a longer key), that make a leak
_ESCAPED = re.compile(
    r"\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|U([0-9a-fA-F]{8}))|&#[xX]?|\\([0-7]{3})"
)
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
_A85 = re.compile(r"[!-uz]{10,}")
_B85 = re.compile(r"[0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]{10,}")
# Cyrillic and Greek letters that look like Latin ones (a key "spelled" with them reads the same)
_LOOKALIKES = str.maketrans(
    "\u0430\u0432\u0441\u0435\u0455\u0456\u0458\u043a\u043e\u0440\u0445\u0443\u04bb\u0501"
    "\u0410\u0412\u0421\u0415\u041a\u041c\u041d\u041e\u0420\u0422\u0425\u042c"
    "\u03b1\u03bf\u03c1\u03ba\u03bd\u0391\u0392\u0395\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a7",
    "abcesijkopxyhdABCEKMHOPTXbaopkvABEKMNOPTX",
)
_TEXTLIKE = re.compile(rb"[\x20-\x7e\t\r\n]{8,}")  # a decoded run worth decoding once more


def _core(key: str) -> str:
    """The distinctive part of a key: its letters and digits, lower case, without `bhk_`."""
    body = key[len(KEY_PREFIX) :] if key.lower().startswith(KEY_PREFIX) else key
    core = _NOT_ALNUM.sub("", body.lower())
    return core if len(core) >= _MIN_FORM else _NOT_ALNUM.sub("", key.lower())


def _unescape(match: re.Match[str]) -> str:
    hex_code = match.group(1) or match.group(2) or match.group(3)
    if hex_code:
        return chr(int(hex_code, 16))
    return chr(int(match.group(4), 8)) if match.group(4) else ""


def _unescaped(text: str) -> Iterator[str]:
    """`text` and what it reads as once URL, JSON/Python/octal and HTML escapes are undone,
    compatibility forms folded (full-width letters and digits), or ROT13 undone."""
    yield text
    yield unquote(unquote(text))
    yield _ESCAPED.sub(_unescape, text)
    yield html.unescape(text)
    folded = unicodedata.normalize("NFKC", text)
    yield folded
    yield folded.translate(_LOOKALIKES)
    yield codecs.encode(folded, "rot13")


def _decoded(text: str) -> Iterator[bytes]:
    """The bytes that the hex, base64, base32, base85 and decimal runs of `text` decode to, at
    every alignment; what is not of an alphabet (spaces, line breaks, separators, padding,
    `0x`) is dropped first."""
    hexes = re.sub(r"[^0-9a-fA-F]", "", re.sub(r"0[xX]", " ", text))
    for at in range(2):
        run = hexes[at:]
        yield bytes.fromhex(run[: len(run) // 2 * 2])
    for spelled in (text.replace("-", "+").replace("_", "/"), text):
        b64 = re.sub(r"[^A-Za-z0-9+/]", "", spelled)
        for at in range(4):
            run = b64[at:]
            yield base64.b64decode(run[: len(run) // 4 * 4])
    b32 = re.sub(r"[^A-Z2-7]", "", text.upper())
    for at in range(8):
        run = b32[at:]
        yield base64.b32decode(run[: len(run) // 8 * 8])
    packed = re.sub(r"\s+", "", text)
    for decode, runs in ((base64.a85decode, _A85), (base64.b85decode, _B85)):
        for found in runs.findall(packed):
            for at in range(5):
                run = found[at:]
                try:
                    yield decode(run[: len(run) // 5 * 5])
                except ValueError:  # an overflowing group: not this encoding here
                    continue
    yield bytes(int(n) for n in re.findall(r"\d{1,3}", text) if int(n) < 256)


def _views(text: str) -> Iterator[str]:
    """Every reading of `text` to look for the key in, as lower-case letters and digits; a
    decoded run that reads as text is decoded once more (hex of base64, say)."""
    for plain in {*_unescaped(text), *_unescaped(text[::-1])}:
        yield _NOT_ALNUM.sub("", plain.lower())
        for raw in _decoded(plain):
            yield _NOT_ALNUM.sub("", raw.decode("latin-1").lower())
            for run in _TEXTLIKE.findall(raw):
                if len(run) < len(plain):
                    for again in _decoded(run.decode("ascii")):
                        yield _NOT_ALNUM.sub("", again.decode("latin-1").lower())


def _piece(size: int) -> int:
    """How long a piece must be to count in a text of `size` characters: 5, or more in long
    texts, so that chance (random hex runs) gives a piece less than once in 500 texts."""
    return max(_PIECE, math.ceil(math.log(max(size, 1) * 500, 16)))


@functools.lru_cache(maxsize=64)
def covered(text: str, key: str | None) -> frozenset[int]:
    """The positions of the key's distinctive part that `text` shows in pieces of 5 characters
    or more (more in a long text; either direction), in any of the readings above.

    Kept for the last texts asked about: a submission guards the same server text for each
    place it is shown, and its many readings cost about 10 ms of CPU each time."""
    core = _core(key) if key else ""
    if not core or not text:
        return frozenset()
    piece = min(_piece(len(text)), len(core))
    starts: dict[str, list[int]] = {}
    for i in range(len(core) - piece + 1):
        starts.setdefault(core[i : i + piece], []).append(i)
        starts.setdefault(core[i : i + piece][::-1], []).append(i)
    found: set[int] = set()
    for view in set(_views(text)):  # many readings agree; each is scanned once
        for j in range(len(view) - piece + 1):
            for i in starts.get(view[j : j + piece], ()):
                found.update(range(i, i + piece))
    return frozenset(found)


def leaks(text: str, key: str | None) -> bool:
    """True when `text` shows the key's distinctive part (the 40 hex of `bhk_<40 hex>`), or
    pieces of it that together cover a third of it, in any spelling or encoding above."""
    core = _core(key) if key else ""
    need = min(len(core), max(_NEED, len(core) // 3))
    return bool(core) and len(covered(text, key)) >= need


def guard(text: str, key: str | None) -> str:
    """`text` redacted, or `WITHHELD` when what is left still shows the key in some form."""
    text = redact(text, key)
    return WITHHELD if leaks(text, key) else text
