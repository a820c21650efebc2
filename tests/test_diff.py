"""`reportgen diff`: which numbers moved between two sets of runs."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers_articles import built_article

from reportgen.article.build import render_article
from reportgen.cli.main import main
from reportgen.diff import UNVERSIONED, Side, diff, load_side
from reportgen.formats.json_input.document import TOO_LARGE
from reportgen.formats.schema.validate import schema_version

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "tests" / "articles" / "small"


def _small_doc() -> dict[str, Any]:
    """The small article's metrics.json, parsed (a fresh copy to edit)."""
    doc: dict[str, Any] = json.loads(built_article(SMALL)[0].metrics_json)
    return doc


def _with_metrics(path: Path, *metrics: dict[str, object]) -> Path:
    """A metrics.json as a build writes it, but holding only `metrics`: each one is the small
    article's first metric with the given fields (and no statistic, run or basis)."""
    doc = _small_doc()
    first = {k: v for k, v in doc["metrics"][0].items() if k not in ("statistic", "run", "basis")}
    doc["metrics"] = [first | m for m in metrics]
    path.write_text(json.dumps(doc, indent=2))
    return path


def _at(text: str, token: str) -> tuple[int, int]:
    """Line and column (1-based) of the first `token` in `text`."""
    before = text[: text.index(token)]
    return before.count("\n") + 1, len(before) - before.rfind("\n")


def _recollected(tmp_path: Path, factor: float) -> Path:
    """A copy of the small article whose 0 x 4 cell streamed `factor` x the tokens."""
    folder = tmp_path / f"x{factor}"
    shutil.copytree(SMALL, folder)
    data = json.loads((folder / "bench.json").read_text())
    cell = next(c for c in data["results"] if (c["context_tokens"], c["concurrency"]) == (0, 4))
    cell["client_output_tokens"] = round(cell["client_output_tokens"] * factor)
    cell["aggregate_tps"] = round(cell["client_output_tokens"] / cell["measurement_seconds"], 2)
    data["summary_table"]["0"]["4"] = cell["aggregate_tps"]
    (folder / "bench.json").write_text(json.dumps(data, indent=2))
    return folder


def test_a_moved_cell_is_reported_with_direction_and_display(tmp_path: Path) -> None:
    old, new = load_side(SMALL).metrics, load_side(_recollected(tmp_path, 1.1)).metrics
    moved = {m.id: m for m in diff(old, new) if m.change != "same"}
    # the aggregate, and its per-GPU form (the small article's setup has one GPU, no power)
    assert list(moved) == ["decode.0.c4.aggregate_tok_s", "decode.0.c4.aggregate_tok_s_per_gpu"]
    m = moved["decode.0.c4.aggregate_tok_s"]
    assert m.change == "up" and m.relative == pytest.approx(0.1, abs=0.002)
    assert m.display_changes and m.old_shown != m.new_shown


def test_a_tiny_move_does_not_change_the_display(tmp_path: Path) -> None:
    moved = [
        m
        for m in diff(load_side(SMALL).metrics, load_side(_recollected(tmp_path, 1.0001)).metrics)
        if m.change != "same"
    ]
    assert [m.change for m in moved] in (["up"], [])
    assert not any(m.display_changes for m in moved)


def test_metrics_json_and_folder_sides_agree(tmp_path: Path) -> None:
    built = render_article(SMALL, {})
    path = tmp_path / "metrics.json"
    path.write_text(built.metrics_json)
    assert all(m.change == "same" for m in diff(load_side(path).metrics, load_side(SMALL).metrics))


@pytest.mark.slow
def test_added_and_removed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    built = render_article(SMALL, {})
    doc = json.loads(built.metrics_json)
    gone = doc["metrics"].pop(0)["id"]
    path = tmp_path / "metrics.json"
    path.write_text(json.dumps(doc))
    assert main(["diff", str(path), str(SMALL)]) == 0
    out = capsys.readouterr().out
    assert f"{gone}" in out and " added " in out
    assert "1 added, 0 removed; 1 would change as displayed" in out.splitlines()[-1]
    assert main(["diff", str(path), str(SMALL), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["metrics"]
    assert [r["change"] for r in rows if r["id"] == gone] == ["added"]


@pytest.mark.process
def test_a_hand_broken_metrics_json_is_located_without_a_traceback(tmp_path: Path) -> None:
    doc = _small_doc()
    doc["metrics"][0]["value"] = "fast"
    del doc["metrics"][1]["unit"]
    path = tmp_path / "metrics.json"
    text = json.dumps(doc, indent=2)
    path.write_text(text)
    done = subprocess.run(
        [sys.executable, "-m", "reportgen", "diff", str(path), str(SMALL)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 2 and done.stdout == ""
    line, col = _at(text, '"fast"')
    unit_line, unit_col = _at(text[text.index('"fast"') :], "{")
    assert done.stderr.splitlines() == [
        f"{path}:{line}:{col} /metrics/0/value: 'fast' is not of type 'number'",
        f"{path}:{line + unit_line - 1}:{unit_col} /metrics/1: 'unit' is required",
    ]


def test_every_problem_of_a_metrics_json_is_reported_against_its_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _small_doc()
    doc["inputs"][0]["provenance"] = "guessed"
    doc["findngs"] = doc.pop("findings")
    path = tmp_path / "metrics.json"
    path.write_text(json.dumps(doc, indent=2))
    assert main(["diff", str(SMALL), str(path)]) == 2
    err = capsys.readouterr().err
    assert "/inputs/0/provenance: 'guessed' is not one of" in err
    assert "/findngs: unknown key 'findngs'; did you mean 'findings'?" in err
    assert ":1:1 /: 'findings' is required" in err


def test_a_metrics_json_without_its_version_is_read_with_one_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _small_doc()
    assert next(iter(doc)) == "schema_version"
    del doc["schema_version"]  # as reportgen wrote it before the field
    path = tmp_path / "metrics.json"
    path.write_text(json.dumps(doc, indent=2))
    assert main(["diff", str(path), str(SMALL)]) == 0
    out, err = capsys.readouterr()
    assert err == (
        f"{path}:1:1 /: warning: no schema_version: written by an older reportgen; "
        f"read as version {UNVERSIONED}\n"
    )
    assert "0 added, 0 removed; 0 would change as displayed" in out


def test_a_metrics_json_of_a_newer_layout_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _small_doc()
    doc["schema_version"] += 1
    path = tmp_path / "metrics.json"
    text = json.dumps(doc, indent=2)
    path.write_text(text)
    assert main(["diff", str(SMALL), str(path)]) == 2
    line, col = _at(text, str(doc["schema_version"]))
    newer, known = doc["schema_version"], schema_version("metrics")
    assert capsys.readouterr().err == (
        f"{path}:{line}:{col} /schema_version: schema_version {newer}: written by a newer "
        f"reportgen; this one reads {known}\n"
    )


def test_a_file_that_is_no_metrics_json_is_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bench.json"
    shutil.copy(SMALL / "bench.json", path)
    assert main(["diff", str(path), str(SMALL)]) == 2
    assert capsys.readouterr().err == (
        f"{path}:1:1 /: not a metrics.json: no schema_version, no metrics\n"
    )


@pytest.mark.parametrize("value", ["1e999", "-1e999", "9" * 401, "-" + "9" * 320])
@pytest.mark.parametrize("json_out", [[], ["--json"]])
def test_a_value_no_float_holds_is_located(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, json_out: list[str]
) -> None:
    path = _with_metrics(tmp_path / "metrics.json", {"value": "VALUE"})
    text = path.read_text().replace('"VALUE"', value)
    path.write_text(text)
    line, col = _at(text, value)
    for sides in ([str(path), str(SMALL)], [str(SMALL), str(path)]):
        assert main(["diff", *sides, *json_out]) == 2
        # an integer no float holds is refused as the file is parsed, 1e999 by the metrics check
        why = (
            TOO_LARGE if value.lstrip("-").isdigit() else "a metric's value must be a finite number"
        )
        said = f"{path}:{line}:{col} /metrics/0/value: {why}"
        assert said in capsys.readouterr().err


def test_diff_json_is_strict_json_when_a_difference_overflows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def side(name: str, value: float) -> Path:
        metric = {"id": "decode.0.c1.aggregate_tok_s", "value": value, "unit": "tok/s"}
        return _with_metrics(
            tmp_path / f"{name}.json", {**metric, "definition": "decode.aggregate_tok_s"}
        )

    assert main(["diff", str(side("old", -1.7e308)), str(side("new", 1.7e308)), "--json"]) == 0
    out = capsys.readouterr().out
    assert "Infinity" not in out and "NaN" not in out
    (row,) = json.loads(out, parse_constant=lambda word: pytest.fail(f"bare {word}"))["metrics"]
    assert row["change"] == "up" and row["delta"] is None and row["relative"] is None


def test_a_throughput_that_fell_is_worse_and_fails_a_pull_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fell = _recollected(tmp_path, 0.9)
    moved = {m.id: m for m in diff(load_side(SMALL).metrics, load_side(fell).metrics)}
    assert moved["decode.0.c4.aggregate_tok_s"].verdict == "worse"
    assert main(["diff", str(SMALL), str(fell), "--fail-on", "worse:5%"]) == 1
    out = capsys.readouterr().out
    assert "FAIL decode.0.c4.aggregate_tok_s " in out and out.rstrip().endswith("break --fail-on")
    # a threshold above the change passes, and so does the same change the other way
    assert main(["diff", str(SMALL), str(fell), "--fail-on", "worse:20%"]) == 0
    capsys.readouterr()
    assert main(["diff", str(fell), str(SMALL), "--fail-on", "worse"]) == 0
    out = capsys.readouterr().out
    assert "better" in out and "(2 better, 0 worse)" in out


def test_a_latency_that_rose_is_worse(tmp_path: Path) -> None:
    def side(name: str, value: float) -> dict[str, Side]:
        metric = {"id": "load.r2.ttft_s", "value": value, "unit": "s", "definition": "load.ttft_s"}
        return load_side(_with_metrics(tmp_path / f"{name}.json", metric)).metrics

    (m,) = diff(side("old", 0.5), side("new", 0.75))
    assert (m.change, m.verdict) == ("up", "worse")


def test_values_are_shown_in_the_unit_the_article_shows_them_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A load point's TTFT is in seconds in metrics.json and in ms on the page: the diff says
    ms beside the ms it prints, as the page does."""
    from reportgen.metrics.display import display_of, format_number

    paths = []
    for name, value in (("old", 0.2706), ("new", 0.3)):
        metric = {"id": "load.r2.ttft_s", "value": value, "unit": "s", "definition": "load.ttft_s"}
        paths.append(str(_with_metrics(tmp_path / f"{name}.json", metric)))
    display = display_of("load.ttft_s")
    assert main(["diff", *paths]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "load.r2.ttft_s" in line)
    shown = [format_number(v, display) for v in (0.2706, 0.3)]
    assert row.split()[2:6] == [shown[0], "->", shown[1], display.unit]
    assert display.unit == "ms"
    assert main(["diff", *paths, "--json"]) == 0
    (doc,) = json.loads(capsys.readouterr().out)["metrics"]
    assert (doc["unit"], doc["shown_unit"], doc["old_shown"]) == ("s", "ms", shown[0])


def test_a_change_the_article_would_not_show_is_listed_apart_and_never_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tiny = _recollected(tmp_path, 0.9999)
    assert main(["diff", str(SMALL), str(tiny), "--fail-on", "worse"]) == 0
    out = capsys.readouterr().out
    if any(m.change != "same" for m in diff(load_side(SMALL).metrics, load_side(tiny).metrics)):
        assert "changed at full precision only, not as displayed" in out


@pytest.mark.pdf
def test_a_build_folder_is_a_side(tmp_path: Path) -> None:
    from reportgen.article.build import build

    built = build(SMALL, tmp_path / "out")
    assert all(m.change == "same" for m in diff(load_side(built).metrics, load_side(SMALL).metrics))


def test_removed_metrics_can_fail(tmp_path: Path) -> None:
    doc = json.loads(render_article(SMALL, {}).metrics_json)
    doc["metrics"].pop(0)
    path = tmp_path / "metrics.json"
    path.write_text(json.dumps(doc))
    assert main(["diff", str(SMALL), str(path), "--fail-on", "removed"]) == 1


@pytest.mark.parametrize("rule", ["worse:5", "worse:-1%", "faster", "", "worse:x%"])
def test_a_bad_fail_on_rule_is_a_usage_error(rule: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", str(SMALL), str(SMALL), "--fail-on", rule]) == 2
    assert "--fail-on" in capsys.readouterr().err


def test_a_spread_of_repetitions_is_neither_better_nor_worse() -> None:
    from reportgen.diff import Moved

    for stat, verdict in (("rep_sd", ""), ("rep_cv", ""), ("rep_hw", ""), ("rep_mean", "better")):
        moved = Moved(
            id=f"decode.4K.c1.aggregate_tok_s.{stat}",
            change="up",
            old=1.0,
            new=2.0,
            unit="tok/s",
            old_shown="1",
            new_shown="2",
            key="decode.aggregate_tok_s",
        )
        assert moved.verdict == verdict, stat


def test_a_version_1_metrics_json_of_repetitions_reads_as_the_version_2_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Version 2 writes a spread of repetitions with `repetitions_of`, the id of the value that
    lists them, where version 1 repeated the list: the list is written once per cell, and a
    version-1 file (the OLD side after an upgrade) still reads, with the same values."""
    repeated = Path(__file__).resolve().parent / "articles" / "repetitions"
    doc = json.loads(render_article(repeated, {}).metrics_json)
    assert doc["schema_version"] == schema_version("metrics") == 2
    by_id = {m["id"]: m for m in doc["metrics"]}
    spreads = [m for m in doc["metrics"] if "repetitions_of" in m]
    assert spreads and all("repetitions" not in m for m in spreads)
    for m in spreads:
        assert m["id"].rpartition(".")[0] == m["repetitions_of"]
        assert by_id[m["repetitions_of"]]["repetitions"], m["id"]
    old = json.loads(json.dumps(doc))  # as version 1 wrote it: each spread with the list
    old["schema_version"] = 1
    for m in old["metrics"]:
        if "repetitions_of" in m:
            m["repetitions"] = by_id[m.pop("repetitions_of")]["repetitions"]
    new_path, old_path = tmp_path / "new.json", tmp_path / "old.json"
    new_path.write_text(json.dumps(doc), encoding="utf-8")
    old_path.write_text(json.dumps(old), encoding="utf-8")
    assert len(new_path.read_bytes()) < 0.8 * len(old_path.read_bytes())
    assert main(["diff", str(old_path), str(new_path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert f"{len(doc['metrics'])} unchanged" in out or "0 added, 0 removed" in out, out
