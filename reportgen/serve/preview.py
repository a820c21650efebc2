"""The preview's builds: an article folder in; its page in a private folder out, and the state
the browser is told about.

`Preview.rebuild` renders the article in this process (`article.build.render_article`), which
keeps what a fresh build pays again: the compiled page template, the chart cache's entries and,
once a chart was drawn, matplotlib. The page, the tables' CSV and the run files' copies go into
the site folder, a private temporary folder: each file whole
(`fileio.write_output`), and only when its bytes changed. A rebuild that fails writes nothing, so
the last good page stays, and its problems are the state's. The version moves when what the
browser shows changes: the page's bytes, or the problems. The PDF and metrics.json are made when
asked for (`Preview.made`), once for each page that built: a prose edit changes neither, and
metrics.json alone would cost a third of a rebuild of the bundled article.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from reportgen.article.build import Built, raw_data, render_article, render_pdf, table_files
from reportgen.article.page.render import DATA_DIR, environment
from reportgen.article.source.manifest import MANIFEST
from reportgen.errors import InputError, Problem, whole_file
from reportgen.fileio import write_output

PAGE = "index.html"
PDF = "article.pdf"
METRICS = "metrics.json"
# The files made from the last page that built when a browser asks for them, not by each rebuild.
MADE_ON_REQUEST: dict[str, Callable[[Built], bytes]] = {
    PDF: render_pdf,
    METRICS: lambda built: built.metrics_json.encode("utf-8"),
}
# What an article is written in: while the article does not build, a change to any such file
# in its folder may be the fix (the manifest may not even say yet which files it reads).
SOURCE_SUFFIXES = frozenset({".toml", ".md", ".json", ".jsonl"})


@dataclass(frozen=True)
class State:
    """What the browser is shown: the version (it moves when that changes), the last rebuild's
    problems (none when it built), and whether a page that built is in the site folder."""

    version: int
    problems: tuple[Problem, ...]
    built: bool


@dataclass(frozen=True)
class Outcome:
    """One rebuild: whether the browser is to reload, how long it took, its problems (none when
    it built) and its warnings (acknowledgements in article.toml that match no finding)."""

    changed: bool
    seconds: float
    problems: tuple[Problem, ...]
    warnings: tuple[Problem, ...] = ()


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _bug(folder: Path, exc: Exception) -> Problem:
    """A rebuild that failed for a reason other than the article's own: a bug, or a folder
    that cannot be written."""
    return whole_file(str(folder), f"reportgen failed: {type(exc).__name__}: {exc}")


class Preview:
    """An article's page kept built in `site` (see the module docstring). `chart_cache`: the
    folder of charts drawn before (article/charts/cache.py)."""

    def __init__(
        self,
        folder: Path,
        site: Path,
        *,
        chart_cache: Path | None = None,
        environ: dict[str, str] | None = None,
    ) -> None:
        self.folder = folder
        self.site = site
        self._chart_cache = chart_cache
        self._environ = environ
        self._env = environment()  # its compiled template is kept from one rebuild to the next
        self.session = secrets.token_hex(8)  # tells this preview's pages from an earlier one's
        self._changed = threading.Condition()  # guards what follows, and tells of a new version
        self._state = State(0, (), False)
        self._closed = False
        self._built: Built | None = None
        self._page: bytes | None = None  # its page, as in the site folder
        self._written: dict[str, str] = {}  # path in the site: SHA-256 of its bytes
        self._inputs: frozenset[str] = frozenset()  # absolute paths the last good build read
        self._making = {name: threading.Lock() for name in MADE_ON_REQUEST}  # one at a time
        self._made_of: dict[str, Built] = {}  # the build each file made on request is of

    # -- the browser's side ---------------------------------------------------------------
    @property
    def state(self) -> State:
        """The state now."""
        with self._changed:
            return self._state

    @property
    def closed(self) -> bool:
        """True once the preview is stopping: open event streams end."""
        return self._closed

    def wait(self, after: int, timeout: float) -> int:
        """The version, once it is past `after`, or after `timeout` seconds, or once closed."""
        with self._changed:
            self._changed.wait_for(lambda: self._state.version > after or self._closed, timeout)
            return self._state.version

    def page(self) -> tuple[bytes | None, State]:
        """The last page that built (None if none did yet) and the state it goes with."""
        with self._changed:
            return self._page, self._state

    def made(self, name: str) -> Path:
        """The file `name` of `MADE_ON_REQUEST` for the last page that built, made now if it
        was not yet (`InputError` with the rebuild's problems when no page built)."""
        with self._making[name]:
            with self._changed:
                built, problems = self._built, self._state.problems
            if built is None:
                raise InputError(problems or [whole_file(str(self.folder), "not built yet")])
            if self._made_of.get(name) is not built:
                write_output(self.site / name, MADE_ON_REQUEST[name](built))
                self._made_of[name] = built
            return self.site / name

    def close(self) -> None:
        """Stop: every waiting event stream is woken and ends."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    # -- the watcher's side ---------------------------------------------------------------
    def affects(self, paths: Iterable[str]) -> bool:
        """Whether a change to these files (absolute paths) may change the page: a file the
        last good build read, the manifest, or, while the article does not build, any file of
        the kinds an article is written in."""
        with self._changed:
            inputs, failing = self._inputs, not self._state.built or bool(self._state.problems)
        for path in paths:
            name = os.path.basename(path)
            if path in inputs or name == MANIFEST:
                return True
            if failing and os.path.splitext(name)[1] in SOURCE_SUFFIXES:
                return True
        return False

    def rebuild(self) -> Outcome:
        """Render the article again and write what changed into the site folder; on failure,
        keep the last good page and make the problems the state's."""
        start = time.perf_counter()
        try:
            built = render_article(
                self.folder, self._environ, chart_cache=self._chart_cache, env=self._env
            )
            files = {
                PAGE: built.html.encode("utf-8"),
                **table_files(built),
            }
            files |= raw_data(built, self._written)  # copies the site holds already: left out
            kept = {f"{DATA_DIR}/{run.source.label}" for run in built.metrics.runs}
            with self._changed:
                changed = self._publish(files, kept, built)
        except InputError as exc:
            return self._failed(tuple(exc.problems), start)
        except Exception as exc:  # a bug, or a site folder that cannot be written
            return self._failed((_bug(self.folder, exc),), start)
        warnings = tuple(
            Problem(
                path=finding.file,
                line=line,
                col=col,
                pointer="",
                message=finding.message,
                severity="warning",
            )
            for finding, (line, col) in built.stale
        )
        return Outcome(changed, time.perf_counter() - start, (), warnings)

    def _publish(self, files: dict[str, bytes], kept: set[str], built: Built) -> bool:
        """Write the files whose bytes changed, remove those the build no longer makes (but the
        run files' copies in `kept`), and make `built` the state's (holding the lock)."""
        page_changed = self._written.get(PAGE) != _digest(files[PAGE])
        for path, data in files.items():
            digest = _digest(data)
            if self._written.get(path) != digest:
                target = self.site / path
                target.parent.mkdir(parents=True, exist_ok=True)
                write_output(target, data)
                self._written[path] = digest
        for path in sorted(set(self._written) - set(files) - kept):
            (self.site / path).unlink(missing_ok=True)
            del self._written[path]
        self._built, self._page = built, files[PAGE]
        self._inputs = self._read_by(built)
        changed = page_changed or not self._state.built or bool(self._state.problems)
        self._state = State(self._state.version + changed, (), True)
        if changed:
            self._changed.notify_all()
        return changed

    def _read_by(self, built: Built) -> frozenset[str]:
        """The absolute paths of the files a build read: the manifest, its prose, its runs."""
        article = built.article
        prose = [Path(text.file) for text in article.texts() if text.markdown]
        paths = [self.folder / MANIFEST, *prose, *article.run_paths()]
        return frozenset(os.path.abspath(p) for p in paths)

    def _failed(self, problems: tuple[Problem, ...], start: float) -> Outcome:
        with self._changed:
            changed = problems != self._state.problems
            self._state = State(self._state.version + changed, problems, self._state.built)
            if changed:
                self._changed.notify_all()
        return Outcome(changed, time.perf_counter() - start, problems)
