"""The one way in and the one way out: every file reportgen reads goes through `files.read_input`
(regular files only, opened once, capped), every file it writes through `files.write_output`
(a new exclusive temporary file, never following a link, renamed into place), and nothing taken
from the chart cache reaches the page unless it is what the chart writer emits."""

from __future__ import annotations

import ast
import hashlib
import html as htmllib
import os
import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from helpers_source import parsed, read

from reportgen.article.charts.allowlist import safe_svg
from reportgen.article.charts.cache import chart_svg
from reportgen.article.charts.plot import Line, Plot
from reportgen.check import compare
from reportgen.errors import InputError
from reportgen.fileio import write_output
from reportgen.formats.load import load as real_load  # what init.load is
from reportgen.frozendict import FrozenDict
from reportgen.init import scaffold as init
from reportgen.localmaxxing import contract
from reportgen.localmaxxing.payload import Payload
from reportgen.localmaxxing.records import Record, add_record, load_records, save_payloads
from reportgen.resources import schema_dir

# the package's modules parsed once, in setup (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("package_parsed")

VICTIM_TEXT = "export PATH=/usr/bin\n"
RUN = Path(__file__).resolve().parent / "articles" / "matrix-4x4" / "bench.json"


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "home" / ".bashrc"
    victim.parent.mkdir(parents=True)
    victim.write_text(VICTIM_TEXT)
    return victim


def _finishes(call: Callable[[], object], seconds: float = 10.0) -> object:
    """What `call` returns (or raises), failing the test when it blocks (on a FIFO)."""
    out: list[object] = []

    def run() -> None:
        try:
            out.append(call())
        except Exception as exc:  # the caller judges it
            out.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "blocked: the file was opened without the input guards"
    return out[0]


# --- the way out -------------------------------------------------------------------------------


def test_the_writer_never_follows_a_link_at_the_target_or_its_temporary_name(
    tmp_path: Path,
) -> None:
    victim = _victim(tmp_path)
    folder = tmp_path / "article"
    folder.mkdir()
    (folder / "out.json.tmp").symlink_to(victim)
    (folder / "out.json").symlink_to(victim)
    write_output(folder / "out.json", b"{}\n")
    assert victim.read_text() == VICTIM_TEXT
    assert not (folder / "out.json").is_symlink() and (folder / "out.json").read_bytes() == b"{}\n"
    assert (folder / "out.json.tmp").is_symlink()  # not ours: left as it is
    assert sorted(p.name for p in folder.iterdir()) == ["out.json", "out.json.tmp"]


def test_the_writer_without_replace_never_touches_what_is_there(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    link = tmp_path / "file"
    link.symlink_to(victim)
    with pytest.raises(FileExistsError):
        write_output(link, b"new", replace=False)
    assert victim.read_text() == VICTIM_TEXT and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "home"]


def _record() -> Record:
    return Record(
        run_file="run.json",
        run_sha256="a" * 64,
        payload_sha256="b" * 64,
        submission_id="id-1",
        submitted_at="2026-12-05T00:00:00",
        api_base="http://x",
        verified_run=None,
    )


def test_submit_never_writes_through_a_shipped_tmp_link(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    article = tmp_path / "article"
    article.mkdir()
    (article / "submissions.json.tmp").symlink_to(victim)
    add_record(article, _record(), "sk-secret")
    assert victim.read_text() == VICTIM_TEXT
    assert [r.submission_id for r in load_records(article)] == ["id-1"]


def test_a_saved_payload_never_writes_through_a_link(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    payload = Payload(
        run_file="run.json",
        run_sha256="a" * 64,
        concurrency=1,
        prompt_id=None,
        text='{"a": 1}\n',
        sources=FrozenDict(),
    )
    target = tmp_path / "saved.json"
    (tmp_path / "saved.json.tmp").symlink_to(victim)
    save_payloads([payload], target)
    assert victim.read_text() == VICTIM_TEXT and target.read_text() == payload.text
    folder = tmp_path / "payloads"
    folder.mkdir()
    (folder / "run.payload.json.tmp").symlink_to(victim)
    save_payloads([payload, payload], folder)
    assert victim.read_text() == VICTIM_TEXT
    assert (folder / "run.payload.json").read_text() == payload.text


def test_the_contract_cache_never_writes_through_a_link(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    api = "https://lm.example"
    path = contract.cache_file(api, env)
    path.parent.mkdir(parents=True)
    path.with_suffix(".tmp").symlink_to(victim)
    body = (schema_dir() / contract.SNAPSHOT_FILE).read_bytes()
    client = httpx.Client(
        transport=httpx.MockTransport(lambda _r: httpx.Response(200, content=body))
    )
    contract.refresh(
        client, api, env=env, now=lambda: datetime(2026, 12, 5, tzinfo=UTC), timeout_s=5
    )
    assert victim.read_text() == VICTIM_TEXT
    assert contract.cached(api, env) is not None


# --- the way in --------------------------------------------------------------------------------


def test_a_fifo_or_a_device_as_submissions_json_is_refused_at_once(tmp_path: Path) -> None:
    article = tmp_path / "article"
    article.mkdir()
    os.mkfifo(article / "submissions.json")
    refused = _finishes(lambda: load_records(article))
    assert isinstance(refused, InputError) and "FIFO" in str(refused)
    (article / "submissions.json").unlink()
    (article / "submissions.json").symlink_to("/dev/zero")
    refused = _finishes(lambda: load_records(article))
    assert isinstance(refused, InputError) and "submissions.json" in str(refused)


def test_a_fifo_or_a_device_as_the_contract_cache_is_no_cached_copy(tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    path = contract.cache_file("https://lm.example", env)
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    assert _finishes(lambda: contract.cached("https://lm.example", env)) is None
    path.unlink()
    path.symlink_to("/dev/zero")
    assert _finishes(lambda: contract.cached("https://lm.example", env)) is None


def test_init_copies_the_bytes_it_validated_not_the_path_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "bench.json"
    source.write_bytes(RUN.read_bytes())

    def load_then_swap(*args: object, **kwargs: object) -> object:
        loaded = real_load(*args, **kwargs)  # type: ignore[arg-type]
        if source.is_file() and not source.is_symlink():  # now swap the path for a FIFO
            source.unlink()
            os.mkfifo(source)
        return loaded

    monkeypatch.setattr(init, "load", load_then_swap)
    done = _finishes(lambda: init.scaffold(tmp_path / "new", [source], date="2026-12-05"))
    assert isinstance(done, init.Scaffold), done
    assert (tmp_path / "new" / "bench.json").read_bytes() == RUN.read_bytes()


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_init_compares_a_file_already_in_the_target_through_the_guards(
    tmp_path: Path, kind: str
) -> None:
    folder = tmp_path / "new"
    folder.mkdir()
    if kind == "fifo":
        os.mkfifo(folder / "bench.json")
    else:
        (folder / "bench.json").symlink_to("/dev/zero")
    refused = _finishes(lambda: init.scaffold(folder, [RUN], date="2026-12-05"))
    assert isinstance(refused, InputError), refused
    assert f"{folder / 'bench.json'}:1:1" in str(refused) and "never overwrites" in str(refused)
    assert sorted(p.name for p in folder.iterdir()) == ["bench.json"]


def test_check_re_reads_a_run_file_to_place_a_finding_through_the_guards(tmp_path: Path) -> None:
    fifo = tmp_path / "run.json"
    os.mkfifo(fifo)
    assert _finishes(lambda: compare._place(fifo, "/results/0", {})) is None


# --- the chart cache ---------------------------------------------------------------------------


def _plot() -> Plot:
    line = Line(xs=(1.0, 2.0, 4.0), ys=(10.0, 20.0, 30.5), label="8K", gid="line-8K", style=1)
    return Plot(
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


def _rewrite(entry: Path, svg: str) -> None:
    """Rewrite a cache entry as someone who can write the cache would: with a valid hash."""
    body = svg.encode("utf-8")
    entry.write_bytes(b"sha256 " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)


_OPEN = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
HOSTILE: dict[str, Callable[[str], str]] = {
    "script": lambda s: s.replace("</svg>", "<script>alert(1)</script></svg>"),
    "script-in-svg-ns": lambda s: s.replace("</svg>", "<g><script>alert(1)</script></g></svg>"),
    "onload": lambda s: s.replace('role="img"', 'role="img" onload="alert(1)"'),
    "onclick-on-path": lambda s: s.replace("<path ", '<path onclick="alert(1)" ', 1),
    "a-href-javascript": lambda s: s.replace(
        "</svg>", '<a xlink:href="javascript:alert(1)"><text>x</text></a></svg>'
    ),
    "use-href-javascript": lambda s: s.replace(
        "</svg>", '<use xlink:href="javascript:alert(1)"/></svg>'
    ),
    "use-href-external": lambda s: s.replace(
        "</svg>", '<use xlink:href="https://evil.example/x.svg#a"/></svg>'
    ),
    "foreign-object": lambda s: s.replace(
        "</svg>",
        '<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">'
        "<img src='x' onerror='alert(1)'/></div></foreignObject></svg>",
    ),
    "doctype-entity": lambda s: (
        '<!DOCTYPE svg [<!ENTITY x "&#60;script&#62;alert(1)&#60;/script&#62;">]>'
        + s.replace("</svg>", "<text>&x;</text></svg>")
    ),
    "style-element": lambda s: s.replace("</svg>", "<style>*{background:url(//e.x)}</style></svg>"),
    "style-attribute": lambda s: s.replace("<path ", '<path style="fill:url(//e.x)" ', 1),
    "external-url-fill": lambda s: s.replace("<path ", '<path fill="url(https://e.x/#a)" ', 1),
    "image": lambda s: s.replace("</svg>", '<image xlink:href="https://e.x/p.png"/></svg>'),
    "animate": lambda s: s.replace(
        "</svg>", '<animate attributeName="href" to="javascript:alert(1)"/></svg>'
    ),
    "xlink-prefix-rebound": lambda s: s.replace(
        'xmlns:xlink="http://www.w3.org/1999/xlink"', 'xmlns:xlink="urn:other"'
    ).replace("</svg>", '<use xlink:href="javascript:alert(1)"/></svg>'),
    "namespace-below-root": lambda s: s.replace(
        "</svg>",
        '<g xmlns:h="http://www.w3.org/1999/xhtml"><h:script>alert(1)</h:script></g></svg>',
    ),
    "processing-instruction": lambda s: s.replace(
        "</svg>", '<?x a="><script>alert(1)</script>"?></svg>'
    ),
    "cdata": lambda s: s.replace(
        "</svg>", "<text><![CDATA[</text><script>alert(1)</script>]]></text></svg>"
    ),
    "comment": lambda s: s.replace("</svg>", "<!--><script>alert(1)</script>--></svg>"),
    "html-after-root": lambda s: s + "<img src=x onerror=alert(1)>",
    "other-chart-ids": lambda s: s.replace('id="chart-t-', 'id="intro-'),
    "other-title": lambda s: s.replace("A title", "Another title"),
    "not-svg-root": lambda s: "<html>" + s + "</html>",
    "bare-root": lambda s: s.replace(_OPEN, "<svg "),
}


@pytest.mark.sampled
@pytest.mark.parametrize("attack", sorted(HOSTILE))
def test_a_rewritten_cache_entry_with_a_valid_hash_is_drawn_again(
    tmp_path: Path, attack: str
) -> None:
    cache = tmp_path / "cache"
    drawn = chart_svg(_plot(), cache)
    (entry,) = cache.rglob("*.svg")
    hostile = HOSTILE[attack](drawn)
    assert hostile != drawn
    _rewrite(entry, hostile)
    assert chart_svg(_plot(), cache) == drawn
    assert safe_svg(drawn, "chart-t", "A title") and not safe_svg(hostile, "chart-t", "A title")


def test_an_untouched_entry_is_taken_from_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    drawn = chart_svg(_plot(), cache)
    (entry,) = cache.rglob("*.svg")
    # A harmless change the writer could have made: proves the entry, not a drawing, is used.
    _rewrite(entry, drawn.replace('stroke-width="1.8"', 'stroke-width="1.9"', 1))
    assert chart_svg(_plot(), cache) != drawn


GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.mark.parametrize("page", sorted(p.name for p in GOLDEN.glob("*.html")))
def test_every_chart_the_writer_draws_passes_the_allow_list(page: str) -> None:
    # Else it would be drawn again on every build: a chart writer that emits something new
    # must grow the allow-list (article/charts/allowlist.py) with it, on purpose.
    html = (GOLDEN / page).read_text(encoding="utf-8")
    svgs = re.findall(r"<svg .*?</svg>\n", html, flags=re.S)
    for svg in svgs:
        head = re.match(r'<svg [^>]*aria-label="([^"]*)"[^>]*><title id="([^"]*)-title">', svg)
        assert head is not None
        title, svg_id = htmllib.unescape(head.group(1)), head.group(2)
        assert safe_svg(svg, svg_id, title), (page, svg_id)
    assert svgs or "<svg" not in html


@pytest.mark.parametrize("kind", ["fifo", "device", "link"])
def test_a_cache_entry_that_is_not_a_regular_file_is_drawn_again(tmp_path: Path, kind: str) -> None:
    cache = tmp_path / "cache"
    drawn = chart_svg(_plot(), cache)
    (entry,) = cache.rglob("*.svg")
    entry.unlink()
    if kind == "fifo":
        os.mkfifo(entry)
    elif kind == "device":
        entry.symlink_to("/dev/zero")
    else:  # a valid entry, but through a link that could point anywhere: not followed
        elsewhere = tmp_path / "elsewhere.svg"
        _rewrite(elsewhere, drawn.replace('stroke-width="1.8"', 'stroke-width="1.9"', 1))
        entry.symlink_to(elsewhere)
    assert _finishes(lambda: chart_svg(_plot(), cache)) == drawn


# --- no other way in or out --------------------------------------------------------------------

PACKAGE = Path(__file__).resolve().parents[1] / "reportgen"
GUARDS = "fileio.py"  # the one reader and the one writer
# Calls that read or write a file: a method of that name (Path.read_text, Path.open, ...),
# builtin open(), and these functions of os, shutil and tempfile.
METHODS = frozenset({"open", "read_text", "read_bytes", "write_text", "write_bytes"})
FUNCTIONS = frozenset(
    {("os", "open"), ("os", "fdopen"), ("tempfile", "mkstemp"), ("tempfile", "NamedTemporaryFile")}
    | {("jinja2", "FileSystemLoader")}  # reads templates itself: a FunctionLoader over the reader
    | {("shutil", name) for name in ("copy", "copy2", "copyfile", "copyfileobj", "copytree")}
)
# (module, call, how many): each with its reason. Nothing else may open a file.
ALLOWED = {
    # A build's lock file: created by mkstemp and only flock()ed, never read or written.
    ("article/publish.py", "tempfile.mkstemp", 1),
    # A build's lock file opened to flock() it, and a build folder opened as a folder (O_DIRECTORY,
    # O_NOFOLLOW) to read it whole through the reader's dir_fd while another build renames it.
    ("article/publish.py", "os.open", 2),
    # fd 0 pointed at /dev/null for a forked worker: a descriptor, no file content.
    ("cli/main.py", "os.open", 1),
    # init's work-folder marker: created exclusively (O_EXCL|O_NOFOLLOW) in the folder init has
    # just made (mode 0700) and flock()ed while init runs; and a stale folder's marker opened
    # with O_NOFOLLOW to try its lock before the folder is removed. Neither is read.
    ("init/scaffold.py", "os.open", 2),
}


def _calls(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open":
            found.append("open")
        elif isinstance(func, ast.Attribute):
            owner = func.value.id if isinstance(func.value, ast.Name) else None
            if owner is not None and (owner, func.attr) in FUNCTIONS:
                found.append(f"{owner}.{func.attr}")
            elif func.attr in METHODS and owner not in ("os", "tempfile", "shutil", "jinja2"):
                found.append(f".{func.attr}")
            elif owner == "shutil" and func.attr.startswith("copy"):
                found.append(f"shutil.{func.attr}")
    return found


@pytest.mark.slow
def test_every_file_is_read_and_written_through_the_guards() -> None:
    counted: dict[tuple[str, str], int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        if module == GUARDS:
            continue
        for call in _calls(parsed(read(path))):
            counted[module, call] = counted.get((module, call), 0) + 1
    found = {(module, call, n) for (module, call), n in counted.items()}
    assert found == set(ALLOWED), (
        "read and write files through reportgen.fileio (read_input, open_input, read_cached, "
        f"write_output, move_output); not allowed: {sorted(found - set(ALLOWED))}"
    )


def test_the_walk_finds_each_kind_of_call() -> None:
    source = """
open(p); p.read_text(); p.read_bytes(); p.write_text(t); p.write_bytes(b); p.open("rb")
os.open(p, 0); os.fdopen(3); shutil.copyfile(a, b); shutil.copy2(a, b); shutil.copytree(a, b)
tempfile.mkstemp(); tempfile.NamedTemporaryFile(); jinja2.FileSystemLoader(p)
"""
    assert sorted(_calls(ast.parse(source))) == sorted(
        ["open", ".read_text", ".read_bytes", ".write_text", ".write_bytes", ".open"]  # noqa: RUF005 -- a list wrapped by hand; one literal would take a line an item
        + ["os.open", "os.fdopen", "shutil.copyfile", "shutil.copy2", "shutil.copytree"]
        + ["tempfile.mkstemp", "tempfile.NamedTemporaryFile", "jinja2.FileSystemLoader"]
    )
