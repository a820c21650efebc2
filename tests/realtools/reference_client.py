"""An independent streaming client, the yardstick the benchmark tools are compared with.

It sends ``--requests`` chat completions (``stream: true`` with ``stream_options.include_usage``)
to an OpenAI-compatible server, at most ``--concurrency`` at a time, and measures:

- TTFT: first chunk with content - request sent (ms);
- ITL: (last content chunk - first content chunk) / (completion_tokens - 1) (ms), with
  ``completion_tokens`` from the server's usage;
- per-request tok/s: 1000 / ITL;
- aggregate output tok/s: all completion tokens / (last response end - first request start).

Times come from ``time.perf_counter`` (epoch stamps are recorded beside them). Every loop is
bounded: a fixed number of requests, a per-request timeout and a whole-run deadline.

    python tests/realtools/reference_client.py --base-url http://127.0.0.1:PORT \
        --concurrency 4 --requests 16 --prompt-tokens 128 --max-tokens 64 --out ref.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

WORDS = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "a",
    "lazy",
    "dog",
    "while",
    "seven",
    "wizards",
    "quietly",
    "judge",
    "boxing",
    "matches",
    "and",
    "pack",
    "my",
    "box",
    "with",
    "five",
    "dozen",
    "liquor",
    "jugs",
]


def make_prompt(index: int, prompt_tokens: int) -> str:
    """Text the tiny model's server tokenizes to exactly ``prompt_tokens`` ids.

    One character is one token, and the server adds ``<s>`` and a leading ``▁``: so the text has
    ``prompt_tokens - 2`` characters. The request index leads, so no two prompts are equal.
    """
    n_chars = max(1, prompt_tokens - 2)
    text = f"{index} "
    i = index
    while len(text) < n_chars:
        text += WORDS[i % len(WORDS)] + " "
        i += 7
    return text[:n_chars]


@dataclass
class RequestRecord:
    index: int
    ok: bool = False
    error: str | None = None
    start_epoch: float = 0.0
    end_epoch: float = 0.0
    start: float = 0.0  # perf_counter
    first_token: float | None = None
    last_token: float | None = None
    end: float = 0.0
    content_chunks: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    ttft_ms: float | None = None
    itl_ms: float | None = None
    tokens_per_second: float | None = None
    latency_ms: float | None = None
    chunk_offsets_ms: list[float] = field(default_factory=list)


async def one_request(
    client: httpx.AsyncClient,
    url: str,
    model: str,
    index: int,
    prompt_tokens: int,
    max_tokens: int,
    timeout: float,
) -> RequestRecord:
    rec = RequestRecord(index=index)
    body = {
        "model": model,
        "messages": [{"role": "user", "content": make_prompt(index, prompt_tokens)}],
        "max_tokens": max_tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": 0.0,
    }
    rec.start_epoch = time.time()
    rec.start = time.perf_counter()
    try:
        async with client.stream("POST", url, json=body, timeout=timeout) as resp:
            if resp.status_code != 200:
                rec.error = f"HTTP {resp.status_code}: {(await resp.aread())[:200]!r}"
                return rec
            async for line in resp.aiter_lines():
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    break
                now = time.perf_counter()
                chunk = json.loads(data)
                for choice in chunk.get("choices") or []:
                    if (choice.get("delta") or {}).get("content"):
                        if rec.first_token is None:
                            rec.first_token = now
                        rec.last_token = now
                        rec.content_chunks += 1
                        rec.chunk_offsets_ms.append(round((now - rec.start) * 1000, 3))
                usage = chunk.get("usage")
                if usage:
                    rec.prompt_tokens = usage.get("prompt_tokens")
                    rec.completion_tokens = usage.get("completion_tokens")
    except (httpx.HTTPError, json.JSONDecodeError) as e:
        rec.error = f"{type(e).__name__}: {e}"
        return rec
    finally:
        rec.end = time.perf_counter()
        rec.end_epoch = time.time()
    rec.latency_ms = (rec.end - rec.start) * 1000
    if rec.first_token is None or rec.last_token is None:
        rec.error = "no content received"
        return rec
    rec.ttft_ms = (rec.first_token - rec.start) * 1000
    n = rec.completion_tokens or rec.content_chunks
    if n > 1:
        rec.itl_ms = (rec.last_token - rec.first_token) * 1000 / (n - 1)
        rec.tokens_per_second = 1000 / rec.itl_ms if rec.itl_ms > 0 else None
    rec.ok = True
    return rec


async def run_load(
    base_url: str,
    concurrency: int,
    requests: int,
    prompt_tokens: int,
    max_tokens: int,
    model: str | None,
    request_timeout: float,
    deadline_s: float,
) -> dict[str, Any]:
    url = base_url.rstrip("/") + "/v1/chat/completions"
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=request_timeout) as client:
        if model is None:
            models = (await client.get(base_url.rstrip("/") + "/v1/models")).json()
            model = str(models["data"][0]["id"])
        queue: asyncio.Queue[int] = asyncio.Queue()
        for i in range(requests):
            queue.put_nowait(i)
        records: list[RequestRecord] = []

        async def worker() -> None:
            while True:
                try:
                    i = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                records.append(
                    await one_request(
                        client, url, model, i, prompt_tokens, max_tokens, request_timeout
                    )
                )

        t0 = time.perf_counter()
        workers = [asyncio.create_task(worker()) for _ in range(concurrency)]
        try:
            await asyncio.wait_for(asyncio.gather(*workers), timeout=deadline_s)
            timed_out = False
        except TimeoutError:
            timed_out = True
        wall = time.perf_counter() - t0
    records.sort(key=lambda r: r.index)
    return summarize(
        records,
        config={
            "base_url": base_url,
            "model": model,
            "concurrency": concurrency,
            "requests": requests,
            "prompt_tokens": prompt_tokens,
            "max_tokens": max_tokens,
            "request_timeout_s": request_timeout,
            "deadline_s": deadline_s,
            "timed_out": timed_out,
            "wall_s": wall,
        },
    )


def _median(xs: list[float]) -> float | None:
    return statistics.median(xs) if xs else None


def summarize(records: list[RequestRecord], config: dict[str, Any]) -> dict[str, Any]:
    ok = [r for r in records if r.ok]
    summary: dict[str, Any] = {
        "successful": len(ok),
        "failed": len(records) - len(ok),
        "median_ttft_ms": _median([r.ttft_ms for r in ok if r.ttft_ms is not None]),
        "median_itl_ms": _median([r.itl_ms for r in ok if r.itl_ms is not None]),
        "median_tokens_per_second_per_request": _median(
            [r.tokens_per_second for r in ok if r.tokens_per_second is not None]
        ),
        "median_latency_ms": _median([r.latency_ms for r in ok if r.latency_ms is not None]),
        "median_completion_tokens": _median([float(r.completion_tokens or 0) for r in ok]),
        "median_prompt_tokens": _median([float(r.prompt_tokens or 0) for r in ok]),
        "output_tokens_per_second": None,
    }
    if ok:
        span = max(r.end for r in ok) - min(r.start for r in ok)
        total = sum(r.completion_tokens or 0 for r in ok)
        summary["total_completion_tokens"] = total
        summary["span_s"] = span
        summary["output_tokens_per_second"] = total / span if span > 0 else None
    return {
        "tool": "reportgen-reference-client",
        "httpx_version": httpx.__version__,
        "python": platform.python_version(),
        "config": config,
        "summary": summary,
        "requests": [asdict(r) for r in records],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--requests", type=int, default=8)
    ap.add_argument("--prompt-tokens", type=int, default=128)
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--model", default=None, help="default: the server's first model")
    ap.add_argument("--request-timeout", type=float, default=60.0)
    ap.add_argument("--deadline", type=float, default=300.0, help="whole-run limit, seconds")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args(argv)
    if a.requests < 1 or a.concurrency < 1:
        ap.error("--requests and --concurrency must be >= 1")
    result = asyncio.run(
        run_load(
            a.base_url,
            a.concurrency,
            a.requests,
            a.prompt_tokens,
            a.max_tokens,
            a.model,
            a.request_timeout,
            a.deadline,
        )
    )
    text = json.dumps(result, indent=1)
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(text + "\n")
    print(json.dumps(result["summary"], indent=1))
    return 0 if result["summary"]["failed"] == 0 and not result["config"]["timed_out"] else 1


if __name__ == "__main__":
    sys.exit(main())
