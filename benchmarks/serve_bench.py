"""Benchmark: from a prose edit to the new page in the browser's hands, under `reportgen serve`.

Starts a fresh `reportgen serve` on a copy of the bundled article (port 0: any free port on
127.0.0.1; a chart cache of its own, filled by the first build), and waits for its first page.
Then, for each repetition, it opens the event stream as the page's script does (with the version
the page was served at), appends a sentence with a new word to the article's prose file, and
times, from the moment the file is written:

1. until the stream announces the reload (`event: reload`);
2. until the page fetched after that announcement holds the new word;
3. in headless Chromium (Debian's, driven by Playwright) showing the page with its reload
   script: until the reloaded page, holding the new word, has parsed its document (the page's
   own clock, `performance.timeOrigin` + `domContentLoadedEventEnd`, against the time of the
   write: both are wall-clock milliseconds).

It prints the medians, min and max, and two figures (goal 0.3 s each, issue 24): `serve: prose
edit to new page (s)`, the median of 2, and `serve: prose edit shown in Chromium (s)`, the median
of 3. It asserts that every edit reaches the page; it asserts nothing about timing. `--json PATH`
writes the figures for `benchmarks/run.py`; `--quick` times 5 edits instead of 21.

Run it with `make bench` (or `.venv/bin/python benchmarks/serve_bench.py --help`).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import re
import shutil
import signal
import statistics
import string
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
ARTICLE = ROOT / "runs" / "paiton-kimi-k3.1-pro"
PROSE = "status.md"  # the bundled article's prose file
FIGURE = "serve: prose edit to new page (s)"
BROWSER_FIGURE = "serve: prose edit shown in Chromium (s)"
FIGURES = (FIGURE, BROWSER_FIGURE)
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
EVENTS = "/_reportgen/events"  # reportgen.serve.page.EVENTS (this script imports no reportgen)
START_S = 60.0  # the server's first line, and its first build, come within this
EDIT_S = 10.0  # an edit reaches the page within this, or the benchmark fails


def _url(server: subprocess.Popen[str]) -> str:
    """The address `reportgen serve` prints when it listens."""
    assert server.stderr is not None
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        line = server.stderr.readline()
        if not line:
            raise SystemExit(f"reportgen serve exited {server.wait()} before it listened")
        found = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
        if found:
            return found.group(1)
    raise SystemExit("reportgen serve did not say where it listens")


def _stream(page: str) -> str:
    """The event stream's address, as the served page's reload script opens it."""
    found = re.search(r'new EventSource\("(' + re.escape(EVENTS) + r'[^"]*)"\)', page)
    assert found, "the served page has no reload script"
    return found.group(1)


def _word() -> str:
    return "edit" + "".join(random.choices(string.ascii_lowercase, k=12))


def one_edit(client: httpx.Client, url: str, prose: Path, text: str) -> tuple[float, float]:
    """(seconds to the reload event, seconds to the new page) of one edit of `prose`."""
    stream_path = _stream(client.get(url).text)
    word = _word()
    with client.stream("GET", url.rstrip("/") + stream_path) as stream:
        lines = stream.iter_lines()
        assert next(lines).startswith("retry:")  # the stream is open
        start = time.perf_counter()
        prose.write_text(f"{text}\nThis sentence was added by the benchmark: {word}.\n")
        announced = None
        deadline = start + EDIT_S
        for line in lines:
            if time.perf_counter() > deadline:
                break
            if not line.startswith("event: reload"):
                continue
            announced = announced or time.perf_counter() - start
            if word in client.get(url).text:
                return announced, time.perf_counter() - start
    raise SystemExit(f"the edit ({word}) did not reach the page within {EDIT_S} s")


def browser_edits(url: str, prose: Path, text: str, reps: int) -> list[float]:
    """Seconds from each edit of `prose` to the reloaded page, with the new word, parsed by
    headless Chromium (one warm-up first)."""
    from playwright.sync_api import sync_playwright

    shown = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page()
            page.goto(url)
            for rep in range(reps + 1):
                word = _word()
                written_ms = time.time() * 1000
                prose.write_text(f"{text}\nThis sentence was added by the benchmark: {word}.\n")
                page.wait_for_function(
                    f"document.body !== null && document.body.innerText.includes({word!r})",
                    timeout=EDIT_S * 1000,
                )
                page.wait_for_load_state("domcontentloaded")
                parsed_ms = page.evaluate(
                    "performance.timeOrigin + "
                    "performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd"
                )
                if rep > 0:
                    shown.append((parsed_ms - written_ms) / 1000)
        finally:
            browser.close()
    return shown


def main() -> None:
    """Serve a copy of the bundled article, edit its prose, and time each edit to the page."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=21, help="timed edits (median)")
    ap.add_argument("--json", type=Path, help="write the figure here as JSON")
    ap.add_argument("--quick", action="store_true", help="5 edits")
    args = ap.parse_args()
    compileall.compile_dir(ROOT / "reportgen", quiet=1)  # as an installed package runs
    if args.quick:
        args.reps = 5
    if args.reps < 1:
        ap.error("--reps must be at least 1")
    with tempfile.TemporaryDirectory(prefix="reportgen-serve-bench-") as tmp_name:
        tmp = Path(tmp_name)
        article = tmp / ARTICLE.name
        shutil.copytree(ARTICLE, article)
        prose = article / PROSE
        text = prose.read_text(encoding="utf-8")
        env = os.environ | {"REPORTGEN_CACHE_DIR": str(tmp / "cache")}
        cmd = [sys.executable, "-m", "reportgen", "serve", str(article), "--port", "0"]
        server = subprocess.Popen(cmd, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
        try:
            url = _url(server)
            drain = threading.Thread(target=server.stderr.read, daemon=True)  # type: ignore[union-attr]
            drain.start()  # the rebuilds' lines: a full pipe would stop the server
            with httpx.Client(timeout=START_S) as client:
                started = time.perf_counter()
                client.get(url)  # waits for the first build (charts drawn, cache filled)
                first = time.perf_counter() - started
                one_edit(client, url, prose, text)  # warm-up
                timed = [one_edit(client, url, prose, text) for _ in range(args.reps)]
            shown = browser_edits(url, prose, text, args.reps)
        finally:
            server.send_signal(signal.SIGINT)
            code = server.wait(timeout=30)
        if code != 0:
            raise SystemExit(f"reportgen serve exited {code} on Ctrl-C")
    events, pages = [t[0] for t in timed], [t[1] for t in timed]
    print(f"article {ARTICLE.name}; first page after {first:.2f} s; 1 warm-up + {args.reps} edits")
    print(f"{'seconds from the edit':<28}{'median':>8}{'min':>8}{'max':>8}")
    rows = (
        ("to the reload event", events),
        ("to the new page", pages),
        ("to the page in Chromium", shown),
    )
    for name, values in rows:
        print(f"{name:<28}{statistics.median(values):>8.3f}{min(values):>8.3f}{max(values):>8.3f}")
    found = {FIGURE: statistics.median(pages), BROWSER_FIGURE: statistics.median(shown)}
    print()
    for name, value in found.items():
        print(f"{name:<44}{value:>8.3f}")
    if args.json:
        args.json.write_text(json.dumps(found) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
