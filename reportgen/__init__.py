"""reportgen: raw LLM-inference benchmark run files in, checked articles out."""

from __future__ import annotations

__version__ = "0.1.0"
