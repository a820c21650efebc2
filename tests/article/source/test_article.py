"""The article manifest: validated by its schema, every problem at its line in article.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reportgen.article.source.manifest import load_article
from reportgen.errors import InputError

ROOT = Path(__file__).resolve().parents[3]
SMALL = ROOT / "tests" / "articles" / "small"


def _problems(tmp_path: Path, edit: tuple[str, str]) -> list[str]:
    folder = tmp_path / "a"
    shutil.copytree(SMALL, folder)
    manifest = folder / "article.toml"
    text = manifest.read_text()
    assert edit[0] in text
    manifest.write_text(text.replace(*edit))
    with pytest.raises(InputError) as info:
        load_article(folder)
    return [p.format().replace(str(folder) + "/", "") for p in info.value.problems]


def test_the_bundled_manifests_load() -> None:
    paiton = load_article(ROOT / "runs" / "paiton-kimi-k3.1-pro")
    assert paiton.slug == "paiton-kimi-k3.1-pro"
    assert [p.name for p in paiton.run_paths()] == [
        "canonical-single.json",
        "canonical-16.json",
        "matrix.json",
    ]
    hardware = load_article(SMALL).setup.hardware
    assert hardware is not None and hardware.gpu_count == 1


def test_invalid_toml_is_located(tmp_path: Path) -> None:
    assert _problems(tmp_path, ("gpu_count = 1", "gpu_count = = 1")) == [
        "article.toml:12:13 /: invalid TOML: Invalid value"
    ]


def test_wrong_type_points_at_the_value(tmp_path: Path) -> None:
    assert _problems(tmp_path, ("gpu_count = 1", 'gpu_count = "one"')) == [
        "article.toml:12:13 /runs/0/setup/hardware/gpu_count: 'one' is not of type 'integer'"
    ]


def test_unknown_key_and_bad_date(tmp_path: Path) -> None:
    problems = _problems(tmp_path, ('date = "2026-10-01"', 'date = "1 Oct"\ncolour = "red"'))
    assert problems == [
        "article.toml:3:8 /date: '1 Oct' is not a date written YYYY-MM-DD",
        "article.toml:4:10 /colour: unknown key 'colour'",
    ]


def test_unknown_keys_and_values_get_did_you_mean(tmp_path: Path) -> None:
    problems = _problems(tmp_path / "key", ('subtitle = "', 'subtitel = "'))
    assert problems == [
        "article.toml:2:12 /subtitel: unknown key 'subtitel'; did you mean 'subtitle'?"
    ]
    problems = _problems(tmp_path / "value", ('rows = "context"', 'rows = "contexts"'))
    assert problems[0].endswith(
        "'contexts' is not an axis of the data (context, concurrency, rate, point, prompt_tokens, "
        "max_tokens, run), or meta.KEY: a setting the run files state; did you mean 'context'?"
    )


def test_a_run_file_name_may_not_leave_the_folder(tmp_path: Path) -> None:
    edit = ('"bench.json"]', '"../../etc/passwd.json"]')
    assert _problems(tmp_path, edit) == [
        "article.toml:8:9 /runs/0/files/1: '../../etc/passwd.json' is not a .json or .jsonl "
        "file name in the article folder"
    ]


def test_a_missing_prose_file(tmp_path: Path) -> None:
    problems = _problems(tmp_path, ('prose = "notes.md"', 'prose = "absent.md"'))
    assert problems == ["absent.md:1:1 /: cannot read file: No such file or directory"]


def test_no_manifest(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_article(tmp_path)
    assert info.value.problems[0].message == f"no article.toml in {tmp_path}"


def test_a_misspelled_run_file_is_located_with_the_near_name(tmp_path: Path) -> None:
    assert _problems(tmp_path, ('"bench.json"]', '"bnech.json"]')) == [
        "article.toml:8:28 /runs/0/files/1: no run file 'bnech.json' in a; did you mean "
        "'bench.json'?".replace(" in a;", f" in {tmp_path / 'a'};")
    ]


def test_an_unknown_lint_acknowledged_is_an_error_with_the_near_id(tmp_path: Path) -> None:
    """It could never match a finding: an error, not the warning a stale one is."""
    text = (SMALL / "article.toml").read_text()
    written = 'lint = "cell-invalid"'
    line = text[: text.index(written)].count("\n") + 1
    misspelled = "cell-invalid"[:-1]  # built here: the lint registry's test reads every lint id
    assert _problems(tmp_path, (written, f'lint = "{misspelled}"')) == [
        f"article.toml:{line}:8 /acknowledge/0/lint: unknown lint {misspelled!r}; did you mean "
        "'cell-invalid'? (docs/article-format.md lists the lints)"
    ]


_PREFILL = '[[sections.table]]\nid = "prefill"\n'


def _chart(**where: str) -> tuple[str, str]:
    keys = "".join(f'{k} = "{v}"\n' for k, v in where.items())
    chart = (
        '[[sections.chart]]\nid = "c"\ntitle = "Prefill"\nmetric = "prefill.tok_s"\n'
        'x = "context"\n' + keys
    )
    return _PREFILL, chart + "\n" + _PREFILL


def test_a_chart_beside_a_table_that_is_not_there_is_located(tmp_path: Path) -> None:
    problems = _problems(tmp_path, _chart(beside="prefil"))
    assert problems == [
        "article.toml:36:1 /sections/2/chart/0: chart 'c': beside names no table 'prefil'; "
        "did you mean 'prefill'?"
    ]
    problems = _problems(tmp_path / "2", _chart(replaces="nothing-alike"))
    assert len(problems) == 1 and problems[0].endswith(
        "chart 'c': replaces names no table 'nothing-alike'; its tables: prefill, "
        "decode-aggregate, decode-per-request, decode-ttft"
    )


def test_a_chart_is_beside_a_table_or_replaces_it_not_both(tmp_path: Path) -> None:
    problems = _problems(tmp_path, _chart(beside="prefill", replaces="prefill"))
    assert problems == [
        "article.toml:36:1 /sections/2/chart/0: chart 'c': give beside or replaces, not both"
    ]


def test_a_chart_beside_its_table_loads(tmp_path: Path) -> None:
    folder = tmp_path / "a"
    shutil.copytree(SMALL, folder)
    manifest = folder / "article.toml"
    manifest.write_text(manifest.read_text().replace(*_chart(replaces="prefill")))
    chart = next(c for c in load_article(folder).charts() if c.id == "c")
    assert (chart.beside, chart.replaces, chart.table) == (None, "prefill", "prefill")
