"""How `reportgen --help` lays out its text: descriptions wrapped to the terminal, examples kept
as written."""

from __future__ import annotations

import argparse
import textwrap


class Help(argparse.RawDescriptionHelpFormatter):
    """Descriptions wrapped to the terminal like argparse's own text; an epilog's example lines
    (indented) kept as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out = []
        for block in text.split("\n"):
            if block.startswith(" ") or not block:
                out.append(indent + block)
            else:
                out.append(
                    textwrap.fill(block, width, initial_indent=indent, subsequent_indent=indent)
                )
        return "\n".join(out)
