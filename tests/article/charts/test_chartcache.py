"""The chart cache: a warm build is byte-identical to a cold one, every key input misses it,
a damaged entry is drawn again, and a warm build never imports matplotlib. The page is laid out
while its charts are drawn."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reportgen.article.build import build_article, render_article
from reportgen.article.charts import cache as chartcache
from reportgen.article.charts.cache import (
    CHARTSVG,
    chart_svg,
    default_folder,
    expects_drawing,
    key,
)
from reportgen.article.charts.plot import Line, Plot, plain
from reportgen.article.charts.render import render_charts
from reportgen.article.page.render import build_context, render_html, stylesheet
from reportgen.article.rundata import article_metrics
from reportgen.article.source.manifest import load_article
from reportgen.article.workers import Forked, InProcess

ROOT = Path(__file__).resolve().parents[3]
PAITON = ROOT / "runs" / "paiton-kimi-k3.1-pro"
SMALL = ROOT / "tests" / "articles" / "small"
OUTPUTS = ("index.html", "article.pdf", "metrics.json")


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.rglob("*.svg"))


def _svgs(folder: Path, cache: Path | None) -> list[str]:
    article, metrics = article_metrics(folder)
    return [c.svg for c in render_charts(article, metrics, cache=cache)]


def _plot(**changes: object) -> Plot:
    line = Line(
        xs=(1.0, 2.0, 4.0), ys=(10.0, float("nan"), 30.5), label="8K", gid="line-8K", style=1
    )
    plot = Plot(
        svg_id="chart-t",
        title="A title",
        lines=(line,),
        x_axis="log2",
        ticks=((1.0, "1"), (2.0, "2"), (4.0, "4")),
        x_label="concurrent requests",
        y_label="tok/s",
        y_unit="tok/s",
        y_log=False,
        legend=None,
    )
    return dataclasses.replace(plot, **changes)  # type: ignore[arg-type]


@pytest.mark.pdf
def test_a_warm_build_is_byte_identical_to_a_cold_one(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold, _ = build_article(PAITON, tmp_path / "cold")  # no cache: every chart drawn
    page = (cold / "index.html").read_text(encoding="utf-8")
    first = render_article(PAITON, {}, chart_cache=cache)  # fills the cache (its page is built)
    assert first.html == page
    stored = _entries(cache)
    declared = len(list(load_article(PAITON).charts()))
    assert len(stored) == page.count("<svg ") == declared
    warm, _ = build_article(PAITON, tmp_path / "warm", chart_cache=cache)
    assert _entries(cache) == stored  # nothing drawn again
    for name in OUTPUTS:
        assert (warm / name).read_bytes() == (cold / name).read_bytes(), name


@pytest.mark.process
def test_a_warm_build_never_imports_matplotlib(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    render_article(PAITON, {}, chart_cache=cache)
    code = (
        "import sys; from pathlib import Path; "
        "from reportgen.article.build import render_article; "
        "built = render_article(Path(sys.argv[1]), {}, chart_cache=Path(sys.argv[2])); "
        "print(built.html.count('<svg '), sorted(m for m in sys.modules if 'matplotlib' in m))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(PAITON), str(cache)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    declared = str(len(list(load_article(PAITON).charts())))
    assert done.stdout.split() == [declared, "[]"], done.stdout + done.stderr


@pytest.mark.slow
def test_a_changed_value_misses_the_cache_and_only_its_chart_is_drawn(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    article, metrics = article_metrics(SMALL)
    before = render_charts(article, metrics, cache=cache)
    assert len(_entries(cache)) == len(before) == 4
    # One decode cell's aggregate throughput, a little higher: the first chart plots it.
    changed = next(v for v in metrics.values if v.metric == "decode.aggregate_tok_s")
    values = tuple(
        dataclasses.replace(v, value=v.value * 1.001) if v is changed else v for v in metrics.values
    )
    other = dataclasses.replace(metrics, values=values)
    after = render_charts(article, other, cache=cache)
    assert len(_entries(cache)) == 5
    assert after[0].svg != before[0].svg and after[1:] == before[1:]
    assert [c.svg for c in after] == [c.svg for c in render_charts(article, other)]


@pytest.mark.slow
def test_a_changed_declaration_misses_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    folder = tmp_path / "small"
    shutil.copytree(SMALL, folder)
    before = _svgs(folder, cache)
    manifest = folder / "article.toml"
    text = manifest.read_text(encoding="utf-8")
    edited = text.replace('y_label = "tok/s per request (median)"', 'y_label = "per request"')
    assert edited != text
    manifest.write_text(edited, encoding="utf-8")
    after = _svgs(folder, cache)
    assert len(_entries(cache)) == 5
    assert after[1] != before[1] and ">per request</text>" in after[1]
    assert after == _svgs(folder, None)


def test_every_input_of_the_key_changes_it(tmp_path: Path) -> None:
    plot = _plot()
    assert plain(plot)
    changed = [
        _plot(title="Another title"),
        _plot(svg_id="chart-u"),
        _plot(y_log=True),
        _plot(x_axis="categorical"),
        _plot(legend="context"),
        _plot(lines=(dataclasses.replace(plot.lines[0], ys=(10.0, float("nan"), 30.6)),)),
        _plot(lines=(dataclasses.replace(plot.lines[0], style=2),)),
        _plot(mark="reconstructed data"),
    ]
    keys = {key(p) for p in [plot, *changed]}
    assert len(keys) == 1 + len(changed)
    # The drawing code: the same sources give the same key, an edited one another key (the
    # sources are read once per process: a changed module is a new process).
    same, edited = tmp_path / "same", tmp_path / "edited"
    for code in (same, edited):
        code.mkdir()
        for name in chartcache._CODE:
            shutil.copy(Path(chartcache.__file__).with_name(name), code / name)
    with (edited / "draw.py").open("a", encoding="utf-8") as f:
        f.write("\n# a change to the drawing\n")
    assert key(plot, same) == key(plot)
    assert key(plot, edited) != key(plot)


def test_matplotlibs_font_list_and_version_are_read_for_the_key(tmp_path: Path) -> None:
    (tmp_path / "fontlist-v1.json").write_text('{"ttflist": []}', encoding="utf-8")
    assert chartcache._font_lists({"MPLCONFIGDIR": str(tmp_path)}) == [b'{"ttflist": []}']
    import matplotlib

    version_file = chartcache._package_files("matplotlib", ("_version.py",))
    assert any(matplotlib.__version__.encode() in part for part in version_file)


def test_a_plot_that_is_not_plain_data_is_refused_as_a_key() -> None:
    line = dataclasses.replace(_plot().lines[0], xs=[1.0, 2.0, 4.0])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="plain values"):
        key(_plot(lines=(line,)))


@pytest.mark.slow
def test_a_damaged_entry_is_drawn_again_and_replaced(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    drawn = _svgs(SMALL, None)
    assert _svgs(SMALL, cache) == drawn
    first, second, third, *_ = _entries(cache)
    first.write_bytes(first.read_bytes()[:-200])  # cut short
    second.write_bytes(b"not an entry")
    body = third.read_bytes()
    third.write_bytes(body.replace(b"<svg", b"<SVG", 1))  # same length, wrong hash
    (third.parent / ".leftover.part").write_bytes(b"half")  # a writer that died
    assert _svgs(SMALL, cache) == drawn
    assert third.read_bytes() == body
    assert _svgs(SMALL, cache) == drawn  # and they are read back whole


@pytest.mark.slow
def test_a_cache_that_cannot_be_written_is_only_a_miss(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    assert _svgs(SMALL, blocker / "cache") == _svgs(SMALL, None)
    assert chart_svg(_plot(), blocker) == chart_svg(_plot(), None)


def test_the_default_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path.home()
    assert default_folder({"REPORTGEN_CACHE_DIR": "/x/y"}) == Path("/x/y/charts")
    assert default_folder({"XDG_CACHE_HOME": "/c"}) == Path("/c/reportgen/charts")
    assert default_folder({"XDG_CACHE_HOME": "relative"}) == home / ".cache/reportgen/charts"
    assert default_folder({}) == home / ".cache/reportgen/charts"
    monkeypatch.setenv("REPORTGEN_CACHE_DIR", "/z")
    assert default_folder() == Path("/z/charts")


@pytest.mark.process
def test_a_warm_build_with_metrics_from_another_process_gives_the_same_bytes(
    tmp_path: Path,
) -> None:
    # The key is the same in any process (no hash seed, no id): a cache filled by a fresh
    # interpreter with another hash seed serves this one.
    cache = tmp_path / "cache"
    code = (
        "import sys; from pathlib import Path; "
        "from reportgen.article.build import render_article; "
        "render_article(Path(sys.argv[1]), {}, chart_cache=Path(sys.argv[2]))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "4321"}
    subprocess.run([sys.executable, "-c", code, str(SMALL), str(cache)], check=True, env=env)
    stored = _entries(cache)
    assert len(stored) == 4
    assert _svgs(SMALL, cache) == _svgs(SMALL, None)
    assert _entries(cache) == stored


@pytest.mark.process
def test_charts_drawn_by_a_forked_worker_are_the_ones_drawn_here(tmp_path: Path) -> None:
    article, metrics = article_metrics(SMALL)
    here = render_charts(article, metrics)
    assert render_charts(article, metrics, drawer=Forked(CHARTSVG)) == here
    cache = tmp_path / "cache"
    assert render_charts(article, metrics, cache=cache, drawer=Forked(CHARTSVG)) == here
    # Every chart in the cache: the worker is stopped at once, and nothing is drawn.
    worker = Forked(CHARTSVG)
    assert render_charts(article, metrics, cache=cache, drawer=worker) == here
    assert worker.done and worker.job is None
    with pytest.raises(ChildProcessError):
        os.waitpid(worker.pid, os.WNOHANG)


@pytest.mark.slow
def test_the_cli_starts_a_chart_worker_unless_the_last_builds_charts_are_all_cached(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "cache"
    folder = tmp_path / "small"
    shutil.copytree(SMALL, folder)
    assert expects_drawing(None, folder) and expects_drawing(cache, folder)
    _svgs(folder, cache)
    assert not expects_drawing(cache, folder)
    assert expects_drawing(cache, SMALL)  # another article
    _entries(cache)[0].unlink()
    assert expects_drawing(cache, folder)
    _svgs(folder, cache)
    assert not expects_drawing(cache, folder)
    # An article without charts: nothing to draw, no worker.
    manifest = folder / "article.toml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text[: text.index("[[sections.chart]]")], encoding="utf-8")
    assert _svgs(folder, cache) == []
    assert not expects_drawing(cache, folder)


class _Recording(InProcess):
    """A drawer that notes when the build waits for its drawings."""

    def __init__(self) -> None:
        super().__init__()
        self.waited = False

    def result(self) -> object:
        self.waited = True
        return super().result()


@pytest.mark.slow
def test_the_page_is_laid_out_before_the_build_waits_for_its_charts() -> None:
    article, metrics = article_metrics(SMALL)
    drawer = _Recording()
    context = build_context(article, metrics, (), stylesheet(), chart_drawer=drawer)
    assert drawer.job is not None and not drawer.waited  # handed over, not waited for
    marks = [c.svg for s in context.sections for c in s.charts]
    assert len(marks) == 4 and all(m.startswith("<!--reportgen chart ") for m in marks)
    html = render_html(context)
    assert drawer.waited and "<!--reportgen chart" not in html
    assert all(svg in html for svg in _svgs(SMALL, None))
    # Each build's marks are its own: a page cannot hold another build's by chance.
    again = build_context(article, metrics, (), stylesheet())
    assert not {c.svg for s in again.sections for c in s.charts} & set(marks)


def test_a_rebuild_with_the_same_charts_leaves_the_articles_record_as_it_is(
    tmp_path: Path,
) -> None:
    cache, folder = tmp_path / "cache", tmp_path / "article"
    plots = [_plot(), _plot(svg_id="chart-u")]
    chartcache.remember(cache, folder, plots)
    record = chartcache._record(cache, folder)
    written = record.stat().st_ino
    chartcache.remember(cache, folder, plots)  # `reportgen serve` rebuilds after a prose edit
    assert record.stat().st_ino == written  # not written again (a write is a new file, renamed)
    chartcache.remember(cache, folder, plots[:1])
    assert record.stat().st_ino != written
    assert record.read_text(encoding="utf-8") == f"{key(plots[0])}\n"
