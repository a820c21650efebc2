"""Where the bundled data folders live, in a source checkout and in an installed wheel.

The wheel carries `schemas/` and `templates/` inside the package (see pyproject.toml); a checkout
or an editable install has them beside the package.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _find(name: str) -> Path:
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"reportgen's {name}/ folder is missing from {_PACKAGE}")


def schema_dir() -> Path:
    """The folder of JSON Schemas."""
    return _find("schemas")


def template_dir() -> Path:
    """The folder of Jinja templates and CSS."""
    return _find("templates")
