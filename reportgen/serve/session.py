"""A preview session: an article folder and a port in; the preview, its watcher and its server
started together, and stopped together with the private site folder removed.

`running` is a context manager: the caller serves (`Session.serve`, in this thread or another)
and leaves the `with` block to stop, from Ctrl-C or otherwise.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from reportgen.article.source.manifest import MANIFEST
from reportgen.errors import InputError, whole_file
from reportgen.serve.preview import Outcome, Preview
from reportgen.serve.server import DEFAULT_PORT, PORT_TRIES, PreviewServer, bind
from reportgen.serve.watch import Watcher


@dataclass(frozen=True)
class Session:
    """A running preview: its server (and so its address), the preview and the watcher."""

    server: PreviewServer
    preview: Preview
    watcher: Watcher

    @property
    def url(self) -> str:
        """The page's address."""
        return self.server.url

    def serve(self) -> None:
        """Answer requests until the session stops (or an exception, such as Ctrl-C's)."""
        self.server.serve_forever()


def _article_folder(folder: Path) -> None:
    """Refuse a folder that is no article: its article.toml may be broken (the page shows how),
    but it must be there."""
    if not folder.is_dir():
        what = "no such article folder" if not folder.exists() else "not a folder"
        raise InputError([whole_file(str(folder), what)])
    if not (folder / MANIFEST).is_file():
        raise InputError([whole_file(str(folder / MANIFEST), f"no {MANIFEST} in {folder}")])


@contextlib.contextmanager
def running(
    folder: Path,
    port: int = DEFAULT_PORT,
    *,
    report: Callable[[Outcome], None] | None = None,
    chart_cache: Path | None = None,
    tries: int = PORT_TRIES,
    environ: dict[str, str] | None = None,
) -> Iterator[Session]:
    """A preview of the article in `folder` on 127.0.0.1 at `port` (or the next free one of
    `tries`; 0: any), built in a private temporary folder and rebuilt on each change (each
    outcome to `report`); everything stopped and the folder removed on the way out.
    `chart_cache`: the folder of charts drawn before (article/charts/cache.py)."""
    _article_folder(folder)
    site = Path(tempfile.mkdtemp(prefix="reportgen-serve-"))
    try:
        preview = Preview(folder, site, chart_cache=chart_cache, environ=environ)
        server = bind(preview, port, tries)
        watcher = Watcher(preview, report)
        try:
            watcher.start()
            yield Session(server, preview, watcher)
        finally:
            preview.close()  # open event streams end
            watcher.stop()
            server.stop()
    finally:
        shutil.rmtree(site, ignore_errors=True)
