"""Hostile strings from run files and article.toml, pushed through every output they reach.

Each string here once gave a traceback, broken markup or unreadable output somewhere (issue 22,
classes 8 and 9): mathtext in a chart label, a quote in an SVG attribute, a lone surrogate, a DEL
in TOML that `init` writes. The outputs must stay well-formed and the CLI must exit 0, 1 or 2.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
import warnings
import xml.dom.minidom
from pathlib import Path
from typing import Any

import pytest

from reportgen.article.charts.draw import MAX_NAME, MAX_TITLE, draw_plot, safe_id
from reportgen.article.charts.plot import Line, Plot
from reportgen.article.source.toml import toml_string
from reportgen.cli.main import main
from reportgen.errors import PER_FILE, Capped, InputError, Problem, cap_problems, left_out
from reportgen.fileio import cap_bytes
from reportgen.init.scaffold import INIT_MARKER, remove_stale_inits, work_folder
from reportgen.terminal import one_line

HOSTILE = (
    "$\\undefinedmacro{x}$",
    "$x$ and $\\frac{1}{$",
    '"><script>alert(1)</script>',
    'run style="a;',
    'a;"',
    "del\x7fname",
    "nul\x00name\x01",
    "rtl\u202eevil",
    "x" * 10_000,
)


def _plot(text: str) -> Plot:
    """A chart whose every string is `text`: title, legend, labels, ticks, point labels."""
    lines = (
        Line(
            xs=(1.0, 2.0),
            ys=(3.0, 4.0),
            label=text,
            gid=f"line-{text}",
            style=0,
            points=(text, text),
        ),
        Line(
            xs=(1.0, 2.0),
            ys=(5.0, 6.0),
            label=text + "b",
            gid=f"line-{text}b",
            style=1,
            points=(text, text),
        ),
    )
    return Plot(
        svg_id="chart-x",
        title=text,
        lines=lines,
        x_axis="from-zero",
        ticks=(),
        x_label=text,
        y_label=text,
        y_unit="tok/s",
        y_log=False,
        legend=text,
    )


@pytest.mark.slow
@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_chart_draws_any_string_as_plain_text(text: str) -> None:
    svg = draw_plot(_plot(text))
    xml.dom.minidom.parseString(svg)  # well-formed: no broken attribute, no control character
    assert "<script" not in svg
    if text.startswith("$\\undefined"):
        assert "$\\undefinedmacro{x}$" in svg  # drawn as written, not as mathtext


def _drawn_texts(svg: str) -> list[str]:
    """The texts an SVG chart draws (its `<text>` elements' content), unescaped."""
    dom = xml.dom.minidom.parseString(svg)
    return [
        "".join(n.data for n in t.childNodes if n.nodeType == n.TEXT_NODE)
        for t in dom.getElementsByTagName("text")
    ]


def _categorical(name: str, gid: str = "line", title: str | None = None) -> Plot:
    """A chart of one line named `name` on a category axis whose first tick is `name` too;
    `title` names both axes and the legend (no legend without it)."""
    return Plot(
        svg_id="chart-x",
        title="t",
        lines=(Line(xs=(0.0, 1.0), ys=(3.0, 4.0), label=name, gid=gid, style=0),),
        x_axis="categorical",
        ticks=((0.0, name), (1.0, "b")),
        x_label=title or "x",
        y_label=title or "y",
        y_unit="s",
        y_log=title is None,
        legend=title,
    )


def test_a_long_name_is_drawn_cut_with_an_ellipsis_and_whole_in_the_ids() -> None:
    name = "engine-" + "y" * 200
    title = "output-" + "z" * 300  # no space: the y label is not folded into two lines
    plot = _categorical(name, f"line-{name}", title)
    svg = draw_plot(plot)
    drawn = _drawn_texts(svg)
    assert drawn.count(name[: MAX_NAME - 1] + "…") == 2  # the legend entry and the tick
    assert drawn.count(title[: MAX_TITLE - 1] + "…") == 3  # both axes and the legend's title
    assert not [t for t in drawn if len(t) > MAX_TITLE]
    assert safe_id(f"line-{name}") in svg  # the ids, which are not drawn, stay whole


def test_chart_category_ticks_are_plain_text() -> None:
    text = "$\\undefinedmacro{x}$"
    plot = _categorical(text)
    assert text in draw_plot(plot)


def test_svg_ids_are_safe_and_distinct() -> None:
    ids = {safe_id(f'line-run style="a;{i}') for i in range(3)} | {safe_id("line-a b")}
    assert len(ids) == 4
    assert all(i.replace("-", "").replace("_", "").isalnum() and i.isascii() for i in ids)
    assert safe_id("line-4K") == "line-4K"


# --- through the CLI: init, build (page, PDF, CSVs), validate ----------------------------------

SWEEP = Path(__file__).resolve().parents[1] / "articles" / "rate-sweep"
# Printable hostile strings, one per file of the rate-sweep article (it has five): each is the
# file's backend (a `meta.backend` axis: table rows, chart series and legend) and its label.
PRINTABLE = (
    "$\\undefinedmacro{x}$",
    '"><script>alert(1)</script>',
    'run style="a;',
    '<img src=x onerror=alert(1)> =HYPERLINK("x")',
    'a;" \u202eevil ' + "y" * 10_000,
)
CHARTS = """
[[sections]]
id = "by-backend"
title = "By backend"

[[sections.table]]
id = "by-backend"
title = "Output by the backend each file names"
rows = "meta.backend"
columns = [{ metric = "load.output_tok_s", header = "output tok/s" }]

[[sections.chart]]
id = "by-backend"
title = "Output by backend"
metric = "load.output_tok_s"
x = "meta.backend"
series = "meta.backend"
"""


def run(*argv: str) -> int:
    """`reportgen ARGV` through the CLI's entry point: an exit code, never a traceback."""
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code if isinstance(exc.code, int) else 2
    assert code in (0, 1, 2)
    return code


def hostile_sweep(folder: Path, strings: tuple[str, ...]) -> Path:
    """The rate-sweep article with each run file's backend and label set to one of `strings`."""
    shutil.copytree(SWEEP, folder)
    for path, text in zip(sorted(folder.glob("*.json")), strings, strict=True):
        data = json.loads(path.read_text(encoding="utf-8"))
        data["backend"], data["label"] = text, text
        path.write_text(json.dumps(data), encoding="utf-8")
    with (folder / "article.toml").open("a", encoding="utf-8") as out:
        out.write(CHARTS)
    return folder


@pytest.mark.pdf
def test_hostile_names_build_a_page_that_shows_them_as_text(tmp_path: Path) -> None:
    article = hostile_sweep(tmp_path / "sweep", PRINTABLE)
    assert run("build", str(article), "--out", str(tmp_path / "out"), "--no-chart-cache") == 0
    built = tmp_path / "out" / "sweep"
    page = (built / "index.html").read_text(encoding="utf-8")
    assert "<script>alert" not in page and "<img src=x" not in page
    assert not [tag for tag in re.findall(r"<[^<>]*>", page) if 'style="a;' in tag]
    for svg in re.findall(r"<svg\b.*?</svg>", page, re.S):
        xml.dom.minidom.parseString(svg)
    assert "$\\undefinedmacro{x}$" in page  # drawn in the chart and written in the table as is
    assert "evil " + "y" * 10_000 in page  # the long name whole in the table
    svgs = re.findall(r"<svg\b.*?</svg>", page, re.S)
    assert not [t for svg in svgs for t in _drawn_texts(svg) if len(t) > MAX_TITLE]
    assert (built / "article.pdf").read_bytes().startswith(b"%PDF-")
    tables = list((built / "tables").glob("*.csv"))
    assert tables
    for table in tables:
        list(csv.reader(io.StringIO(table.read_text(encoding="utf-8"))))
    # the terminal: every command that reads the article shows the names without a traceback
    assert run("metrics", str(article)) == 0
    assert run("check", str(article)) in (0, 1)
    assert run("check", str(article), "--published", str(built / "index.html")) in (0, 1)


CONTROL = ("del\x7fname", "nul\x00name", "tab\tand\nnewline\r", "c1\x9bbidi\u202eend")


@pytest.mark.pdf
def test_control_characters_in_names_build_and_show_as_escapes_everywhere(
    tmp_path: Path, capsys: Any
) -> None:
    """Run files named with control characters (one name in each of four files, built as one
    article) build (the PDF's font has no glyph for one), and every output shows each name as
    the terminal does: `del\\x7fname`."""
    import pypdf

    article = hostile_sweep(tmp_path / "sweep", (*CONTROL, PRINTABLE[1]))
    assert run("build", str(article), "--out", str(tmp_path / "out"), "--no-chart-cache") == 0
    built = tmp_path / "out" / "sweep"
    page = (built / "index.html").read_text(encoding="utf-8")
    pdf = "".join(p.extract_text() for p in pypdf.PdfReader(built / "article.pdf").pages)
    tables = [t.read_text(encoding="utf-8") for t in (built / "tables").glob("*.csv")]
    rows = [r for t in tables for r in csv.reader(io.StringIO(t))]
    for text in CONTROL:
        shown = one_line(text)
        assert shown != text and shown.isprintable()
        assert text not in page and f'<th scope="row">{shown}</th>' in page  # the table
        assert f">{shown}</text>" in page  # the chart's legend
        assert shown in pdf and text not in pdf
        assert [shown] == list({r[0] for r in rows if r[0].startswith(shown[:2])})
    capsys.readouterr()  # the terminal: a copy's wrong cell in each row, named as shown
    copy = tmp_path / "copy.md"
    table = "| backend | output tok/s |\n| --- | --- |\n"
    table += "".join(f"| {one_line(text)} | 1.5 |\n" for text in CONTROL)
    copy.write_text(f"## Output by the backend each file names\n\n{table}")
    assert run("check", str(article), "--published", str(copy)) == 1
    said = capsys.readouterr().out
    for text in CONTROL:
        assert f"row {one_line(text)}, column output tok/s" in said and text not in said


LONE = '{"model_id": "a\\ud800", "backend": "\\udfff", "label": "x\\udbff"}'


def test_a_lone_surrogate_is_refused_where_it_is(tmp_path: Path, capsys: Any) -> None:
    data = json.loads((SWEEP / "vllm-1qps.json").read_text(encoding="utf-8"))
    text = json.dumps({k: v for k, v in data.items() if k not in ("model_id", "backend", "label")})
    path = tmp_path / "run.json"
    path.write_text(LONE[:-1] + ", " + text[1:], encoding="utf-8")
    capsys.readouterr()
    assert run("validate", str(path)) == 2
    err = capsys.readouterr()
    said = err.out + err.err
    for pointer in ("/model_id", "/backend", "/label"):
        assert "run.json:1:" in said and f" {pointer}: string is not valid Unicode text" in said
    assert run("init", str(tmp_path / "art"), "--from", str(path)) == 2
    assert not (tmp_path / "art").exists()


# --- the TOML that init writes -------------------------------------------------------------------

TOML_HOSTILE = (
    "".join(chr(c) for c in range(0xA0)),  # every C0 and C1 control, DEL, quote, backslash
    "\"\"\"\n[runs]\nx = 1 # '''",
    "\u202eevil\u2066",
    "$\\x$ \\u0041 \\",
    "x" * 10_000,
)


@pytest.mark.parametrize("text", TOML_HOSTILE, ids=range(len(TOML_HOSTILE)))
def test_toml_string_reads_back_as_written(text: str) -> None:
    written = toml_string(text)
    assert "\n" not in written and "\x7f" not in written
    assert tomllib.loads(f"k = {written}\n") == {"k": text}


def test_toml_string_writes_a_lone_surrogate_as_a_replacement() -> None:
    assert tomllib.loads("k = " + toml_string("a\ud800b")) == {"k": "a\ufffdb"}


@pytest.mark.sampled
@pytest.mark.parametrize("text", ["eng\x7fine", "nul\x00 bell\x07", 'q"\\\nline', "\u202e$x$"])
def test_init_writes_toml_it_reads_back(tmp_path: Path, text: str) -> None:
    files = []
    for i, path in enumerate(sorted(SWEEP.glob("*.json"))[:2]):
        data = json.loads(path.read_text(encoding="utf-8"))
        data["model_id"], data["backend"], data["label"] = text, text, f"{text}{i}"
        files.append(tmp_path / path.name)
        files[-1].write_text(json.dumps(data), encoding="utf-8")
    article = tmp_path / "article"
    assert run("init", str(article), "--from", *map(str, files)) == 0
    manifest = tomllib.loads((article / "article.toml").read_text(encoding="utf-8"))
    assert text in manifest["runs"][0]["setup"]["aliases"]["model"]
    assert run("validate", *map(str, files)) == 0


# --- the size caps' environment variables --------------------------------------------------------

BAD_SIZES = ("inf", "nan", "-1", "1e999", "abc", "0", "1e-9", "1_000", "0x10", "+5", "9" * 400)


@pytest.mark.parametrize("value", BAD_SIZES)
@pytest.mark.parametrize("env", ["REPORTGEN_MAX_RUN_FILE_MB", "REPORTGEN_MAX_TEXT_FILE_MB"])
def test_a_size_cap_that_is_not_a_size_is_one_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: Any, env: str, value: str
) -> None:
    monkeypatch.setenv(env, value)
    files = [str(p) for p in sorted(SWEEP.glob("*.json"))[:2]]
    assert run("validate", *files) == 2
    err = capsys.readouterr().err
    assert err.count(f"{env}:1:1 /: ") == 1 and "is not a size in MiB" in err
    with pytest.raises(InputError):
        cap_bytes("run" if "RUN" in env else "text")


@pytest.mark.parametrize(("value", "size"), [("0.5", 512 * 1024), (" 2048 ", 2048 << 20)])
def test_a_size_cap_in_mib(monkeypatch: pytest.MonkeyPatch, value: str, size: int) -> None:
    monkeypatch.setenv("REPORTGEN_MAX_RUN_FILE_MB", value)
    assert cap_bytes("run") == size
    assert run("validate", str(sorted(SWEEP.glob("*.json"))[0])) == 0


# --- problems per file are capped --------------------------------------------------------------

VALID = Path(__file__).resolve().parents[1] / "examples" / "valid"
MORE = "more problems in this file, from here on"


def many_problems(tmp_path: Path, example: str, empties: int) -> Path:
    """A JSON Lines run file: the example's first record, then `empties` records `{}`."""
    first = (VALID / example).read_text(encoding="utf-8").splitlines()[0]
    path = tmp_path / example
    path.write_text(first + "\n" + "{}\n" * empties, encoding="utf-8")
    return path


@pytest.mark.parametrize("example", ["sglang-c1.jsonl", "aiperf-records-c1.jsonl"])
def test_a_file_reports_its_first_problems_and_counts_the_rest(
    tmp_path: Path, capsys: Any, example: str
) -> None:
    path = many_problems(tmp_path, example, 3_000)
    assert run("validate", str(path)) == 2
    out, err = capsys.readouterr()
    lines = out.splitlines()
    per_record = sum(":2:1 /1: " in line for line in lines)  # the problems of one `{}`
    assert len(lines) == PER_FILE + 1 and per_record > 0
    # Records are explained until PER_FILE problems are; each later bad record counts as one.
    explained = -(-PER_FILE // per_record)
    more = explained * per_record - PER_FILE + 3_000 - explained
    assert lines[-1].endswith(
        f": ... and at least {more:,} more problems in this file, from here on"
    )
    assert f"at least {PER_FILE + more} error(s)" in err
    assert all(f"{path}:{n + 2}:" in out for n in range(PER_FILE // per_record))  # the first ones
    assert run("validate", "--json", str(path)) == 2
    said = json.loads(capsys.readouterr().out)
    assert len(said["problems"]) == PER_FILE + 1
    assert said["left_out"] == said["problems"][-1]["left_out"] == more


def test_a_json_file_of_many_bad_values_reports_the_first(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "nans.json"
    path.write_text('{"a": [' + ", ".join(["NaN"] * 5_000) + "]}", encoding="utf-8")
    assert run("validate", str(path)) == 2
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == PER_FILE + 1 and lines[0].startswith(f"{path}:1:8 /a/0: NaN")
    assert lines[-1].endswith(
        f"/a/{PER_FILE}: ... and 4,900 more problems in this file, from here on"
    )


def test_capping_twice_counts_once() -> None:
    problems = [
        Problem(path="f", line=n, col=1, pointer=f"/{n}", message="bad") for n in range(1, 251)
    ]
    once = cap_problems(problems)
    assert len(once) == PER_FILE + 1 and left_out(once[-1]) == 150
    assert once[-1].line == PER_FILE + 1  # at the first one left out
    assert cap_problems(once) == once
    assert InputError(problems).problems == tuple(once)  # any stage's error is capped too
    assert (
        cap_problems([*once, Problem(path="g", line=1, col=1, pointer="", message="other")])[
            -1
        ].path
        == "g"
    )
    kept = Capped(limit=2)
    for p in problems[:5]:
        kept.add(p)
    assert len(kept.kept) == 2 and kept.more == 3


# --- what a killed init leaves ------------------------------------------------------------------


def test_the_next_init_removes_what_a_killed_init_left(tmp_path: Path) -> None:
    name = "*"  # a glob character: only this article's own folders are matched, by exact name
    dead, dead_lock = work_folder(tmp_path, name)
    os.close(dead_lock)  # the init was killed: its lock is gone with it
    young, young_lock = work_folder(tmp_path, name)
    os.close(young_lock)
    live, live_lock = work_folder(tmp_path, name)  # an init still running
    other, other_lock = work_folder(tmp_path, "other")
    os.close(other_lock)
    users = [tmp_path / f".{name}.init-{'0' * 16}", tmp_path / f".{name}.init-0123456789abcdef-x"]
    for folder in users:  # the same names, not made by init (no marker)
        folder.mkdir()
    (tmp_path / f".{name}.init-{'a' * 16}").symlink_to(dead)
    old = time.time() - 3600
    for folder in (dead, live, other, *users):
        os.utime(folder / INIT_MARKER if (folder / INIT_MARKER).exists() else folder, (old, old))
    try:
        assert remove_stale_inits(tmp_path, name) == [dead]
    finally:
        os.close(live_lock)
    assert all(p.exists() for p in (young, live, other, *users))
    files = [str(p) for p in sorted(SWEEP.glob("*.json"))[:2]]
    assert run("init", str(tmp_path / name), "--from", *files) == 0
    assert not live.exists() and young.exists()  # the next init removes only the stale ones
    assert not (tmp_path / name / INIT_MARKER).exists()


@pytest.mark.process
def test_an_init_killed_midway_leaves_nothing_after_the_next(tmp_path: Path) -> None:
    files = [str(p) for p in sorted(SWEEP.glob("*.json"))[:2]]
    command = [sys.executable, "-m", "reportgen", "init", str(tmp_path / "a"), "--from", *files]
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # killed once its work folder is marked (between making the folder and marking it, a
        # microsecond's gap, init leaves an empty unmarked folder, which is kept as any other)
        deadline = time.monotonic() + 60
        while not list(tmp_path.glob(f".a.init-*/{INIT_MARKER}")) and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        child.kill()
        child.wait()
    (left,) = tmp_path.glob(".a.init-*")
    old = time.time() - 3600
    for path in [left, *left.iterdir()]:
        os.utime(path, (old, old))
    (tmp_path / "a").mkdir(exist_ok=True)
    assert run("init", str(tmp_path / "a"), "--from", *files) == 0
    assert not list(tmp_path.glob(".a.init-*"))


def test_a_chart_of_the_largest_floats_draws() -> None:
    lines = (Line(xs=(0.0, 1.0), ys=(1.7e308, 1.0), label="a", gid="line", style=0),)
    plot = Plot(
        svg_id="chart-x",
        title="t",
        lines=lines,
        x_axis="categorical",
        ticks=((0.0, "a"), (1.0, "b")),
        x_label="x",
        y_label="y",
        y_unit="s",
        y_log=False,
        legend=None,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy, on the way to the tick labels
        assert "<svg" in draw_plot(plot)


def test_a_series_named_with_an_underscore_keeps_its_legend_entry() -> None:
    lines = tuple(
        Line(xs=(1.0, 2.0), ys=(3.0, 4.0 + i), label=n, gid=f"line-{n}", style=i)
        for i, n in enumerate(NAMES)
    )
    svg = draw_plot(
        Plot(
            svg_id="chart-x",
            title="t",
            lines=lines,
            x_axis="from-zero",
            ticks=(),
            x_label="x",
            y_label="y",
            y_unit="s",
            y_log=False,
            legend="run",
        )
    )
    assert all(f">{name}</text>" in svg for name in NAMES)


NAMES = ("_nolegend_", "_hidden", "shown")


@pytest.mark.parametrize("date", ["2026-02-30", "2026-13-01", "0000-01-01"])
def test_a_date_of_the_right_form_that_is_no_date_is_located(
    tmp_path: Path, capsys: Any, date: str
) -> None:
    article = tmp_path / "sweep"
    shutil.copytree(SWEEP, article)
    manifest = article / "article.toml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(re.sub(r'(?m)^date = ".*"$', f'date = "{date}"', text), encoding="utf-8")
    assert run("build", str(article), "--out", str(tmp_path / "out")) == 2
    assert f"article.toml:3:8 /date: '{date}' is not a date" in capsys.readouterr().err
    files = [str(p) for p in sorted(SWEEP.glob("*.json"))[:1]]
    assert run("init", str(tmp_path / "new"), "--from", *files, "--date", date) == 2
    assert f"--date:1:1 /: '{date}' is not a date" in capsys.readouterr().err
