"""The worst cases the documented caps allow, each run in a fresh process and timed.

- build: a copy of `runs/tiny-llamacpp-two-tools` (its run files, as the project measured them)
  that declares everything an article may, each at its limit (reportgen/article/source/limits.py):
  `LIMITS.tables` tables, `LIMITS.charts` charts (each drawn: the chart cache is off), and
  `LIMITS.prose_bytes` of prose with `LIMITS.headings` headings and emphasis nested far past what
  is laid out, built by `reportgen build`;
- check: each published copy of `worst_copies.py`, at the cap of `reportgen check` it is the
  slowest input for, checked against the two-tool article;
- cache: a chart-cache entry and a `submissions.json` at the cache file cap, read;
- run files: `reportgen validate` of run files at two sizes. Run files legitimately reach
  hundreds of MB, so no size cap holds them to 10 s: this prints the rate (s and MB per MB of
  input) and requires it to stay linear (twice the input, less than `RATIO` times the time).

Each case's wall time and the peak resident memory of its process (and of its forked workers or
children) are measured. It fails (exit 1) when a case does not end as expected (the copies are
read to the end, the endless PDF refused), or takes 10 s or more, or 1 GB or more: the caps are
set so that none does, on a 2-core machine. It is a test of the caps, run on its own by
`make limits` (which `.ci/run` calls) rather than in the parallel test suite, where the other
tests' load would decide the time.

    .venv/bin/python benchmarks/worst_case.py [--keep DIR] [--only build,check,cache,run]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import worst_copies  # noqa: E402
from jsonl_bench import generate as aiperf_export  # noqa: E402

from reportgen.article.source.limits import LIMITS, prose_layout  # noqa: E402
from reportgen.fileio import cap_bytes  # noqa: E402

SOURCE = ROOT / "runs" / "tiny-llamacpp-two-tools"
# this tree's reportgen, whatever the virtualenv has installed
REPORTGEN = [sys.executable, "-m", "reportgen"]
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
}
MAX_SECONDS, MAX_BYTES = 10.0, 1_000_000_000
RATIO = 3.0  # linear: about 2


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


@dataclass(frozen=True)
class Ran:
    """One case run in a fresh process: its exit status, output, wall time and peak memory."""

    code: int
    out: str
    seconds: float
    peak: int  # bytes: the largest resident set of the process and of its children


# Starts a command and writes its peak resident memory (KiB) to a file. A process's peak counts
# the memory of the process it was started from, up to its exec (Linux keeps the largest), so the
# case is started from this small one, not from the benchmark, which holds the inputs it wrote.
_SPAWN = """
import os, sys
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status) % 256)
"""


def run(command: list[str], work: Path) -> Ran:
    """`command` in a fresh process, its output to files (a pipe could fill), timed."""
    out_path, err_path, peak_path = work / "out.txt", work / "err.txt", work / "peak.txt"
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    actions = [
        (os.POSIX_SPAWN_OPEN, 1, str(out_path), flags, 0o644),
        (os.POSIX_SPAWN_OPEN, 2, str(err_path), flags, 0o644),
    ]
    wrapped = [sys.executable, "-c", _SPAWN, str(peak_path), *command]
    start = time.perf_counter()
    pid = os.posix_spawn(sys.executable, wrapped, ENV, file_actions=actions)
    _, status, _ = os.wait4(pid, 0)
    seconds = time.perf_counter() - start
    said = out_path.read_text("utf-8", "replace") + err_path.read_text("utf-8", "replace")
    peak = int(peak_path.read_text()) * 1024  # KiB on Linux
    return Ran(os.waitstatus_to_exitcode(status), said, seconds, peak)


def _held(name: str, ran: Ran, expected: str | None = None) -> bool:
    """Print one case's line; True when it ended as expected within the bounds."""
    ok = ran.seconds < MAX_SECONDS and ran.peak < MAX_BYTES
    ended = expected is None or expected in ran.out
    print(
        f"  {name:<40} exit {ran.code}, {ran.seconds:5.2f} s, peak {ran.peak / 1e6:5.0f} MB"
        + ("" if ok and ended else "  FAILED")
    )
    if not ended:
        print(f"    expected {expected!r} in its output:\n    {ran.out[-600:]}", file=sys.stderr)
    return ok and ended


def build_case(work: Path) -> bool:
    """The article at every limit, built."""
    article = work / "worst-case"
    shutil.rmtree(article, ignore_errors=True)
    write_article(article)
    command = [*REPORTGEN, "build", str(article), "--out", str(work / "out"), "--no-chart-cache"]
    ran = run(command, work)
    pdf = work / "out" / "worst-case" / "article.pdf"
    size = pdf.stat().st_size if ran.code == 0 else 0
    print(
        f"build at the article limits ({LIMITS.tables} tables, {LIMITS.charts} charts, "
        f"{LIMITS.prose_bytes:,} bytes of prose, {LIMITS.headings} headings, "
        f"{LIMITS.prose_lines:,} lines; PDF {size:,} bytes):"
    )
    return _held("build", ran, "" if ran.code == 0 else "exit 0")


def check_cases(work: Path) -> bool:
    """Each worst published copy at its cap, checked against the two-tool article."""
    print("check of a published copy, each at its cap:")
    held = True
    for name in [*worst_copies.COPIES, "pdf-mixed", "pdf", *worst_copies.PAST_CAPS]:
        data, suffix = worst_copies.copy(name)
        path = work / f"copy{suffix}"
        path.write_bytes(data)
        ran = run([*REPORTGEN, "check", str(SOURCE), "--published", str(path)], work)
        # read to the end: it fails (numbers unverified or missing) but is not refused
        expected = "numbers match"
        if name in worst_copies.PAST_CAPS:
            expected = worst_copies.REFUSAL
        elif name == "pdf":
            expected = "of CPU time"
        label = f"{name} ({len(data):,} bytes)"
        held = _held(label, ran, expected) and held
    return held


_READ_ENTRY = """
import sys
from pathlib import Path
from reportgen.article.charts.allowlist import safe_svg
from reportgen.fileio import read_cached
data = read_cached(Path(sys.argv[1]))
assert data is not None, "the entry was not read"
safe_svg(data.decode("utf-8"), "worst-chart", "Worst")
"""
_READ_RECORDS = """
import sys
from pathlib import Path
from reportgen.errors import InputError
from reportgen.localmaxxing.records import load_records
try:
    load_records(Path(sys.argv[1]))
except InputError as exc:
    print(exc)
"""


def cache_cases(work: Path) -> bool:
    """A chart-cache entry of SVG shapes, and a `submissions.json` of empty records, each at
    the cache file cap."""
    cap = cap_bytes("cache")
    print(f"cache files at the cache file cap ({cap / 2**20:g} MiB):")
    shape = '<path id="worst-chart-p" d="M 0 0 L 1 1"/>\n'
    head = '<svg xmlns="http://www.w3.org/2000/svg" version="1.1">\n'
    entry = head + shape * ((cap - len(head) - 7) // len(shape)) + "</svg>\n"
    (work / "entry.svg").write_text(entry, "utf-8")
    records = '{"submissions": [' + ",".join(["{}"] * ((cap - 20) // 3)) + "]}"
    (work / "records").mkdir(exist_ok=True)
    (work / "records" / "submissions.json").write_text(records, "utf-8")
    python = [sys.executable, "-c"]
    held = _held("chart-cache entry", run([*python, _READ_ENTRY, str(work / "entry.svg")], work))
    ran = run([*python, _READ_RECORDS, str(work / "records")], work)
    return _held("submissions.json", ran) and held


# Run files, each kind at two sizes (MB): the rate at each, and how it grows. A valid file is read
# fast, so it is read larger: the process's start-up would be most of its time.
HOSTILE_SIZES, VALID_SIZES = (1.0, 2.0), (16.0, 32.0)


def _bad_records(path: Path, size: int) -> None:
    """SGLang's first record, then `{}` a line: read whole, every record failing its schema."""
    first = (ROOT / "tests" / "examples" / "valid" / "sglang-c1.jsonl").read_text("utf-8")
    path.write_text(first.splitlines()[0] + "\n" + "{}\n" * (size // 3), "utf-8")


def _bad_lines(path: Path, size: int) -> None:
    """AIPerf's first record, then `NaN` a line: streamed, every line a syntax problem."""
    first = (ROOT / "tests" / "examples" / "valid" / "aiperf-records-c1.jsonl").read_text("utf-8")
    path.write_text(first.splitlines()[0] + "\n" + "NaN\n" * (size // 4), "utf-8")


def _empty_items(path: Path, size: int) -> None:
    """A JSON document of llama-bench's one test, then `{}` items: parsed whole, then checked."""
    tests = json.loads((ROOT / "tests" / "examples" / "valid" / "llama-bench.json").read_text())
    path.write_text(json.dumps(tests[:1] + [{}] * (size // 4)), "utf-8")


def _aiperf(path: Path, size: int) -> None:
    """A valid AIPerf per-request export (`benchmarks/jsonl_bench.py`), streamed."""
    aiperf_export(path, size // 3400)


RUN_FILES = {
    "valid AIPerf export (.jsonl)": ("profile_export.jsonl", _aiperf, VALID_SIZES),
    "{} records (.jsonl, read whole)": ("sglang.jsonl", _bad_records, HOSTILE_SIZES),
    "NaN lines (.jsonl, streamed)": ("aiperf.jsonl", _bad_lines, HOSTILE_SIZES),
    "{} items (.json)": ("llama-bench.json", _empty_items, HOSTILE_SIZES),
}


def run_file_cases(work: Path) -> bool:
    """`reportgen validate` of each kind of run file at its two sizes: rates, and linear."""
    print("validate of run files, each at two sizes (the rate is that of the added MB):")
    held = True
    for name, (file, make, sizes) in RUN_FILES.items():
        rates = []
        for mb in sizes:
            path = work / file
            make(path, int(mb * 1_000_000))
            ran = run([*REPORTGEN, "validate", str(path)], work)
            size = path.stat().st_size / 1e6
            rates.append((ran.seconds, ran.peak / 1e6, size))
        (small, small_mb, small_size), (large, large_mb, large_size) = rates
        linear = large / small < RATIO and large_mb / small_mb < RATIO
        grown = large_size - small_size  # the rate of the added MB: without the start-up
        print(
            f"  {name:<40} {(large - small) / grown:5.2f} s and "
            f"{(large_mb - small_mb) / grown:5.1f} MB per MB ({small:.2f} s, {small_mb:.0f} MB "
            f"at {small_size:.1f} MB; {large:.2f} s, {large_mb:.0f} MB at {large_size:.1f} MB)"
            + ("" if linear else "  FAILED: not linear")
        )
        held = held and linear
    return held


CASES = {"build": build_case, "check": check_cases, "cache": cache_cases, "run": run_file_cases}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="write the inputs and the build here")
    parser.add_argument("--only", help=f"comma-separated cases of {', '.join(CASES)}")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="reportgen-worst-"))
    work.mkdir(parents=True, exist_ok=True)
    names = args.only.split(",") if args.only else list(CASES)
    try:
        held = [CASES[name](work) for name in names]
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if not all(held):
        print(f"FAILED: the caps must hold each case under {MAX_SECONDS:g} s and 1 GB")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
