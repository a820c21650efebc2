"""Payload stage: a measured canonical run, its metric values and the article's setup in; the
LocalMaxxing submission body out. Pure: no files, clock or network.

Every number comes from somewhere named: speeds and TTFT from the metric registry
(`canonical.c{N}.*`, never the file's own summary fields), token counts and verified-run evidence
from the run model, hardware and the engine's description from the article's setup. Where the run
file and the setup both state a value (model, engine, quantization, build), they must agree.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from reportgen import __version__
from reportgen.errors import InputError, Problem
from reportgen.frozendict import FrozenDict
from reportgen.metrics.registry import MetricSet, MetricValue, metric_id
from reportgen.model import CanonicalRun, Hardware, Scalar, Setup

# lmx reports its summary fields with 2 decimals (roundMetric); the payload does the same.
DECIMALS = 2
# (payload field, metric key): the numbers the registry supplies.
METRIC_FIELDS = (
    ("tokSOut", "canonical.output_tok_s"),
    ("ttftMs", "canonical.ttft_ms"),
    ("tokSPrefill", "canonical.prefill_tok_s"),
)
# Verified-run evidence and run facts copied from the run file when it carries them.
EVIDENCE_FIELDS = (
    "modelRevision",
    "engineRepository",
    "engineCommit",
    "backend",
    "contextLength",
    "batchSize",
    "peakVramGb",
    "promptSha256",
    "promptSample",
    "outputSha256",
    "outputSample",
    "engineTimingsRaw",
)
# lmx engineFlags worth forwarding; the rest (baseUrl, servedModel, timeouts...) stay private.
FORWARDED_FLAGS = (
    "tensorParallel",
    "pipelineParallel",
    "kvCacheDtype",
    "prefixCaching",
    "specDecoding",
    "specMethod",
    "specModel",
    "specDraftModel",
    "specNumTokens",
    "specDraftTokens",
    "specAcceptedTokens",
    "specAcceptanceRate",
    "specMeanAcceptedLength",
    "mtpEnabled",
    "temperature",
    "topP",
    "topK",
    "minP",
    "warmup",
)


@dataclass(frozen=True, kw_only=True)
class Payload:
    """One submission body, exactly as it will be sent, and where its numbers came from."""

    run_file: str
    run_sha256: str
    concurrency: int
    prompt_id: str | None
    text: str  # the JSON body; sent and saved byte for byte
    sources: FrozenDict[str, str]  # payload field -> metric id

    def body(self) -> dict[str, Any]:
        """A fresh copy of the body as a mapping."""
        data: dict[str, Any] = json.loads(self.text)
        return data

    @property
    def sha256(self) -> str:
        """The sha256 of the body text."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


def dumps(body: dict[str, Any]) -> str:
    """The canonical text of a payload body."""
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def _plain(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def _same(a: str, b: str) -> bool:
    return a.strip().casefold() == b.strip().casefold()


def _metric(metrics: MetricSet, run: CanonicalRun, key: str) -> MetricValue | None:
    wanted = metric_id(key, concurrency=run.concurrency)
    for value in metrics.values:
        if value.id == wanted and value.file == run.source.label:
            return value
    return None


def _hardware(hw: Hardware) -> dict[str, Any]:
    out: dict[str, Any] = {
        "hwClass": "DISCRETE_GPU",
        "gpuName": hw.gpu_name,
        "gpuCount": hw.gpu_count,
    }
    if hw.gpu_vram_gb:
        out["vramGb"] = _plain(hw.gpu_vram_gb)  # per GPU, as lmx's hardware files state it
    if hw.cpu:
        out["cpu"] = hw.cpu
    if hw.ram_gb:
        out["ramGb"] = _plain(hw.ram_gb)
    if hw.os:
        out["os"] = hw.os
    if hw.gpu_power_cap_w:
        out["powerWatts"] = _plain(hw.gpu_power_cap_w * hw.gpu_count)
    return out


def _notes(run: CanonicalRun, setup: Setup, hw: Hardware, sources: list[tuple[str, str]]) -> str:
    how = [f"Measured with {run.source.tool}"]
    if run.prompt_id:
        how.append(f"canonical prompt {run.prompt_id}")
    how.append(
        "one request per iteration"
        if run.concurrency == 1
        else f"{run.concurrency} requests together per iteration"
    )
    if run.iterations:
        how.append(f"{run.iterations} timed iteration{'s' if run.iterations > 1 else ''}")
    if run.max_tokens:
        how.append(f"max_tokens {run.max_tokens}")
    parts = [", ".join(how) + "."]
    engine = f"Engine: {setup.engine_name}"
    if setup.engine_build:
        engine += f" build {setup.engine_build}"
    if setup.engine_description:
        engine += f": {setup.engine_description.rstrip('.')}"
    parts.append(engine + ".")
    if hw.gpu_power_cap_w:
        rated = f" (rated {hw.gpu_rated_power_w:,g} W)" if hw.gpu_rated_power_w else ""
        parts.append(
            f"GPU power cap {hw.gpu_power_cap_w:,g} W per GPU{rated}; hardware.powerWatts is "
            f"the cap summed over the {hw.gpu_count} GPUs."
        )
    if hw.gpu_note:
        parts.append(f"{hw.gpu_note.rstrip('.')}.")
    if setup.checkpoint:
        parts.append(f"Checkpoint: {setup.checkpoint.rstrip('.')}.")
    parts.append(
        f"{', '.join(f for f, _ in sources)} computed by reportgen {__version__} "
        f"({', '.join(m for _, m in sources)}) from run file sha256 {run.source.sha256}."
    )
    return " ".join(parts)


def build(run: CanonicalRun, metrics: MetricSet, setup: Setup) -> Payload:
    """The submission body of one measured canonical run; raises `InputError` listing every
    value that is missing or that the run file and the setup state differently."""
    problems: list[Problem] = []

    def problem(pointer: str, message: str) -> None:
        problems.append(
            Problem(path=run.source.label, line=1, col=1, pointer=pointer, message=message)
        )

    if run.source.provenance.status != "measured":
        problem(
            "/dataProvenance",
            f"the run is {run.source.provenance.status}, not measured: it can never be "
            "submitted as a measurement",
        )
    flags = dict(run.engine_flags)
    evidence = dict(run.evidence)
    hw = setup.hardware
    if hw is None:
        problems.append(
            Problem(
                path="article.toml",
                line=1,
                col=1,
                pointer="/runs/setup/hardware",
                message="the article's setup states no hardware ([runs.setup.hardware] with "
                "gpu_name and gpu_count): a leaderboard entry needs the GPU it was measured on",
            )
        )
        raise InputError(problems)

    def agreed(pointer: str, what: str, ours: Scalar, theirs: str | None) -> Scalar:
        if ours is None or ours == "":
            return theirs
        if theirs and not _same(str(ours), theirs):
            problem(pointer, f"the run file says {what} {ours!r}, the article's setup {theirs!r}")
        return ours

    body: dict[str, Any] = {
        "hfId": agreed("/hfId", "model", run.hf_id, setup.hf_id),
        "modelRevision": evidence.get("modelRevision"),
        "engineName": agreed("/engineName", "engine", run.engine_name, setup.engine_name),
        "engineVersion": run.engine_version,
        "engineBuild": agreed(
            "/engineBuild", "engine build", evidence.get("engineBuild"), setup.engine_build
        ),
        "quantization": agreed(
            "/quantization", "quantization", run.quantization, setup.quantization
        ),
        "hardware": _hardware(hw),
    }
    sources: list[tuple[str, str]] = []
    for field, key in METRIC_FIELDS:
        value = _metric(metrics, run, key)
        if value is not None:
            body[field] = round(value.value, DECIMALS)
            sources.append((field, value.id))
        elif field == "tokSOut":
            problem("/tokSOut", f"no {metric_id(key, concurrency=run.concurrency)} metric")
    body["promptTokens"] = run.prompt_tokens
    body["outputTokens"] = run.output_tokens
    for field in EVIDENCE_FIELDS:
        body.setdefault(field, evidence.get(field))
    engine_flags: dict[str, Any] = {
        "commandSnippet": flags.get("commandSnippet") or setup.command_snippet,
        "concurrency": run.concurrency,
        "maxTokens": run.max_tokens,
    }
    if setup.spec_decoding:
        engine_flags["specDecoding"] = True
        engine_flags["specMethod"] = agreed(
            "/engineFlags/specMethod",
            "speculative decoding method",
            flags.get("specMethod"),
            setup.spec_decoding,
        )
    for key in FORWARDED_FLAGS:
        engine_flags.setdefault(key, flags.get(key))
    body["engineFlags"] = {k: v for k, v in engine_flags.items() if v is not None}
    body["notes"] = _notes(run, setup, hw, sources)
    if problems:
        raise InputError(problems)
    return Payload(
        run_file=run.source.label,
        run_sha256=run.source.sha256,
        concurrency=run.concurrency,
        prompt_id=run.prompt_id,
        text=dumps({k: v for k, v in body.items() if v is not None}),
        sources=FrozenDict(sources),
    )
