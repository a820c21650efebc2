"""SGLang `bench_serving` records: numbers too large for a float reported at their place, and
the per-request arrays of `--output-details` read as request samples."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reportgen.formats.json_input import document
from reportgen.formats.json_input.document import TOO_LARGE, escape_pointer_token
from reportgen.formats.records import parallel_arrays
from reportgen.model import RequestSample

Report = Callable[[str, str, str], None]  # (pointer inside the record, message, severity)
_ARRAYS = ("input_lens", "output_lens", "ttfts", "itls", "errors")


def _fit_list(values: list[Any], at: str, report: Report) -> list[Any]:
    """`values` with each number no float can hold reported and read as 0."""
    most = document.FLOAT_MAX
    if not values or (min(values) >= -most and max(values) <= most):
        return values  # the common case, at C speed
    bad = {i for i, v in enumerate(values) if not -most <= v <= most}
    for i in sorted(bad):
        report(f"{at}/{i}", TOO_LARGE, "error")
    return [0 if i in bad else v for i, v in enumerate(values)]


def fit_record(raw: dict[str, Any], report: Report) -> dict[str, Any]:
    """`raw` with every number no float can hold (1e999, 10**400) reported as an error and read
    as 0, so the rest is still checked. An infinite `request_rate` is the token `Infinity` (the
    reader refuses an overflowing number there)."""
    out = dict(raw)
    for key in document.unfit_numbers(raw):
        report(f"/{escape_pointer_token(key)}", TOO_LARGE, "error")
        out[key] = 0
    for name in ("input_lens", "output_lens", "ttfts"):
        if isinstance(raw.get(name), list):
            out[name] = _fit_list(raw[name], f"/{name}", report)
    if isinstance(raw.get("itls"), list):
        out["itls"] = [
            _fit_list(gaps, f"/itls/{k}", report) if isinstance(gaps, list) else gaps
            for k, gaps in enumerate(raw["itls"])
        ]
    return out


def request_samples(raw: dict[str, Any], at: str, report: Report) -> tuple[RequestSample, ...]:
    """Per-request records, when SGLang was run with `--output-details`."""
    arrays = parallel_arrays(raw, _ARRAYS, ("ttfts", "itls", "output_lens"), report)
    if arrays is None:
        return ()
    count = len(arrays["ttfts"])
    errors = arrays.get("errors") or [""] * count
    inputs = arrays.get("input_lens") or [0] * count
    samples = []
    for k, (ttft, gaps, out) in enumerate(
        zip(arrays["ttfts"], arrays["itls"], arrays["output_lens"], strict=True)
    ):
        decode = float(sum(gaps))  # first content chunk to the last
        done = not errors[k] and out > 0
        itl = decode / (out - 1) if done and out > 1 else 0.0
        # pointer, TTFT, latency, ITL, input and output tokens, completed
        at_k, ttft = f"{at}/ttfts/{k}", float(ttft)
        samples.append(
            RequestSample(
                pointer=at_k,
                ttft_s=ttft,
                latency_s=ttft + decode,
                itl_s=itl,
                input_tokens=inputs[k],
                output_tokens=out,
                completed=done,
            )
        )
    return tuple(samples)
