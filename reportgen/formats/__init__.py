"""Reading run files: JSON with located errors, schemas, format detection, one module per format.

`load(paths)` reads, validates and normalizes run files into the run model (`reportgen.model`).
"""

from __future__ import annotations

from reportgen.formats.load import LoadResult, load, load_document

__all__ = ["LoadResult", "load", "load_document"]
