"""`reportgen submit` end to end against a real HTTP server on 127.0.0.1 (fake_localmaxxing.py).

No test reaches the internet: the fake binds 127.0.0.1 and every command gets its --api-base.
"""

from __future__ import annotations

import argparse
import base64
import codecs
import io
import json
import random
import re
import ssl
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import certifi
import httpx
import pytest
from fake_localmaxxing import (
    BUNDLED_ARTICLE,
    FIXTURES,
    KEY,
    SETUP,
    FakeLocalMaxxing,
    Reply,
    article,
    measured_copy,
)
from helpers_sweeps import Sweep

from reportgen.cli import submit as cli_submit
from reportgen.fileio import RECORD_FILE
from reportgen.formats.load import load
from reportgen.localmaxxing import conformance, contract, payload
from reportgen.metrics.compute import compute
from reportgen.model import CanonicalRun

NOW = datetime(2026, 12, 2, 12, 0, 0, tzinfo=UTC)
# The tests' own client speaks plain HTTP to the fake; one TLS context serves them all (loading
# the CA bundle costs each new client about 40 ms).
TLS = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
TLS.load_verify_locations(cafile=certifi.where())
SUBMIT, DRY_RUN = "/api/benchmarks", "/api/benchmarks/dry-run"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return {"XDG_CACHE_HOME": str(tmp_path / "cache"), "LOCALMAXXING_API_KEY": KEY}


@pytest.fixture
def api() -> Iterator[FakeLocalMaxxing]:
    with FakeLocalMaxxing() as server:
        server.clock = NOW.timestamp
        yield server


class Result:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    @property
    def text(self) -> str:
        return self.out + self.err


def submit(
    target: Path,
    *flags: str,
    env: dict[str, str],
    api: FakeLocalMaxxing | None,
    answers: list[str] | None = None,
    own_client: bool = False,
) -> Result:
    """`reportgen submit TARGET FLAGS` against the fake API, stdin not a terminal.

    `answers`: run as on a terminal, answering the confirmation with these; without them, a real
    submission is given --yes (the tests that check the question itself pass answers).
    `own_client`: let reportgen make its HTTP client, as the CLI does (else the test's, which
    ignores the environment's proxies).
    """
    parser = argparse.ArgumentParser(prog="reportgen")
    cli_submit.add_parser(parser.add_subparsers(dest="command", required=True))
    base = ["--api-base", api.url] if api else []
    real = not {"--local", "--dry-run"} & set(flags)
    yes = ["--yes"] if real and answers is None and "--no-yes" not in flags else []
    flags = tuple(f for f in flags if f != "--no-yes")
    args = parser.parse_args(["submit", str(target), *base, *flags, *yes])
    out, err = io.StringIO(), io.StringIO()
    questions: list[str] = []

    def ask(question: str) -> str:
        questions.append(question)
        assert answers, "asked more questions than answers given"
        return answers.pop(0)

    with httpx.Client(trust_env=False, verify=TLS) as client:
        code = cli_submit.run(
            args,
            client=None if own_client else client,
            env=env,
            now=lambda: NOW,
            load_setup=lambda _: SETUP,
            out=out,
            err=err,
            interactive=answers is not None,
            ask=ask,
        )
    return Result(code, out.getvalue(), err.getvalue() + "".join(questions))


def expected_payload(path: Path) -> payload.Payload:
    result = load([path])
    (run,) = result.runs
    assert isinstance(run, CanonicalRun)
    return payload.build(run, compute(result.runs), SETUP)


@pytest.mark.parametrize("flags", [(), ("--dry-run",), ("--force",), ("--local",)])
def test_reconstructed_runs_are_refused_before_any_request(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing, flags: tuple[str, ...]
) -> None:
    folder = article(tmp_path, "canonical-c1.json", reconstructed=True)
    saved = tmp_path / "payload.json"
    result = submit(folder, *flags, "--save-payload", str(saved), env=env, api=api)
    assert result.code == 2
    assert "data is reconstructed (dataProvenance.status: reconstructed, from a published" in (
        result.out
    )
    assert "never submits reconstructed data, whatever the flags" in result.out
    assert api.requests == []  # not even the contract
    assert not saved.exists() and not (folder / RECORD_FILE).exists()


def test_submission_201_is_recorded_and_shows_the_rate_limit(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    result = submit(folder / "canonical-c1.json", env=env, api=api)
    assert result.code == 0, result.text
    assert "submitted (HTTP 201); submission id bm_0001" in result.out
    assert "verification issue: engineTimingsRaw missing" in result.out
    assert "no submissions left in this rate-limit window: retry after 5 min" in result.out
    assert "contract: the agent-context from http://127.0.0.1" in result.out
    assert [r.path for r in api.requests] == ["/api/agent-context", SUBMIT]
    (post,) = api.posts()
    expected = expected_payload(folder / "canonical-c1.json")
    assert post.body == expected.text.encode()
    assert post.headers["authorization"] == f"Bearer {KEY}"
    record = json.loads((folder / RECORD_FILE).read_text())["submissions"]
    assert record == [
        {
            "runFile": str(folder / "canonical-c1.json"),
            "runSha256": expected.run_sha256,
            "payloadSha256": expected.sha256,
            "submissionId": "bm_0001",
            "submittedAt": "2026-12-02T12:00:00+00:00",
            "apiBase": api.url,
            "verifiedRun": False,
        }
    ]


def test_a_second_submission_needs_force_and_a_429_is_not_retried(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    assert submit(folder, env=env, api=api).code == 0
    again = submit(folder, env=env, api=api)
    assert again.code == 2
    assert "refused: already submitted to" in again.out and "pass --force" in again.out
    assert len(api.posts()) == 1
    forced = submit(folder, "--force", env=env, api=api)
    assert forced.code == 1
    assert "submit failed: HTTP 429 Too Many Requests" in forced.out
    assert "server error: Rate limit exceeded" in forced.out
    assert "rate limited: retry after 4 min 0 s (at 2026-12-02 12:04:00 UTC)" in forced.out
    assert len(api.posts()) == 2  # exactly one more request: no retry loop
    assert len(json.loads((folder / RECORD_FILE).read_text())["submissions"]) == 1


def test_a_429_with_retry_after_ms_is_shown_and_stops_the_batch(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    folder = article(tmp_path, "canonical-c1.json", "canonical-c2.json")
    api.queue(SUBMIT, Reply(429, {"error": "Too many submissions", "retryAfterMs": 90_000}))
    result = submit(folder, env=env, api=api)
    assert result.code == 1
    assert "retry after 1 min 30 s (at 2026-12-02 12:01:30 UTC)" in result.out
    assert "reportgen does not retry by itself" in result.out
    assert "not sent: rate limited" in result.out
    assert len(api.posts()) == 1


def test_batch_stops_when_the_rate_limit_window_is_used_up(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    folder = article(tmp_path, "canonical-c1.json", "canonical-c2.json")
    result = submit(folder, env=env, api=api)
    assert result.code == 1  # one of two sent
    assert "canonical-c1.json: submitted" in result.out
    assert "canonical-c2.json: not sent\n  not sent: rate-limit window used up" in result.out
    assert len(api.posts()) == 1


def test_400_shows_the_error_and_the_suggested_hf_id(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    api.known_models = {}
    folder = article(tmp_path, "canonical-c1.json")
    result = submit(folder, env=env, api=api)
    assert result.code == 1
    assert "submit failed: HTTP 400 Bad Request" in result.out
    assert "server error: Unknown model 'moonshotai/Kimi-K3.1-Pro'" in result.out
    assert "the server suggests hfId 'moonshotai/Kimi-K3.1-Pro'" in result.out
    assert not (folder / RECORD_FILE).exists()


def test_401_never_shows_the_key_even_when_the_server_echoes_it(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    data = json.loads((FIXTURES / "canonical-c1.json").read_text())
    data["engineFlags"]["commandSnippet"] += f" --lmx-key {KEY}"  # a key pasted by mistake
    folder = article(tmp_path, "canonical-c1.json")
    (folder / "canonical-c1.json").write_text(json.dumps(data))
    api.queue(SUBMIT, Reply(401, {"error": "Invalid API key"}, echo_key=True))
    saved = tmp_path / "saved.json"
    result = submit(folder, "--save-payload", str(saved), env=env, api=api)
    assert result.code == 1
    assert "submit failed: HTTP 401 Unauthorized" in result.out
    assert "server error: Invalid API key: Bearer [redacted]" in result.out
    assert "the API key is missing, expired or invalid" in result.out
    assert "a key-like value in the payload was redacted" in result.out
    assert KEY not in result.text and KEY[:12] not in result.text
    assert KEY not in saved.read_text() and "--lmx-key [redacted]" in saved.read_text()
    assert KEY.encode() not in api.posts()[0].body
    assert not (folder / RECORD_FILE).exists()
    for path in (tmp_path / "cache").rglob("*"):
        assert not path.is_file() or KEY not in path.read_text()


def test_key_is_not_in_the_record_file(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    result = submit(folder, env=env, api=api)
    assert result.code == 0
    assert KEY not in (folder / RECORD_FILE).read_text() and KEY not in result.text


def test_wrong_key_from_lmx_api_key_gets_401(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    folder = article(tmp_path, "canonical-c1.json", "canonical-c2.json")
    other = "bhk_" + "f" * 40
    env = {"XDG_CACHE_HOME": env["XDG_CACHE_HOME"], "LMX_API_KEY": other}
    result = submit(folder, "--dry-run", env=env, api=api)
    assert result.code == 1
    assert "dry-run failed: HTTP 401" in result.out and other not in result.text
    assert "not sent: the API key was refused" in result.out
    assert len(api.posts()) == 1  # the same key would be refused again


def test_non_json_200_is_a_failure(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    api.queue(SUBMIT, Reply(200, "<html>maintenance</html>"))
    result = submit(folder, env=env, api=api)
    assert result.code == 1
    assert "submit failed: HTTP 200 OK" in result.out
    assert "the answer is not a JSON object (text/html): '<html>maintenance</html>'" in result.out
    assert "may or may not have been stored" in result.out
    assert not (folder / RECORD_FILE).exists()


@pytest.mark.slow
def test_a_slow_answer_is_a_bounded_timeout(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    api.queue(SUBMIT, Reply(201, {"id": "late"}, delay_s=5))
    start = time.monotonic()
    result = submit(folder, "--timeout", "0.3", env=env, api=api)
    assert time.monotonic() - start < 3
    assert result.code == 1
    assert "no answer from" in result.out and "within the 0.3 s timeout" in result.out
    assert "may have reached the server" in result.out
    assert len(api.posts()) == 1 and not (folder / RECORD_FILE).exists()


def test_dry_run_shows_verification_issues_and_records_nothing(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    result = submit(folder, "--dry-run", env=env, api=api)
    assert result.code == 0, result.text
    assert "dry-run passed (HTTP 200)" in result.out
    assert "verification: not verified" in result.out
    assert "verification issue: outputSha256 does not match outputSample" in result.out
    assert [r.path for r in api.posts()] == [DRY_RUN]
    assert not (folder / RECORD_FILE).exists()


def test_local_check_uses_the_bundled_snapshot_offline_and_keeps_the_payload(
    tmp_path: Path, env: dict[str, str]
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    saved = tmp_path / "ready.json"
    result = submit(folder, "--local", "--save-payload", str(saved), env=env, api=None)
    assert result.code == 2
    assert "contract: the bundled contract snapshot (reconstructed from public docs" in result.out
    assert "refused by the local contract check:" in result.out
    assert "similar accepted names: AMD Instinct MI300X, AMD Instinct MI325X" in result.out
    assert "engine 'paiton' is not accepted by the contract; accepted values: llama.cpp" in (
        result.out
    )
    assert "can be sent unchanged once the contract accepts it" in result.out
    assert saved.read_text() == expected_payload(folder / "canonical-c1.json").text


def test_local_check_output_exactly(tmp_path: Path, env: dict[str, str]) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    result = submit(folder, "--local", env=env, api=None)
    assert result.code == 2
    assert result.err == "submit: 1 refused\n"
    assert result.out.replace(str(folder), "ART") == (
        "contract: the bundled contract snapshot (reconstructed from public docs as of "
        "2026-11-11; not a live fetch; partial)\n"
        "ART/canonical-c1.json: refused\n"
        "  refused by the local contract check:\n"
        "  /engineName: engine 'paiton' is not accepted by the contract; accepted values: "
        "llama.cpp, vllm, sglang, ollama, lmstudio, exllamav2, tgi, tensorrt-llm, mlx, "
        "text-generation-webui, lmdeploy, mlc-llm, hipfire, tinygrad\n"
        "  /hardware/gpuName: GPU 'AMD Instinct MI355X' is not accepted by the contract "
        "(hardwareOptions.discreteGpuNames); similar accepted names: AMD Instinct MI300X, "
        "AMD Instinct MI325X (7 names in all); this list is partial, a live refresh may know "
        "more\n"
        "  /engineFlags/maxTokens: warning: engineFlags.maxTokens is not among the contract's "
        "known engineFlags keys; the server may drop it\n"
        "  /quantization: warning: quantization 'MXFP4' is not among the contract's common "
        "values (Q4_K_M, Q5_K_M, Q6_K, Q8_0, IQ4_NL, IQ3_M, AWQ, GPTQ, fp8, fp16, bf16, int4, "
        "int8, INT4, NVFP4, bnb-nf4); the server may still take it\n"
    )


def test_refreshed_contract_is_cached_outside_the_repo_and_used_offline(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    assert submit(folder, "--dry-run", env=env, api=api).code == 0
    cached = contract.cache_file(api.url, env)
    assert cached.is_relative_to(tmp_path / "cache")
    assert json.loads(cached.read_text())["_snapshot"]["fetchedAt"]
    offline = submit(folder, "--local", "--api-base", api.url, env=env, api=None)
    assert offline.code == 0, offline.text
    assert (
        "(cached copy, fetched" in offline.out and "passes the local contract check" in offline.out
    )


def test_an_unreachable_contract_falls_back_and_says_so(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    api.queue("/api/agent-context", Reply(503, "down"))
    result = submit(folder, "--dry-run", env=env, api=api)
    assert result.code == 2  # the bundled snapshot does not accept the MI355X
    assert "could not refresh the contract: GET" in result.out and "answered 503" in result.out
    assert api.posts() == []


def test_without_a_key_nothing_is_sent(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    result = submit(folder, env={"XDG_CACHE_HOME": env["XDG_CACHE_HOME"]}, api=api)
    assert result.code == 2
    assert "no API key: set LOCALMAXXING_API_KEY (or LMX_API_KEY)" in result.out
    assert api.posts() == []


@pytest.mark.parametrize(
    "base", ["http://localmaxxing.com", "ftp://127.0.0.1", "https://user:pw@localmaxxing.com"]
)
def test_unsafe_api_bases_are_refused(tmp_path: Path, env: dict[str, str], base: str) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    result = submit(folder, "--api-base", base, env=env, api=None)
    assert result.code == 2 and "--api-base" in result.err


def test_a_run_file_outside_an_article_needs_article(env: dict[str, str]) -> None:
    result = submit(FIXTURES / "canonical-c1.json", "--local", env=env, api=None)
    assert result.code == 2 and "--article DIR" in result.err


def test_bundled_article_canonical_single_run(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    """The bundled article's canonical single-request run: refused as it is (reconstructed);
    a measured copy gives the payload below and the local contract check's verdict."""
    original = BUNDLED_ARTICLE / "canonical-single.json"
    assert original.is_file()
    refused = submit(original, "--article", str(tmp_path), env=env, api=api)
    assert refused.code == 2 and "reconstructed" in refused.out and api.requests == []

    copy = measured_copy(original, tmp_path / "measured" / "canonical-single.json")
    built = expected_payload(copy)
    body = built.body()
    assert body["hardware"]["gpuName"] == "AMD Instinct MI355X"
    assert body["engineName"] == "paiton"
    findings = conformance.check(body, contract.bundled(), prompt_id=built.prompt_id)
    print("\npayload for", original.name, "(measured copy):\n" + built.text)
    print("local contract check (" + contract.bundled().describe() + "):")
    for finding in findings:
        print("  " + finding.format())
    errors = {f.field for f in findings if f.severity == "error"}
    assert errors == {"/hardware/gpuName", "/engineName"}


# --- a real submission is deliberate -------------------------------------------------------


def test_a_real_submission_from_a_script_needs_yes(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    result = submit(folder, "--no-yes", env=env, api=api)
    assert result.code == 2
    assert "a real submission needs --yes when stdin is not a terminal" in result.err
    assert api.requests == []  # refused before any request, the contract's included
    assert not (folder / RECORD_FILE).exists()


def test_on_a_terminal_the_submission_is_shown_and_asked_first(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    sent = expected_payload(folder / "canonical-c1.json").body()
    declined = submit(folder, env=env, api=api, answers=["n"])
    assert declined.code == 1 and api.posts(SUBMIT) == []
    assert "not sent: the submission was not confirmed" in declined.out
    shown = declined.err
    assert f"about to submit 1 run(s) to {api.url}" in shown
    assert f"model {sent['hfId']}" in shown and f"engine {sent['engineName']}" in shown
    gpu = sent["hardware"]["gpuName"]
    assert f"{sent['hardware']['gpuCount']}x {gpu}" in shown
    assert f"output {sent['tokSOut']:,g} tok/s" in shown
    assert "Submit 1 run(s) for real? [y/N] " in shown
    accepted = submit(folder, env=env, api=api, answers=["y"])
    assert accepted.code == 0 and len(api.posts(SUBMIT)) == 1
    assert "submitted (HTTP 201)" in accepted.out


@pytest.mark.parametrize("mode", ["--dry-run", "--local"])
def test_checks_and_dry_runs_ask_nothing(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing, mode: str
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    on_terminal = submit(folder, mode, env=env, api=api, answers=[])
    from_script = submit(folder, mode, env=env, api=api)
    assert on_terminal.code == from_script.code and "[y/N]" not in on_terminal.err


def test_a_key_with_characters_no_header_can_carry_is_a_clear_error(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    bad = KEY[:-1] + "é"
    result = submit(folder, "--dry-run", env={**env, "LOCALMAXXING_API_KEY": bad}, api=api)
    assert result.code == 2
    assert result.err.startswith("LOCALMAXXING_API_KEY:1:1 /: holds characters an HTTP header")
    assert bad not in result.text and KEY[:12] not in result.text and "Traceback" not in result.text
    assert api.requests == []


def _echoed_forms(key: str) -> dict[str, str]:
    bare = key.removeprefix("bhk_")
    return {
        "upper": key.upper(),
        "bare": bare,
        "bare-upper": bare.upper(),
        "hex": key.encode().hex(),
        "hex-upper": key.encode().hex().upper(),
        "base64": base64.b64encode(key.encode()).decode(),
        "base64-bare": base64.b64encode(bare.encode()).decode(),
        "base64-in-basic-auth": base64.b64encode(f"user:{key}".encode()).decode(),
        "base64-offset-2": base64.b64encode(f"xy{key}!".encode()).decode(),
        "base64-url": base64.urlsafe_b64encode(f"?{key}".encode()).decode(),
    }


@pytest.mark.sampled
@pytest.mark.parametrize("form", list(_echoed_forms(KEY)))
def test_a_key_echoed_back_in_another_form_is_redacted(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing, form: str
) -> None:
    echoed = _echoed_forms(KEY)[form]
    folder = article(tmp_path, "canonical-c1.json")
    api.queue(DRY_RUN, Reply(400, {"error": f"key {echoed} is not allowed here"}))
    result = submit(folder, "--dry-run", env=env, api=api)
    assert result.code == 1 and "server error: key " in result.out and "[redacted]" in result.out
    bare = KEY.removeprefix("bhk_")
    for leaked in (echoed, KEY, bare, bare.upper(), bare[:16], KEY.encode().hex()[:16]):
        assert leaked not in result.text, leaked


# Characters that must never reach a terminal raw, and the start of a GitHub workflow command.
INVISIBLE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
COMMAND = re.compile(r"^\s*(::|##\[)", re.M)
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture
def proxy(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLocalMaxxing]:
    """A real HTTP server on 127.0.0.1 named as every proxy of the environment; it records
    whatever reaches it (and answers 404)."""
    with FakeLocalMaxxing() as server:
        for name in ("NO_PROXY", "no_proxy", "SSL_CERT_FILE", "SSL_CERT_DIR"):
            monkeypatch.delenv(name, raising=False)
        for name in PROXY_VARS:
            monkeypatch.setenv(name, server.url)
        yield server


@pytest.mark.parametrize("mode", ["--dry-run", "--yes"])
def test_the_key_never_goes_to_a_proxy_from_the_environment(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing, proxy: FakeLocalMaxxing, mode: str
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    result = submit(folder, mode, env=env, api=api, own_client=True)
    assert result.code == 0, result.text
    assert proxy.requests == []
    assert [r.path for r in api.requests][1:] == [DRY_RUN if mode == "--dry-run" else SUBMIT]
    assert api.posts()[0].headers["authorization"] == f"Bearer {KEY}"


def test_a_socks_proxy_in_the_environment_is_ignored_without_a_traceback(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALL_PROXY", "socks5://127.0.0.1:9")
    folder = article(tmp_path, "canonical-c1.json")
    result = submit(folder, "--dry-run", env=env, api=api, own_client=True)
    assert result.code == 0 and "dry-run passed" in result.out, result.text
    refused = submit(folder, "--dry-run", "--trust-env", env=env, api=api, own_client=True)
    assert refused.code == 2 and "Traceback" not in refused.text
    assert refused.err.startswith("reportgen submit: error: --trust-env: ")
    assert "ALL_PROXY" in refused.err and "socks" in refused.err and KEY not in refused.text
    assert len(api.posts()) == 1


def test_trust_env_sends_through_the_environments_proxy(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing, proxy: FakeLocalMaxxing
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    result = submit(folder, "--dry-run", "--trust-env", env=env, api=api, own_client=True)
    # the proxy (answering 404) is asked for the contract; the bundled one then refuses the GPU
    assert result.code == 2 and "could not refresh the contract: GET" in result.out
    assert [r.path for r in proxy.requests] == [api.url + "/api/agent-context"]
    assert api.requests == []


def test_trust_env_is_documented(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="reportgen")
    cli_submit.add_parser(parser.add_subparsers(dest="command", required=True))
    with pytest.raises(SystemExit):
        parser.parse_args(["submit", "--help"])
    helptext = " ".join(capsys.readouterr().out.split())
    assert "--trust-env" in helptext and "HTTPS_PROXY" in helptext


SHOUTING = (
    "\x1b[2K\r\x1b[32msubmitted (HTTP 201)\x1b[0m\x07\x08\x9b\u202e\n::error::pwned\n::add-mask::x"
)


@pytest.mark.sampled
@pytest.mark.parametrize(
    ("status", "body"),
    [
        (400, {"error": SHOUTING, "suggestedHfId": "a\n::set-output name=x::y"}),
        (400, {"errors": [SHOUTING, {"field": "\u2066hfId", "message": SHOUTING}]}),
        (200, {"ok": True, "verification": {"verified": True, "issues": [SHOUTING]}}),
        (502, SHOUTING),
        (400, {"error": "x" * 5000 + SHOUTING}),
    ],
)
def test_server_text_is_printed_as_data(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing, status: int, body: object
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    api.queue(DRY_RUN, Reply(status, body))
    result = submit(folder, "--dry-run", env=env, api=api)
    assert not INVISIBLE.search(result.text.replace("\n", " ")), result.text
    assert not COMMAND.search(result.text), result.text
    assert not re.search(r"^\s*submitted", result.text, re.M)
    assert "\\x1b[2K" in result.text or "x" * 5000 not in result.text
    assert len(max(result.text.splitlines(), key=len)) < 2000


def test_a_submission_id_is_shown_and_recorded_as_data(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    api.queue(SUBMIT, Reply(201, {"id": "bm_1\n::error::x\x1b[2J", "verifiedRun": False}))
    result = submit(folder, env=env, api=api)
    assert result.code == 0 and "submission id bm_1\\n::error::x\\x1b[2J" in result.out
    assert not INVISIBLE.search(result.text.replace("\n", " "))
    recorded = (folder / RECORD_FILE).read_text()
    assert "\x1b" not in recorded and "\\u001b" not in recorded


def _hidden_forms(key: str) -> dict[str, str]:
    """The key as a hostile server might hide it in an error text."""
    bare = key.removeprefix("bhk_")
    b64 = base64.b64encode(key.encode()).decode()
    return {
        "reversed": key[::-1],
        "reversed-bare-upper": bare[::-1].upper(),
        "spaced": " ".join(key),
        "separators": "-".join(bare[i : i + 2] for i in range(0, len(bare), 2)),
        "case-changed": "".join(c.upper() if i % 2 else c for i, c in enumerate(key)),
        "split-across-lines": "\n".join(bare[i : i + 5] for i in range(0, len(bare), 5)),
        "control-separated": "\x00".join(bare[i : i + 5] for i in range(0, len(bare), 5)),
        "chunks-reordered": " ".join(bare[i : i + 8] for i in range(32, -1, -8)),
        "base32": base64.b32encode(key.encode()).decode(),
        "base32-lower-bare": base64.b32encode(bare.encode()).decode().lower(),
        "base32-reversed": base64.b32encode(key[::-1].encode()).decode(),
        "base64-split": "\n".join(b64[i : i + 7] for i in range(0, len(b64), 7)),
        "base64-offset-1": base64.b64encode(b"x" + bare.encode()).decode(),
        "hex-colons": ":".join(f"{b:02x}" for b in key.encode()),
        "url-encoded": "".join(f"%{b:02X}" for b in key.encode()),
        "json-escaped": "".join(f"\\u{ord(c):04x}" for c in bare),
        "html-entities": "".join(f"&#{ord(c)};" for c in bare),
        "half": bare[:20],
        "full-width": "".join(chr(ord(c) + 0xFEE0) for c in key),
        "rot13": codecs.encode(key, "rot13"),
        "decimal-bytes": " ".join(str(b) for b in key.encode()),
        "0x-list": ", ".join(f"0x{b:02x}" for b in bare.encode()),
        "octal-escaped": "".join(f"\\{b:03o}" for b in bare.encode()),
        "hex-of-base64": b64.encode().hex(),
        "ascii85": base64.a85encode(key.encode()).decode(),
        "pieces-in-junk": "q".join(bare[i : i + 5] for i in range(0, len(bare), 5)),
        "lookalikes": bare.translate(str.maketrans("aced", "\u0430\u0441\u0435\u0501")),
    }


def _leaked(text: str, key: str) -> list[str]:
    """Pieces of 10 characters of the key (or of it reversed) that `text` shows, in any case
    once everything but letters and digits is dropped."""
    bare = key.removeprefix("bhk_").lower()
    flat = re.sub(r"[^a-z0-9]", "", text.lower())
    return [p for s in (bare, bare[::-1]) for i in range(31) if (p := s[i : i + 10]) in flat]


# A key of the documented shape whose hex has no long run of digits (the fake's KEY has
# "0123456789", which alone would give a piece of it in most encodings).
MIXED_KEY = "bhk_7e3f9c1d5a8b2e6f4c0d9b8a7f6e5d4c3b2a1f0e"


@pytest.mark.slow
@pytest.mark.parametrize("key", [KEY, MIXED_KEY], ids=["fake-key", "mixed-key"])
def test_a_key_hidden_in_a_server_text_is_never_printed(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing, key: str, sweep: Sweep
) -> None:
    """Each form of `_hidden_forms`, in the error text of its own dry run."""

    def printed(form: str) -> str | None:
        hidden = _hidden_forms(key)[form]
        (tmp_path / form).mkdir()
        folder = article(tmp_path / form, "canonical-c1.json")
        api.script.clear()  # nothing left from the form before
        api.queue(DRY_RUN, Reply(400, {"error": f"bad key {hidden} for this user"}))
        result = submit(folder, "--dry-run", env={**env, "LOCALMAXXING_API_KEY": key}, api=api)
        assert result.code == 1 and "dry-run failed: HTTP 400" in result.out
        assert "withheld" in result.out or "[redacted]" in result.out
        assert hidden not in result.text and not _leaked(result.text, key)
        shown = result.text.replace("\\n", "\n").replace("\\x00", "")
        assert not _leaked(shown, key) and hidden.replace("\n", "") not in shown.replace("\n", "")
        return None

    sweep.judge(list(_hidden_forms(key)), printed, sample=True)


def test_a_key_split_between_two_server_texts_is_never_printed(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    bare = KEY.removeprefix("bhk_")
    folder = article(tmp_path, "canonical-c1.json")
    api.queue(DRY_RUN, Reply(400, {"error": bare[:20], "errors": [bare[20:]]}))
    result = submit(folder, "--dry-run", env=env, api=api)
    assert result.code == 1 and "withheld" in result.out
    assert bare[:12] not in result.text and bare[-12:] not in result.text


def test_a_key_spread_over_the_answers_of_a_batch_is_never_printed(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    bare = KEY.removeprefix("bhk_")
    folder = article(tmp_path, "canonical-c1.json", "canonical-c2.json")
    for piece in (bare[:10], bare[10:20]):  # each below what one text may show
        api.queue(DRY_RUN, Reply(400, {"error": f"quota of {piece} used up"}))
    result = submit(folder, "--dry-run", env=env, api=api)
    assert result.code == 1 and len(api.posts()) == 2 and "withheld" in result.out
    assert not _leaked(result.text, KEY) and bare[:10] not in result.text


def test_a_key_in_a_submission_id_is_neither_shown_nor_recorded(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    api.queue(SUBMIT, Reply(201, {"id": KEY[::-1], "verifiedRun": False}))
    result = submit(folder, env=env, api=api)
    assert result.code == 0 and "withheld" in result.out
    assert not _leaked(result.text, KEY)
    assert not _leaked((folder / RECORD_FILE).read_text(), KEY)


@pytest.mark.parametrize("mode", ["--local", "--dry-run", "--yes"])
def test_a_payload_that_holds_the_key_in_another_form_is_neither_sent_nor_saved(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing, mode: str
) -> None:
    data = json.loads((FIXTURES / "canonical-c1.json").read_text())
    data["engineFlags"]["commandSnippet"] += " --lmx-key '" + " ".join(KEY[::-1]) + "'"
    folder = article(tmp_path, "canonical-c1.json")
    (folder / "canonical-c1.json").write_text(json.dumps(data))
    saved = tmp_path / "saved.json"
    result = submit(folder, mode, "--save-payload", str(saved), env=env, api=api)
    assert result.code == 2 and "refused: the payload holds the API key" in result.out
    assert not saved.exists() and api.posts() == [] and not _leaked(result.text, KEY)


DEEP = b"[" * 100_000 + b"]" * 100_000  # within the answer cap; json.loads recurses past the limit


@pytest.mark.sampled
@pytest.mark.parametrize(
    ("path", "reply"),
    [
        (DRY_RUN, Reply(400, DEEP, {"Content-Type": "application/json"})),
        (DRY_RUN, Reply(200, DEEP, {"Content-Type": "application/json"})),
        ("/api/agent-context", Reply(200, DEEP, {"Content-Type": "application/json"})),
        (DRY_RUN, Reply(429, {"error": "slow down"}, {"Retry-After": "nan"})),
        (DRY_RUN, Reply(429, {"error": "slow down"}, {"Retry-After": "inf"})),
        (DRY_RUN, Reply(429, {"error": "slow down", "retryAfterMs": 1e308})),
        (DRY_RUN, Reply(429, {"error": "slow down"}, {"X-RateLimit-Reset": "1e400"})),
        (DRY_RUN, Reply(429, {"error": "slow down"}, {"Retry-After": "-1e300"})),
    ],
)
def test_a_hostile_answer_is_a_failure_without_a_traceback(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing, path: str, reply: Reply
) -> None:
    folder = article(tmp_path, "canonical-c1.json")
    api.queue(path, reply)
    result = submit(folder, "--dry-run", env=env, api=api)
    assert "Traceback" not in result.text
    if path == "/api/agent-context":  # the bundled contract then refuses the MI355X
        assert result.code == 2 and "could not refresh the contract: GET" in result.out
    else:
        assert result.code == 1 and "dry-run failed: HTTP" in result.out
    if reply.status == 429:
        assert "rate limited: " in result.out and "nan" not in result.out.lower()


def test_tls_secrets_are_not_logged_where_the_environment_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SSLKEYLOGFILE would make Python write each TLS session's secrets, with which a capture
    of the traffic shows the key; only --trust-env honours it."""
    from reportgen.localmaxxing.submit import http_client

    keylog = tmp_path / "keylog.txt"
    monkeypatch.setenv("SSLKEYLOGFILE", str(keylog))
    with http_client() as client:
        assert isinstance(client, httpx.Client)
    assert not keylog.exists()


@pytest.mark.slow
def test_ordinary_server_texts_are_not_taken_for_the_key() -> None:
    from reportgen.localmaxxing.keys import leaks

    texts = [
        "outputSha256 does not match outputSample",
        "promptSha256 9000edaadb16fc77ab78b39917245a03d4d7585c3ba770cb045a47a0e0683445 expected "
        "3b7e1c2f0a9d4e5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3",
        "Unknown gpuName; see hardwareOptions.discreteGpuNames",
        "request id 4f1c2e9a-77b0-4d6e-9a51-0c3b2f8e6d17, retry after 2026-12-02T12:04:00Z",
        base64.b64encode(bytes(range(256))).decode(),
    ]
    letters = random.Random(0).choices("abcdefghijklmnopqrstuvwxyz ", k=32_000)
    texts.append("".join(letters).encode().hex())  # 64,000 hex characters, by chance alone
    # (not the fake's KEY: its "0123456789abcdef" is in any text that counts through the bytes)
    for key in (MIXED_KEY, "bhk_" + random.Random(1).randbytes(20).hex()):
        assert [leaks(t, key) for t in texts] == [False] * len(texts)
        assert leaks(f"echo {key[::-1]}", key) and not leaks("echo", None)


def test_run_file_strings_are_printed_as_data_in_the_confirmation_and_findings(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing
) -> None:
    data = json.loads((FIXTURES / "canonical-c1.json").read_text())
    data["engineVersion"] = "b94\x1b[2J\r\n::error::fake\u202e"
    data["engineFlags"]["\x1b]0;t\x07\n::warning::k"] = "\n::set-output name=a::b"
    folder = article(tmp_path, "canonical-c1.json")
    (folder / "canonical-c1.json").write_text(json.dumps(data))
    result = submit(folder, env=env, api=api, answers=["n"])
    assert result.code == 1 and "not sent: the submission was not confirmed" in result.out
    assert "engine paiton b94\\x1b[2J\\r\\n::error::fake\\u202e" in result.err
    assert not INVISIBLE.search(result.text.replace("\n", " ")), result.text
    assert not COMMAND.search(result.text) and api.posts() == []


@pytest.mark.parametrize("path", [f"/{KEY}", f"/u/{MIXED_KEY[::-1]}"])
def test_an_api_base_that_holds_the_key_is_refused(
    tmp_path: Path, env: dict[str, str], api: FakeLocalMaxxing, path: str
) -> None:
    key = KEY if KEY in path else MIXED_KEY
    folder = article(tmp_path, "canonical-c1.json")
    parser = argparse.ArgumentParser(prog="reportgen")
    cli_submit.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["submit", str(folder), "--dry-run", "--api-base", api.url + path])
    err = io.StringIO()
    code = cli_submit.run(
        args, env={**env, "LOCALMAXXING_API_KEY": key}, out=io.StringIO(), err=err
    )
    assert code == 2 and "--api-base holds the API key" in err.getvalue()
    assert not _leaked(err.getvalue(), key) and api.requests == []
