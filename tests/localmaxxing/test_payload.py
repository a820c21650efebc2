"""Payload mapping (pure), the local contract check, redaction, and the wire through
`httpx.MockTransport`."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_localmaxxing import FIXTURES, KEY, SETUP, future_context

from reportgen.errors import InputError
from reportgen.fileio import RECORD_FILE
from reportgen.formats.load import load
from reportgen.localmaxxing import client, conformance, contract, keys, payload, submit
from reportgen.metrics.compute import compute
from reportgen.model import CanonicalRun, Provenance

NOW = datetime(2026, 12, 2, 12, 0, 0, tzinfo=UTC)


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return {"XDG_CACHE_HOME": str(tmp_path / "cache"), "LMX_API_KEY": KEY}


def _run(path: Path) -> tuple[CanonicalRun, Any]:
    result = load([path])
    assert result.ok, result.problems
    run = result.runs[0]
    assert isinstance(run, CanonicalRun)
    return run, compute(result.runs)


def test_single_request_run_maps_to_the_documented_payload() -> None:
    run, metrics = _run(FIXTURES / "canonical-c1.json")
    built = payload.build(run, metrics, SETUP)
    body = built.body()
    notes = body.pop("notes")
    assert body == {
        "hfId": "moonshotai/Kimi-K3.1-Pro",
        "modelRevision": "main",
        "engineName": "paiton",
        "engineVersion": "b94aef4f",
        "engineBuild": "b94aef4f",
        "quantization": "MXFP4",
        "hardware": {
            "hwClass": "DISCRETE_GPU",
            "gpuName": "AMD Instinct MI355X",
            "gpuCount": 6,
            "vramGb": 288,
            "cpu": "2x AMD EPYC 9575F",
            "ramGb": 2200,
            "powerWatts": 4800,
        },
        "tokSOut": 151.2,
        "ttftMs": 96.41,
        "tokSPrefill": 12270.5,
        "promptTokens": 1183,
        "outputTokens": 256,
        "backend": "rocm",
        "contextLength": 1439,
        "batchSize": 1,
        "promptSha256": "9000edaadb16fc77ab78b39917245a03d4d7585c3ba770cb045a47a0e0683445",
        "outputSha256": "3b7e1c2f0a9d4e5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3",
        "engineFlags": {
            "commandSnippet": "paiton serve moonshotai/Kimi-K3.1-Pro --tp 6 --spec dspark "
            "--max-seqs 16",
            "concurrency": 1,
            "maxTokens": 256,
            "specDecoding": True,
            "specMethod": "DSpark",
            "warmup": 1,
        },
    }
    assert notes.startswith(
        "Measured with lmx 0.1.60, canonical prompt reasoning-v1, one request per iteration, "
        "3 timed iterations, max_tokens 256. Engine: Paiton build b94aef4f: our own HIP kernels"
    )
    assert "GPU power cap 800 W per GPU (rated 1,400 W)" in notes
    assert run.source.sha256 in notes
    assert tuple(built.sources.items()) == (
        ("tokSOut", "canonical.c1.output_tok_s"),
        ("ttftMs", "canonical.c1.ttft_ms"),
        ("tokSPrefill", "canonical.c1.prefill_tok_s"),
    )
    assert built.run_sha256 == run.source.sha256
    assert built.prompt_id == "reasoning-v1"


def test_private_engine_flags_stay_out() -> None:
    run, metrics = _run(FIXTURES / "canonical-c1.json")
    text = payload.build(run, metrics, SETUP).text
    for private in ("baseUrl", "10.0.0.7", "servedModel", "timeoutSeconds", "prefixCacheBust"):
        assert private not in text


def test_numbers_come_from_the_registry_not_the_summary_fields(tmp_path: Path) -> None:
    data = json.loads((FIXTURES / "canonical-c1.json").read_text())
    data["tokSOut"], data["ttftMs"] = 190.0, 99.0  # the file's own summary, now wrong
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data))
    run, metrics = _run(path)
    body = payload.build(run, metrics, SETUP).body()
    assert (body["tokSOut"], body["ttftMs"]) == (151.2, 96.41)
    assert metrics.get("canonical.c1.output_tok_s").value == 151.2


def test_concurrent_run_uses_its_own_metric_ids() -> None:
    run, metrics = _run(FIXTURES / "canonical-c2.json")
    built = payload.build(run, metrics, SETUP)
    body = built.body()
    assert body["tokSOut"] == 331.4 and body["ttftMs"] == 121.5
    assert "tokSPrefill" not in body
    assert body["engineFlags"]["concurrency"] == 2
    assert tuple(built.sources.items()) == (
        ("tokSOut", "canonical.c2.output_tok_s"),
        ("ttftMs", "canonical.c2.ttft_ms"),
    )
    assert "2 requests together per iteration" in body["notes"]


def test_setup_that_contradicts_the_run_is_refused() -> None:
    run, metrics = _run(FIXTURES / "canonical-c1.json")
    setup = replace(SETUP, hf_id="moonshotai/Kimi-K3", quantization="fp8", engine_name="vllm")
    with pytest.raises(InputError) as caught:
        payload.build(run, metrics, setup)
    messages = [p.format() for p in caught.value.problems]
    assert any("model 'moonshotai/Kimi-K3.1-Pro', the article's setup" in m for m in messages)
    assert any("/quantization" in m and "'fp8'" in m for m in messages)
    assert any("/engineName" in m and "'vllm'" in m for m in messages)


def test_build_refuses_reconstructed_runs_itself() -> None:
    run, metrics = _run(FIXTURES / "canonical-c1.json")
    source = replace(
        run.source,
        provenance=Provenance(
            status="reconstructed", reconstructed_from="a table", generator="tests"
        ),
    )
    with pytest.raises(InputError, match="reconstructed, not measured"):
        payload.build(replace(run, source=source), metrics, SETUP)


def test_bundled_snapshot_refuses_the_mi355x_and_paiton_naming_accepted_values() -> None:
    run, metrics = _run(FIXTURES / "canonical-c1.json")
    snapshot = contract.bundled()
    assert snapshot.origin == "bundled" and snapshot.fetched_at is None and snapshot.partial
    assert "not a live fetch" in snapshot.describe()
    findings = conformance.check(
        payload.build(run, metrics, SETUP).body(), snapshot, prompt_id=run.prompt_id
    )
    errors = {f.field: f.message for f in findings if f.severity == "error"}
    assert set(errors) == {"/hardware/gpuName", "/engineName"}
    assert "AMD Instinct MI300X, AMD Instinct MI325X" in errors["/hardware/gpuName"]
    assert "'AMD Instinct MI355X'" in errors["/hardware/gpuName"]
    assert (
        "llama.cpp, vllm, sglang" in errors["/engineName"] and "tinygrad" in errors["/engineName"]
    )
    warnings = {f.field for f in findings if f.severity == "warning"}
    assert warnings == {"/quantization", "/engineFlags/maxTokens"}


def test_check_catches_missing_fields_prompt_hash_and_spelling() -> None:
    snapshot = contract.bundled()
    body = {
        "hfId": "x/y",
        "engineName": "VLLM",
        "quantization": "fp8",
        "tokSOut": 0,
        "promptSha256": "00" * 32,
        "hardware": {"hwClass": "DISCRETE_GPU", "gpuName": "NVIDIA GeForce RTX 4090"},
    }
    found = {f.field: f for f in conformance.check(body, snapshot, prompt_id="reasoning-v1")}
    assert "did you mean 'vllm'?" in found["/engineName"].message
    assert found["/tokSOut"].message == "tokSOut must be a number above 0"
    assert "at least one of tokSPrefill, tokSTotal, ttftMs, peakVramGb" in found[""].message
    assert "is not the sha256 of canonical prompt reasoning-v1" in found["/promptSha256"].message
    assert found["/hardware/vramGb"].severity == "error"
    assert found["/hardware/gpuCount"].severity == "error"


def test_live_contract_endpoints_keep_only_paths() -> None:
    data = future_context()
    data["_meta"]["submitEndpoint"] = "POST https://evil.example/api/v2/benchmarks"
    parsed = contract.parse(data, origin="live", source="test")
    assert parsed.submit_path == "/api/v2/benchmarks"
    assert "AMD Instinct MI355X" in parsed.gpu_names and "paiton" in parsed.engine_names
    with pytest.raises(contract.ContractError):
        contract.parse(["not", "a", "context"], origin="live", source="test")


def test_redact_removes_the_key_in_every_form() -> None:
    text = f"bad key {KEY} / {json.dumps(KEY)} / Bearer {KEY} / prefix bhk_0123abcd..."
    out = keys.redact(text, KEY)
    assert KEY not in out and "bhk_0123" not in out
    assert keys.redact("Authorization: Bearer sk-live-xyz", None) == (
        "Authorization: Bearer [redacted]"
    )


def test_retry_hint_reads_retry_after_ms_then_headers() -> None:
    assert "retry after 4 min 0 s (at 2026-12-02 12:04:00 UTC)" in client.retry_hint(
        {"retryAfterMs": 240_000}, httpx.Headers(), NOW
    )
    reset = httpx.Headers({"X-RateLimit-Reset": str(int(NOW.timestamp()) + 90)})
    assert "retry after 1 min 30 s" in client.retry_hint(None, reset, NOW)
    assert "retry after 20 s" in client.retry_hint({}, httpx.Headers({"Retry-After": "20"}), NOW)
    assert "did not say when" in client.retry_hint({}, httpx.Headers(), NOW)


def test_mock_transport_sends_the_payload_byte_for_byte(
    tmp_path: Path, env: dict[str, str]
) -> None:
    run, metrics = _run(FIXTURES / "canonical-c1.json")
    expected = payload.build(run, metrics, SETUP)
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/api/agent-context":
            assert "authorization" not in request.headers  # no credentials for the contract
            return httpx.Response(200, json=future_context())
        body = {"verification": {"verified": False, "issues": [{"field": "x", "message": "y"}]}}
        return httpx.Response(200, json=body)

    request = submit.SubmitRequest(
        runs=(run,),
        metrics=metrics,
        setup=SETUP,
        article_dir=tmp_path,
        mode="dry-run",
        api_base="https://api.test",
    )
    with httpx.Client(transport=httpx.MockTransport(handler)) as client:
        report = submit.submit_runs(request, client=client, env=env, now=lambda: NOW)
    assert report.exit_code == 0, report
    post = seen[-1]
    assert str(post.url) == "https://api.test/api/benchmarks/dry-run"
    assert post.content == expected.text.encode()
    assert post.headers["authorization"] == f"Bearer {KEY}"
    assert post.headers["content-type"] == "application/json"
    (outcome,) = report.outcomes
    assert outcome.status == "dry-run passed"
    assert "verification issue: x: y" in outcome.lines
    assert not (tmp_path / RECORD_FILE).exists()  # a dry-run records nothing
    assert contract.cache_file("https://api.test", env).is_relative_to(tmp_path)


def test_mock_transport_redirect_is_a_failure_and_not_followed(
    tmp_path: Path, env: dict[str, str]
) -> None:
    run, metrics = _run(FIXTURES / "canonical-c1.json")
    hits: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        hits.append(str(request.url))
        if request.url.path == "/api/agent-context":
            return httpx.Response(200, json=future_context())
        return httpx.Response(307, headers={"Location": "https://elsewhere.test/steal"})

    request = submit.SubmitRequest(
        runs=(run,),
        metrics=metrics,
        setup=SETUP,
        article_dir=tmp_path,
        mode="submit",
        api_base="https://api.test",
    )
    with httpx.Client(transport=httpx.MockTransport(handler), follow_redirects=True) as client:
        report = submit.submit_runs(request, client=client, env=env, now=lambda: NOW)
    assert report.exit_code == 1
    assert not any("elsewhere" in h for h in hits)
    assert report.outcomes[0].lines[0].startswith("submit failed: HTTP 307")
    assert "redirects to https://elsewhere.test/steal (not" in "\n".join(report.outcomes[0].lines)
