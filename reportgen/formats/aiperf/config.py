"""The load and workload an AIPerf summary's `input_config` describes, in either of its layouts.

Schema-valid `input_config` in, one `Workload` (or a located problem) out; used by
`reportgen.formats.aiperf.summary` only. AIPerf wrote two configuration layouts (read in its source,
0.1.1 to 0.13.0):

- 0.1.1 to 0.8.x (`UserConfig`): the load in `loadgen` (`concurrency`, `request_rate`, its
  `request_rate_mode` or, from 0.5, `arrival_pattern`, `user_centric_rate` with `num_users`), the
  model in `endpoint.model_names`, the lengths in `input.prompt.input_tokens` and
  `input.prompt.output_tokens`, the command in `cli_command`. Warm-up is a request count
  (`warmup_request_count`) that AIPerf leaves out of every statistic; it is no phase of its own.
- 0.9.0 to 0.13.x (`BenchmarkConfig`): `phases`, each with a `type` and its load; a warm-up
  phase is named `warmup` (0.9 to 0.11) or has `kind: warmup` (0.12 on) and carries
  `exclude_from_results: true`, AIPerf's mark for a phase left out of the results. The model in
  `models.items[].name`, the lengths in `datasets[].prompts.isl`/`osl`, the command in the
  summary's `run_info.cli_command`.

Only `exclude_from_results` phases and warm-up phases are skipped; the file's statistics describe
the one phase left.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

Report = Callable[[str, str, str], None]  # (pointer, message, severity)


@dataclass(frozen=True, kw_only=True)
class Workload:
    """The measured phase's load, and what the configuration fixes about its requests."""

    kind: str  # the tool's name for the load ("concurrency", "poisson", ...), for labels
    strategy: str  # how the load was applied, in words
    concurrency: int | None
    rate: float | None  # requests per second
    requests: int | None  # the configured request count
    prompt_tokens: int | None  # the configured prompt length, when every request has the same
    max_tokens: int | None  # the configured output length, likewise
    model: str | None
    skipped_phases: int  # warm-up or excluded phases left out


def workload(config: Mapping[str, Any], report: Report) -> Workload | None:
    """The measured load of a schema-valid `input_config`; None (with an error) when it names
    more than one measured phase."""
    if isinstance(config.get("phases"), list):
        return _phased(config, report)
    return _loadgen(config)


def excluded(phase: Mapping[str, Any]) -> bool:
    """True for a phase AIPerf leaves out of its results: marked `exclude_from_results`, or a
    warm-up phase (by `kind`, or by its name where the file has no `kind`, 0.9 to 0.11)."""
    kind = phase.get("kind") or ("warmup" if phase.get("name") == "warmup" else "profiling")
    return bool(phase.get("exclude_from_results")) or kind == "warmup"


def _phased(config: Mapping[str, Any], report: Report) -> Workload | None:
    phases: list[dict[str, Any]] = config["phases"]
    measured = [(i, p) for i, p in enumerate(phases) if not excluded(p)]
    if len(measured) != 1:
        names = ", ".join(str(p.get("name", i)) for i, p in measured) or "none"
        report(
            "/input_config/phases",
            f"{len(measured)} measured phases ({names}); reportgen reads one load point per file: "
            "AIPerf's statistics in one summary cannot be split by phase",
            "error",
        )
        return None
    _, phase = measured[0]
    kind = str(phase["type"])
    return Workload(
        kind=kind,
        strategy=_strategy(kind, phase.get("smoothness"), phase.get("users")),
        concurrency=phase.get("concurrency"),
        rate=None if phase.get("rate") is None else float(phase["rate"]),
        requests=phase.get("requests"),
        prompt_tokens=_dataset_length(config, phase, "isl"),
        max_tokens=_dataset_length(config, phase, "osl"),
        model=_names(
            m.get("name") for m in (config.get("models") or {}).get("items") or () if _is(m)
        ),
        skipped_phases=len(phases) - 1,
    )


def _loadgen(config: Mapping[str, Any]) -> Workload:
    load = config.get("loadgen") or {}
    concurrency = load.get("concurrency")
    rate = load.get("request_rate")
    users = load.get("num_users")
    if load.get("user_centric_rate") is not None:
        rate, kind = load["user_centric_rate"], "user_centric"
    elif rate is not None:
        kind = str(load.get("arrival_pattern") or load.get("request_rate_mode") or "poisson")
    elif concurrency is not None:
        kind = "concurrency"
    else:  # AIPerf sets concurrency 1 unless requests replay a schedule (or a trace's times)
        replay = bool((config.get("input") or {}).get("fixed_schedule"))
        kind = "fixed_schedule" if replay else "unstated"
    prompt = ((config.get("input") or {}).get("prompt")) or {}
    custom = {"file", "custom_dataset_type", "public_dataset"} & (config.get("input") or {}).keys()
    endpoint = config.get("endpoint") or {}
    return Workload(
        kind=kind,
        strategy=_strategy(kind, load.get("arrival_smoothness"), users),
        concurrency=concurrency,
        rate=None if rate is None else float(rate),
        requests=load.get("request_count"),
        prompt_tokens=None if custom else fixed_length(prompt.get("input_tokens")),
        max_tokens=fixed_length(prompt.get("output_tokens")),
        model=_names(endpoint.get("model_names") or ()),
        skipped_phases=0,
    )


def _is(value: Any) -> bool:
    return isinstance(value, dict)


def _names(names: Any) -> str | None:
    return ", ".join(str(n) for n in names if n) or None


def _strategy(kind: str, smoothness: Any, users: Any) -> str:
    if kind in ("concurrency", "concurrency_burst"):
        return "concurrency limit"
    if kind == "gamma" and smoothness is not None:
        return f"gamma (smoothness {smoothness:g})"
    if kind == "user_centric" and users is not None:
        return f"user_centric ({users} users)"
    if kind == "unstated":
        return "not stated in the file (no concurrency or request rate)"
    return "constant rate" if kind == "constant" else kind


def fixed_length(spec: Any) -> int | None:
    """A configured token length {mean, stddev}, when every request has the same."""
    if not isinstance(spec, dict) or spec.get("stddev"):
        return None
    mean = spec.get("mean")
    if isinstance(mean, int | float) and mean >= 1 and float(mean).is_integer():
        return int(mean)
    return None


def _dataset_length(config: Mapping[str, Any], phase: Mapping[str, Any], key: str) -> int | None:
    """The configured input (isl) or output (osl) length of the phase's dataset."""
    datasets = [d for d in config.get("datasets") or () if isinstance(d, dict)]
    named = [d for d in datasets if d.get("name") == phase.get("dataset")] or datasets[:1]
    for dataset in named:
        found = fixed_length((dataset.get("prompts") or {}).get(key))
        if found is not None:
            return found
    return None
