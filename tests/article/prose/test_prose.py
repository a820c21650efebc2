"""Prose is untrusted: nothing in it escapes into the page, and references resolve or fail."""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from reportgen.article.build import render_article, render_outputs
from reportgen.article.prose.render import render_block, render_inline
from reportgen.article.prose.resolver import REFERENCE, Resolver
from reportgen.article.source.declarations import Text
from reportgen.errors import InputError
from reportgen.formats.load import load
from reportgen.frozendict import FrozenDict
from reportgen.metrics.compute import compute
from reportgen.model import Hardware, Setup

ROOT = Path(__file__).resolve().parents[3]
SMALL = ROOT / "tests" / "articles" / "small"

HOSTILE = """# Title <script>alert(1)</script>

<script>alert("x")</script>
<img src=x onerror="alert(1)">
<a href="#" onclick="steal()">click</a>

[js](javascript:alert(1)) [data](data:text/html;base64,PHNjcmlwdD4=) [file](file:///etc/passwd)
[vb](vbscript:msgbox) [ok](https://example.org/page) [mail](mailto:a@example.org)

![passwd](file:///etc/passwd) ![remote](https://example.org/x.png) ![local](notes.md)

<iframe src="https://example.org"></iframe>
<style>body{display:none}</style>
{{ canonical.c1.output_tok_s }} and a fake placeholder \ue0000\ue001.
"""


@pytest.fixture(scope="module")
def resolver() -> Resolver:
    metrics = compute(load([SMALL / "canonical.json", SMALL / "bench.json"]).runs)
    setup = Setup(
        hardware=Hardware(gpu_name="GPU <b>x</b>", gpu_count=1, gpu_vram_gb=24.0),
        hf_id="a/b",
        checkpoint=None,
        quantization=None,
        engine_name="e",
        engine_build=None,
        engine_description=None,
    )
    return Resolver(
        metrics=metrics, setup=setup, tools=FrozenDict({"lmx": "lmx 0.1.60"}), date="2026-10-01"
    )


def test_hostile_markdown_renders_inert(resolver: Resolver) -> None:
    html = str(render_block(Text(text=HOSTILE, file="x.md", line=1, markdown=True), resolver))
    assert "<script" not in html and "<iframe" not in html and "<style" not in html
    assert "<img" not in html
    assert not re.search(r"\son\w+=", html.replace("&quot;", '"').split("&lt;")[0])
    assert re.findall(r'href="([^"]*)"', html) == [
        "https://example.org/page",
        "mailto:a@example.org",
    ]
    # Unsafe links stay visible as inert text; images show only their alt text.
    assert "[js](javascript:alert(1))" in html
    assert "![passwd](file:///etc/passwd) remote ![local](notes.md)" in html
    for scheme in ("javascript:", "data:", "file:", "vbscript:"):
        assert f'href="{scheme}' not in html and f'src="{scheme}' not in html
    # Raw HTML is shown as text, escaped.
    assert "&lt;script&gt;" in html
    # The reference resolved; private-use characters are shown as the text they are.
    assert 'data-metric="canonical.c1.output_tok_s"' in html
    assert html.count("data-metric=") == 1
    assert "\ue0000\ue001" in html


def test_setup_text_is_escaped(resolver: Resolver) -> None:
    html = str(
        render_inline(Text(text="{{ setup.gpu_name }}", file="a.toml", line=3, col=9), resolver)
    )
    assert html == "GPU &lt;b&gt;x&lt;/b&gt;"


def test_unknown_references_are_located(resolver: Resolver) -> None:
    text = Text(
        text="ok {{ canonical.c1.output_tok_s }}\nthen {{ nope.x }} and {{ setup.colour }}",
        file="p.md",
        line=1,
        markdown=True,
    )
    with pytest.raises(InputError) as info:
        render_block(text, resolver)
    assert [p.format() for p in info.value.problems] == [
        "p.md:2:6 /: unknown reference {{ nope.x }}: not a metric id, setup field, "
        "version.TOOL or article.date",
        "p.md:2:23 /: unknown reference {{ setup.colour }}: not a metric id, setup field, "
        "version.TOOL or article.date",
    ]


def test_setup_references_take_scalar_fields_only(resolver: Resolver) -> None:
    # `hardware` is a group of fields, not a field: it is unknown, never its Python repr.
    with pytest.raises(InputError) as info:
        render_inline(Text(text="{{ setup.hardware }}", file="a.toml", line=3, col=9), resolver)
    assert "unknown reference {{ setup.hardware }}" in info.value.problems[0].format()
    html = str(
        render_inline(
            Text(text="{{ setup.gpu_count }} and {{ setup.engine_name }}", file="a", line=1),
            resolver,
        )
    )
    assert html == "1 and e"


def test_manifest_reference_column(resolver: Resolver) -> None:
    with pytest.raises(InputError) as info:
        render_inline(
            Text(text="at {{ decode.1K.c1.ttft_s }}", file="article.toml", line=7, col=12), resolver
        )
    assert info.value.problems[0].format().startswith("article.toml:7:15 /: unknown reference")


@pytest.mark.pdf
def test_hostile_prose_builds_a_safe_page_and_pdf(tmp_path: Path) -> None:
    article = tmp_path / "small"
    shutil.copytree(SMALL, article)
    (article / "notes.md").write_text(HOSTILE.replace("\ue000", "").replace("\ue001", ""))
    (article / "article.toml").write_text(
        (article / "article.toml")
        .read_text()
        .replace(
            'title = "Small-8B on vLLM: a test article"',
            'title = "<script>alert(1)</script> [x](javascript:alert(1))"',
        )
    )
    built = render_article(article, {})
    assert "<script" not in built.html
    links = [u for u in re.findall(r'(?:href|src)="([^"]*)"', built.html) if u[:1] != "#"]
    # the page's own links to its raw data and tables, and the prose's two safe links
    own = [
        u
        for u in links
        if re.fullmatch(r"(data/[\w.-]+\.json|tables/[\w-]+\.csv|metrics\.json)", u)
    ]
    assert own and [u for u in links if u not in own] == [
        "https://example.org/page",
        "mailto:a@example.org",
    ]
    assert not re.search(r"<(img|iframe|object|embed|link|base)\b", built.html)
    # The only <style> is ours; no element has an event handler attribute.
    assert built.html.count("<style>") == 1
    assert not re.search(r"<[^>]+\son[a-z]+\s*=", built.html)
    # The PDF renders with no fetch of anything outside the article (none is requested).
    pdf = render_outputs(built)["article.pdf"]
    assert pdf.startswith(b"%PDF-") and b"/etc/passwd" not in pdf.split(b"stream")[0]


@pytest.mark.parametrize(
    ("prose", "line", "col"),
    [
        ('[x](https://example.org "{{ canonical.c1.output_tok_s }}")', 1, 26),
        ("[x](https://example.org/{{canonical.c1.output_tok_s}})", 1, 25),
        ("```{{ canonical.c1.output_tok_s }}\ncode\n```", 1, 4),
        ("```\n{{ canonical.c1.output_tok_s }}\n```", 2, 1),
        ("Inline `{{ canonical.c1.output_tok_s }}` code.", 1, 9),
        ("![{{ canonical.c1.output_tok_s }}](https://example.org/x.png)", 1, 3),
        ("    {{ canonical.c1.output_tok_s }} indented code", 1, 5),
    ],
    ids=["link-title", "link-url", "fence-info", "fence", "code-span", "image-alt", "code-block"],
)
def test_a_reference_outside_running_text_is_refused_at_its_place(
    resolver: Resolver, prose: str, line: int, col: int
) -> None:
    with pytest.raises(InputError) as info:
        render_block(Text(text="Intro.\n\n" + prose, file="p.md", line=1, markdown=True), resolver)
    written = REFERENCE.search(prose)
    assert written is not None
    assert [p.format() for p in info.value.problems] == [
        f"p.md:{line + 2}:{col} /: reference {written.group(0)} stands in code, "
        "a link or an image, where it is not resolved: write it in running text"
    ]


def test_a_reference_in_link_text_resolves_and_stays_out_of_attributes(resolver: Resolver) -> None:
    text = Text(
        text='[speed {{ canonical.c1.output_tok_s }}](https://example.org "t")', file="p.md", line=1
    )
    html = str(render_block(replace(text, markdown=True), resolver))
    assert re.fullmatch(
        r'<p><a href="https://example.org" title="t">speed <span class="num" '
        r'data-metric="canonical\.c1\.output_tok_s" data-value="[^"]+">[^<]+</span></a></p>\n',
        html,
    )


@pytest.mark.parametrize(
    "prose",
    [
        "&#xE000;99&#xE001; and \ue0000\ue001",
        "&#123;&#123; canonical.c1.output_tok_s }}",
        "\\{\\{ canonical.c1.output_tok_s }}",
        "`{{ canonical.c1.output_tok_s }` in code",
        "a set {a, {b}} and a brace }",
    ],
    ids=["private-use", "entity-braces", "escaped-braces", "code", "single-braces"],
)
def test_text_that_only_looks_like_a_reference_is_shown_as_text(
    resolver: Resolver, prose: str
) -> None:
    html = str(render_block(Text(text=prose, file="p.md", line=1, markdown=True), resolver))
    assert "data-metric" not in html and "<span" not in html
    assert html.startswith("<p>") and html.endswith("</p>\n")


MALFORMED = [
    ("{{ canonical.c1.output_tok_s }", "malformed reference {{ canonical.c1.output_tok_s }:"),
    ("{ canonical.c1.output_tok_s }}", "malformed reference { canonical.c1.output_tok_s }}:"),
    ("{{{ canonical.c1.output_tok_s }}}", "malformed reference {{{ canonical.c1.output_tok_s }}}:"),
    ("{{ }}", "empty reference {{ }}:"),
    ("{{ canonical.c1 output_tok_s }}", "malformed reference {{ canonical.c1 output_tok_s }}:"),
    ("{{ canonical.c1.output_tok_s &#125;&#125;", "{{ opens a reference that is never closed:"),
    ("{{", "{{ opens a reference that is never closed:"),
]


@pytest.mark.parametrize(("written", "message"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_reference_is_an_error_at_its_place(
    resolver: Resolver, written: str, message: str
) -> None:
    prose = f"First paragraph.\n\nIt reached\nabout {written}"
    with pytest.raises(InputError) as info:
        render_block(Text(text=prose, file="p.md", line=5, col=1, markdown=True), resolver)
    assert [p.format().split(": ", 1)[0] for p in info.value.problems] == ["p.md:8:7 /"]
    assert info.value.problems[0].message.startswith(message)
    # one line of a caption: located from the caption's own place in article.toml
    with pytest.raises(InputError) as info:
        render_inline(Text(text=f"x {written}", file="article.toml", line=3, col=12), resolver)
    assert [(p.line, p.col) for p in info.value.problems] == [(3, 14)]


@pytest.mark.pdf
def test_a_character_without_a_glyph_is_located_in_the_prose(tmp_path: Path) -> None:
    article = tmp_path / "small"
    shutil.copytree(SMALL, article)
    notes = article / "notes.md"
    notes.write_text(notes.read_text() + "\nA private mark: &#xE000;99&#xE001;.\n")
    built = render_article(article, {})
    assert "\ue00099\ue001" in built.html
    with pytest.raises(InputError) as info:
        render_outputs(built)
    assert [(Path(p.path).name, p.message[:7]) for p in info.value.problems] == [
        ("notes.md", "U+E000 "),
        ("notes.md", "U+E001 "),
    ]


def test_malformed_references_fail_the_article_at_each_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """In the title, the subtitle, a caption and a prose file, `check` (and `build`, which
    renders the same page first) stops with each place, exit 2, no traceback."""
    from reportgen.cli.main import main

    article = tmp_path / "small"
    shutil.copytree(SMALL, article)
    toml = article / "article.toml"
    text = toml.read_text()
    text = text.replace('title = "Small-8B', 'title = "{ canonical.c1.output_tok_s }} Small-8B', 1)
    text = text.replace('subtitle = "{{ setup.gpu_count }}x', 'subtitle = "{{ setup.gpu_count }x')
    text = text.replace('caption = "one request, output"', 'caption = "one request {{"')
    toml.write_text(text)
    notes = article / "notes.md"
    notes.write_text(notes.read_text() + "\nAll of it: {{{ canonical.c1.output_tok_s }}}.\n")
    notes_line = len(notes.read_text().splitlines())
    assert main(["check", str(article)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    places = [line.split(" /: ")[0] for line in err.splitlines()]
    lines = text.splitlines()
    title = next(n for n, line in enumerate(lines, 1) if line.startswith("title ="))
    subtitle = next(n for n, line in enumerate(lines, 1) if line.startswith("subtitle ="))
    caption = next(n for n, line in enumerate(lines, 1) if "one request {{" in line)
    assert sorted(places) == sorted(
        [
            f"{toml}:{title}:10",
            f"{toml}:{subtitle}:13",
            f"{toml}:{caption}:{lines[caption - 1].index('{{') + 1}",
            f"{notes}:{notes_line}:12",
        ]
    )


def test_a_misspelled_metric_gets_the_near_id_of_its_cell(resolver: Resolver) -> None:
    right = next(v.id for v in resolver.metrics.values if v.id.endswith(".aggregate_tok_s"))
    cell = right.removesuffix(".aggregate_tok_s")
    wrong = right.replace("aggregate", "agregate")
    with pytest.raises(InputError) as info:
        render_inline(Text(text=f"at {{{{ {wrong} }}}}", file="p.md", line=1), resolver)
    assert [p.message for p in info.value.problems] == [
        f"unknown metric {wrong}: the cell {cell} has none; did you mean {right!r}?"
    ]


THREE_CONFIGS = Path(__file__).resolve().parents[2] / "articles" / "three-configs"


def _three_configs_resolver() -> Resolver:
    from reportgen.article.frontiers import with_frontiers
    from reportgen.article.rundata import article_metrics

    article, metrics = article_metrics(THREE_CONFIGS)
    return Resolver(
        metrics=with_frontiers(article, metrics),
        setup=article.setup,
        tools=FrozenDict(),
        date=article.date,
        price=article.cost,
    )


@pytest.mark.slow
def test_a_cost_in_prose_is_written_with_its_price_source_and_date() -> None:
    resolver = _three_configs_resolver()
    price = resolver.price
    assert price is not None
    cost = resolver.metrics.get("frontier.tp4.at_50.usd_per_mtok")
    throughput = resolver.metrics.get("frontier.tp4.at_50.tok_s_per_gpu")
    assert cost is not None and throughput is not None
    text = Text(
        text="for {{ frontier.tp4.at_50.usd_per_mtok }}.", file="p.md", line=1, markdown=True
    )
    html = str(render_block(text, resolver))
    shown = re.sub(r"<[^>]+>", "", html).replace("\u00a0", " ").strip()
    assert shown == f"for {cost.value:.2f} USD/Mtok at {price.words()}."
    assert price.source in shown and price.date in shown
    # a value that is not a cost is written as before: no price after it
    text = Text(text="{{ frontier.tp4.at_50.tok_s_per_gpu }}", file="p.md", line=1, markdown=True)
    assert price.source not in str(render_block(text, resolver))


@pytest.mark.slow
def test_a_cost_as_a_bare_number_is_refused_at_its_place() -> None:
    resolver = _three_configs_resolver()
    text = Text(
        text="for\n{{ frontier.tp4.at_50.usd_per_mtok | number }} USD",
        file="p.md",
        line=3,
        markdown=True,
    )
    with pytest.raises(InputError) as info:
        render_block(text, resolver)
    (problem,) = info.value.problems
    assert problem.line == 4 and "written with the price" in problem.message
