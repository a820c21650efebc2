"""A payload checked against the submission contract, before any request: the `Finding`s the
contract lets us know about without asking the server.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reportgen.localmaxxing.contract import (
    HW_CLASSES,
    REQUIRED,
    Contract,
    Severity,
    obj,
)


@dataclass(frozen=True)
class Finding:
    """One problem of a payload against the contract."""

    severity: Severity
    field: str  # JSON pointer into the payload
    message: str

    def format(self) -> str:
        """Render as `/pointer: message` (warnings say so)."""
        prefix = "warning: " if self.severity == "warning" else ""
        return f"{self.field or '/'}: {prefix}{self.message}"


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _names_like(name: str, accepted: tuple[str, ...]) -> str:
    """The accepted names worth showing next to a refused one."""
    words = name.split()
    family = [a for a in accepted if words[:2] and a.split()[:2] == words[:2]]
    family += [a for a in difflib.get_close_matches(name, accepted, n=5) if a not in family]
    shown = family or list(accepted[:30])
    more = "" if len(shown) == len(accepted) else f" ({len(accepted)} names in all)"
    label = "similar accepted names" if family else "accepted names"
    return f"{label}: {', '.join(shown)}{more}"


def _check_gpu(name: Any, at: str, contract: Contract, out: list[Finding]) -> None:
    if not isinstance(name, str) or not name:
        out.append(Finding("error", at, "gpuName is required for hwClass DISCRETE_GPU"))
    elif not contract.gpu_names:
        out.append(Finding("warning", at, "the contract lists no GPU names; the server decides"))
    elif name not in contract.gpu_names:
        partial = "; this list is partial, a live refresh may know more" if contract.partial else ""
        out.append(
            Finding(
                "error",
                at,
                f"GPU {name!r} is not accepted by the contract "
                f"(hardwareOptions.discreteGpuNames); "
                f"{_names_like(name, contract.gpu_names)}{partial}",
            )
        )


def _check_hardware(hw: Any, contract: Contract, out: list[Finding]) -> None:
    if not isinstance(hw, dict):
        return
    cls = hw.get("hwClass")
    if cls not in HW_CLASSES:
        out.append(
            Finding("error", "/hardware/hwClass", f"hwClass {cls!r} is not one of {HW_CLASSES}")
        )
        return
    need = {"UNIFIED": ("chipVendor", "chipFamily", "unifiedMemoryGb"), "CPU_ONLY": ("cpu",)}
    for field in need.get(cls, ()):
        if hw.get(field) in (None, ""):
            out.append(Finding("error", f"/hardware/{field}", f"{field} is required for {cls}"))
    if cls != "DISCRETE_GPU":
        return
    slots = hw["gpus"] if isinstance(hw.get("gpus"), list) else [hw]
    base = "/hardware/gpus/{}" if isinstance(hw.get("gpus"), list) else "/hardware"
    for i, slot in enumerate(slots):
        at = base.format(i)
        slot = obj(slot)
        _check_gpu(slot.get("gpuName"), f"{at}/gpuName", contract, out)
        if not (_number(slot.get("vramGb")) and slot["vramGb"] > 0):
            out.append(Finding("error", f"{at}/vramGb", "vramGb must be a number above 0"))
        count_key = "count" if base != "/hardware" else "gpuCount"
        count = slot.get(count_key)
        if not (isinstance(count, int) and not isinstance(count, bool) and count >= 1):
            out.append(
                Finding("error", f"{at}/{count_key}", f"{count_key} must be an integer >= 1")
            )


def _check_prompt(
    body: Mapping[str, Any], contract: Contract, prompt_id: str, out: list[Finding]
) -> None:
    known = {p.id: p for p in contract.prompts}
    prompt = known.get(prompt_id)
    if prompt is None:
        out.append(
            Finding(
                "warning",
                "",
                f"prompt {prompt_id!r} is not one of the contract's canonical prompts "
                f"({', '.join(known) or 'none listed'}); the run will not compare as canonical",
            )
        )
        return
    sha = body.get("promptSha256")
    if isinstance(sha, str) and prompt.sha256 and sha.lower() != prompt.sha256:
        out.append(
            Finding(
                "error",
                "/promptSha256",
                f"promptSha256 {sha} is not the sha256 of canonical prompt {prompt_id} "
                f"({prompt.sha256})",
            )
        )
    elif sha is None:
        out.append(
            Finding(
                "warning",
                "/promptSha256",
                f"no promptSha256: the server cannot verify that the run used {prompt_id}",
            )
        )
    tokens = body.get("outputTokens")
    least = prompt.min_output_tokens
    if least and isinstance(tokens, int) and tokens < least:
        out.append(
            Finding(
                "warning",
                "/outputTokens",
                f"{tokens} output tokens; canonical prompt {prompt_id} asks for at least {least}",
            )
        )


def check(
    body: Mapping[str, Any], contract: Contract, *, prompt_id: str | None = None
) -> tuple[Finding, ...]:
    """Every problem of a payload that the contract lets us see locally (errors and warnings)."""
    out: list[Finding] = []
    _check_fields(body, contract, out)
    _check_names(body, contract, out)
    _check_hardware(body.get("hardware"), contract, out)
    _check_flags(body.get("engineFlags"), contract, out)
    if prompt_id:
        _check_prompt(body, contract, prompt_id, out)
    return tuple(sorted(out, key=lambda f: (f.severity != "error", f.field)))


def _check_fields(body: Mapping[str, Any], contract: Contract, out: list[Finding]) -> None:
    """The required fields, the metrics, and each number's and string's bounds."""
    for field in REQUIRED:
        if body.get(field) in (None, ""):
            out.append(Finding("error", f"/{field}", f"{field} is required"))
    if not any(_number(body.get(f)) for f in contract.metric_fields):
        out.append(
            Finding(
                "error",
                "",
                f"besides tokSOut, at least one of {', '.join(contract.metric_fields)} is required",
            )
        )
    for field in ("tokSOut", "ttftMs", "tokSPrefill", "tokSTotal", "peakVramGb"):
        value = body.get(field)
        if value is not None and not (_number(value) and value > 0):
            out.append(Finding("error", f"/{field}", f"{field} must be a number above 0"))
    for field in ("promptTokens", "outputTokens"):
        value = body.get(field)
        if value is not None and not (isinstance(value, int) and value >= 0):
            out.append(Finding("error", f"/{field}", f"{field} must be an integer >= 0"))
    for field, limit in contract.max_lengths.items():
        value = body.get(field)
        if isinstance(value, str) and len(value) > limit:
            out.append(
                Finding("error", f"/{field}", f"{field} is {len(value)} characters; max {limit}")
            )


def _check_names(body: Mapping[str, Any], contract: Contract, out: list[Finding]) -> None:
    """The engine among the contract's, the quantization among its common ones."""
    engine = body.get("engineName")
    if isinstance(engine, str) and engine and engine not in (contract.engine_names or (engine,)):
        spelled = [e for e in contract.engine_names if e.casefold() == engine.casefold()]
        hint = f" (did you mean {spelled[0]!r}?)" if spelled else ""
        out.append(
            Finding(
                "error",
                "/engineName",
                f"engine {engine!r} is not accepted by the contract{hint}; accepted "
                f"values: {', '.join(contract.engine_names)}",
            )
        )
    quant = body.get("quantization")
    if isinstance(quant, str) and quant not in (contract.common_quantizations or (quant,)):
        out.append(
            Finding(
                "warning",
                "/quantization",
                f"quantization {quant!r} is not among the contract's common values "
                f"({', '.join(contract.common_quantizations)}); the server may still take it",
            )
        )


def _check_flags(flags: Any, contract: Contract, out: list[Finding]) -> None:
    """The engine's launch command given, and its flags among the contract's known keys."""
    if not (isinstance(flags, dict) and flags.get("commandSnippet")):
        out.append(
            Finding(
                "warning",
                "/engineFlags/commandSnippet",
                "no engineFlags.commandSnippet: LocalMaxxing asks for the engine's real launch "
                "command",
            )
        )
    if isinstance(flags, dict) and contract.engine_flag_keys:
        for key in sorted(set(flags) - set(contract.engine_flag_keys)):
            out.append(
                Finding(
                    "warning",
                    f"/engineFlags/{key}",
                    f"engineFlags.{key} is not among the contract's known engineFlags keys; "
                    "the server may drop it",
                )
            )
