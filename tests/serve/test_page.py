"""What the preview adds to the served page (serve/page.py), and which request paths name a
built file (serve/server.py's `site_path`): pure functions on small values."""

from __future__ import annotations

from reportgen.errors import Problem
from reportgen.serve.page import BADGE_ID, EVENTS, PANEL_ID, served_page
from reportgen.serve.preview import State
from reportgen.serve.server import site_path

PAGE = b"<!DOCTYPE html>\n<html><head></head><body class='x'>\n<h1>Title</h1>\n</body>\n</html>\n"
HOSTILE = Problem(
    path="runs/a/<img src=x onerror=alert(1)>.md",
    line=3,
    col=7,
    pointer="/sections/0",
    message="unknown reference {{ </code><script>alert(1)</script> }}",
)


def test_a_built_page_gets_the_script_at_its_end_and_nothing_else_when_it_built() -> None:
    served = served_page(PAGE, State(4, (), True), "abc").decode()
    assert served.startswith("<!DOCTYPE html>\n<html><head></head><body class='x'>")
    assert f'new EventSource("{EVENTS}?session=abc&after=4")' in served
    badge = served.index(f'<div id="{BADGE_ID}"')
    assert served.index("<h1>Title</h1>") < badge < served.index("</body>")
    assert f'<section id="{PANEL_ID}"' not in served


def test_problems_are_located_escaped_and_above_the_last_good_page() -> None:
    served = served_page(PAGE, State(5, (HOSTILE,), True), "abc").decode()
    panel = served[served.index(f'<section id="{PANEL_ID}"') : served.index("</section>")]
    assert "<script>alert" not in served and "<img src=x" not in served
    assert (
        "<code>runs/a/&lt;img src=x onerror=alert(1)&gt;.md:3:7 /sections/0</code>: unknown "
        "reference {{ &lt;/code&gt;&lt;script&gt;alert(1)&lt;/script&gt; }}"
    ) in panel
    assert "last page that built" in panel
    assert served.index("</section>") < served.index("<h1>Title</h1>")


def test_without_a_page_that_built_the_problems_are_the_page() -> None:
    served = served_page(None, State(1, (HOSTILE,), False), "abc").decode()
    assert served.startswith("<!DOCTYPE html>") and "No page has built yet" in served
    assert f'new EventSource("{EVENTS}?session=abc&after=1")' in served


def test_only_plain_segments_name_a_built_file() -> None:
    assert site_path("/index.html") == ("index.html",)
    assert site_path("/data/run%20one.json") == ("data", "run one.json")
    for path in (
        "/../x",
        "/data/../../x",
        "/%2e%2e/x",
        "/data/..%2fx",
        "//etc/passwd",
        "/./index.html",
        "/.index.html.0123.tmp",
        "/data\\..\\x",
        "/a%00b",
        "/tables/",
        "relative",
    ):
        assert site_path(path) is None, path
