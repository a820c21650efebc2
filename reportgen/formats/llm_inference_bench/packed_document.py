"""Load stage: the document the fast path (`reportgen.formats.llm_inference_bench.packed`) hands to
the format's parser, and the exception that sends a file back to the located path. Kept apart from
the fast path so that the parser and the loader need not import msgspec before a large file comes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from reportgen.errors import Problem
from reportgen.formats.json_input.document import JsonDocument
from reportgen.samples import PackedSamples


class GiveUp(Exception):
    """The fast path stops: the file goes to the located path."""


@dataclass(frozen=True, kw_only=True)
class PackedDocument(JsonDocument):
    """A bench file decoded by the fast path: `data` holds `[]` for every `request_samples`, and
    `samples` the cell's packed samples by the cell's pointer. Locating anything gives up."""

    samples: Mapping[str, PackedSamples] = field(default_factory=dict)

    def locate(self, pointer: str) -> tuple[int, int]:
        """Never located here: raises `GiveUp`."""
        raise GiveUp(pointer)

    def problem(self, pointer: str, message: str, severity: str = "error") -> Problem:  # noqa: ARG002 -- JsonDocument.problem's signature
        """Never reported here: raises `GiveUp`."""
        raise GiveUp(pointer)
