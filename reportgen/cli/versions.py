"""`reportgen --version`: reportgen's version and the versions a bug report needs.

One line each: reportgen and the distribution it was installed as, Python, WeasyPrint (the PDF),
matplotlib (the charts) and the platform. The versions come from the installed packages' metadata
(`importlib.metadata`), so asking costs no import of WeasyPrint or matplotlib.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import Any, NoReturn

from reportgen import __version__

DISTRIBUTION = "reportgen-bench"
# (name shown, distribution on the package index)
PARTS = (("WeasyPrint", "weasyprint"), ("matplotlib", "matplotlib"))


def installed(distribution: str) -> str | None:
    """The installed version of `distribution`, or None when it is not installed."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _origin(found: str | None) -> str:
    """Where this reportgen came from, in the words of the first line's parentheses."""
    if found is None:
        return f"not installed as {DISTRIBUTION}: run from a source checkout"
    if found != __version__:
        # The code imported is not the one installed (an editable install not redone after a
        # version change): both versions, so a bug report says which code ran.
        return f"{DISTRIBUTION} {found} installed"
    return DISTRIBUTION


def platform_line() -> str:
    """The system, its release and the machine, and the C library: `Linux 6.1.0 x86_64 (glibc
    2.36)`. Made from `os.uname()`, since `platform.platform()` starts `uname -p`."""
    system = os.uname()
    libc, libc_version = platform.libc_ver()
    line = f"{system.sysname} {system.release} {system.machine}"
    return f"{line} ({libc} {libc_version})" if libc else line


def version_text(lookup: Callable[[str], str | None] = installed) -> str:
    """The lines `reportgen --version` prints, without a final newline."""
    lines = [f"reportgen {__version__} ({_origin(lookup(DISTRIBUTION))})"]
    lines.append(f"Python {platform.python_version()} ({platform.python_implementation()})")
    lines += [f"{name} {lookup(dist) or 'not installed'}" for name, dist in PARTS]
    lines.append(platform_line())
    return "\n".join(lines)


class VersionAction(argparse.Action):
    """`--version`: prints `version_text()` as it is (argparse's own action rewraps the lines)
    and exits 0."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.setdefault(
            "help",
            "show the versions of reportgen, Python, WeasyPrint, "
            "matplotlib and the platform, and exit",
        )
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,  # noqa: ARG002 -- argparse's Action signature
        values: Any,  # noqa: ARG002
        option_string: str | None = None,  # noqa: ARG002
    ) -> NoReturn:
        print(version_text(), file=sys.stdout)
        parser.exit()
