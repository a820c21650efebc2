"""The API key: read from the environment when needed, and redacted from everything shown.

The key is never written to a file, a log or an error message: every line reportgen prints about a
submission passes through `redact` first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from urllib.parse import quote

KEY_VARS = ("LOCALMAXXING_API_KEY", "LMX_API_KEY")
REDACTED = "[redacted]"
_KEYLIKE = re.compile(r"bhk_[A-Za-z0-9]{4,}")
_BEARER = re.compile(r"(?i)(bearer\s+)(?!\[redacted\])[^\s\"',;]+")


def api_key(env: Mapping[str, str]) -> str | None:
    """The API key from LOCALMAXXING_API_KEY or LMX_API_KEY, read when called."""
    for name in KEY_VARS:
        value = env.get(name, "").strip()
        if value:
            return value
    return None


def redact(text: str, key: str | None) -> str:
    """`text` with the key (in its plain, JSON and URL forms) and anything key-like removed."""
    if key:
        for form in sorted({key, json.dumps(key)[1:-1], quote(key, safe="")}, key=len)[::-1]:
            text = text.replace(form, REDACTED)
    text = _KEYLIKE.sub(REDACTED, text)
    return _BEARER.sub(lambda m: m.group(1) + REDACTED, text)
