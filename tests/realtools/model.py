"""Write a tiny, deterministic llama-architecture GGUF and a matching Hugging Face tokenizer.

The model is meant for benchmarking benchmark *tools*, not language: it does real transformer
compute (random small weights, 512-dim, 8 layers, f16 by default) but its output is fixed. Every
character of the vocabulary is one token, and the next token is always the next lowercase letter
(``a``..``z``, cycling; any other token is followed by ``a``). ``</s>`` can never win, so a
request always produces exactly ``max_tokens`` tokens.

Vocabulary (ids are shared by the GGUF and the tokenizer folder)::

    0 <unk>   1 <s>   2 </s>   3..258 <0x00>..<0xFF>   259 ▁   260.. printable ASCII '!'..'~'

Usage::

    python tests/realtools/model.py --out DIR [--dim 512 --layers 8 --ff 1536]

writes ``DIR/tiny-llama.gguf``, ``DIR/tokenizer/`` (the tokenizer every tool gets) and
``DIR/tokenizer-bytes-special/`` (the same, with the 256 byte tokens declared special, for
inference-perf's random data). It prints the GGUF's sha256: the same arguments give the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

SPACE = "\u2581"  # "▁", SentencePiece's word-boundary mark
LETTERS = "abcdefghijklmnopqrstuvwxyz"
UNK_ID, BOS_ID, EOS_ID = 0, 1, 2
FIRST_BYTE_ID = 3
SPACE_ID = FIRST_BYTE_ID + 256
# gguf.TokenType values, spelled out so the vocabulary can be built without importing gguf.
NORMAL, UNKNOWN, CONTROL, BYTE = 1, 2, 3, 6
# Concatenate the messages' text, nothing else: the server's prompt is then <s> + "▁" + content,
# the same ids a client gets from the tokenizer folder.
CHAT_TEMPLATE = "{% for message in messages %}{{ message['content'] }}{% endfor %}"
GGUF_NAME = "tiny-llama.gguf"


@dataclass(frozen=True)
class ModelSpec:
    dim: int = 512
    layers: int = 8
    ff: int = 1536
    heads: int = 8
    context: int = 4096
    seed: int = 20261203
    weight_std: float = 0.02
    f16: bool = True


def vocabulary() -> tuple[list[str], list[int]]:
    """Token strings and GGUF token types, in id order."""
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)] + [SPACE]
    tokens += [chr(c) for c in range(0x21, 0x7F)]
    types = [UNKNOWN, CONTROL, CONTROL] + [BYTE] * 256 + [NORMAL] * (len(tokens) - 259)
    return tokens, types


def successor(token: str) -> str:
    """The token the model always predicts after ``token``."""
    if len(token) == 1 and token in LETTERS:
        return LETTERS[(LETTERS.index(token) + 1) % len(LETTERS)]
    return "a"


def build_tensors(spec: ModelSpec) -> dict[str, np.ndarray]:
    """All tensors, in numpy (rows = output features) layout, in GGUF write order."""
    tokens, _ = vocabulary()
    n_vocab = len(tokens)
    if spec.dim < len(LETTERS) + 1:
        raise ValueError(f"--dim must be at least {len(LETTERS) + 1}")
    rng = np.random.default_rng(spec.seed)
    wtype = np.float16 if spec.f16 else np.float32

    def rand(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape, dtype=np.float32) * spec.weight_std).astype(wtype)

    # Each letter owns one residual dimension; every other token shares dimension 26. The scale
    # makes the embedding's RMS 1, so the random layers only add a small perturbation to it.
    other_dim = len(LETTERS)
    scale = float(np.sqrt(spec.dim))
    embd = rng.standard_normal((n_vocab, spec.dim), dtype=np.float32) * spec.weight_std
    for tid, tok in enumerate(tokens):
        d = LETTERS.index(tok) if len(tok) == 1 and tok in LETTERS else other_dim
        embd[tid, d] += scale
    # Logit of token s reads the dimension of every token whose successor is s. </s> and every
    # non-letter get an all-zero row, so their logit is ~0 against ~40 for the successor.
    alpha = 2.0
    out = np.zeros((n_vocab, spec.dim), dtype=np.float32)
    for tok in tokens:
        d = LETTERS.index(tok) if len(tok) == 1 and tok in LETTERS else other_dim
        out[tokens.index(successor(tok)), d] = alpha

    tensors: dict[str, np.ndarray] = {"token_embd.weight": embd.astype(wtype)}
    ones = np.ones(spec.dim, dtype=np.float32)
    for i in range(spec.layers):
        p = f"blk.{i}."
        tensors[p + "attn_norm.weight"] = ones.copy()
        tensors[p + "attn_q.weight"] = rand(spec.dim, spec.dim)
        tensors[p + "attn_k.weight"] = rand(spec.dim, spec.dim)
        tensors[p + "attn_v.weight"] = rand(spec.dim, spec.dim)
        tensors[p + "attn_output.weight"] = rand(spec.dim, spec.dim)
        tensors[p + "ffn_norm.weight"] = ones.copy()
        tensors[p + "ffn_gate.weight"] = rand(spec.ff, spec.dim)
        tensors[p + "ffn_up.weight"] = rand(spec.ff, spec.dim)
        tensors[p + "ffn_down.weight"] = rand(spec.dim, spec.ff)
    tensors["output_norm.weight"] = ones.copy()
    tensors["output.weight"] = out.astype(wtype)
    return tensors


def write_gguf(path: Path, spec: ModelSpec) -> str:
    """Write the model; return its sha256."""
    import gguf

    tokens, types = vocabulary()
    tmp = path.with_suffix(".tmp")
    w = gguf.GGUFWriter(str(tmp), "llama")
    w.add_name("reportgen-tiny-llama")
    w.add_context_length(spec.context)
    w.add_embedding_length(spec.dim)
    w.add_block_count(spec.layers)
    w.add_feed_forward_length(spec.ff)
    w.add_head_count(spec.heads)
    w.add_head_count_kv(spec.heads)
    w.add_rope_dimension_count(spec.dim // spec.heads)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16 if spec.f16 else gguf.LlamaFileType.ALL_F32)
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores([0.0] * len(tokens))
    w.add_token_types(types)
    w.add_bos_token_id(BOS_ID)
    w.add_eos_token_id(EOS_ID)
    w.add_unk_token_id(UNK_ID)
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)
    w.add_chat_template(CHAT_TEMPLATE)
    for name, arr in build_tensors(spec).items():
        w.add_tensor(name, arr)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    os.replace(tmp, path)
    return sha256_file(path)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_tokenizer(folder: Path, *, bytes_special: bool = False) -> None:
    """A tokenizers BPE with no merges over the GGUF's vocabulary, saved by transformers."""
    from tokenizers import Tokenizer, decoders, normalizers, processors
    from tokenizers.models import BPE
    from transformers import PreTrainedTokenizerFast

    tokens, _ = vocabulary()
    vocab = {tok: i for i, tok in enumerate(tokens)}
    tok = Tokenizer(BPE(vocab=vocab, merges=[], unk_token="<unk>", byte_fallback=True))
    tok.normalizer = normalizers.Sequence(
        [normalizers.Prepend(SPACE), normalizers.Replace(" ", SPACE)]
    )
    tok.decoder = decoders.Sequence(
        [
            decoders.Replace(SPACE, " "),
            decoders.ByteFallback(),
            decoders.Fuse(),
            decoders.Strip(" ", 1, 0),
        ]
    )
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", BOS_ID)]
    )
    special = ["<unk>", "<s>", "</s>"]
    if bytes_special:
        special += tokens[FIRST_BYTE_ID:SPACE_ID]
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
        additional_special_tokens=special[3:] or None,
        model_max_length=4096,
        clean_up_tokenization_spaces=False,
    )
    fast.add_special_tokens({"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"})
    folder.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(str(folder))
    config = {
        "model_type": "llama",
        "architectures": ["LlamaForCausalLM"],
        "vocab_size": len(tokens),
        "bos_token_id": BOS_ID,
        "eos_token_id": EOS_ID,
        "max_position_embeddings": 4096,
    }
    (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n")


def check_tokenizer(folder: Path, samples: list[str]) -> list[list[int]]:
    """Encode ``samples`` with the folder's tokenizer (ids include the BOS)."""
    from transformers import AutoTokenizer

    tok: Any = AutoTokenizer.from_pretrained(str(folder))
    return [list(tok(s)["input_ids"]) for s in samples]


TOKENIZE_SAMPLES = [
    "Hello world",
    "the quick brown fox jumps over the lazy dog 0123456789",
    "  two leading spaces, tabs\tand\nnewlines",
    "punctuation !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
    "bytes: caf\u00e9 na\u00efve \u2603 \U0001f600",
    "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ",
]


def verify_against_server(out: Path, base_url: str) -> dict[str, Any]:
    """Compare the tokenizer folders' ids (with BOS) to the server's ``/tokenize``."""
    import urllib.request

    result: dict[str, Any] = {"samples": len(TOKENIZE_SAMPLES), "mismatches": []}
    server_ids = []
    for text in TOKENIZE_SAMPLES:
        body = json.dumps({"content": text, "add_special": True}).encode()
        req = urllib.request.Request(
            base_url.rstrip("/") + "/tokenize",
            data=body,
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            server_ids.append([int(t) for t in json.loads(r.read())["tokens"]])
    for folder in ("tokenizer", "tokenizer-bytes-special"):
        for text, ours, theirs in zip(
            TOKENIZE_SAMPLES,
            check_tokenizer(out / folder, TOKENIZE_SAMPLES),
            server_ids,
            strict=True,
        ):
            if ours != theirs:
                result["mismatches"].append(
                    {"folder": folder, "text": text, "tokenizer": ours, "server": theirs}
                )
    result["ok"] = not result["mismatches"]
    return result


def make_all(out: Path, spec: ModelSpec) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    gguf_path = out / GGUF_NAME
    sha = write_gguf(gguf_path, spec)
    write_tokenizer(out / "tokenizer")
    write_tokenizer(out / "tokenizer-bytes-special", bytes_special=True)
    info = {
        "gguf": str(gguf_path),
        "sha256": sha,
        "bytes": gguf_path.stat().st_size,
        "spec": asdict(spec),
        "n_vocab": len(vocabulary()[0]),
        "n_params": int(sum(a.size for a in build_tensors(spec).values())),
        "tokenizer": str(out / "tokenizer"),
        "tokenizer_bytes_special": str(out / "tokenizer-bytes-special"),
    }
    (out / "model-info.json").write_text(json.dumps(info, indent=2) + "\n")
    return info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--dim", type=int, default=ModelSpec.dim)
    ap.add_argument("--layers", type=int, default=ModelSpec.layers)
    ap.add_argument("--ff", type=int, default=ModelSpec.ff)
    ap.add_argument("--heads", type=int, default=ModelSpec.heads)
    ap.add_argument("--seed", type=int, default=ModelSpec.seed)
    ap.add_argument("--f32", action="store_true", help="f32 weights instead of f16")
    ap.add_argument(
        "--verify",
        metavar="BASE_URL",
        help="only check the tokenizer folders in --out against this server's /tokenize",
    )
    a = ap.parse_args(argv)
    if a.verify:
        result = verify_against_server(a.out, a.verify)
        print(json.dumps(result, indent=1))
        return 0 if result["ok"] else 1
    spec = ModelSpec(dim=a.dim, layers=a.layers, ff=a.ff, heads=a.heads, seed=a.seed, f16=not a.f32)
    info = make_all(a.out, spec)
    print(json.dumps(info, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
