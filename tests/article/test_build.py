"""`reportgen build`: golden HTML, element checks, PDF content, reproducibility, atomicity."""

from __future__ import annotations

import difflib
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from helpers_articles import ids_defined_twice
from pypdf import PdfReader

from reportgen.article.build import Built, build, render_article, render_outputs, render_pdf
from reportgen.cli.main import main
from reportgen.errors import InputError
from reportgen.formats.schema.validate import check as schema_check
from reportgen.formats.schema.validate import schema_version
from reportgen.metrics.claims import lookup
from reportgen.metrics.display import parse_display_attr, shown_text

ROOT = Path(__file__).resolve().parents[2]
PAITON = ROOT / "runs" / "paiton-kimi-k3.1-pro"
SMALL = ROOT / "tests" / "articles" / "small"
GOLDEN = ROOT / "tests" / "golden"
ARTICLES = {
    "paiton-kimi-k3.1-pro": PAITON,
    "small": SMALL,
    "tiny-llamacpp-two-tools": ROOT / "runs" / "tiny-llamacpp-two-tools",
    **{
        name: ROOT / "tests" / "articles" / name
        for name in ("matrix-4x4", "rate-sweep", "two-engines", "three-configs")
    },
}


@pytest.fixture(scope="session")
def rendered() -> dict[str, Built]:
    """Each article rendered in memory: `build` writes its `html` as index.html."""
    return {name: render_article(folder, {}) for name, folder in ARTICLES.items()}


class _Numbers(HTMLParser):
    """Collect (metric id, full value, shown text, table id) of every number span, and the
    span's data-display (how a table column shows it) by position."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, float, str, str | None]] = []
        self.displays: list[str | None] = []
        self._open: tuple[str, float] | None = None
        self._table: str | None = None
        self._caption = False
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            self._table = a.get("data-table")
        if tag == "caption":
            self._caption = True
        if tag == "span" and "data-metric" in a:
            self._open = (str(a["data-metric"]), float(str(a["data-value"])))
            self.displays.append(a.get("data-display"))
            self._text = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._table = None
        if tag == "caption":
            self._caption = False
        if tag == "span" and self._open:
            self.found.append((*self._open, self._text, None if self._caption else self._table))
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open:
            self._text += data


def _numbers(html: str) -> list[tuple[str, float, str, str | None]]:
    return _parsed(html).found


def _parsed(html: str) -> _Numbers:
    parser = _Numbers()
    parser.feed(html)
    return parser


@pytest.mark.parametrize("name", sorted(ARTICLES))
def test_no_id_is_defined_twice(name: str, rendered: dict[str, Built]) -> None:
    assert ids_defined_twice(rendered[name].html) == []


@pytest.mark.parametrize("name", sorted(ARTICLES))
def test_golden_html(name: str, rendered: dict[str, Built], request: pytest.FixtureRequest) -> None:
    html = rendered[name].html
    golden = GOLDEN / f"{name}.html"
    if request.config.getoption("--update-golden"):
        golden.write_text(html, encoding="utf-8")
    expected = golden.read_text(encoding="utf-8")
    if html != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(True), html.splitlines(True), str(golden), "built", n=2
            )
        )
        pytest.fail(f"HTML differs from {golden.name} (pytest --update-golden):\n{diff[:6000]}")


@pytest.mark.parametrize("name", sorted(ARTICLES))
def test_every_number_carries_its_metric(name: str, rendered: dict[str, Built]) -> None:
    built = rendered[name]
    get = lookup(built.metrics.by_id())  # a claim's id ("A/B") is computed from its operands
    parsed = _parsed(built.html)
    numbers = parsed.found
    assert numbers
    for (metric, full, text, _), how in zip(numbers, parsed.displays, strict=True):
        value = get(metric)
        assert value is not None, metric
        assert full == value.value
        display = None if how is None else parse_display_attr(how, value)
        assert (how is None) == (display is None), how
        with_unit = "\u00a0" in text or (value.unit in ("x", "%") and text.endswith(value.unit))
        assert text == shown_text(value, unit=with_unit, display=display)
    # Every table cell that has a metric shows it, under the right table.
    for view in built.tables:
        cells = [c for _, row in view.rows for c in row if not c.missing]
        spans = [n for n in numbers if n[3] == view.id and n[0] in {c.metric for c in cells}]
        assert len(spans) == len(cells)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ARTICLES))
def test_metrics_json_is_valid_under_its_schema(name: str, rendered: dict[str, Built]) -> None:
    doc = json.loads(rendered[name].metrics_json)  # what `build` writes as metrics.json
    assert schema_check("metrics", doc) == []
    assert next(iter(doc)) == "schema_version"  # first, where a reader looks
    assert doc["schema_version"] == schema_version("metrics")


def test_small_article_tables_follow_the_data(rendered: dict[str, Built]) -> None:
    html = rendered["small"].html
    head = re.search(r'data-table="decode-aggregate".*?<thead>(.*?)</thead>', html, re.S)
    assert head is not None
    assert re.findall(r"<th scope=\"col\">([^<]*)</th>", head.group(1)) == ["1", "4", "32"]
    assert 'failed<sup class="fn">a</sup>' in html
    assert "stream error: connection reset by peer" in html
    assert "skipped<sup" in html and "not measured" in html
    assert ">16K<" in html and ">4K<" in html
    assert 'id="reconstructed-notice"' not in html


def test_reconstructed_notice_names_the_files(rendered: dict[str, Built]) -> None:
    html = rendered["paiton-kimi-k3.1-pro"].html
    notice = html[html.index('id="reconstructed-notice"') :]
    notice = notice[: notice.index("</aside>")]
    for name in ("canonical-single.json", "canonical-16.json", "matrix.json"):
        assert name in notice
    # The full story is told after the results; a one-line label before the first section
    # links to it.
    label = html.index('id="reconstructed-label"')
    assert label < html.index("<section id=") < html.index('id="reconstructed-notice"')
    assert 'href="#reconstructed-notice"' in html[label : html.index("</p>", label)]


@pytest.mark.pdf
@pytest.mark.parametrize("name", sorted(ARTICLES))
def test_pdf_has_every_table_number(name: str, rendered: dict[str, Built], tmp_path: Path) -> None:
    pdf = render_pdf(rendered[name])  # each article's PDF once, where its case runs
    assert pdf.startswith(b"%PDF-")
    path = tmp_path / "a.pdf"
    path.write_bytes(pdf)
    reader = PdfReader(path)
    assert 2 <= len(reader.pages) <= 12
    text = "\n".join(page.extract_text() for page in reader.pages)
    flat = re.sub(r"\s+", " ", text)
    for view in rendered[name].tables:
        assert view.title in flat
        for label, cells in view.rows:
            assert label in flat
            for cell in cells:
                if not cell.missing:
                    shown = re.sub(r"<[^>]+>", "", str(cell.html))
                    assert re.search(rf"(?<![\d,.]){re.escape(shown)}(?![\d,])", flat), shown
    if name == "paiton-kimi-k3.1-pro":
        first = reader.pages[0].extract_text()
        assert "Reconstructed data" in first and "Page 1 of" in first
        # every page says so in its footer; the files are named once, in the story at the end
        assert all("Reconstructed data" in page.extract_text() for page in reader.pages)
        assert "matrix.json" in reader.pages[-2].extract_text() + reader.pages[-1].extract_text()


@pytest.mark.pdf
def test_source_date_epoch_dates_the_pdf(tmp_path: Path) -> None:
    built = render_article(SMALL, {"SOURCE_DATE_EPOCH": "1700000000"})
    pdf = render_outputs(built)["article.pdf"]
    path = tmp_path / "a.pdf"
    path.write_bytes(pdf)
    meta = PdfReader(path).metadata
    assert meta is not None and meta.creation_date is not None
    assert meta.creation_date.year == 2023
    default = render_outputs(render_article(SMALL, {}))["article.pdf"]
    path.write_bytes(default)
    meta = PdfReader(path).metadata
    assert meta is not None and meta.creation_date is not None
    assert (meta.creation_date.year, meta.creation_date.month) == (2026, 10)


@pytest.mark.pdf
def test_failed_build_leaves_earlier_outputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    article = tmp_path / "small"
    shutil.copytree(SMALL, article)
    out = tmp_path / "out"
    target = build(article, out, {})
    before = {p.name: p.read_bytes() for p in target.rglob("*") if p.is_file()}
    notes = article / "notes.md"
    notes.write_text(notes.read_text() + "\nSee {{ decode.9K.c1.ttft_s }}.\n")
    assert main(["build", str(article), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{notes}:5:5" in err and "unknown reference {{ decode.9K.c1.ttft_s }}" in err
    assert {p.name: p.read_bytes() for p in target.rglob("*") if p.is_file()} == before
    assert [p.name for p in out.iterdir() if not p.name.startswith(".")] == ["small"]


def test_bad_run_file_fails_the_build_with_its_location(tmp_path: Path) -> None:
    article = tmp_path / "small"
    shutil.copytree(SMALL, article)
    run = article / "canonical.json"
    run.write_text(run.read_text().replace('"tokSOut": 61.2,', '"tokSOut": -61.2,'))
    with pytest.raises(InputError) as info:
        render_article(article, {})
    assert [p.format() for p in info.value.problems] == [
        "canonical.json:8:14 /tokSOut: -61.2 is less than or equal to the minimum of 0",
        "canonical.json:15:54 /samples/1/tokSOut: -61.2 is less than or equal to the minimum of 0",
    ]


@pytest.mark.pdf
def test_the_pdf_may_load_nothing_outside_the_article(tmp_path: Path) -> None:
    from reportgen.article.pdf.render import font_dir, render_pdf

    secret = tmp_path / "secret.png"
    secret.write_bytes(b"not an image")
    article = tmp_path / "article"
    article.mkdir()
    fonts = font_dir()
    assert fonts is not None
    font = (fonts / "DejaVuSans.ttf").as_uri()  # the PDF's own fonts, loaded by their CSS only
    html = (
        f'<html><body><img src="{secret.as_uri()}"><img src="file:///etc/passwd">'
        f'<img src="{font}"><img src="http://127.0.0.1:9/x.png"><p>text</p></body></html>'
    )
    with pytest.raises(InputError) as info:
        render_pdf(
            html,
            label="x.html",
            roots=(article,),
            created=render_article(SMALL, {}).created,
        )
    refused = [p.message for p in info.value.problems if p.message.startswith("the PDF may not")]
    assert sorted(refused) == sorted(
        [
            f"the PDF may not load {secret.as_uri()}",
            "the PDF may not load file:///etc/passwd",
            f"the PDF may not load {font}",
            "the PDF may not load http://127.0.0.1:9/x.png",
        ]
    )


def test_unwritable_output_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["build", str(SMALL), "--out", str(blocker / "out" / "deeper")]) == 2
    err = capsys.readouterr().err
    assert f"{blocker}:1:1 /: is not a folder, so --out {blocker}/out/deeper cannot be" in err


@pytest.mark.process
def test_a_closed_pipe_ends_quietly() -> None:
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "reportgen", "metrics", str(PAITON), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 0
    assert "Traceback" not in err


@pytest.mark.pdf
def test_a_build_is_the_same_bytes_from_any_checkout_and_links_its_data_relatively(
    tmp_path: Path,
) -> None:
    """A build names no path of the machine that built it: the same article built from two
    folders into two output folders gives the same bytes, page, PDF and metrics alike, and the
    PDF's links to the raw data are relative to it."""
    import re
    import shutil
    import zlib

    built = []
    for where in ("one", "two/deeper"):
        folder = tmp_path / where / "small"
        shutil.copytree(SMALL, folder)
        built.append(build(folder, tmp_path / where / "out" / where, {}))
    for name in ("index.html", "article.pdf", "metrics.json"):
        data = (built[0] / name).read_bytes()
        assert data == (built[1] / name).read_bytes(), name
        assert str(ROOT).encode() not in data and str(tmp_path).encode() not in data, name
    pdf = (built[0] / "article.pdf").read_bytes()
    streams = b"".join(
        zlib.decompress(pdf[m.end() : m.end() + int(m.group(1))])
        for m in re.finditer(rb"/Type /ObjStm[^>]*/Length (\d+)>>\nstream\n", pdf)
    )
    links = re.findall(rb"/URI \(([^)]*)\)", streams)
    assert b"data/bench.json" in links, links
    assert all(link.startswith((b"data/", b"https://")) for link in links), links
    assert str(tmp_path).encode() not in streams
