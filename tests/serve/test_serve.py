"""`reportgen serve` in this process: a real server on 127.0.0.1 in a thread, a real HTTP client,
the event stream read as the page's script reads it, and real edits of a copy of an article.

Every wait is bounded: the event stream's reads time out, and so does every request.
"""

from __future__ import annotations

import hashlib
import http.client
import itertools
import re
import shutil
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from reportgen.article.build import render_article
from reportgen.article.charts.cache import default_folder
from reportgen.errors import InputError
from reportgen.serve.page import BADGE_ID, EVENTS, PANEL_ID
from reportgen.serve.preview import PAGE
from reportgen.serve.server import LOOPBACK, bind
from reportgen.serve.session import Session, running

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "tests" / "articles" / "small"
PANEL = f'<section id="{PANEL_ID}"'  # the problems' panel, as it opens
WAIT_S = 30.0  # a rebuild reaches the event stream well within this, or the test fails


@pytest.fixture
def article(tmp_path: Path) -> Path:
    """A copy of the small test article, to edit."""
    folder = tmp_path / "small"
    shutil.copytree(SMALL, folder)
    return folder


@contextmanager
def serving(folder: Path) -> Iterator[tuple[Session, httpx.Client]]:
    """A preview of `folder` on a free port, served from a thread, and a client for it."""
    with running(folder, 0, chart_cache=default_folder()) as session:
        thread = threading.Thread(target=session.serve, daemon=True)
        thread.start()
        with httpx.Client(base_url=session.url, timeout=WAIT_S) as client:
            yield session, client
    thread.join(WAIT_S)
    assert not thread.is_alive()


def served_version(page: str) -> int:
    found = re.search(r"&after=(\d+)", stream_of(page))
    assert found
    return int(found.group(1))


def stream_of(page: str) -> str:
    """The event stream's address, as the served page's reload script opens it."""
    found = re.search(r'new EventSource\("([^"]+)"\)', page)
    assert found, "no reload script in the served page"
    return found.group(1)


def reload_after(client: httpx.Client, edit: Callable[[], object]) -> str:
    """Make `edit` with the event stream open at the served page's version; once the stream
    announces a reload, the page served then."""
    served = client.get("/").text
    after = served_version(served)
    with client.stream("GET", stream_of(served)) as stream:
        lines = stream.iter_lines()
        assert next(lines).startswith("retry:")  # the stream is open before the edit
        edit()
        for line in lines:  # each read times out after WAIT_S: bounded
            if line == "event: reload":
                break
    page = client.get("/").text
    assert served_version(page) > after
    return page


@pytest.mark.slow
def test_the_page_is_served_with_the_reload_script_and_built_apart(article: Path) -> None:
    before = sorted(p.relative_to(article) for p in article.rglob("*"))
    with serving(article) as (session, client):
        answer = client.get("/")
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "text/html; charset=utf-8"
        page = answer.text
        assert f'<div id="{BADGE_ID}">' in page
        assert stream_of(page) == f"{EVENTS}?session={session.preview.session}&after=1"
        # A tab left open on an earlier `reportgen serve` at this address reloads at once.
        with client.stream("GET", f"{EVENTS}?session=earlier&after=99") as stream:
            assert "event: reload" in itertools.islice(stream.iter_lines(), 4)
        # The built page in the private folder is the page `reportgen build` writes: no script.
        site = session.preview.site
        built = (site / PAGE).read_text(encoding="utf-8")
        assert built == render_article(article).html
        assert EVENTS not in built and BADGE_ID not in built
        assert not site.is_relative_to(article) and not article.is_relative_to(site)
        assert not (site / "metrics.json").exists()  # made when asked for, as the PDF
        metrics = client.get("/metrics.json")
        assert metrics.status_code == 200 and metrics.json()["article"] == "small"
        tables = sorted(p.name for p in (site / "tables").iterdir())
        assert tables and client.get(f"/tables/{tables[0]}").text.startswith(
            (site / "tables" / tables[0]).read_text(encoding="utf-8")[:20]
        )
        run = client.get("/data/bench.json")
        assert run.content == (article / "bench.json").read_bytes()
    assert not site.exists()  # the private folder goes with the preview
    assert sorted(p.relative_to(article) for p in article.rglob("*")) == before


@pytest.mark.slow
def test_a_prose_edit_is_announced_and_the_served_page_changes(article: Path) -> None:
    prose = article / "notes.md"
    text = prose.read_text(encoding="utf-8")
    word = "freshlyeditedword"
    with serving(article) as (_, client):
        assert word not in client.get("/").text
        page = reload_after(
            client,
            lambda: prose.write_text(f"{text}\nA sentence with a {word}.\n", encoding="utf-8"),
        )
        assert word in page
        assert PANEL not in page


@pytest.mark.slow
def test_a_broken_manifest_shows_where_and_keeps_the_last_good_page(article: Path) -> None:
    manifest = article / "article.toml"
    text = manifest.read_text(encoding="utf-8")
    lines = text.splitlines()
    broken_at = next(i for i, line in enumerate(lines) if line.startswith("date = ")) + 1
    broken = text.replace(lines[broken_at - 1], lines[broken_at - 1] + " ]]", 1)
    with serving(article) as (_, client):
        good = client.get("/").text
        title = re.search(r"<h1[^>]*>(.*?)</h1>", good, re.S)
        assert title
        page = reload_after(client, lambda: manifest.write_text(broken, encoding="utf-8"))
        panel = page[page.index(PANEL) : page.index("</section>")]
        assert re.search(rf"<code>[^<]*article\.toml:{broken_at}:\d+", panel), panel
        assert "invalid TOML" in panel
        assert title.group(0) in page[page.index("</section>") :]  # the last good page, after
        fixed = reload_after(client, lambda: manifest.write_text(text, encoding="utf-8"))
        assert PANEL not in fixed


@pytest.mark.slow
def test_a_run_file_change_rebuilds(article: Path) -> None:
    run = article / "bench.json"
    raw = run.read_bytes()
    changed = raw + b"\n"  # the same data; its sha256, which the page shows, is new
    with serving(article) as (_, client):
        assert hashlib.sha256(changed).hexdigest() not in client.get("/").text
        page = reload_after(client, lambda: run.write_bytes(changed))
        assert hashlib.sha256(changed).hexdigest() in page
        assert client.get("/data/bench.json").content == changed
        # A run file that no longer reads: located at its place in the file, last page kept.
        page = reload_after(client, lambda: run.write_bytes(raw[: len(raw) // 2]))
        assert re.search(r"<code>[^<]*bench\.json:\d+:\d+", page)
        assert hashlib.sha256(changed).hexdigest() in page


@pytest.mark.pdf
def test_the_pdf_is_built_when_asked_for(article: Path) -> None:
    with serving(article) as (session, client):
        assert not (session.preview.site / "article.pdf").exists()  # not built with the page
        answer = client.get("/article.pdf", timeout=120.0)
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "application/pdf"
        assert answer.content.startswith(b"%PDF-")
        assert client.get("/article.pdf").content == answer.content  # rendered once a page


def _other_address() -> str | None:
    """An address of this machine other than loopback, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET: no packet is sent for a UDP connect
        except OSError:
            return None
        address = str(probe.getsockname()[0])
    return None if address.startswith("127.") else address


@pytest.mark.slow
def test_it_listens_on_127_0_0_1_only_and_answers_only_there(article: Path) -> None:
    with serving(article) as (session, client):
        assert session.server.server_address[0] == LOOPBACK
        assert session.url.startswith(f"http://{LOOPBACK}:")
        other = _other_address()
        if other is not None:
            with pytest.raises(ConnectionRefusedError):
                socket.create_connection((other, session.server.port), timeout=5).close()
        # A page elsewhere whose name was made to resolve to 127.0.0.1 is refused.
        assert client.get("/", headers={"Host": "attacker.example"}).status_code == 403
        port = session.server.port
        assert client.get("/", headers={"Host": f"localhost:{port}"}).status_code == 200


def _raw_get(session: Session, path: str) -> int:
    """The status of a GET of `path` sent exactly as written (no client normalizes it)."""
    connection = http.client.HTTPConnection(LOOPBACK, session.server.port, timeout=WAIT_S)
    try:
        connection.request("GET", path)
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.mark.slow
def test_no_path_leads_outside_the_built_files(article: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the browser\n", encoding="utf-8")
    with serving(article) as (session, client):
        client.get("/")  # built
        site = session.preview.site
        (site / "link.txt").symlink_to(secret)  # as if something linked out of the site
        outside = [
            "/../secret.txt",
            "/../../../../etc/passwd",
            "/%2e%2e/%2e%2e/etc/passwd",
            "/data/..%2f..%2fsecret.txt",
            "/data/%2e%2e/%2e%2e/secret.txt",
            "//etc/passwd",
            "/./index.html",
            "/data\\..\\..\\secret.txt",
            "/link.txt",
            "/tables",
            "/.reportgen",
            "/nosuch.html",
        ]
        found = {path: _raw_get(session, path) for path in outside}
        assert found == dict.fromkeys(outside, 404)
        assert _raw_get(session, "/data/bench.json") == 200


@pytest.mark.slow
def test_a_busy_port_gives_the_next_or_says_so(article: Path) -> None:
    with serving(article) as (session, _):
        taken = session.server.port
        other = bind(session.preview, taken, tries=2)
        try:
            assert other.port != taken and other.server_address[0] == LOOPBACK
        finally:
            other.server_close()
        with pytest.raises(InputError) as refused:
            bind(session.preview, taken, tries=1)
        assert refused.value.problems[0].message == (
            f"port {taken} is in use on 127.0.0.1; choose another with --port"
        )
