"""`reportgen validate` (and `metrics` on bad input): exact output lines and exit codes.

Each `examples/invalid/NAME.json` (or `.jsonl`) has `NAME.expected` beside it: the exact stdout of
`reportgen validate NAME.json` run from that folder. Edit an .expected file by hand, and only after
reading the message and checking that its line:col points at the offending value.
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

import pytest
from helpers_runs import INVALID, VALID, bench_cell, bench_run, to_bytes
from helpers_sweeps import Sweep

from reportgen.cli.main import main

INVALID_FILES = {p.stem: p.name for pattern in ("*.json", "*.jsonl") for p in INVALID.glob(pattern)}
INVALID_CASES = sorted(INVALID_FILES)
VALID_CASES = sorted(p.name for pattern in ("*.json", "*.jsonl") for p in VALID.glob(pattern))


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_every_invalid_example_has_its_expected_output() -> None:
    assert sorted(p.stem for p in INVALID.glob("*.expected")) == INVALID_CASES
    assert len(INVALID_CASES) >= 25


def _invalid_differs(capsys: pytest.CaptureFixture[str], name: str) -> str | None:
    """How `reportgen validate NAME`, run in examples/invalid/, differs from NAME.expected."""
    expected = (INVALID / f"{name}.expected").read_text(encoding="utf-8").splitlines()
    if not expected:
        return "an invalid example must expect at least one line"
    code, out, err = run_cli(capsys, "validate", INVALID_FILES[name])
    errors = sum(": warning: " not in line for line in expected)
    verdict = "invalid: 0" if errors else "ok: 1"
    summary = f"{verdict} valid run file(s), {errors} error(s), {len(expected) - errors} warning(s)"
    printed = out.splitlines()
    if printed != expected:
        return "\n".join(difflib.unified_diff(expected, printed, "expected", "out", lineterm=""))
    if (code, err) != (2 if errors else 0, summary + "\n"):
        return f"exit {code}, {err!r}"
    return None


@pytest.mark.slow
def test_each_invalid_example_prints_exactly_its_expected_lines(
    sweep: Sweep, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(INVALID)
    sweep.judge(INVALID_CASES, lambda name: _invalid_differs(capsys, name))


def test_each_valid_example_is_valid(
    sweep: Sweep, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(VALID)
    ok = (0, "", "ok: 1 valid run file(s), 0 error(s), 0 warning(s)\n")

    def differs(name: str) -> str | None:
        said = run_cli(capsys, "validate", name)
        return None if said == ok else f"exit {said[0]}, {said[1] + said[2]!r}"

    sweep.judge(VALID_CASES, differs)


def test_a_folder_is_validated_file_by_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "validate", str(VALID))
    assert (code, out) == (0, "")
    assert err == f"ok: {len(VALID_CASES)} valid run file(s), 0 error(s), 0 warning(s)\n"


def test_every_problem_of_every_file_is_printed_sorted(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(INVALID)
    names = ["wrong-type.json", "bom.json", "summary-ttft-disagrees.json"]
    code, out, err = run_cli(capsys, "validate", *names)
    expected = []
    for name in sorted(names):
        expected += (INVALID / name.replace(".json", ".expected")).read_text().splitlines()
    assert code == 2
    assert out.splitlines() == expected
    assert err == "invalid: 1 valid run file(s), 3 error(s), 1 warning(s)\n"


def test_json_output(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(INVALID)
    code, out, err = run_cli(capsys, "validate", "negative-value.json", "--json")
    assert code == 2
    assert err == ""
    assert json.loads(out) == {
        "problems": [
            {
                "path": "negative-value.json",
                "line": 9,
                "col": 19,
                "pointer": "/results/0/ttft_p50",
                "severity": "error",
                "message": "-1.2 is less than the minimum of 0",
            }
        ]
    }


def test_json_output_of_a_valid_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "validate", str(VALID / "lmx-samples.json"), "--json")
    assert code == 0
    assert json.loads(out) == {"problems": []}


def test_a_missing_file_is_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    code, out, _ = run_cli(capsys, "validate", str(missing))
    assert code == 2
    assert out == f"{missing}:1:1 /: cannot read file: No such file or directory\n"


def test_an_empty_folder_is_bad_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run_cli(capsys, "validate", str(tmp_path))
    assert (code, out) == (2, f"{tmp_path}:1:1 /: no run files (*.json, *.jsonl) found\n")


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["validate"])
    assert caught.value.code == 2
    assert "usage:" in capsys.readouterr().err
    with pytest.raises(SystemExit) as caught:
        main(["frobnicate"])
    assert caught.value.code == 2


def test_validate_help_has_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["validate", "--help"])
    assert caught.value.code == 0
    assert "reportgen validate runs/" in capsys.readouterr().out


def test_metrics_refuses_invalid_input_with_the_same_lines(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(INVALID)
    code, out, err = run_cli(capsys, "metrics", "negative-value.json")
    assert (code, out) == (2, "")
    assert err.splitlines() == (INVALID / "negative-value.expected").read_text().splitlines()


def test_metrics_of_an_article_lists_its_per_gpu_values(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # An article folder gives the metrics its build computes: per-GPU values from its setup.
    from reportgen.article.rundata import article_metrics

    folder = Path(__file__).resolve().parents[2] / "runs" / "paiton-kimi-k3.1-pro"
    article, metrics = article_metrics(folder)
    gpus = article.setups()[None].hardware
    assert gpus is not None
    code, out, _ = run_cli(capsys, "metrics", str(folder), "--json")
    assert code == 0
    listed = {m["id"]: m["value"] for m in json.loads(out)["metrics"]}
    per_gpu = [v for v in metrics.values if v.key == "decode.aggregate_tok_s.per_gpu"]
    assert per_gpu and all(v.id in listed for v in per_gpu)
    for v in per_gpu:
        whole = listed[v.id.removesuffix("_per_gpu")]
        assert listed[v.id] == pytest.approx(whole / gpus.gpu_count)


def test_metrics_reports_a_clash_within_a_file_as_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # 8000 and 8192 tokens are both "8K": one file defines decode.8K.c1.* twice.
    run = bench_run(bench_cell(context=8000), bench_cell(context=8192))
    (tmp_path / "a.json").write_bytes(to_bytes(run))
    code, out, err = run_cli(capsys, "metrics", str(tmp_path))
    assert (code, out) == (2, "")
    assert "metric decode.8K.c1.aggregate_tok_s is defined twice in this file" in err
    assert "Traceback" not in err


def test_metrics_of_two_files_of_one_cell_are_its_repetitions(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for name, tokens in (("a.json", 1000), ("b.json", 1200)):
        cell = bench_cell(context=8192, tokens=tokens, aggregate_tps=tokens / 10)
        (tmp_path / name).write_bytes(to_bytes(bench_run(cell)))
    code, out, err = run_cli(capsys, "metrics", str(tmp_path))
    assert (code, err) == (0, "")
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines()}
    assert (rows["decode.8K.c1.aggregate_tok_s"], rows["decode.8K.c1.aggregate_tok_s.reps"]) == (
        "110.0000",
        "2.0000",
    )


@pytest.mark.parametrize(("given", "kept"), [(None, "1"), ("3", "3")])
def test_the_cli_starts_no_blas_threads_unless_told_to(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    given: str | None,
    kept: str,
) -> None:
    # numpy, imported for large cells and by matplotlib for the charts, would start OpenBLAS's
    # threads; reportgen does no linear algebra. A value the user set is theirs.
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "restored after the test")
    if given is None:
        monkeypatch.delenv("OPENBLAS_NUM_THREADS")
    else:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", given)
    code, _, _ = run_cli(capsys, "validate", str(VALID / VALID_CASES[0]))
    assert code == 0
    assert os.environ["OPENBLAS_NUM_THREADS"] == kept
