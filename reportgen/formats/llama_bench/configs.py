"""What varies across the tests of one llama-bench file: its configurations, named for readers and
for metric ids.

In: the tests of a file (a JSON Lines file's or a top-level array's items, schema-valid), in
order. Out: for each test, its `Configuration` (a label such as "fa 1, n_ubatch 512", an id
token such as "fa1-n_ubatch512", and its settings as `meta.KEY` axes), and which of
n_prompt / n_gen the tests vary (`Sweep`).

A test's settings are every key llama-bench writes that is not a measurement or a test length
(`MEASURED`, and any key named `avg_*`, `stddev_*` or `samples_*`, as forks add them): the model,
the build, the backend and device, threads, GPU layers, batch sizes, flash attention, KV cache
types, and any key an older or newer build writes (`cuda`, `metal`, `n_cpu_moe`, ...). A key
varies when the tests hold two or more values of it; a key some tests lack and the others agree
on (a newer build's extra field) does not. The four model keys (`MODEL_KEYS`) vary together and
are named once, as the model; `build_number` and `build_commit` once, as the build. A test that
repeats another (the same settings and lengths, as `-o json` appended twice by a shell loop
writes) is the next `repeat` of that configuration. The label and token name only the varying
settings that tell the configurations apart, in the order of llama-bench's table (a GPU's name
that follows from the backend is left out of them, and kept as its `meta.gpu_info` axis).

Names: the label uses llama-bench's own markdown column heads (`fa`, `ngl`, `threads`,
`n_ubatch`, `type_k`, ...); the token is the label without spaces, lower case, with anything
outside `[a-z0-9_+]` as `-`, so it can stand in a metric id. Tokens that would not tell the
configurations apart (two model files with one name) fall back to "cfg1", "cfg2", ... in order
of appearance.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reportgen.frozendict import FrozenDict
from reportgen.model import Scalar

META = "meta."
# what a test measured, and the lengths that say which test it is
MEASURED = frozenset(
    {
        "n_prompt",
        "n_gen",
        "n_depth",
        "test_time",
        "avg_ns",
        "stddev_ns",
        "avg_ts",
        "stddev_ts",
        "samples_ns",
        "samples_ts",
    }
)
# keys of a measurement by their name, as builds and forks add them (avg_ttft_ms, samples_itl_ns)
MEASURED_PREFIXES = ("avg_", "stddev_", "samples_")
MODEL_KEYS = ("model_filename", "model_type", "model_size", "model_n_params")
BUILD_KEYS = ("build_number", "build_commit")
# llama-bench's markdown column heads, and the order its table has them in
SHORT = {
    "backends": "backend",
    "gpu_info": "gpu",
    "cpu_info": "cpu",
    "n_gpu_layers": "ngl",
    "n_threads": "threads",
    "n_batch": "n_batch",
    "n_ubatch": "n_ubatch",
    "type_k": "type_k",
    "type_v": "type_v",
    "n_cpu_moe": "n_cpu_moe",
    "split_mode": "sm",
    "main_gpu": "mg",
    "no_kv_offload": "nkvo",
    "flash_attn": "fa",
    "devices": "dev",
    "tensor_split": "ts",
    "tensor_buft_overrides": "ot",
    "use_mmap": "mmap",
    "use_direct_io": "dio",
    "embeddings": "embd",
    "no_op_offload": "nopo",
    "cpu_mask": "cpu_mask",
    "cpu_strict": "cpu_strict",
    "poll": "poll",
}
_ORDER = {key: i for i, key in enumerate(SHORT)}
_ABSENT = "\0absent"  # a key a test does not have, as `_key` writes it
TOKEN_PART = 32  # the longest a setting's part of a token may be (a GPU's or model's name)


@dataclass(frozen=True)
class Configuration:
    """One configuration of a file's tests: its label, id token and `meta.KEY` axes. The label
    and token are "" when the file has one configuration."""

    label: str
    token: str
    settings: FrozenDict[str, Scalar]


@dataclass(frozen=True)
class Sweep:
    """What a file's tests vary: each test's configuration (by index), and whether the
    prompt-processing tests hold several n_prompt and the generation tests several n_gen."""

    configurations: tuple[Configuration, ...]
    several: bool  # more than one configuration
    prompts_vary: bool
    gens_vary: bool


def measured(key: str) -> bool:
    """True for a key that holds what a test measured (or which test it is), not a setting."""
    return key in MEASURED or key.startswith(MEASURED_PREFIXES)


def _key(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def model_name(test: dict[str, Any]) -> str | None:
    """The model as the article names it: the GGUF's file name, else llama-bench's model_type."""
    path = str(test.get("model_filename") or "").replace("\\", "/")
    found = path.rsplit("/", 1)[-1] or test.get("model_type")
    return str(found) if found else None


def build_name(test: dict[str, Any]) -> str:
    """The build as llama.cpp's `--version` names it, "b4521 (3edfa7d3)"; "" when unknown (0 and
    "unknown": a build from a source archive without git metadata)."""
    number, commit = test.get("build_number") or 0, str(test.get("build_commit") or "")
    parts = [f"b{number}"] if number else []
    if commit and commit != "unknown":
        parts.append(f"({commit})" if parts else commit)
    return " ".join(parts)


def token(text: str) -> str:
    """`text` as a metric id can hold it: lower case, runs of anything else than [a-z0-9_+] as -."""
    return re.sub(r"[^a-z0-9_+]+", "-", text.lower()).strip("-")


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if value is None:
        return "null"
    if isinstance(value, str | int | float):
        return str(value)
    return _key(value)


def _scalar(value: object) -> Scalar:
    return value if value is None or isinstance(value, str | int | float | bool) else _key(value)


def _varying(tests: Sequence[dict[str, Any]]) -> list[str]:
    """The setting keys whose present values differ (the model's and the build's keys named
    "model" and "build")."""
    values: dict[str, set[str]] = {}
    for test in tests:
        for key, value in test.items():
            if not measured(key):
                values.setdefault(key, set()).add(_key(value))
    varying = {k for k, v in values.items() if len(v) > 1}
    named = [k for k in varying if k not in MODEL_KEYS and k not in BUILD_KEYS]
    named.sort(key=lambda k: (_ORDER.get(k, len(_ORDER)), k))
    if varying & set(BUILD_KEYS):
        named.insert(0, "build")
    if varying & set(MODEL_KEYS):
        named.insert(0, "model")
    return named


def _models(tests: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Each test's model keys (as `_key`) -> a name that tells the models apart."""
    kinds = {_key([t.get(k, _ABSENT) for k in MODEL_KEYS]): t for t in tests}
    for name in (
        model_name,
        lambda t: str(t.get("model_filename") or ""),
        lambda t: " ".join(_shown(t.get(k)) for k in MODEL_KEYS[1:]),
    ):
        names = {key: name(t) or "" for key, t in kinds.items()}
        if len(set(names.values())) == len(names):
            return names
    return {key: f"model {i}" for i, key in enumerate(kinds, 1)}


def _telling(rows: Sequence[Sequence[tuple[str, str, Scalar]]]) -> set[str]:
    """The varying keys that tell the configurations apart, in order: a key whose value follows
    from the keys before it (the GPU's name from the backend, say) is left out of the label."""
    keys = [key for key, _, _ in rows[0]] if rows else []
    kept: list[int] = []
    groups = 1
    for i in range(len(keys)):
        split = len({tuple(parts[k][1] for k in [*kept, i]) for parts in rows})
        if split > groups:
            kept.append(i)
            groups = split
    return {keys[i] for i in kept}


def _part(key: str, value: str) -> tuple[str, str]:
    """(label part, token part) of one varying setting's value."""
    short = SHORT.get(key, key)
    if key == "model":
        return value, token(value.removesuffix(".gguf"))[:TOKEN_PART]
    if key == "build":
        return value, token(value.split(" ")[0])
    glue = "" if re.fullmatch(r"-?[0-9][0-9.]*", value) else "-"
    return f"{short} {value}", token(f"{short}{glue}{value}")[:TOKEN_PART]


def sweep(tests: Sequence[dict[str, Any]]) -> Sweep:
    """The configurations of `tests` (schema-valid llama-bench tests, in file order)."""
    varying = _varying(tests)
    models = _models(tests) if "model" in varying else {}
    seen: dict[str, int] = {}
    # each test's varying settings as (key, value as shown, raw value), and its repeat number
    rows: list[tuple[int, list[tuple[str, str, Scalar]]]] = []
    for test in tests:
        parts: list[tuple[str, str, Scalar]] = []
        for key in varying:
            if key == "model":
                name = models[_key([test.get(k, _ABSENT) for k in MODEL_KEYS])]
                parts.append(("model", name, name))
            elif key == "build":
                name = build_name(test) or "unknown"
                parts.append(("build", name, name))
            else:
                value = test.get(key, _ABSENT)
                shown = "—" if value == _ABSENT else _shown(value)
                parts.append((key, shown, None if value == _ABSENT else _scalar(value)))
        cell = _key([parts, test.get("n_prompt"), test.get("n_gen"), test.get("n_depth") or 0])
        seen[cell] = seen.get(cell, 0) + 1
        rows.append((seen[cell], parts))
    repeated = max(seen.values(), default=1) > 1
    named = _telling([parts for _, parts in rows]) | {"repeat"}
    # each test's varying settings as (key, label part, token part, raw value); the label and
    # token name only the settings that tell the configurations apart
    labelled: list[list[tuple[str, str, str, Scalar]]] = []
    for repeat, parts in rows:
        if repeated:
            parts = [*parts, ("repeat", str(repeat), repeat)]
        labelled.append(
            [
                (key, *(_part(key, shown) if key in named else ("", "")), raw)
                for key, shown, raw in parts
            ]
        )
    identity = [_key([p[:3] for p in parts4]) for parts4 in labelled]
    order = list(dict.fromkeys(identity))
    tokens = {
        i: "-".join(p[2] for p in parts4 if p[2])
        for i, parts4 in zip(identity, labelled, strict=True)
    }
    unique = len(set(tokens.values())) == len(tokens) and all(tokens.values())
    configurations = []
    for ident, parts4 in zip(identity, labelled, strict=True):
        label = ", ".join(p[1] for p in parts4 if p[1])
        name = tokens[ident] if unique else f"cfg{order.index(ident) + 1}"
        settings: list[tuple[str, Scalar]] = [(META + key, raw) for key, _, _, raw in parts4]
        if parts4:
            settings.insert(0, (META + "config", label))
        configurations.append(Configuration(label, name if parts4 else "", FrozenDict(settings)))
    prompts = {t["n_prompt"] for t in tests if t.get("n_prompt") and not t.get("n_gen")}
    gens = {t["n_gen"] for t in tests if t.get("n_gen") and not t.get("n_prompt")}
    return Sweep(tuple(configurations), len(order) > 1, len(prompts) > 1, len(gens) > 1)
