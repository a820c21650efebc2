"""The names of the files reportgen itself writes beside run files, which folder readers skip.

`reportgen submit` records submissions in an article folder and may save payloads next to run
files; neither is a run file, and a payload even looks like one.
"""

from __future__ import annotations

RECORD_FILE = "submissions.json"  # successful submissions, in the article folder
PAYLOAD_SUFFIX = ".payload.json"  # a saved submission payload: `<run file stem>.payload.json`


def is_written_by_reportgen(name: str) -> bool:
    """True for a file name reportgen writes (never a run file)."""
    return name == RECORD_FILE or name.endswith(PAYLOAD_SUFFIX)
