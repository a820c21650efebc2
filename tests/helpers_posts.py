"""Posts a careful editor writes about the two bundled articles, filled from the built metrics.

Each post (tests/posts/<article folder>/post.{md,html,txt}.tmpl) is the editor's own words and
layout; every number from data in it is a placeholder naming where it comes from, never typed:

    {{ prefill.8K.ttft_s * 1000 | ,0 }}     the metric in ms, no decimals, thousands separated
    {{ a.id / b.id | 1 }}                    a ratio of two metrics, one decimal
    {{ (a.id - b.id) / a.id * 100 | 0 }}     a change in percent
    {{ prefill.8K.tok_s / 1000 | 1 }}K       thousands written with a K suffix (the K is text)
    {{ canonical.c16.output_tokens | 0 | label }}   a number that says where (a caption's count),
                                             not what was measured: the mutations leave it alone
    {{ date }}                               the article's date, for a blog's front matter
    {{ guidellm.load.c4.slo_met | verdict }}  an SLO verdict, as the article writes it:
                                             "meets" or "misses"

A placeholder of one metric the article shows as "not measurable" (a gate) is filled with those
words, as the article writes them; it is then no number of the post.

An expression is metric ids, numbers, `+ - * /` and parentheses, separated by spaces. A format is
the decimals shown, after a "," when thousands are separated. Values are rounded half up, as the
article rounds them. Axis labels (a context "8K", a concurrency "16") are written as text.

`fill` returns the post's text and, for every number it filled in, where it stands and the exact
value it shows (in the unit it is shown in): the oracle of the mutation tests. `check` runs the
checker on a post (or an edited copy of it) as a published copy of its article, the article built
once per session; `said` writes what it reported with the post's own lines, for failure messages.
"""

from __future__ import annotations

import ast
import functools
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from helpers_claims import half_up

from reportgen.article.build import Built, render_article
from reportgen.check.compare import article_shape, check_published
from reportgen.check.readers.shape import Shape
from reportgen.check.result import Item, expected_numbers
from reportgen.metrics.slo import verdict_word

ROOT = Path(__file__).resolve().parents[1]
POSTS = Path(__file__).resolve().parent / "posts"
ARTICLES = {
    "paiton": ROOT / "runs" / "paiton-kimi-k3.1-pro",
    "measured": ROOT / "runs" / "tiny-llamacpp-two-tools",
}
KINDS = ("md", "html", "txt")

_PLACEHOLDER = re.compile(r"\{\{\s*(.+?)\s*\}\}")
_OPERATORS: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}


@dataclass(frozen=True)
class Filled:
    """One number a post shows, filled in from the metrics."""

    line: int  # 1-based, in the filled post
    col: int  # 0-based start of `text` in its line
    text: str  # as shown: "12,844", "0.229", "6.4"
    value: float  # the exact value, in the unit shown
    decimals: int
    expr: str  # the placeholder's expression, for messages
    metrics: tuple[str, ...]  # the metric ids it reads
    label: bool  # says where (not judged by the mutations)
    word: bool = False  # a verdict's word ("meets", "misses"), not digits


@dataclass(frozen=True)
class Post:
    """One filled post."""

    article: str  # "paiton" or "measured"
    kind: str  # "md", "html" or "txt"
    text: str
    numbers: tuple[Filled, ...]

    @property
    def name(self) -> str:
        return f"{self.article}/post.{self.kind}"

    @property
    def folder(self) -> Path:
        return ARTICLES[self.article]

    @property
    def html(self) -> bool:
        return self.kind == "html"

    def line(self, n: int) -> str:
        """The text of line `n` (1-based), for messages."""
        lines = self.text.split("\n")
        return lines[n - 1].strip() if 0 < n <= len(lines) else ""


@functools.cache
def built(article: str) -> tuple[Built, Shape]:
    """The article built once per session, and the shape a copy is matched against."""
    done = render_article(ARTICLES[article], {}, charts=False)
    return done, article_shape(done, done.html)


def _evaluate(expr: str, values: dict[str, float]) -> tuple[float, tuple[str, ...]]:
    """The value of `expr` (ids, numbers, + - * / and parentheses), and the ids it reads."""
    names: list[str] = []
    parts = []
    for token in expr.replace("(", " ( ").replace(")", " ) ").split():
        if token in "+-*/()" or re.fullmatch(r"\d+(\.\d+)?", token):
            parts.append(token)
        elif token in values:
            parts.append(f"m{len(names)}")
            names.append(token)
        else:
            raise KeyError(f"{token!r} in {{{{ {expr} }}}} is no metric of the article")

    def walk(node: ast.expr) -> float:
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return float(node.value)
        if isinstance(node, ast.Name):
            return values[names[int(node.id[1:])]]
        raise ValueError(f"{{{{ {expr} }}}}: only + - * / of metrics and numbers")

    return walk(ast.parse(" ".join(parts), mode="eval").body), tuple(names)


def shown(value: float, spec: str) -> tuple[str, int]:
    """`value` as the format `spec` shows it ("2", ",0"), and its decimals."""
    grouped = spec.startswith(",")
    decimals = int(spec.lstrip(","))
    if value < 0:
        raise ValueError("a post writes a change as a rise or a fall, never with a sign")
    text = half_up(value, decimals)
    if grouped:
        whole, dot, frac = text.partition(".")
        text = f"{int(whole):,}" + dot + frac
    return text, decimals


def fill(article: str, kind: str) -> Post:
    """The post of `article` in `kind`, every placeholder filled from the built metrics."""
    done, _ = built(article)
    values = {k: v.value for k, v in done.metrics.by_id().items()}
    gated = {k: v.gate is not None for k, v in done.metrics.by_id().items()}
    template = (POSTS / ARTICLES[article].name / f"post.{kind}.tmpl").read_text("utf-8")
    out_lines: list[str] = []
    numbers: list[Filled] = []
    for n, raw in enumerate(template.split("\n"), start=1):
        line = ""
        at = 0
        for found in _PLACEHOLDER.finditer(raw):
            line += raw[at : found.start()]
            at = found.end()
            fields = [f.strip() for f in found.group(1).split("|")]
            if fields == ["date"]:
                line += done.article.date
                continue
            expr, spec, *flags = fields
            value, metrics = _evaluate(expr, values)
            if len(metrics) == 1 and gated[metrics[0]]:
                line += "not measurable"  # the words the article shows for a gated value
                continue
            word = spec == "verdict"
            text, decimals = (verdict_word(value), 0) if word else shown(value, spec)
            numbers.append(
                Filled(n, len(line), text, value, decimals, expr, metrics, "label" in flags, word)
            )
            line += text
        out_lines.append(line + raw[at:])
    return Post(article, kind, "\n".join(out_lines), tuple(numbers))


@functools.cache
def posts() -> tuple[Post, ...]:
    """Every post, filled once per session."""
    return tuple(fill(article, kind) for article in ARTICLES for kind in KINDS)


def expected_metrics(article: str) -> set[str]:
    """The metrics the built article shows in its tables and headlines: each a post must show."""
    done, _ = built(article)
    return {s.metric for s in expected_numbers(done.article, done.metrics, done.tables)}


def check(post: Post, text: str | None = None) -> list[Item]:
    """Everything check reports about `text` (default: the true post) as a copy of the article."""
    done, shape = built(post.article)
    expected = expected_numbers(done.article, done.metrics, done.tables)
    result = check_published(
        post.text if text is None else text,
        post.name,
        done.metrics,
        expected,
        shape,
        html=post.html,
    )
    return list(result.items)


def said(post: Post, items: list[Item], text: str | None = None) -> str:
    """The items, one a line, each with the post's line it names: for failure messages."""
    lines = (post.text if text is None else text).split("\n")

    def at(n: int) -> str:
        return lines[n - 1].strip()[:90] if 0 < n <= len(lines) else ""

    return "\n".join(
        f"  {post.name}:{i.line}: {i.severity} {i.kind}: {i.message}\n      line: {at(i.line)}"
        for i in items
    )
