"""The claims reader (`claims/reader.py`), the last in `pipeline.READERS`: it reads what the
prose reader offered, in the running text the prose reader read, and nothing else."""

from __future__ import annotations

import math

from helpers_articles import PAITON, built_article
from helpers_claims import half_up

from reportgen.check.claims.reader import READER as CLAIMS
from reportgen.check.readers.pipeline import READERS, reported
from reportgen.check.readers.protocol import Found, Reading
from reportgen.check.readers.published import text_lines
from reportgen.check.readers.stream import tokens

C16, C1 = "canonical.c16.output_tok_s", "canonical.c1.output_tok_s"


def _claim() -> tuple[str, str]:
    """A sentence the article does not have, stating a true ratio of two of its metrics, and
    the ratio as written."""
    built, _ = built_article(PAITON)
    by_id = built.metrics.by_id()
    ratio = half_up(by_id[C16].value / by_id[C1].value, 1)
    return f"Running 16 requests together gives {ratio}x the output of one request.", ratio


def test_a_claim_the_prose_reader_offers_is_tied_by_the_claims_reader() -> None:
    _, shape = built_article(PAITON)
    sentence, ratio = _claim()
    lines = text_lines(f"Intro.\n\n{sentence}\n")
    with_claims = {r.text: r for r in reported(lines, shape)}
    without = {r.text: r for r in reported(lines, shape, READERS[:-1])}
    # without the claims reader the ratio is offered and stays unverified
    assert without[ratio + "x"].metric_id is None and math.isnan(without[ratio + "x"].value)
    # with it, the ratio is judged against the two metrics it compares, in its sentence
    claim = with_claims[ratio + "x"]
    assert claim.metric_id is not None and C16 in claim.metric_id and C1 in claim.metric_id
    assert claim.sentence == (3, 1)


def test_the_claims_reader_reads_only_the_running_text_it_is_handed() -> None:
    _, shape = built_article(PAITON)
    sentence, _ = _claim()
    lines = text_lines(sentence + "\n")
    reading = Reading(lines=lines, shape=shape, tokenize=tokens)
    # nothing offered, or no running text: nothing to read
    assert CLAIMS.read(reading) == Found()
    for reader in READERS[:-1]:
        reading.take(reader.read(reading))
    assert reading.offered and reading.context, "the prose reader offers the ratio in its text"
    found = CLAIMS.read(reading)
    # it reads every number offered: each one it returns is at an offered place, the ratio
    # tied; "16" only labels where the output was measured, so it is left out
    offered = {(r.line, r.col): r.text for r in reading.offered}
    assert found.reads_rest and {(r.line, r.col) for r in found.numbers} <= offered.keys()
    assert [r.text for r in found.numbers if r.metric_id] == [r.text for r in found.numbers]
    assert sorted(offered.values()) == sorted([*(r.text for r in found.numbers), "16"])
