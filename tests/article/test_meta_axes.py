"""Tables over any setting a run file states (`meta.KEY` axes): rows, filters, their labels, and
errors that name what the files state. The rate-sweep test article's vLLM files each record their
request rate and backend; every expected value is read from those files."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from reportgen.article.build import render_article
from reportgen.errors import InputError

SWEEP = Path(__file__).resolve().parents[1] / "articles" / "rate-sweep"
TABLE = """
[[sections]]
id = "by-setting"
title = "By a setting"

[[sections.table]]
id = "by-setting"
title = "Output by the request rate each file records"
rows = "ROWS"
where = WHERE
columns = [{ metric = "load.output_tok_s", header = "output tok/s" }]
"""


def article(tmp_path: Path, rows: str = "meta.request_rate", where: str = "{}") -> Path:
    folder = tmp_path / "sweep"
    shutil.copytree(SWEEP, folder)
    with (folder / "article.toml").open("a", encoding="utf-8") as out:
        out.write(TABLE.replace("ROWS", rows).replace("WHERE", where))
    return folder


def files() -> list[dict[str, object]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(SWEEP.glob("*.json"))]


def table_rows(html: str) -> list[str]:
    body = html[html.index('id="table-by-setting"') :]
    body = body[: body.index("</table>")]
    return [
        re.sub(r"<[^>]+>", " ", row).split()[0]
        for row in re.findall(r"<tr>.*?</tr>", body, re.S)[1:]
    ]


def test_rows_along_a_setting_the_files_state(tmp_path: Path) -> None:
    html = render_article(article(tmp_path)).html
    rates = sorted(float(f["request_rate"]) for f in files())  # type: ignore[arg-type]
    assert table_rows(html) == [f"{r:g}" for r in rates]
    assert ">request rate<" in html  # the corner names the setting without its meta. prefix


def test_a_filter_on_a_setting_keeps_what_matches(tmp_path: Path) -> None:
    backend = str(files()[0]["backend"])
    html = render_article(article(tmp_path, where=f'{{ "meta.backend" = "{backend}" }}')).html
    assert len(table_rows(html)) == len(files())


def test_a_filter_value_the_files_lack_names_what_they_have(tmp_path: Path) -> None:
    backend = str(files()[0]["backend"])
    folder = article(tmp_path, where='{ "meta.backend" = "no-such-engine" }')
    with pytest.raises(InputError) as caught:
        render_article(folder)
    (problem,) = caught.value.problems
    assert problem.message.endswith(
        f"no data for meta.backend no-such-engine; the data has {backend}"
    )


def test_a_setting_no_file_states_is_an_error_with_did_you_mean(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        render_article(article(tmp_path, rows="meta.request_rates"))
    (problem,) = caught.value.problems
    assert "no run file states meta.request_rates; did you mean meta.request_rate?" in (
        problem.message
    )
    assert "meta.backend" in problem.message  # and lists what they do state


def test_a_setting_axis_must_be_written_meta_dot_key(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is not an axis of the data"):
        render_article(article(tmp_path, rows="request_rate"))
