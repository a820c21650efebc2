"""Watching an article folder: file changes in, rebuilds out.

`Watcher` is a thread that watches the article folder (and its subfolders) with watchfiles (why
watchfiles: see the package docstring) and calls `Preview.rebuild` when a change may change the
page (`Preview.affects`). It builds once as soon as the watch is in place, so a change made
during that first build is seen. Each outcome goes to `report`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

import watchfiles

from reportgen.errors import whole_file
from reportgen.serve.preview import Outcome, Preview

# watchfiles hands over a batch once a step passes with no new change (an editor's save is a
# few events within a millisecond or two), and at the latest DEBOUNCE_MS after its first change.
STEP_MS = 15
DEBOUNCE_MS = 300
# How long one wait lasts when nothing changes: the first build starts at the end of the first
# one (the watch is then in place), and `stop` is seen within a step.
WAIT_MS = 50
STOP_S = 5.0  # how long `stop` waits for a rebuild under way to end


class Watcher(threading.Thread):
    """Rebuilds the preview whenever a file it reads changes, until `stop`."""

    def __init__(self, preview: Preview, report: Callable[[Outcome], None] | None = None) -> None:
        super().__init__(name="reportgen-serve-watch", daemon=True)
        self.preview = preview
        self.report = report or (lambda _: None)
        self._stop_event = threading.Event()

    def run(self) -> None:
        """Build once, then again after each change that matters."""
        folder = os.path.abspath(self.preview.folder)
        try:
            self._watch(folder)
        except Exception as exc:  # the folder went, or the system's watcher failed
            problem = whole_file(folder, f"no longer watched: {type(exc).__name__}: {exc}")
            self.report(Outcome(False, 0.0, (problem,)))

    def _watch(self, folder: str) -> None:
        first = True
        for changes in watchfiles.watch(
            folder,
            debounce=DEBOUNCE_MS,
            step=STEP_MS,
            rust_timeout=WAIT_MS,
            yield_on_timeout=True,
            stop_event=self._stop_event,
            raise_interrupt=False,
        ):
            if first or self.preview.affects(path for _, path in changes):
                first = False
                outcome = self.preview.rebuild()
                if not self._stop_event.is_set():  # stopped meanwhile: its site may be gone
                    self.report(outcome)

    def stop(self) -> None:
        """Stop watching; returns once the thread has ended (or after `STOP_S`)."""
        self._stop_event.set()
        if self.is_alive():
            self.join(STOP_S)
