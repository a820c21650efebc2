"""The PDF stage started ahead in a forked worker: the same bytes and the same errors as in this
process, a fallback when the worker is gone, and a fresh `reportgen build` (which uses it) that
writes what an in-process build writes, cold and warm."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reportgen.article import workers
from reportgen.article.build import build_article, render_outputs
from reportgen.article.charts.plot import Plot
from reportgen.article.pdf.forked import WEASYPRINT, Request, pdf_stage, request
from reportgen.article.workers import Forked, InProcess
from reportgen.errors import InputError

pytestmark = [pytest.mark.pdf, pytest.mark.process]  # PDFs rendered by forked workers

ROOT = Path(__file__).resolve().parents[3]
PAITON = ROOT / "runs" / "paiton-kimi-k3.1-pro"
SMALL = ROOT / "tests" / "articles" / "small"
REPORTGEN = Path(sys.executable).with_name("reportgen")
OUTPUTS = ("index.html", "article.pdf", "metrics.json")
CREATED = dt.datetime(2025, 1, 2, tzinfo=dt.UTC)


def _request(folder: Path, body: str) -> Request:
    html = f"<!DOCTYPE html><html><head><title>t</title></head><body>{body}</body></html>"
    return request(html, label="t/index.html", roots=(folder,), created=CREATED)


def _outcome(stage: InProcess | Forked, req: Request) -> bytes | list[str]:
    stage.submit(req)
    try:
        pdf: bytes = stage.result()
        return pdf
    except InputError as exc:
        return [p.format() for p in exc.problems]


def test_the_worker_gives_the_bytes_and_the_errors_of_this_process(tmp_path: Path) -> None:
    good = _request(tmp_path, "<h1>Title</h1><p>Some <b>text</b> and <code>code</code>.</p>")
    bad = _request(tmp_path, '<p>x</p><img src="file:///etc/hostname" alt="">')
    for req in (good, bad):
        here = _outcome(InProcess(), req)
        with pdf_stage(ahead=False) as stage:
            assert isinstance(stage, InProcess)
        worker = Forked(WEASYPRINT)
        assert _outcome(worker, req) == here
    assert isinstance(here, list) and "the PDF may not load file:///etc/hostname" in here[0]
    good_pdf = _outcome(InProcess(), good)
    assert isinstance(good_pdf, bytes) and good_pdf.startswith(b"%PDF-")


def test_a_worker_that_died_leaves_the_pdf_to_this_process(tmp_path: Path) -> None:
    req = _request(tmp_path, "<p>Hello</p>")
    worker = Forked(WEASYPRINT)
    os.kill(worker.pid, signal.SIGKILL)
    assert _outcome(worker, req) == _outcome(InProcess(), req)


def test_a_build_that_stops_before_its_pdf_stops_the_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # This process has imported WeasyPrint (so it would not fork): as in a fresh one, it does.
    monkeypatch.setattr(workers, "can_fork", lambda _module: True)
    with pytest.raises(RuntimeError), pdf_stage(ahead=True) as stage:  # noqa: PT012 -- the stage is left by an exception
        assert isinstance(stage, Forked)
        raise RuntimeError("the data was bad")
    assert isinstance(stage, Forked)
    with pytest.raises(ChildProcessError):
        os.waitpid(stage.pid, os.WNOHANG)  # killed and reaped: no zombie left behind


def test_a_fresh_process_forks_its_worker() -> None:
    code = "from reportgen.article.workers import can_fork; print(can_fork('weasyprint'))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "True\n"


def _cli_build(article: Path, out: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REPORTGEN_CACHE_DIR": str(cache)}
    env.pop("SOURCE_DATE_EPOCH", None)
    return subprocess.run(
        [str(REPORTGEN), "build", str(article), "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )


def test_reportgen_build_cold_and_warm_writes_the_bytes_of_an_in_process_build(
    tmp_path: Path,
) -> None:
    here, built = build_article(PAITON, tmp_path / "here", {})  # no worker, no cache
    # laid out while its charts were drawn: the PDF of the published page, laid out whole
    assert (here / "article.pdf").read_bytes() == render_outputs(built)["article.pdf"]
    cache = tmp_path / "cache"
    for run in ("cold", "warm"):
        done = _cli_build(PAITON, tmp_path / run, cache)
        assert done.returncode == 0 and done.stderr == "", done.stderr
        target = tmp_path / run / PAITON.name
        assert done.stdout.split() == [str(target / name) for name in OUTPUTS]
        for name in OUTPUTS:
            assert (target / name).read_bytes() == (here / name).read_bytes(), (run, name)
        drawn = (here / "index.html").read_text(encoding="utf-8").count("<svg ")
        assert len(list((cache / "charts").rglob("*.svg"))) == drawn


def test_an_error_from_the_worker_is_located_and_clean(tmp_path: Path) -> None:
    article = tmp_path / "small"
    shutil.copytree(SMALL, article)
    notes = article / "notes.md"
    notes.write_text(notes.read_text(encoding="utf-8") + "\nA private mark: &#xE000;.\n")
    done = _cli_build(article, tmp_path / "out", tmp_path / "cache")
    assert done.returncode == 2 and done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith(f"{notes}:") and "U+E000" in done.stderr
    assert not (tmp_path / "out" / "small").exists()


def test_fonts_loaded_ahead_serve_one_pdf_with_the_same_bytes(tmp_path: Path) -> None:
    from reportgen.article.pdf import render  # WeasyPrint: here, so collecting this file is quick

    req = _request(
        tmp_path, "<h1>Fonts</h1><p>Some <b>bold</b>, <i>italic</i>, <code>mono</code>.</p>"
    )
    plain = _outcome(InProcess(), req)
    render.prepare()  # what a PDF worker does while it waits for its job
    assert render._AHEAD, "prepare() loaded nothing"
    assert _outcome(InProcess(), req) == plain
    assert not render._AHEAD  # used once: the next PDF loads its own
    assert _outcome(InProcess(), req) == plain


def test_an_error_while_loading_fonts_ahead_still_fails_the_pdf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Fonts whose loading logs a warning: the PDF that uses them fails, located, as it would
    # have when it loaded them itself.
    from reportgen.article.pdf import render

    req = _request(tmp_path, "<p>x</p>")
    real = render._font_css
    monkeypatch.setattr(render, "_font_css", lambda folder: real(folder) + "@font-face { src: x }")
    render.prepare()
    problems = _outcome(InProcess(), req)
    assert isinstance(problems, list) and problems == _outcome(InProcess(), req)
    assert any("WeasyPrint" in p for p in problems), problems


_DRAWING = (
    '<rect x="10" y="10" width="100" height="50" fill="#0072B2"/>'
    '<text x="20" y="120" font-size="12" fill="#333333">drawn 25 50</text></svg>'
)


def _chart_page(svg: str) -> str:
    return f"<h1>Chart</h1><figure>{svg}<figcaption>A chart.</figcaption></figure><p>After.</p>"


@pytest.mark.parametrize("view_box", ["0 0 345.6 244.8", "0 0 200 100"])
def test_a_sketch_laid_out_before_its_charts_gives_the_published_pages_pdf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, view_box: str
) -> None:
    # The stand-in takes the chart's room: its drawing is put in after the layout, and the PDF
    # is byte for byte the published page's. A stand-in unlike its chart (another viewBox): the
    # published page is laid out instead, with the same bytes.
    import weasyprint

    from reportgen.article.charts.plot import stand_in, svg_head
    from reportgen.article.pdf.forked import Charts, Sketch

    plot_head = stand_in_plot()
    drawn = svg_head(plot_head.svg_id, plot_head.title, f'viewBox="{view_box}"') + _DRAWING
    published = _request(tmp_path, _chart_page(drawn))
    sketch = _request(tmp_path, _chart_page(stand_in(plot_head)))
    layouts: list[str] = []
    real = weasyprint.HTML.render

    def counted(*args: Any, **kwargs: Any) -> Any:
        layouts.append("laid out")
        return real(*args, **kwargs)

    monkeypatch.setattr(weasyprint.HTML, "render", counted)
    full = _outcome(InProcess(), published)
    assert len(layouts) == 1
    for stage in (InProcess(), Forked(WEASYPRINT)):
        stage.submit(Sketch(sketch))
        stage.follow(Charts(published.html, (drawn,)))
        assert stage.result() == full
    # in this process: one layout when the stand-in matches, two when it does not
    assert len(layouts) == (2 if view_box == "0 0 345.6 244.8" else 3)


def stand_in_plot() -> Plot:
    return Plot(
        svg_id="chart-x",
        title="Throughput <by> context",
        lines=(),
        x_axis="categorical",
        ticks=(),
        x_label="x",
        y_label="y",
        y_unit="tok/s",
        y_log=False,
        legend=None,
    )


def test_a_worker_that_died_before_the_charts_followed_leaves_the_pdf_to_this_process(
    tmp_path: Path,
) -> None:
    from reportgen.article.charts.plot import stand_in, svg_head
    from reportgen.article.pdf.forked import Charts, Sketch

    plot = stand_in_plot()
    drawn = svg_head(plot.svg_id, plot.title, 'viewBox="0 0 345.6 244.8"') + _DRAWING
    published = _request(tmp_path, _chart_page(drawn))
    worker = Forked(WEASYPRINT)
    worker.submit(Sketch(_request(tmp_path, _chart_page(stand_in(plot)))))
    os.kill(worker.pid, signal.SIGKILL)
    worker.follow(Charts(published.html, (drawn,)))
    assert worker.result() == _outcome(InProcess(), published)
