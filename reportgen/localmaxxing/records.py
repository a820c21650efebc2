"""What a submission writes: the article's record of submitted runs (`submissions.json`) and
saved payloads. Each file is written whole, then moved into place, and redacted first.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reportgen.errors import InputError, Problem, whole_file
from reportgen.fileio import PAYLOAD_SUFFIX, RECORD_FILE, read_input, write_output
from reportgen.localmaxxing.keys import redact
from reportgen.localmaxxing.payload import Payload


@dataclass(frozen=True, kw_only=True)
class Record:
    """One successful submission, as kept in the article folder's `submissions.json`."""

    run_file: str
    run_sha256: str
    payload_sha256: str
    submission_id: str | None
    submitted_at: str
    api_base: str
    verified_run: bool | None


def load_records(article_dir: Path) -> tuple[Record, ...]:
    """The submissions recorded in `article_dir`; raises `InputError` on a damaged file."""
    path = article_dir / RECORD_FILE
    if not path.is_symlink() and not path.exists():
        return ()
    raw = read_input(path, "cache", follow=False)  # a FIFO, a device or a symlink is refused
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError as exc:
        raise InputError([whole_file(str(path), f"unreadable record file: {exc}")]) from None
    try:
        return tuple(
            Record(
                run_file=str(r["runFile"]),
                run_sha256=str(r["runSha256"]),
                payload_sha256=str(r["payloadSha256"]),
                submission_id=None if r.get("submissionId") is None else str(r["submissionId"]),
                submitted_at=str(r["submittedAt"]),
                api_base=str(r["apiBase"]),
                verified_run=r.get("verifiedRun")
                if isinstance(r.get("verifiedRun"), bool)
                else None,
            )
            for r in data["submissions"]
        )
    except (KeyError, TypeError) as exc:
        raise InputError(
            [
                Problem(
                    path=str(path),
                    line=1,
                    col=1,
                    pointer="/submissions",
                    message=f"not a reportgen record file ({exc})",
                )
            ]
        ) from None


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_output(path, text.encode("utf-8"))


def add_record(article_dir: Path, record: Record, key: str | None) -> None:
    """Append `record` to the article's `submissions.json` (atomically, redacted)."""
    records = (*load_records(article_dir), record)
    data = {
        "about": "Runs of this article submitted to LocalMaxxing by `reportgen submit`. A run "
        "listed here (by sha256) is not submitted again without --force.",
        "submissions": [
            {
                "runFile": r.run_file,
                "runSha256": r.run_sha256,
                "payloadSha256": r.payload_sha256,
                "submissionId": r.submission_id,
                "submittedAt": r.submitted_at,
                "apiBase": r.api_base,
                "verifiedRun": r.verified_run,
            }
            for r in records
        ],
    }
    _write(article_dir / RECORD_FILE, redact(json.dumps(data, indent=2) + "\n", key))


def save_payloads(payloads: Sequence[Payload], target: Path) -> list[str]:
    """Write each payload (one: to `target`; several: into folder `target`); notes to show."""
    try:
        return _save_to(payloads, target)
    except OSError as exc:
        raise InputError(
            [Problem(path=str(target), line=1, col=1, pointer="", message=f"cannot save: {exc}")]
        ) from None


def _save_to(payloads: Sequence[Payload], target: Path) -> list[str]:
    if len(payloads) == 1 and not target.is_dir():
        _write(target, payloads[0].text)
        return [f"{payloads[0].run_file}: payload saved to {target}"]
    if target.exists() and not target.is_dir():
        raise InputError([whole_file(str(target), "several runs: --save-payload needs a folder")])
    notes = []
    for p in payloads:
        path = target / (Path(p.run_file).stem + PAYLOAD_SUFFIX)
        _write(path, p.text)
        notes.append(f"{p.run_file}: payload saved to {path}")
    return notes
