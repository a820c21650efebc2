"""What the published article's text says of its setup: versions, model, engine, dates and the
headline run's shape, read from the text itself (`seed_facts`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

GENERATOR = "reportgen.reconstruct (python -m reportgen.reconstruct)"


# --- the article's files -------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class SeedFacts:
    """What the seed article states about its runs, read from its text."""

    hf_id: str
    quantization: str
    engine: str
    engine_build: str
    lmx_version: str
    bench_version: str
    prompt_id: str
    duration_s: float
    max_tokens: int
    together: int
    together_tokens: int
    date: str


def _search(pattern: str, text: str, what: str) -> tuple[str, ...]:

    found = re.search(pattern, text)
    if not found:
        raise ValueError(f"the seed text does not state {what} (looked for /{pattern}/)")
    return found.groups()


def seed_facts(text: str) -> SeedFacts:
    """Read the setup facts the reconstruction needs from the seed article's text."""
    hf_id, quant = _search(
        r"\n-\s*Model\s*\n-\s*(\S+/\S+?),\s*released (\S+) checkpoint", text, "the model"
    )
    engine, build = _search(r"\n-\s*Engine\s*\n-\s*(\w+) \(build (\w+)\)", text, "the engine")
    lmx_v, bench_v = _search(
        r"lmx (\d+\.\d+\.\d+), llm-inference-bench (\d+\.\d+\.\d+)", text, "tool versions"
    )
    (prompt,) = _search(r"canonical prompt ([\w.-]+)", text, "the canonical prompt")
    duration, max_tokens = _search(
        r"\((\d+) s per decode cell, max ([\d,]+) output tokens", text, "the matrix settings"
    )
    together, tokens = _search(
        r"(\d+) requests together, (\d+) output tokens each", text, "the concurrent canonical run"
    )
    day, month, year = _search(r"(\d{1,2}) (\w+) (\d{4})\.", text, "the date")
    months = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ]
    return SeedFacts(
        hf_id=hf_id,
        quantization=quant,
        engine=engine,
        engine_build=build,
        lmx_version=lmx_v,
        bench_version=bench_v,
        prompt_id=prompt,
        duration_s=float(duration),
        max_tokens=int(max_tokens.replace(",", "")),
        together=int(together),
        together_tokens=int(tokens),
        date=f"{year}-{months.index(month) + 1:02d}-{int(day):02d}",
    )


def context_tokens(label: str) -> int:
    if label == "0":
        return 0
    units = {"K": 1024, "M": 1024 * 1024}
    return int(label[:-1]) * units[label[-1]]
