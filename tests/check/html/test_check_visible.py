"""`check` reads an HTML copy as its readers see it (issue 22, class 5; deliver 4).

Every hostile copy here is the measured two-tool article's own page (as `reportgen build` writes
it, charts and CSS included) with one change, made as an attacker would make it: the true key
result hidden or made unreadable while another number shows through CSS, a drawing, a form
field, a formula, a frame or a stylesheet check cannot read. Today's check read the page's text
and ignored its CSS, so each of these passed; now each fails, with its reason, at its place.

True copies with the CSS blogs use (a navigation bar hidden on phones, a skip link for screen
readers, syntax highlighting, dark mode, a print stylesheet, a local stylesheet and font) must
pass. No number is typed: the true one is read from the page, the false one computed from it.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from helpers_articles import built_page

from reportgen.article.build import Built, render_article
from reportgen.check.compare import article_shape, check_article, check_published
from reportgen.check.readers.shape import Shape
from reportgen.check.readers.sources import read_published
from reportgen.check.result import Item, Shown, SourceResult, expected_numbers

# Each test reads the measured article's whole page, charts and CSS included: 0.1 to 0.2 s of
# CPU each, 60 of them.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
MEASURED = ROOT / "runs" / "tiny-llamacpp-two-tools"
HEADLINE = re.compile(r'(<span class="num headline-number"[^>]*>)([^<]+)(</span>)')


@functools.cache
def _article() -> tuple[Built, Shape, tuple[Shown, ...]]:
    built = render_article(MEASURED, {}, charts=True)
    expected = expected_numbers(built.article, built.metrics, built.tables)
    return built, article_shape(built, built.html), expected


def _page() -> str:
    """The measured article's page as `reportgen build` writes it."""
    return built_page(MEASURED)


def check(folder: Path, text: str, files: dict[str, str] | None = None) -> SourceResult:
    """`text` checked as the published copy `copy.html` in `folder`, with `files` beside it."""
    for name, content in (files or {}).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(content, encoding="utf-8")
    copy = folder / "copy.html"
    copy.write_text(text, encoding="utf-8")
    found = read_published(copy)
    built, shape, expected = _article()
    return check_published(
        found.lines, found.label, built.metrics, expected, shape, page=found.page
    )


def errors(result: SourceResult) -> list[Item]:
    return [i for i in result.items if i.severity == "error"]


def _truth() -> tuple[str, str, str]:
    """The first key result as the page shows it ('N tok/s'), a false one (twice its value, at
    its precision), and the page's line it is on."""
    page = _page()
    found = HEADLINE.search(page)
    assert found is not None
    shown = found.group(2)
    number, space, unit = re.split(r"(\s)", shown, maxsplit=1)
    decimals = len(number.partition(".")[2])
    wrong = f"{float(number) * 2:.{decimals}f}{space}{unit}"
    line = str(page.count("\n", 0, found.start()) + 1)
    return shown, wrong, line


def _headline(inner: str, css: str = "", head: str = "") -> str:
    """The page with the first key result's number replaced by `inner` ({true} and {wrong}
    stand for the true and a false number), `css` added to its stylesheet and `head` to its
    <head>."""
    page = _page()
    shown, wrong, _ = _truth()
    found = HEADLINE.search(page)
    assert found is not None
    body = inner.format(true=shown, wrong=wrong)
    page = page[: found.start(2)] + body + page[found.end(2) :]
    page = page.replace("</style>", css.format(true=shown, wrong=wrong) + "</style>", 1)
    return page.replace("</head>", head.format(true=shown, wrong=wrong) + "</head>", 1)


def test_the_built_page_and_its_own_css_check_clean(tmp_path: Path) -> None:
    result = check(tmp_path, _page())
    assert result.items == () and result.matched > 0


# --- the true number hidden or unreadable, another shown ------------------------------------


def _unseen_at(result: SourceResult, line: str, *words: str) -> list[Item]:
    found = [
        i
        for i in errors(result)
        if i.kind == "unseen" and str(i.line) == line and all(w in i.message for w in words)
    ]
    assert found, [f"{i.line} {i.kind} {i.message}" for i in result.items]
    return found


def test_a_hidden_number_and_one_shown_by_css_content_fail(tmp_path: Path) -> None:
    _, _, line = _truth()
    for hiding in ("font-size:0", "display:none"):
        page = _headline(
            f'<span style="{hiding}">{{true}}</span><span class="x"></span>',
            ".x::after {{ content: '{wrong}' }}",
        )
        result = check(tmp_path, page)
        rule_line = str(page.count("\n", 0, page.index(".x::after")) + 1)
        _unseen_at(result, rule_line, "generated text", "content")
        if hiding == "font-size:0":
            _unseen_at(result, line, "may not see", "font-size: 0")


def test_a_number_drawn_in_svg_fails_unless_it_is_a_built_chart(tmp_path: Path) -> None:
    _, _, line = _truth()
    drawn = '<span hidden>{true}</span><svg height="20"><text y="15">{wrong}</text></svg>'
    _unseen_at(check(tmp_path, _headline(drawn)), line, "SVG")
    # the build's own charts, in the page as built: read as the build's (the first test)


@pytest.mark.sampled
@pytest.mark.parametrize(
    "style",
    [
        "font-size: 0",
        "font-size: 1px",
        "font: 0/0 a",
        "opacity: 0.05",
        "color: transparent",
        "color: #fff",
        "color: rgba(0, 0, 0, 0.1)",
        "-webkit-text-fill-color: transparent",
        "clip-path: inset(50%)",
        "position: absolute; clip: rect(0 0 0 0)",
        "display: inline-block; transform: scale(0.01)",
        "display: inline-block; transform: rotateX(90deg)",
        "display: inline-block; transform: scaleX(-1)",
        "display: inline-block; transform: translateX(-200vw)",
        "display: inline-block; zoom: 0.01",
        "position: absolute; left: -9999px",
        "position: relative; top: -5000px",
        "display: block; text-indent: -9999px",
        "display: inline-block; margin-left: -9999px",
        "display: inline-block; width: 0; overflow: hidden",
        "display: inline-block; max-height: 0; overflow: clip",
        "filter: opacity(0)",
        "filter: blur(12px)",
        "mask-image: linear-gradient(transparent, transparent)",
        "letter-spacing: -1em",
        "direction: rtl; unicode-bidi: bidi-override",
        "display: inline-block; transform: rotate(180deg)",
    ],
)
def test_a_style_that_may_keep_readers_from_the_number_is_an_error_at_it(
    tmp_path: Path, style: str
) -> None:
    _, _, line = _truth()
    result = check(tmp_path, _headline(f'<span style="{style}">{{true}}</span>'))
    prop = style.split(";")[-1].split(":")[0].strip()
    _unseen_at(result, line, "may not see", prop)


@pytest.mark.sampled
@pytest.mark.parametrize(
    ("css", "inner"),
    [
        # by a class, an id, a descendant selector, :nth-child, !important over a later rule
        (".k {{ font-size: 0 }}", '<span class="k">{true}</span>'),
        ("#k {{ opacity: 0 }}", '<span id="k">{true}</span>'),
        (".headline .k {{ color: #fff }}", '<span class="k">{true}</span>'),
        (".headline-value > :nth-child(1) {{ font-size: 0 }}", "<b>{true}</b>"),
        (".k {{ font-size: 0 !important }} .k {{ font-size: 2em }}", '<b class="k">{true}</b>'),
        # inherited from an ancestor, through a variable, a layer, nesting, an animation
        (".k {{ font-size: 0 }} .k b {{ font-size: 100% }}", '<i class="k"><b>{true}</b></i>'),
        (":root {{ --hide: 0 }} .k {{ opacity: var(--hide) }}", '<b class="k">{true}</b>'),
        ("@layer base {{ .k {{ color: transparent }} }}", '<b class="k">{true}</b>'),
        (".headline {{ & .k {{ font-size: 0 }} }}", '<b class="k">{true}</b>'),
        (
            "@keyframes out {{ to {{ opacity: 0 }} }} .k {{ animation: out 1s forwards }}",
            '<b class="k">{true}</b>',
        ),
        # under a media query every screen meets; visible only on hover or in print
        ("@media (min-width: 0) {{ .k {{ font-size: 0 }} }}", '<b class="k">{true}</b>'),
        ("@media screen and (width >= 1px) {{ .k {{ opacity: 0 }} }}", '<b class="k">{true}</b>'),
        ("@media not print {{ .k {{ color: #fff }} }}", '<b class="k">{true}</b>'),
        (
            "@supports (display: grid) {{ .k {{ font-size: 0 }} }}",
            '<b class="k">{true}</b>',
        ),
        (
            ".k {{ opacity: 0 }} .headline:hover .k {{ opacity: 1 }}",
            '<b class="k">{true}</b>',
        ),
        (
            ".k {{ font-size: 0 }} @media print {{ .k {{ font-size: 1em }} }}",
            '<b class="k">{true}</b>',
        ),
        # the first letter of the number only
        (".k::first-letter {{ font-size: 0 }}", '<b class="k" style="display:block">{true}</b>'),
        # a box of its own laid over it
        (
            ".k {{ position: relative }} .k::after {{ content: ''; position: absolute; inset: 0;"
            " background: #fff }}",
            '<b class="k">{true}</b>',
        ),
    ],
)
def test_a_stylesheet_that_may_hide_the_number_is_an_error_at_it(
    tmp_path: Path, css: str, inner: str
) -> None:
    _, _, line = _truth()
    _unseen_at(check(tmp_path, _headline(inner, css)), line, "may not see")


@pytest.mark.parametrize(
    "css",
    [
        "@media (min-width: 40em) {{ .k {{ position: fixed; left: -1000px }} }}",
        "@media (max-width: 30em) {{ .k {{ display: none }} }}",
        "@media print {{ .k {{ color: #fff }} }}",
        ".headline:hover .k {{ opacity: 0 }}",
        ".k {{ animation: in 1s }} @keyframes in {{ to {{ opacity: 1 }} from {{ opacity: 0 }} }}",
        "@media (prefers-color-scheme: dark) {{ body {{ background: #111; color: #eee }} }}",
        # a link stretched over its card, a fade at the foot of a long excerpt
        ".k::after {{ content: ''; position: absolute; inset: 0 }}",
        ".k::after {{ content: ''; position: absolute; inset: 0;"
        " background: linear-gradient(transparent, #fff) }}",
    ],
)
def test_a_number_some_readers_see_plainly_is_read_and_passes(tmp_path: Path, css: str) -> None:
    """Off the page on wide screens only, hidden on phones, white only on paper, faded only on
    hover or at the start of an animation: other readers see it, and check reads it."""
    result = check(tmp_path, _headline('<b class="k">{true}</b>', css))
    assert not errors(result), [i.message for i in errors(result)]


def test_text_in_a_transparent_parent_and_on_its_own_background_colour_fail(
    tmp_path: Path,
) -> None:
    _, _, line = _truth()
    for inner in (
        '<span style="opacity:0.1"><b>{true}</b></span>',
        '<span style="background:#123456;color:#123456"><b>{true}</b></span>',
        '<font color="white">{true}</font>',
    ):
        _unseen_at(check(tmp_path, _headline(inner)), line, "may not see")


@pytest.mark.parametrize(
    ("inner", "css", "words"),
    [
        (
            '<span hidden>{true}</span><span class="x" data-v="{wrong}"></span>',
            ".x::before {{ content: attr(data-v) }}",
            ("generated text", "data-v"),
        ),
        (
            '<span hidden>{true}</span><span class="x"></span>',
            ".x {{ counter-reset: n 7 }} .x::before {{ content: counter(n) }}",
            ("counter",),
        ),
        (
            '<span hidden>{true}</span><q class="x">!</q>',
            ".x {{ quotes: '{wrong}' '' }}",
            ("generated text",),
        ),
        (
            '<span hidden>{true}</span><ul><li class="x">!</li></ul>',
            ".x {{ list-style-type: '{wrong}' }}",
            ("generated text",),
        ),
        (
            '<span hidden>{true}</span><span class="x"></span>',
            ":root {{ --v: '{wrong}' }} .x::after {{ content: var(--v) }}",
            ("generated text",),
        ),
        ("{true}<ol class=x><li>a</li></ol>", ".x {{ counter-reset: list-item 41 }}", ("list",)),
        (
            "{true}<ol class=x><li>a</li></ol>",
            "@counter-style c {{ system: cyclic; symbols: '9' }} .x {{ list-style: c }}",
            ("counter-style",),
        ),
    ],
)
def test_generated_content_that_check_cannot_read_fails(
    tmp_path: Path, inner: str, css: str, words: tuple[str, ...]
) -> None:
    result = check(tmp_path, _headline(inner, css))
    assert any(i.kind == "unseen" and all(w in i.message for w in words) for i in errors(result)), [
        i.message for i in result.items
    ]


@pytest.mark.parametrize(
    ("inner", "words"),
    [
        ("<span hidden>{true}</span><math><mn>{wrong}</mn></math>", ("MathML",)),
        ('<span hidden>{true}</span><iframe srcdoc="<p>{wrong}</p>"></iframe>', ("srcdoc",)),
        ('<span hidden>{true}</span><input value="{wrong}">', ("form field",)),
        ('<span hidden>{true}</span><input placeholder="{wrong}">', ("form field",)),
        (
            '<span hidden>{true}</span><select><option label="{wrong}">x</option></select>',
            ("form field",),
        ),
        ("<bdo dir=rtl>{true}</bdo>", ("bdo",)),
        ("\u202e{true}", ("RIGHT-TO-LEFT OVERRIDE",)),
        (
            '<div><template shadowrootmode="open"><p>{wrong}</p></template>{true}</div>',
            ("shadow root",),
        ),
    ],
)
def test_other_channels_that_show_text_fail_closed(
    tmp_path: Path, inner: str, words: tuple[str, ...]
) -> None:
    result = check(tmp_path, _headline(inner))
    assert any(i.kind == "unseen" and all(w in i.message for w in words) for i in errors(result)), [
        i.message for i in result.items
    ]


def test_a_refresh_to_another_page_fails(tmp_path: Path) -> None:
    refresh = '<meta http-equiv="refresh" content="0;url=x">'
    result = check(tmp_path, _headline("{true}", head=refresh))
    assert any("another page" in i.message for i in errors(result))


@pytest.mark.parametrize(
    ("head", "files", "why"),
    [
        ('<link rel="stylesheet" href="https://example.com/site.css">', {}, "server"),
        ('<link rel="stylesheet" href="/css/site.css">', {}, "root"),
        ('<link rel="stylesheet" href="missing.css">', {}, "cannot read"),
        (
            '<link rel="stylesheet" href="site.css">',
            {"site.css": "@import url(http://x/y.css);"},
            "server",
        ),
        (
            '<base href="https://example.com/"><link rel="stylesheet" href="site.css">',
            {"site.css": ""},
            "server",
        ),
    ],
)
def test_a_stylesheet_check_cannot_read_fails_closed_at_its_link(
    tmp_path: Path, head: str, files: dict[str, str], why: str
) -> None:
    page = _headline("{true}", head=head)
    result = check(tmp_path, page, files)
    line = page.count("\n", 0, page.index("</head>")) + 1
    found = [i for i in errors(result) if i.kind == "unseen" and "stylesheet" in i.message]
    assert found and found[0].line == line and why in found[0].message, found
    assert "save the stylesheet beside the copy" in found[0].message


def test_a_local_stylesheet_is_read_and_its_styles_count(tmp_path: Path) -> None:
    _, _, line = _truth()
    head = '<link rel="stylesheet" href="css/site.css">'
    files = {"css/site.css": "@import 'more.css';", "css/more.css": ".k { font-size: 0 }"}
    result = check(tmp_path, _headline('<b class="k">{true}</b>', head=head), files)
    found = _unseen_at(result, line, "may not see")
    assert "more.css line 1" in found[0].message


@pytest.mark.parametrize(
    "inner",
    [
        # html.parser ends these where a browser does not: the number after them is shown
        "<span hidden>{true}</span><!-->{wrong}<!-- -->",
        "<span hidden>{true}</span><!-- a --!>{wrong}<!-- -->",
        "<span hidden>{true}</span><script></script foo>{wrong}<script></script>",
        "<span hidden>{true}</span><p hidden>x<div>{wrong}</div>",
        "<span hidden>{true}</span><table hidden>{wrong}<tr><td>x</td></tr></table>",
    ],
)
def test_text_a_browser_shows_is_read_where_a_naive_parser_would_hide_it(
    tmp_path: Path, inner: str
) -> None:
    _, wrong, _line = _truth()
    result = check(tmp_path, _headline(inner))
    number = wrong.split()[0]
    assert any(i.kind == "mismatch" and number in (i.shown or "") for i in errors(result)), [
        f"{i.kind} {i.shown} {i.message}" for i in result.items
    ]


def test_a_style_element_written_self_closing_is_still_css(tmp_path: Path) -> None:
    _, _, line = _truth()
    page = _headline('<b class="k">{true}</b>', head="<style/>.k {{ font-size: 0 }}</style>")
    _unseen_at(check(tmp_path, page), line, "may not see")


def test_scripts_embeds_and_tooltips_are_warnings(tmp_path: Path) -> None:
    page = _headline(
        '<span title="{wrong}">{true}</span><iframe src="https://example.com/x"></iframe>',
        head="<script>document.title = 'x'</script>",
    )
    result = check(tmp_path, page)
    assert not errors(result), [i.message for i in errors(result)]
    unread = {i.message.split(" ")[1] for i in result.items if i.kind == "unread"}
    assert len([i for i in result.items if i.kind == "unread"]) == 3, unread


# --- true copies with the CSS blogs use ----------------------------------------------------

BLOG_CSS = """
:root { --ink: #222; --paper: #fff; --accent: #0645ad; }
body { color: var(--ink); background: var(--paper); font: 17px/1.6 Georgia, serif; }
@font-face { font-family: Body; src: url(fonts/body.woff2) format("woff2"); }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 1rem; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
nav ul { display: flex; gap: 1rem; list-style: none; }
.menu-toggle { display: none; }
@media (max-width: 40em) {
  nav ul { display: none; }
  .menu-toggle { display: block; }
  #menu:checked ~ ul { display: block; }
}
pre { background: #f6f8fa; padding: 1em; overflow: auto; }
.hl-k { color: #d73a49; } .hl-s { color: #032f62; } .hl-c { color: #6a737d; font-style: italic; }
.post a[href^="http"]::after { content: " \\2197"; }
.post h2::before { content: "\\00a7 "; color: var(--accent); }
@media (prefers-color-scheme: dark) {
  :root { --ink: #ddd; --paper: #111; --accent: #8ab4f8; }
  .headline { border-color: #333; }
}
@media print {
  nav, footer, .menu-toggle { display: none; }
  a[href]::after { content: " (" attr(href) ")"; }
  body { color: #000; background: #fff; }
}
"""

BLOG = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Benchmarks, tools and servers</title>
<link rel="stylesheet" href="assets/blog.css">
<style>{css}</style>
<script type="application/ld+json">{{"@type": "BlogPosting"}}</script>
</head><body>
<a class="skip" href="#main">Skip to the post</a>
<header><input type="checkbox" id="menu" class="menu-toggle">
<label for="menu" class="sr-only">Menu</label>
<nav><ul><li><a href="/">Home</a></li><li><a href="/about/">About</a></li>
<li><a href="/feed.xml">Feed</a></li></ul></nav></header>
<main id="main" class="post">
{body}
<h2>How I ran it</h2>
<pre><code><span class="hl-c"># the tools, one after the other</span>
<span class="hl-k">make</span> <span class="hl-s">bench</span></code></pre>
<details><summary>Why two tools?</summary><p>They define their metrics differently.</p></details>
</main>
<footer><p><span class="sr-only">Licence:</span> Text under CC BY,
<a href="https://example.com/about">about me</a>.</p></footer>
</body></html>
"""


def _blog() -> str:
    body = re.search(r"(?s)<body[^>]*>(.*)</body>", _page())
    assert body is not None
    return BLOG.format(css=BLOG_CSS, body=body.group(1))


def test_a_blog_post_with_ordinary_css_passes(tmp_path: Path) -> None:
    files = {"assets/blog.css": "main { max-width: 42rem; margin: auto }", "fonts/body.woff2": ""}
    result = check(tmp_path, _blog(), files)
    assert not errors(result), [f"{i.line} {i.kind} {i.message}" for i in errors(result)]
    assert not [i for i in result.items if i.kind in ("unseen", "unread")]
    # every number of the page, but for its link previews' (in its <head>, which the blog's
    # own head replaces)
    previews = sum(len(m.split()) for m in re.findall(r'data-metrics="([^"]*)"', _page()))
    assert previews > 0
    assert result.matched >= check(tmp_path, _page()).matched - previews


def test_the_blog_post_still_fails_on_a_hidden_number(tmp_path: Path) -> None:
    """The same blog, its key result styled like its screen-reader-only text."""
    files = {"assets/blog.css": ""}
    page = _blog()
    found = HEADLINE.search(page)
    assert found is not None
    page = page.replace(found.group(0), f'<span class="sr-only">{found.group(0)}</span>', 1)
    line = page.count("\n", 0, found.start()) + 1
    assert any(
        i.line == line and i.kind == "unseen" and "clip" in i.message
        for i in errors(check(tmp_path, page, files))
    )


def test_check_article_reads_a_copys_stylesheets_and_the_builds_charts(tmp_path: Path) -> None:
    """Through the command's own path: a copy beside its stylesheet, with the build's chart."""
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "blog.css").write_text("", encoding="utf-8")
    copy = tmp_path / "post.html"
    copy.write_text(_blog(), encoding="utf-8")
    result = check_article(MEASURED, [copy], build_dir=tmp_path / "none")
    source = next(s for s in result.sources if s.source == str(copy))
    assert not errors(source) and not result.failed, [i.message for i in source.items]
