"""The API key: read from the environment when needed, and redacted from everything shown.

The key is never written to a file, a log or an error message: every line reportgen prints about a
submission passes through `redact` first. A server may echo the key back in another form (upper
case, without its `bhk_` prefix, hex, base64 at any alignment, URL- or JSON-escaped): each of
those is removed too.
"""

from __future__ import annotations

import base64
import functools
import json
import re
from collections.abc import Mapping
from urllib.parse import quote

from reportgen.errors import InputError, Problem

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
                raise InputError([Problem(name, 1, 1, "", message)])
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
