"""Reconstruct run files from a published article's text (seeded, reproducible).

The Paiton article's raw run JSON was not published. This module writes stand-ins in the real
tools' formats whose every number, computed by reportgen's own metrics and rounded as the article
shows it, equals the published one; each file says `dataProvenance.status: reconstructed` and what
it was reconstructed from. Decode cells come from the cell model in `reportgen.reconstruct.simcell`.
Regenerate with `python -m reportgen.reconstruct SEED_TXT OUT_DIR`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reportgen.article.source.manifest import load_article
from reportgen.check.readers.published import reported_numbers
from reportgen.check.readers.shape import from_declarations
from reportgen.fileio import read_input, write_output
from reportgen.reconstruct.facts import GENERATOR, seed_facts
from reportgen.reconstruct.lmx_runs import canonical_single, canonical_together
from reportgen.reconstruct.matrix import matrix_run


def _provenance(seed_label: str, seed_sha: str, note: str) -> dict[str, str]:
    return {
        "status": "reconstructed",
        "reconstructedFrom": f"{seed_label} (sha256 {seed_sha})",
        "generator": GENERATOR,
        "note": note,
    }


def dumps(data: dict[str, Any]) -> str:
    """The canonical text of a generated file (stable key order and float formatting)."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def reconstruct(
    seed_path: Path, seed_label: str, article: Path, seed: str = "paiton-2026-11-11"
) -> dict[str, str]:
    """The reconstructed run files (name -> text) for the published text at `seed_path` of the
    article in folder `article` (its declarations say how the text's tables read)."""
    import hashlib

    raw = read_input(seed_path, "published")
    text = raw.decode("utf-8")
    sha = hashlib.sha256(raw).hexdigest()
    facts = seed_facts(text)
    shape = from_declarations(load_article(article))
    targets = {r.metric_id: r for r in reported_numbers(text, shape) if r.metric_id}

    def prov(note: str) -> dict[str, str]:
        return _provenance(seed_label, sha, note)

    single = canonical_single(
        facts,
        targets["canonical.c1.output_tok_s"],
        targets["canonical.c1.ttft_ms"],
        seed,
        prov(
            "The original run file was not published. Reconstructed from the article's headline "
            "numbers (output tok/s and TTFT of one request) so that it reproduces them; the "
            "per-iteration spread and the prompt token count are invented."
        ),
    )
    together = canonical_together(
        facts,
        targets[f"canonical.c{facts.together}.output_tok_s"],
        seed,
        prov(
            "The original run file was not published. Reconstructed from the article's headline "
            "number for the concurrent run; per-request timings are invented and only the group "
            "throughput is published."
        ),
    )
    matrix = matrix_run(
        facts,
        targets,
        seed,
        prov(
            "The original run file was not published. Reconstructed from the article's four "
            "matrix tables so that it reproduces them: the request samples come from a seeded "
            "model of each cell fitted to the published medians and aggregates, modelled, not "
            "measured."
        ),
    )
    return {
        "canonical-single.json": dumps(single),
        f"canonical-{facts.together}.json": dumps(together),
        "matrix.json": dumps(matrix),
    }


def main(argv: list[str] | None = None) -> int:
    """`python -m reportgen.reconstruct SEED_TXT OUT_DIR`: write the reconstructed run files."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m reportgen.reconstruct",
        description="Regenerate reconstructed run files from a published article's text.",
        epilog="example: python -m reportgen.reconstruct "
        "runs/paiton-kimi-k3.1-pro/published/paiton-kimi-k3.1-pro.txt runs/paiton-kimi-k3.1-pro",
    )
    parser.add_argument("seed", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument(
        "--label",
        default=None,
        help="how the files name the seed (default: its path inside OUT, else its file name)",
    )
    args = parser.parse_args(argv)
    seed, out = args.seed.resolve(), args.out.resolve()
    label = args.label or (
        seed.relative_to(out).as_posix() if seed.is_relative_to(out) else args.seed.name
    )
    files = reconstruct(args.seed, label, args.out)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        write_output(args.out / name, text.encode("utf-8"))
        print(f"wrote {args.out / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
