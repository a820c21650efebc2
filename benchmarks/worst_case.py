"""The worst case the article limits allow (reportgen/article/limits.py), built and timed.

Writes into a fresh folder a copy of `runs/tiny-llamacpp-two-tools` (its run files, as the
project measured them) that declares everything an article may, each at its limit: `LIMITS.tables`
tables, `LIMITS.charts` charts (each drawn: the chart cache is off), and `LIMITS.prose_bytes` of
prose with `LIMITS.headings` headings and emphasis nested far past what is laid out. Then it runs
`reportgen build` in a fresh process and measures its wall time and the peak resident memory of
the command and its forked workers.

It fails (exit 1) when the build fails or takes 10 s or more, or 1 GB or more: the limits are
set so that it does not, on a 2-core machine. It is a test of the limits, run on its own by
`make limits` (which `.ci/run` calls) rather than in the parallel test suite, where the other
tests' load would decide the time.

    .venv/bin/python benchmarks/worst_case.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reportgen.article.limits import LIMITS, prose_layout  # noqa: E402

SOURCE = ROOT / "runs" / "tiny-llamacpp-two-tools"
REPORTGEN = ROOT / ".venv" / "bin" / "reportgen"
MAX_SECONDS, MAX_BYTES = 10.0, 1_000_000_000


def _declarations(tables: int, charts: int) -> str:
    """A section of `tables` tables and `charts` charts over the copied article's runs."""
    out = ['\n[[sections]]\nid = "worst-case"\ntitle = "Every table and chart allowed"\n']
    metrics = ("load.ttft_s", "load.itl_s", "load.output_tok_s", "load.latency_s")
    for i in range(tables):
        out.append(
            f'\n[[sections.table]]\nid = "worst-{i}"\ntitle = "Table {i}"\n'
            f'metric = "{metrics[i % len(metrics)]}"\nrows = "concurrency"\ncolumns = "run"\n'
        )
    for i in range(charts):
        out.append(
            f'\n[[sections.chart]]\nid = "worst-chart-{i}"\nkind = "interactivity"\n'
            f'title = "Chart {i}"\nmetric = "load.output_tok_s"\nx = "load.per_request_tok_s"\n'
            'series = "run"\nlabel = "concurrency"\nlegend = "tool"\n'
        )
    return "".join(out)


def _prose(budget: int, headings: int, lines: int) -> str:
    """Markdown of about `budget` bytes laid out on `lines` lines: `headings` headings spread
    among short paragraphs, the bytes spread over those, and emphasis nested a thousand deep in
    the first paragraph."""
    nested = "*" * 1000 + "deep" + "*" * 1000 + "\n\n"
    paragraphs = lines - headings - 1
    width = max(8, (budget - len(nested) - headings * 16) // paragraphs - 2)
    line = " ".join(f"word{i % 97}" for i in range(width))[:width].strip() + "\n\n"
    every = max(1, paragraphs // headings)
    parts, said = [nested], 0
    for i in range(paragraphs):
        if i % every == 0 and said < headings:
            parts.append(f"## Heading {said}\n\n")
            said += 1
        parts.append(line)
    return "".join(parts)


def write_article(folder: Path) -> None:
    """The copy of the two-tool article at every limit, in `folder`."""
    shutil.copytree(SOURCE, folder)
    manifest = folder / "article.toml"
    own = sum(1 for line in manifest.read_text().splitlines() if line == "[[sections.table]]")
    charts = sum(1 for line in manifest.read_text().splitlines() if line == "[[sections.chart]]")
    status = folder / "status.md"
    others = [p.read_text("utf-8") for p in folder.glob("*.md") if p.name != "status.md"]
    used = [prose_layout(text) for text in others]  # what the article's other prose takes
    budget = LIMITS.prose_bytes - sum(len(t.encode()) for t in others)
    headings = LIMITS.headings - sum(h for h, _ in used)
    prose = _prose(budget, headings, LIMITS.prose_lines - sum(n for _, n in used))
    while len(prose.encode()) > budget:  # trim whole paragraphs from the end to fit
        prose = prose[: prose.rstrip().rfind("\n\n")] + "\n"
    status.write_text(prose, "utf-8")
    extra = _declarations(LIMITS.tables - own, LIMITS.charts - charts)
    manifest.write_text(manifest.read_text() + extra, "utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="write the article and its build here")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="reportgen-worst-"))
    work.mkdir(parents=True, exist_ok=True)
    article = work / "worst-case"
    shutil.rmtree(article, ignore_errors=True)
    write_article(article)
    command = [
        str(REPORTGEN),
        "build",
        str(article),
        "--out",
        str(work / "out"),
        "--no-chart-cache",
    ]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # KiB on Linux
    pdf = work / "out" / "worst-case" / "article.pdf"
    size = pdf.stat().st_size if done.returncode == 0 else 0
    print(
        f"worst case at the limits ({LIMITS.tables} tables, {LIMITS.charts} charts, "
        f"{LIMITS.prose_bytes:,} bytes of prose, {LIMITS.headings} headings, "
        f"{LIMITS.prose_lines:,} lines): build exit "
        f"{done.returncode}, {seconds:.2f} s, peak {peak / 1e6:.0f} MB, PDF {size:,} bytes"
    )
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    if done.returncode != 0:
        print(done.stdout + done.stderr, file=sys.stderr)
        return 1
    if seconds >= MAX_SECONDS or peak >= MAX_BYTES:
        print(f"FAILED: the limits must hold a build under {MAX_SECONDS:g} s and 1 GB")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
