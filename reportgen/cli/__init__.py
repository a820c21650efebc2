"""The command line: argument parsing and printing over the library; `main` is the entry point."""

from __future__ import annotations

from reportgen.cli.main import main

__all__ = ["main"]
