"""Parse stage for LocalMaxxing `lmx speed-test` run JSON.

Schema-valid raw JSON in, a `CanonicalRun` plus semantic problems out. The only module that reads
lmx's raw keys.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from reportgen import tolerances as tol
from reportgen.errors import Problem
from reportgen.formats.base import Detection, RunFormat
from reportgen.formats.json_input.document import (
    TOO_LARGE,
    JsonDocument,
    escape_pointer_token,
    split_pointer,
    unfit_numbers,
)
from reportgen.frozendict import FrozenDict
from reportgen.model import CanonicalRun, CanonicalSample, CanonicalSummary, Scalar, SourceFile
from reportgen.stats import close, median

# Verified-run evidence a submission may carry (run-formats.md section 2).
EVIDENCE_KEYS = (
    "promptSha256",
    "promptSample",
    "outputSha256",
    "outputSample",
    "engineTimingsRaw",
    "engineRepository",
    "engineBuild",
    "engineCommit",
    "peakVramGb",
    "modelRevision",
    "backend",
    "contextLength",
    "batchSize",
)


def _scalars(raw: dict[str, Any], keys: tuple[str, ...] | None = None) -> FrozenDict[str, Scalar]:
    items = raw.items() if keys is None else ((k, raw[k]) for k in keys if k in raw)
    return FrozenDict(
        sorted((k, v) for k, v in items if v is None or isinstance(v, str | int | float | bool))
    )


_Report = Callable[[str, str, str], None]  # pointer under the run, message, severity


def _check_sample(
    s: dict[str, Any], at: str, prompt: Any, max_tokens: Any, report: _Report
) -> None:
    """A sample's output tokens within `maxTokens`, its prefill rate against its prompt and TTFT."""
    if max_tokens is not None and s["outputTokens"] > max_tokens:
        report(
            f"{at}/outputTokens",
            f"{s['outputTokens']} output tokens exceed engineFlags.maxTokens {max_tokens}",
            "error",
        )
    prefill = s.get("tokSPrefill")
    if (
        prompt
        and prefill
        and not close(prefill, prompt / (s["ttftMs"] / 1000), rel=tol.LMX_SUMMARY.rel, abs_=0.51)
    ):
        report(
            f"{at}/tokSPrefill",
            f"tokSPrefill {prefill:g} disagrees with promptTokens / TTFT = {prompt} / "
            f"{s['ttftMs'] / 1000:g} s = {prompt / (s['ttftMs'] / 1000):.6g}",
            "warning",
        )


def _samples(
    raw: dict[str, Any],
    base: str,
    max_tokens: Any,
    report: _Report,
    fit: Callable[[dict[str, Any], str], dict[str, Any]],
) -> tuple[list[CanonicalSample], dict[int, int]]:
    """The run's samples, each (iteration, request) once, and the index of each iteration's first
    sample; a sample with a number too large is reported and left out."""
    samples = []
    seen: dict[tuple[int, int], int] = {}
    first_of: dict[int, int] = {}
    for i, s in enumerate(raw.get("samples") or []):
        at = f"/samples/{i}"
        if unfit_numbers(s):
            fit(s, at)
            continue
        first_of.setdefault(int(s["iteration"]), i)
        key = (int(s["iteration"]), int(s.get("request") or 0))
        if key in seen:
            report(at, f"iteration {key[0]} request {key[1]} repeats /samples/{seen[key]}", "error")
        seen[key] = i
        prompt = s.get("promptTokens", raw.get("promptTokens"))
        _check_sample(s, at, prompt, max_tokens, report)
        prefill = s.get("tokSPrefill")
        samples.append(
            CanonicalSample(
                pointer=base + at,
                iteration=key[0],
                request=key[1],
                prompt_tokens=int(prompt or 0),
                output_tokens=int(s["outputTokens"]),
                tok_s_out=float(s["tokSOut"]),
                ttft_ms=float(s["ttftMs"]),
                tok_s_prefill=None if prefill is None else float(prefill),
            )
        )
    return samples, first_of


def _check_iterations(
    samples: list[CanonicalSample],
    first_of: dict[int, int],
    concurrency: int,
    iterations: Any,
    report: _Report,
) -> None:
    """Each iteration sends `concurrency` requests, and the samples hold `iterations` of them."""
    by_iteration: dict[int, int] = defaultdict(int)
    for sample in samples:
        by_iteration[sample.iteration] += 1
    for iteration, count in sorted(by_iteration.items()):
        if count != concurrency:
            report(
                f"/samples/{first_of[iteration]}",
                f"iteration {iteration} has {count} request sample(s) but engineFlags.concurrency "
                f"is {concurrency}: each iteration sends that many requests",
                "error",
            )
    if samples and iterations is not None and len(by_iteration) != iterations:
        report(
            "/samples",
            f"{len(by_iteration)} iterations in samples but engineFlags.iterations is {iterations}",
            "warning",
        )


def _check_summary(raw: dict[str, Any], samples: list[CanonicalSample], report: _Report) -> None:
    """At concurrency 1, the summary's tokSOut and ttftMs are the medians of the samples'."""
    for field, computed, shown in (
        ("tokSOut", median(s.tok_s_out for s in samples), raw.get("tokSOut")),
        ("ttftMs", median(s.ttft_ms for s in samples), raw.get("ttftMs")),
    ):
        if (
            shown is not None
            and computed is not None
            and not close(shown, computed, rel=tol.LMX_SUMMARY.rel, abs_=tol.LMX_SUMMARY.abs_)
        ):
            report(
                f"/{field}",
                f"{field} {shown:g} disagrees with the median of its samples ({computed:.6g})",
                "warning",
            )


def parse(doc: JsonDocument, base: str, source: SourceFile) -> tuple[CanonicalRun, list[Problem]]:
    """Build the `CanonicalRun` for the lmx run at pointer `base` of a schema-valid document."""
    raw: dict[str, Any] = doc.data
    for token in split_pointer(base):
        raw = raw[token]
    problems: list[Problem] = []

    def report(pointer: str, message: str, severity: str) -> None:
        problems.append(doc.problem(base + pointer, message, severity))

    def fit(part: dict[str, Any], where: str) -> dict[str, Any]:
        unfit = unfit_numbers(part)
        for key in unfit:
            report(f"{where}/{escape_pointer_token(key)}", TOO_LARGE, "error")
        return {**part, **dict.fromkeys(unfit)} if unfit else part

    raw = fit(raw, "")
    flags: dict[str, Any] = fit(raw.get("engineFlags") or {}, "/engineFlags")
    concurrency = int(flags.get("concurrency") or 1)
    max_tokens = flags.get("maxTokens")
    iterations = flags.get("iterations")
    samples, first_of = _samples(raw, base, max_tokens, report, fit)
    _check_iterations(samples, first_of, concurrency, iterations, report)
    summary = CanonicalSummary(
        tok_s_out=float(raw["tokSOut"] or 0),  # None: too large, reported by `fit`
        ttft_ms=None if raw.get("ttftMs") is None else float(raw["ttftMs"]),
        tok_s_prefill=None if raw.get("tokSPrefill") is None else float(raw["tokSPrefill"]),
        tok_s_total=None if raw.get("tokSTotal") is None else float(raw["tokSTotal"]),
        tok_s_out_source=raw.get("tokSOutSource"),
    )
    if samples and concurrency == 1:
        _check_summary(raw, samples, report)
    run = CanonicalRun(
        source=source,
        hf_id=str(raw["hfId"]),
        engine_name=str(raw["engineName"]),
        engine_version=raw.get("engineVersion"),
        quantization=raw.get("quantization"),
        concurrency=concurrency,
        max_tokens=max_tokens,
        iterations=iterations,
        prompt_id=flags.get("promptSource") or flags.get("promptId"),
        prompt_tokens=raw.get("promptTokens"),
        output_tokens=raw.get("outputTokens"),
        samples=tuple(samples),
        summary=summary,
        engine_flags=_scalars(flags),
        evidence=_scalars(raw, EVIDENCE_KEYS),
        warnings=tuple(str(w) for w in raw.get("warnings") or ()),
        pointer=base,
    )
    return run, problems


_VERSION = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")


def detect(data: dict[str, Any]) -> Detection | None:
    """An lmx run is recognised by `tokSOut`, bare or inside `{"payload": ...}`."""
    if "tokSOut" in data:
        return Detection("", "lmx-speed-test")
    payload = data.get("payload")
    if isinstance(payload, dict) and "tokSOut" in payload:
        # the wrapper's own keys (its dataProvenance) are checked like the matrix wrapper's
        return Detection("/payload", "lmx-speed-test", "lmx-matrix")
    return None


def version(run: dict[str, Any]) -> tuple[str, str]:
    """lmx's version from `provenance.cliVersion`, else from the `provenance.cli` string."""
    prov = run["provenance"]
    if "cliVersion" in prov:
        return str(prov["cliVersion"]).lstrip("v"), "/provenance/cliVersion"
    found = _VERSION.search(str(prov["cli"]))
    return (found.group(0).lstrip("v") if found else "unknown"), "/provenance/cli"


FORMAT = RunFormat(
    name="lmx-speed-test",
    tool="lmx",
    tested_versions=((0, 1), (0, 1)),
    looks_like="an lmx speed-test run",
    marks=("/tokSOut", "/ttftMs", "/hfId", "/engineFlags", "/samples", "/provenance"),
    detect=detect,
    version=version,
    parse=parse,
)
