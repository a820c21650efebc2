"""Chart cache: a `Plot` in, its inline SVG out, drawn by matplotlib only when not drawn before.

Drawing the charts costs most of a rebuild's time beyond the PDF, chiefly importing matplotlib.
An SVG is a function of its `Plot` (article/charts/plot.py: everything drawn, as plain data whose
`repr` spells it out), of the drawing code (the source of article/charts/plot.py and
article/charts/draw.py) and of what that code runs on: matplotlib, its font list, numpy and Python.
The cache's key is the SHA-256 of all of these, so any change to one of them is a miss; none of
them needs matplotlib imported to be read.

The cache is a folder: `reportgen build` uses `$REPORTGEN_CACHE_DIR/charts`, else
`$XDG_CACHE_HOME/reportgen/charts`, else `~/.cache/reportgen/charts` (a user cache, not the output
folder: it serves every article and every output folder, and an output folder is meant to be
published whole). Each entry is one file, `<key[:2]>/<key>.svg`, whose first line holds the
SHA-256 of the rest; it is written through `fileio.write_output` (a new temporary file, renamed into
place), so a reader finds a whole entry or none. It is read through `fileio.read_cached`: a symlink,
a FIFO, a device or an oversized file is no entry. The hash proves an entry whole, not who wrote
it, so an entry is taken only when it also holds nothing but what the chart writer emits for that
chart (article/charts/allowlist.py: no script, handler, foreign content, external link or DTD). An
entry that fails either (truncated, edited, rewritten by someone else) is ignored and drawn again; a
cache that cannot be read or written is no error, only a miss. Nothing is ever removed: an entry is
a few tens of KB, and deleting the folder is always safe. `articles/` notes the keys of each
article's last build, for the CLI's guess whether a chart worker is worth starting
(`expects_drawing`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import os
import re
import secrets
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from reportgen.article.charts.allowlist import safe_svg
from reportgen.article.charts.plot import Plot, plain, stand_in
from reportgen.article.workers import InProcess, Stage, started
from reportgen.fileio import read_cached, read_input, write_output

FORMAT = "reportgen chart cache 1"  # bump when the entries' layout or the key's recipe changes
_HEAD = b"sha256 "
_KEY = re.compile(r"[0-9a-f]{64}")
# The modules whose source decides the drawing: the Plot's meaning and matplotlib's calls.
_CODE = ("plot.py", "draw.py", "labels.py")


def default_folder(environ: Mapping[str, str] | None = None) -> Path:
    """`$REPORTGEN_CACHE_DIR/charts`, else `$XDG_CACHE_HOME/reportgen/charts`, else
    `~/.cache/reportgen/charts`."""
    env = os.environ if environ is None else environ
    own = env.get("REPORTGEN_CACHE_DIR") or ""
    if own:
        return Path(own) / "charts"
    base = env.get("XDG_CACHE_HOME") or ""
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    return root / "reportgen" / "charts"


def _package_files(name: str, files: tuple[str, ...]) -> list[bytes]:
    """The bytes of `files` in the installed package `name` (found without importing it)."""
    spec = importlib.util.find_spec(name)
    out = [name.encode()]
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for file in files:
            out.append(read_cached(Path(folder) / file) or b"-")
    return out


def _font_lists(environ: Mapping[str, str]) -> list[bytes]:
    """matplotlib's cached font lists (which font file each family name finds), from the folder
    matplotlib keeps them in."""
    configured = environ.get("MPLCONFIGDIR") or ""
    xdg = environ.get("XDG_CACHE_HOME") or ""
    folder = (
        Path(configured)
        if configured
        else (Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache") / "matplotlib"
    )
    try:
        paths = sorted(folder.glob("fontlist-*.json"))
    except OSError:
        return [b"unreadable"]
    return [read_cached(p) or b"unreadable" for p in paths]


@functools.cache
def _environment(code: Path) -> bytes:
    """What the drawing depends on besides the Plot, as bytes (read once per process); `code`
    is the folder of the drawing modules."""
    parts = [FORMAT.encode(), sys.version.encode()]
    parts += [read_input(code / name, "cache") for name in _CODE]
    parts += _package_files("matplotlib", ("_version.py",))
    parts += _package_files("numpy", ("version.py",))
    parts += _font_lists(os.environ)
    return b"\0".join(hashlib.sha256(p).digest() for p in parts)


def key(plot: Plot, code: Path | None = None) -> str:
    """The cache key of `plot`'s SVG: SHA-256 of the Plot and of what draws it (the drawing
    modules in `code`, by default the ones that will draw it)."""
    if not plain(plot):
        raise TypeError(f"{plot.svg_id}: a Plot must hold plain values only, to be a cache key")
    environment = _environment((code or Path(__file__).parent).resolve())
    return hashlib.sha256(environment + repr(plot).encode("utf-8")).hexdigest()


def _read(path: Path, plot: Plot) -> str | None:
    """The SVG of `plot` stored at `path`, or None when there is none or it cannot be trusted:
    not whole, or anything in it that the chart writer does not emit (article/charts/allowlist.py).
    """
    data = read_cached(path)  # a symlink, a FIFO, a device or an oversized file: no entry
    if data is None:
        return None
    head, newline, body = data.partition(b"\n")
    if not newline or head != _HEAD + hashlib.sha256(body).hexdigest().encode():
        return None
    try:
        svg = body.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return svg if safe_svg(svg, plot.svg_id, plot.title) else None


def _write(path: Path, data: bytes) -> None:
    """Store `data` at `path` atomically; a folder that cannot be written is left as it is."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_output(path, data)
    except OSError:
        return


def _entry(svg: str) -> bytes:
    body = svg.encode("utf-8")
    return _HEAD + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def _path(cache: Path, digest: str) -> Path:
    return cache / digest[:2] / f"{digest}.svg"


@dataclass(frozen=True)
class Drawing:
    """Plots to draw: a job for a chart stage (article/workers.py)."""

    plots: tuple[Plot, ...]

    def run(self) -> list[str]:
        """Each plot as an inline `<svg>` element, drawn in this process."""
        # matplotlib is imported only here, when a chart has to be drawn.
        from reportgen.article.charts.draw import draw_plot

        return [draw_plot(plot) for plot in self.plots]


def chart_svgs(plots: Sequence[Plot], cache: Path | None, drawer: Stage | None = None) -> list[str]:
    """Each plot as an inline `<svg>` element: from `cache` when it holds it, else drawn by
    `drawer` (in this process by default) and then stored there; all drawn without a cache."""
    return start_svgs(plots, cache, drawer).svgs()


@dataclass(frozen=True)
class PendingSvgs:
    """SVGs being drawn. Until they are in, each stands in the page as its mark, an HTML comment
    no page can hold otherwise; `fill` puts each SVG in place of its mark."""

    marks: tuple[str, ...]
    svgs: Callable[[], list[str]]  # waits for the SVGs (once) and returns them
    # each chart's SVG when at hand (from the cache), else an empty stand-in of its size
    stand_ins: tuple[str, ...] = ()

    def fill(self, html: str) -> str:
        """`html` with every mark replaced by its SVG."""
        for mark, svg in zip(self.marks, self.svgs(), strict=True):
            html = html.replace(mark, svg)
        return html

    def sketch(self, html: str) -> str:
        """`html` with every mark replaced by its SVG when at hand, else by an empty stand-in
        of the chart's size: the PDF's layout can start from it while the charts are drawn."""
        for mark, svg in zip(self.marks, self.stand_ins, strict=True):
            html = html.replace(mark, svg)
        return html

    def drawn(self) -> list[str]:
        """The SVGs of the stand-ins in `sketch`, once drawn (waits for them)."""
        return [svg for svg, s in zip(self.svgs(), self.stand_ins, strict=True) if svg != s]


def start_svgs(
    plots: Sequence[Plot],
    cache: Path | None,
    drawer: Stage | None = None,
    article: Path | None = None,
) -> PendingSvgs:
    """`chart_svgs`, with the plots missing from `cache` handed to `drawer` and not waited for,
    so that the caller can lay out the rest of the page meanwhile. Once they are in, the keys are
    remembered as those of the last build of the `article` folder, if one is given."""
    paths = [None if cache is None else _path(cache, key(plot)) for plot in plots]
    found = [
        None if path is None else _read(path, plot) for path, plot in zip(paths, plots, strict=True)
    ]
    missing = tuple(plot for plot, svg in zip(plots, found, strict=True) if svg is None)
    stage = drawer or InProcess()
    if missing:
        stage.submit(Drawing(missing))
    else:
        stage.close()  # a worker started for nothing stops at once

    @functools.cache
    def svgs() -> list[str]:
        drawn = iter(stage.result() if missing else ())
        out = []
        for path, svg, plot in zip(paths, found, plots, strict=True):
            if svg is None:
                svg = next(drawn)
                # Only what a later build would take back: anything else is drawn every time.
                if path is not None and safe_svg(svg, plot.svg_id, plot.title):
                    _write(path, _entry(svg))
            out.append(svg)
        if article is not None:
            remember(cache, article, plots)
        return out

    nonce = secrets.token_hex(16)
    return PendingSvgs(
        tuple(f"<!--reportgen chart {nonce} {i}-->" for i in range(len(plots))),
        svgs,
        tuple(
            stand_in(plot) if svg is None else svg for svg, plot in zip(found, plots, strict=True)
        ),
    )


def chart_svg(plot: Plot, cache: Path | None) -> str:
    """One plot as an inline `<svg>` element (see `chart_svgs`)."""
    return chart_svgs([plot], cache)[0]


def _record(cache: Path, folder: Path) -> Path:
    """Where the keys of the charts of the last build of the article in `folder` are noted."""
    name = hashlib.sha256(str(folder.resolve()).encode("utf-8")).hexdigest()
    return cache / "articles" / name


def remember(cache: Path | None, folder: Path, plots: Sequence[Plot]) -> None:
    """Note the keys of the charts the article in `folder` was built with."""
    if cache is None:
        return
    record, keys = _record(cache, folder), "".join(f"{key(p)}\n" for p in plots).encode()
    if read_cached(record) != keys:  # a rebuild with the same charts (`reportgen serve`) writes
        _write(record, keys)  # nothing: a synced write costs more than the read


def expects_drawing(cache: Path | None, folder: Path) -> bool:
    """Whether a build of the article in `folder` is likely to draw a chart: unless `cache` holds
    every chart the article's last build had (a guess: the build finds out for sure)."""
    if cache is None:
        return True
    raw = read_cached(_record(cache, folder))
    try:
        keys = raw.decode("ascii").split() if raw is not None else None
    except UnicodeDecodeError:
        return True
    if keys is None:
        return True
    if not all(_KEY.fullmatch(k) for k in keys):
        return True  # not a record this module wrote
    return not all(_path(cache, k).is_file() for k in keys)  # none: an article without charts


CHARTSVG = "reportgen.article.charts.draw"  # what a chart worker imports: matplotlib, through it


def chart_stage(ahead: bool) -> contextlib.AbstractContextManager[Stage]:
    """The chart stage, started ahead in a forked worker when `ahead` and it can be."""
    return started(CHARTSVG, ahead)
