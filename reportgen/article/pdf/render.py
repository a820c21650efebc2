"""PDF stage: the article's HTML in, PDF bytes out, rendered by WeasyPrint with print CSS.

WeasyPrint may only read files inside the allowed folders (the article folder and the
templates) and `data:` URLs: no network, no other local file. It reports missing resources in
its log instead of raising, so every warning or error it logs fails the build, located.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import logging
import os
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

# WeasyPrint warns once, when it is first imported on a machine without HarfBuzz's subsetting
# library (Debian's libharfbuzz-subset0): "HarfBuzz-Subset will be required by future versions of
# WeasyPrint". It then subsets fonts with fontTools instead, which `render_pdf` makes as
# reproducible as the HarfBuzz path. The warning is about this machine, not about an article, so
# exactly that warning is silenced, here, where the import raises it.
with warnings.catch_warnings():
    warnings.filterwarnings(
        "ignore",
        message=r"HarfBuzz-Subset will be required by future versions of WeasyPrint",
        category=DeprecationWarning,
    )
    import weasyprint
import tinyhtml5  # type: ignore[import-untyped]  # WeasyPrint's HTML parser
from weasyprint.images import SVGImage
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher, URLFetchingError

from reportgen.errors import InputError, whole_file


class FolderFetcher(URLFetcher):  # type: ignore[misc]
    """A URL fetcher that serves only files under the given folders, and data: URLs."""

    def __init__(self, roots: Sequence[Path]) -> None:
        super().__init__(allowed_protocols=("file", "data"), allow_redirects=False)
        self.roots = tuple(r.resolve() for r in roots)
        self.refused: list[str] = []

    def fetch(self, url: str, headers: Any = None) -> Any:
        parsed = urlparse(url)
        if parsed.scheme == "data":
            return super().fetch(url, headers)
        if parsed.scheme == "file":
            path = Path(unquote(parsed.path)).resolve()
            if any(path.is_relative_to(root) for root in self.roots) and path.is_file():
                return super().fetch(url, headers)
        self.refused.append(url)
        raise URLFetchingError(f"reportgen does not let the PDF load {url}")


# Warnings about this machine's libraries, not about the article: reported by WeasyPrint, harmless.
_ENVIRONMENT_WARNINGS = ("Using fontTools instead of HarfBuzz",)


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno < logging.ERROR and record.getMessage().startswith(_ENVIRONMENT_WARNINGS):
            return
        self.records.append(record)


_EPOCH_LOCK = threading.Lock()


@contextmanager
def _source_date_epoch(created: dt.datetime) -> Iterator[None]:
    """`SOURCE_DATE_EPOCH` set to the build's date while the PDF is written.

    fontTools, which subsets the fonts when HarfBuzz cannot, stamps each subset font's `head`
    table with the current time unless SOURCE_DATE_EPOCH is set: without it, two builds of the
    same article a second apart differ. The variable is the one interface fontTools reads, so the
    build's own date goes there for exactly as long as the PDF is being written.
    """
    with _EPOCH_LOCK:
        before = os.environ.get("SOURCE_DATE_EPOCH")
        os.environ["SOURCE_DATE_EPOCH"] = str(int(created.timestamp()))
        try:
            yield
        finally:
            if before is None:
                del os.environ["SOURCE_DATE_EPOCH"]
            else:
                os.environ["SOURCE_DATE_EPOCH"] = before


@contextmanager
def _weasyprint_log() -> Iterator[_Collect]:
    handler = _Collect()
    logger = logging.getLogger("weasyprint")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


# The PDF's fonts: DejaVu Sans and Sans Mono, from the copies matplotlib ships (a pinned Python
# dependency) rather than whatever fonts the machine has, so that the PDF's bytes do not depend
# on the system's font packages. (style, weight, file) for each family.
_FACES = {
    "DejaVu Sans": (
        ("normal", 400, "DejaVuSans.ttf"),
        ("normal", 700, "DejaVuSans-Bold.ttf"),
        ("italic", 400, "DejaVuSans-Oblique.ttf"),
        ("italic", 700, "DejaVuSans-BoldOblique.ttf"),
    ),
    "DejaVu Sans Mono": (
        ("normal", 400, "DejaVuSansMono.ttf"),
        ("normal", 700, "DejaVuSansMono-Bold.ttf"),
        ("italic", 400, "DejaVuSansMono-Oblique.ttf"),
        ("italic", 700, "DejaVuSansMono-BoldOblique.ttf"),
    ),
}


def font_dir() -> Path | None:
    """The folder of matplotlib's bundled TrueType fonts, found without importing matplotlib."""
    spec = importlib.util.find_spec("matplotlib")
    for location in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(location) / "mpl-data" / "fonts" / "ttf"
        if all((folder / f).is_file() for faces in _FACES.values() for *_, f in faces):
            return folder
    return None


_OWN = "reportgen {}"  # a family name no system font has, so fontconfig cannot swap it


def _font_css(folder: Path) -> str:
    faces = [
        f'@font-face {{ font-family: "{_OWN.format(family)}"; font-style: {style}; '
        f'font-weight: {weight}; src: url("{(folder / name).as_uri()}"); }}'
        for family, faces in _FACES.items()
        for style, weight, name in faces
    ]
    sans, mono = (f'"{_OWN.format(f)}"' for f in _FACES)
    return "\n".join(
        [
            *faces,
            f"html {{ font-family: {sans}, sans-serif !important; }}",
            f"code, pre, kbd, samp {{ font-family: {mono}, monospace !important; }}",
        ]
    )


@dataclass(kw_only=True)
class _Fonts:
    """The PDF's fonts loaded into a font configuration, with what loading them logged."""

    folder: Path | None
    config: FontConfiguration
    stylesheets: list[Any]
    fetcher: FolderFetcher
    records: list[logging.LogRecord]


def _load_fonts(folder: Path | None) -> _Fonts:
    fetcher = FolderFetcher([folder] if folder else [])
    with _weasyprint_log() as log:
        config = FontConfiguration()
        stylesheets = (
            [weasyprint.CSS(string=_font_css(folder), font_config=config, url_fetcher=fetcher)]
            if folder
            else []
        )
    return _Fonts(
        folder=folder, config=config, stylesheets=stylesheets, fetcher=fetcher, records=log.records
    )


_AHEAD: list[_Fonts] = []


def prepare() -> None:
    """Load the PDF's fonts now, for the next `render_pdf` in this process: a PDF worker does it
    while it waits for its job (article/workers.py). Each load serves one PDF only."""
    _AHEAD[:] = [_load_fonts(font_dir())]


def _fonts() -> _Fonts:
    folder = font_dir()
    ahead = _AHEAD.pop() if _AHEAD else None
    return ahead if ahead is not None and ahead.folder == folder else _load_fonts(folder)


_SVG = "{http://www.w3.org/2000/svg}"


def _title_id(element: Any) -> str | None:
    title = element.find(f"{_SVG}title")
    return None if title is None else title.get("id")


def _svg_root(svg: str) -> Any:
    """The `<svg>` element of `svg` as WeasyPrint's HTML parser gives it in a page."""
    tree = tinyhtml5.parse(f"<!DOCTYPE html><html><body>{svg}", namespace_html_elements=False)
    return next(tree.iter(f"{_SVG}svg"))


def _same_root(a: Any, b: Any) -> bool:
    """Whether two `<svg>` elements take the same room: attributes and `<title>` alike."""
    ta, tb = a.find(f"{_SVG}title"), b.find(f"{_SVG}title")
    return (
        a.attrib == b.attrib
        and ta is not None
        and tb is not None
        and (ta.attrib, ta.text) == (tb.attrib, tb.text)
    )


def _put_charts(document: Any, drawn: Sequence[str]) -> bool:
    """Put each SVG of `drawn` in the laid-out `document` in place of the stand-in with its
    title's id, the root element and title it was drawn with. An inline SVG is a replaced box
    that the layout sizes by its root element only, and WeasyPrint draws it when it writes the
    PDF, so the PDF's bytes are those of the page laid out with the charts in. False (nothing
    put in) when a stand-in is missing, twice there, or unlike its chart."""
    roots = [_svg_root(svg) for svg in drawn]
    wanted = {_title_id(root): root for root in roots}
    if None in wanted or len(wanted) != len(roots):
        return False
    found: dict[str | None, Any] = {}
    for page in document.pages:
        for box in page._page_box.descendants():  # WeasyPrint's boxes
            image = getattr(box, "replacement", None)
            name = _title_id(box.element) if isinstance(image, SVGImage) else None
            if name in wanted:
                if name in found:
                    return False
                found[name] = box
    if found.keys() != wanted.keys():
        return False
    if not all(_same_root(found[k].element, root) for k, root in wanted.items()):
        return False
    for k, root in wanted.items():
        old = found[k].replacement
        found[k].replacement = SVGImage(root, old._base_url, old._url_fetcher, old._context)
    return True


def render_pdf(
    html: str,
    *,
    label: str,
    roots: Sequence[Path],
    created: dt.datetime,
    charts: Callable[[], tuple[str, Sequence[str]]] | None = None,
) -> bytes:
    """PDF bytes for `html`; `label` names the HTML in errors, `created` dates the PDF.
    `charts`: `html` is a sketch, with empty stand-ins for charts still being drawn
    (article/charts/cache.py); it is laid out, then `charts()` gives the page as published and
    the SVGs of the stand-ins, put in their place. The bytes are those of the published page's
    PDF, which is laid out instead when a stand-in does not match its chart."""
    fonts = _fonts()
    fetcher = FolderFetcher(roots)  # the fonts are loaded already, by their own fetcher
    stamp = created.strftime("%Y-%m-%dT%H:%M:%SZ")
    with _weasyprint_log() as log, _source_date_epoch(created):
        # no base URL: the page is self-contained, and its links to the raw data stay relative
        # to the PDF ("data/run.json" beside it), not absolute paths of the machine that built it
        document = weasyprint.HTML(string=html, url_fetcher=fetcher).render(
            stylesheets=fonts.stylesheets, font_config=fonts.config
        )
        if charts is not None:
            published, drawn = charts()
            if not _put_charts(document, drawn):
                log.records.clear()  # the sketch's; the published page's come instead
                document = weasyprint.HTML(string=published, url_fetcher=fetcher).render(
                    stylesheets=fonts.stylesheets, font_config=fonts.config
                )
        document.metadata.created = stamp
        document.metadata.modified = stamp
        pdf: bytes = document.write_pdf()
    refused = fonts.fetcher.refused + fetcher.refused
    problems = [whole_file(label, f"the PDF may not load {url}") for url in refused] + [
        whole_file(label, f"WeasyPrint {r.levelname.lower()}: {r.getMessage()}")
        for r in fonts.records + log.records
        if not any(url in r.getMessage() for url in refused)
    ]
    if problems:
        raise InputError(problems)
    return pdf
