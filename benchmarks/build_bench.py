"""Benchmark: the whole `reportgen build` of the bundled article against WeasyPrint alone.

Builds the article once to get its final `index.html`, then times, as medians, in two phases
each interleaved (ABAB, ABCABC) after one warm-up of each:

1. in-process: (a) `reportgen.build.build(folder, out, {})`, everything from reading the run
   files to writing the three outputs (no chart cache: every chart drawn), against (b)
   `weasyprint.HTML(string=html, base_url=...).write_pdf()` on that same final HTML (plain,
   default URL fetcher);
2. as subprocesses, since import time counts for the user: (a) `.venv/bin/reportgen build`
   cold, with an empty chart cache of its own (a new `REPORTGEN_CACHE_DIR` each time), (c) the
   same warm, with a cache that holds every chart (a rebuild with no chart changed), against (b)
   `python -c "import weasyprint; ..."` rendering the same HTML file to a PDF file.

It prints wall and CPU medians, the ratios against their goals (in-process 1.3x, fresh cold
1.15x, fresh warm 1.05x), and breakdowns of the build's stages (load+validate, metrics, lints,
charts, html render, pdf, metrics.json, write) measured inside real `build` calls, in this process
and in fresh ones (serial: no worker, no cache). It asserts that every build, in-process, cold or
warm, gives the same bytes; it asserts nothing about timing.

Run it with `make bench-build` (or `.venv/bin/python benchmarks/build_bench.py --help`).
`--json PATH` writes the headline figures (the wall ratios, fresh process and in-process) for
`benchmarks/run.py`; `--quick` times 2 repetitions and one fresh-process breakdown.
"""

from __future__ import annotations

import argparse
import compileall
import gc
import hashlib
import importlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial, wraps
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ARTICLE = ROOT / "runs" / "paiton-kimi-k3.1-pro"
BUILD, WEASYPRINT = "in-process build", "in-process weasyprint"
SUB_BUILD, SUB_WEASYPRINT = "subprocess reportgen build", "subprocess weasyprint"
SUB_WARM = "subprocess build, warm cache"
# The headline figures `--json` writes: (figure, build, weasyprint, goal), wall-time medians.
FIGURES = (
    ("fresh build / fresh weasyprint (wall)", SUB_BUILD, SUB_WEASYPRINT, 1.15),
    ("warm rebuild / fresh weasyprint (wall)", SUB_WARM, SUB_WEASYPRINT, 1.05),
    ("in-process build / weasyprint (wall)", BUILD, WEASYPRINT, 1.3),
)

# (stage, module, function): the functions `reportgen.build` calls, timed where it calls them
# ("Class.method" for a method). The charts are planned in `start_charts` and drawn while the
# page is laid out, when `PendingSvgs.fill` waits for them.
_STAGES = (
    ("load+validate", "reportgen.article.rundata", "load_article"),
    ("load+validate", "reportgen.article.rundata", "load"),
    ("metrics", "reportgen.article.rundata", "compute"),
    ("lints", "reportgen.article.build", "lint"),
    ("charts", "reportgen.article.charts.render", "start_charts"),
    ("charts", "reportgen.article.charts.cache", "PendingSvgs.fill"),
    ("html render", "reportgen.article.build", "build_context"),
    ("html render", "reportgen.article.build", "render_page"),
    ("pdf", "reportgen.article.pdf.render", "render_pdf"),
    ("metrics.json", "reportgen.article.build", "metrics_document"),
    ("write files", "reportgen.article.build", "publish"),
)


def _timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall seconds, CPU seconds, result) of one call; earlier calls' garbage is freed first."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, out


@contextmanager
def _instrumented(totals: dict[str, float]) -> Iterator[None]:
    """Time the build's stage functions while open; nested stages count once (exclusive)."""
    stack: list[float] = []  # time spent in nested stages, per open stage
    saved = []
    for stage, module_name, dotted in _STAGES:
        *path, name = dotted.split(".")
        owner: Any = importlib.import_module(module_name)
        for part in path:
            owner = getattr(owner, part)
        original = getattr(owner, name)
        saved.append((owner, name, original))

        def timed(*args: Any, _fn: Any = original, _stage: str = stage, **kwargs: Any) -> Any:
            stack.append(0.0)
            start = time.perf_counter()
            try:
                return _fn(*args, **kwargs)
            finally:
                spent = time.perf_counter() - start
                nested = stack.pop()
                totals[_stage] = totals.get(_stage, 0.0) + spent - nested
                if stack:
                    stack[-1] += spent

        setattr(owner, name, wraps(original)(timed))
    try:
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _run(
    cmd: list[str], env: dict[str, str], fresh_cache: Path | None = None
) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child and its worker) of one subprocess; with
    `fresh_cache`, in a new empty chart cache folder under it."""
    if fresh_cache is not None:
        env = env | {"REPORTGEN_CACHE_DIR": tempfile.mkdtemp(dir=fresh_cache)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu


def _one_shot(out: Path) -> None:
    """In a fresh process: time the imports, then one instrumented build; print JSON."""
    totals: dict[str, float] = {}
    for key, module in (
        ("import weasyprint", "weasyprint"),
        ("import matplotlib", "matplotlib.figure"),
        ("import reportgen (rest)", "reportgen.article.build"),
    ):
        totals[key], _, _ = _timed(partial(importlib.import_module, module))
    from reportgen.article.build import build

    with _instrumented(totals):
        totals["build"], _, _ = _timed(lambda: build(ARTICLE, out, {}))
    print(json.dumps(totals))


def main() -> None:  # noqa: C901, PLR0915 -- one timing script read top to bottom; its phases share the build
    """Build once, time the four measurements interleaved, print the table and breakdowns."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=7, help="timed repetitions of each (median)")
    ap.add_argument("--no-subprocess", action="store_true", help="in-process measurements only")
    ap.add_argument("--one-shot", type=Path, help=argparse.SUPPRESS)  # internal: fresh process
    ap.add_argument("--json", type=Path, help="write the headline figures (ratios) here as JSON")
    ap.add_argument("--quick", action="store_true", help="2 repetitions, 1 fresh-process build")
    args = ap.parse_args()
    # Time reportgen as an installed package runs, its modules' bytecode compiled (see run.py).
    compileall.compile_dir(ROOT / "reportgen", quiet=1)
    if args.one_shot:
        _one_shot(args.one_shot)
        return
    if args.quick:
        args.reps = 2
    if args.reps < 1:
        ap.error("--reps must be at least 1")
    script = Path(__file__).resolve().relative_to(ROOT)
    print("$ " + " ".join([".venv/bin/python", str(script), *sys.argv[1:]]) + f"   (in {ROOT})")

    imported, _, _ = _timed(partial(importlib.import_module, "reportgen.article.build"))
    import weasyprint

    from reportgen.article.build import build

    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    base_url = ARTICLE.resolve().as_uri() + "/"
    with tempfile.TemporaryDirectory(prefix="reportgen-build-bench-") as tmp_name:
        tmp = Path(tmp_name)
        first, _, target = _timed(lambda: build(ARTICLE, tmp / "in", {}))
        html_path = target / "index.html"
        html = html_path.read_text(encoding="utf-8")
        digests = {name: _sha(target / name) for name in ("index.html", "article.pdf")}
        print(
            f"article {ARTICLE.name}: index.html {len(html.encode()):,} bytes sha256 "
            f"{digests['index.html'][:16]}, article.pdf sha256 {digests['article.pdf'][:16]}"
        )
        print(
            f"reportgen {sys.modules['reportgen'].__version__} from "
            f"{Path(sys.modules['reportgen'].__file__ or '').parent}, WeasyPrint "
            f"{weasyprint.__version__}, matplotlib {sys.modules['matplotlib'].__version__}, "
            f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; "
            f"first build in this process {first:.2f} s (after importing reportgen.build in "
            f"{imported:.2f} s); then 1 warm-up + {args.reps} timed repetitions of each, "
            "interleaved"
            + ("" if args.no_subprocess else "; in-process first, then subprocesses")
            + ".\n"
        )

        def reportgen_build() -> tuple[float, float]:
            wall, cpu, out = _timed(lambda: build(ARTICLE, tmp / "in", {}))
            for name, digest in digests.items():  # checked outside the timing
                assert _sha(out / name) == digest, f"{name} changed between builds"
            return wall, cpu

        def weasyprint_alone() -> bytes:
            pdf: bytes = weasyprint.HTML(string=html, base_url=base_url).write_pdf()
            return pdf

        sub_build = [str(ROOT / ".venv/bin/reportgen"), "build", str(ARTICLE)]
        sub_build += ["--out", str(tmp / "sub")]
        sub_weasy = [
            sys.executable,
            "-c",
            "import sys, weasyprint; "
            "weasyprint.HTML(string=open(sys.argv[1], encoding='utf-8').read(), "
            "base_url=sys.argv[2]).write_pdf(sys.argv[3])",
            str(html_path),
            base_url,
            str(tmp / "weasyprint.pdf"),
        ]
        warm_cache, cold_caches = tmp / "warm-cache", tmp / "cold-caches"
        cold_caches.mkdir()

        def cli_build(cache: Path | None) -> tuple[float, float]:
            """A fresh `reportgen build`: cold in a new empty cache (cache None), else warm."""
            warm_env = env if cache is None else env | {"REPORTGEN_CACHE_DIR": str(cache)}
            times = _run(sub_build, warm_env, cold_caches if cache is None else None)
            for name, digest in digests.items():  # checked outside the timing
                assert _sha(tmp / "sub" / ARTICLE.name / name) == digest, f"{name} changed"
            return times

        cli_build(warm_cache)  # fills the warm cache
        assert len(list(warm_cache.rglob("*.svg"))) == html.count("<svg "), "cache not filled"
        # Two phases, each interleaved after one warm-up of each: subprocesses running
        # between in-process repetitions inflated the in-process ratio (1.70x against 1.36x).
        phases: list[list[tuple[str, Callable[[], tuple[float, float]]]]] = [
            [
                (BUILD, reportgen_build),
                (WEASYPRINT, lambda: _timed(weasyprint_alone)[:2]),
            ]
        ]
        if not args.no_subprocess:
            phases.append(
                [
                    (SUB_BUILD, partial(cli_build, None)),
                    (SUB_WARM, partial(cli_build, warm_cache)),
                    (SUB_WEASYPRINT, partial(_run, sub_weasy, env)),
                ]
            )
        wall: dict[str, list[float]] = {name: [] for pairs in phases for name, _ in pairs}
        cpu: dict[str, list[float]] = {name: [] for name in wall}
        stages: list[dict[str, float]] = []
        for pairs in phases:
            for rep in range(args.reps + 1):  # rep 0 is the warm-up
                for name, fn in pairs:
                    totals: dict[str, float] = {}
                    with _instrumented(totals):  # only the in-process build calls the stages
                        w, c = fn()
                    if rep > 0:
                        wall[name].append(w)
                        cpu[name].append(c)
                        if name == BUILD:
                            stages.append(totals | {"total": w})
        fresh: list[dict[str, float]] = []
        if not args.no_subprocess:
            one_shot = [sys.executable, __file__, "--one-shot", str(tmp / "fresh")]
            for _ in range(1 if args.quick else 3):
                done = subprocess.run(one_shot, check=True, env=env, capture_output=True)
                fresh.append(json.loads(done.stdout))
    _report(wall, cpu, stages, fresh)
    if args.json:
        med = {name: statistics.median(v) for name, v in wall.items()}
        figures = {f: med[a] / med[b] for f, a, b, _ in FIGURES if a in med}
        args.json.write_text(json.dumps(figures) + "\n", encoding="utf-8")


def _report(
    wall: dict[str, list[float]],
    cpu: dict[str, list[float]],
    stages: list[dict[str, float]],
    fresh: list[dict[str, float]],
) -> None:
    med = {name: statistics.median(v) for name, v in wall.items()}
    med_cpu = {name: statistics.median(v) for name, v in cpu.items()}
    print(f"{'seconds':<28}{'wall median':>12}{'min':>8}{'max':>8}{'CPU median':>12}")
    for name, values in wall.items():
        print(
            f"{name:<28}{med[name]:>12.3f}{min(values):>8.3f}{max(values):>8.3f}"
            f"{med_cpu[name]:>12.3f}"
        )
    print()
    for label, a, b, goal in FIGURES:
        if a not in med:
            continue
        ratio = med[a] / med[b]
        verdict = "meets" if ratio <= goal else "misses"
        print(
            f"{label}: {ratio:.2f}x ({verdict} the {goal}x goal); "
            f"{med_cpu[a] / med_cpu[b]:.2f}x CPU"
        )

    order = list(dict.fromkeys(stage for stage, _, _ in _STAGES))
    print(f"\nbreakdown of the in-process build (wall seconds, median of {len(stages)})")
    cols = {s: statistics.median(t.get(s, 0.0) for t in stages) for s in order}
    total = statistics.median(t["total"] for t in stages)
    for stage in order:
        print(f"  {stage:<26}{cols[stage]:>8.3f}{cols[stage] / total:>6.0%}")
    other = statistics.median(t["total"] - sum(t.get(s, 0.0) for s in order) for t in stages)
    print(f"  {'other':<26}{other:>8.3f}{other / total:>6.0%}")
    print(f"  {'total':<26}{total:>8.3f}")
    print(f"  {'(weasyprint alone)':<26}{med[WEASYPRINT]:>8.3f}")
    if not fresh:
        return
    print(
        f"\nbreakdown of one serial build in a fresh process (no PDF worker, no chart cache; "
        f"wall seconds, median of {len(fresh)}, "
        "run after the loop above)"
    )
    imports = ["import weasyprint", "import matplotlib", "import reportgen (rest)"]
    for key in imports + order:
        print(f"  {key:<26}{statistics.median(f.get(key, 0.0) for f in fresh):>8.3f}")
    spent = [sum(f[k] for k in imports) + f["build"] for f in fresh]
    print(f"  {'build (all stages)':<26}{statistics.median(f['build'] for f in fresh):>8.3f}")
    print(f"  {'imports + build':<26}{statistics.median(spent):>8.3f}")


if __name__ == "__main__":
    main()
