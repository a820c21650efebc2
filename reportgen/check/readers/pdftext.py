"""A published PDF's text, extracted by pypdf in a child process bounded in CPU time and memory.

pypdf bounds each stream it decompresses, not the work of a page: a form drawn on a page is
parsed each time it is drawn, up to 5,000 times, and a content stream may hold millions of
operators. So the text is extracted by `python -m reportgen.check.readers.pdftext` with the PDF on
its standard input, limited to `CPU_SECONDS` of CPU time and `MEMORY_BYTES` of address space
(`resource.setrlimit`), and with the words cap of a published copy (`fileio.cap_count`). It writes
the text, page after page, on its standard output; a PDF it cannot read, or one past a cap, is one
message on its standard error and exit status 2. CPU time, not time on the clock, is the limit, so a
loaded machine slows extraction without refusing a PDF.

Worst case: `CPU_SECONDS` of CPU and `MEMORY_BYTES` in the child, whatever the PDF holds; a
real article's PDF takes well under a second.
"""

from __future__ import annotations

import io
import logging
import os
import signal
import subprocess
import sys
import warnings
from pathlib import Path

from reportgen.errors import InputError, whole_file
from reportgen.fileio import cap_count

CPU_SECONDS = 3
MEMORY_BYTES = 1 << 30
WALL_SECONDS = 30  # a backstop for a child that waits without using CPU, or runs starved
_REFUSED = 2
_ROOT = Path(__file__).resolve().parents[2]  # the folder holding the reportgen package


def _refuse(label: str, message: str) -> InputError:
    return InputError([whole_file(label, message)])


def _limits() -> None:  # pragma: no cover - runs in the child, before it starts Python
    import resource

    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 1))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


def pdf_text(data: bytes, label: str) -> str:
    """The text of the PDF `data`, page after page, as pypdf extracts it; `InputError` when it
    is not a readable PDF or passes a cap."""
    path = os.pathsep.join([str(_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    try:
        done = subprocess.run(
            [sys.executable, "-m", "reportgen.check.readers.pdftext", str(cap_count("words"))],
            input=data,
            capture_output=True,
            preexec_fn=_limits,  # check runs no threads here
            timeout=WALL_SECONDS,
            env={**os.environ, "PYTHONPATH": path},
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise _refuse(label, f"extracting its text took more than {WALL_SECONDS} s") from None
    if done.returncode == 0:
        return done.stdout.decode("utf-8", "replace")
    said = done.stderr.decode("utf-8", "replace").strip().splitlines()
    if done.returncode == _REFUSED and said:
        raise _refuse(label, said[-1])
    if done.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        why = f"more than {CPU_SECONDS} s of CPU time"
    else:  # out of memory (a MemoryError, or killed), or any other failure of the child
        why = f"more than {MEMORY_BYTES >> 20} MB of memory, or failed"
    raise _refuse(
        label,
        f"extracting its text took {why}; check reads a PDF within {CPU_SECONDS} s and "
        f"{MEMORY_BYTES >> 20} MB: check the HTML or text version of the article instead",
    )


class _Refused(Exception):
    """The child's refusal of a PDF: one message."""


def _extract(data: bytes, words_cap: int) -> str:
    """The PDF's text, or `_Refused` with the message that refuses it."""
    import pypdf

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # recoverable oddities; failures raise
    warnings.simplefilter("ignore")
    pages: list[str] = []
    words = 0
    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
        for number, page in enumerate(reader.pages, start=1):
            text = page.extract_text() or ""
            words += len(text.split())
            if words > words_cap:
                raise _Refused(
                    f"the copy holds more than {words_cap:,} words (by page {number}); check "
                    f"reads at most {words_cap:,}: set REPORTGEN_MAX_PUBLISHED_WORDS to read more"
                )
            pages.append(text)
    except MemoryError:
        raise _Refused(f"extracting its text took more than {MEMORY_BYTES >> 20} MB") from None
    except _Refused:
        raise
    except Exception as exc:  # pypdf's errors, and any other failure on a hostile file
        raise _Refused(f"not a readable PDF: {type(exc).__name__}: {exc}") from None
    return "\n".join(pages)


def main() -> int:  # pragma: no cover - the child's entry point, run by `pdf_text`
    try:
        text = _extract(sys.stdin.buffer.read(), int(sys.argv[1]))
    except _Refused as exc:
        print(str(exc).replace("\n", " ")[:500], file=sys.stderr)
        return _REFUSED
    sys.stdout.buffer.write(text.encode("utf-8", "replace"))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
