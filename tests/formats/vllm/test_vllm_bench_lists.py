"""The JSON lists vLLM's tooling writes beside its run files are named, with the files to read.

Each layout is written here by hand, as vLLM's source builds it: `vllm bench sweep`'s
summary.json (the run=K.json results of one combination, each with `run_number` and the
sweep's parameters), `vllm bench sweep serve_sla`'s SLA--<criteria>.json (every run of the
search), and the nightly scripts' tables of display names (benchmark_results.json,
<engine>_nightly_results.json). Their results are tests/examples/valid/vllm-serve-summary.json.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from reportgen.formats.json_input.document import parse_json
from reportgen.formats.load import load_document
from reportgen.formats.vllm import bench_serve, lists
from reportgen.formats.vllm.lists import not_a_run_file

RESULT = Path(__file__).resolve().parents[2] / "examples" / "valid" / "vllm-serve-summary.json"


def _result(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(RESULT.read_text(encoding="utf-8"))
    data.update(changes)
    return data


def _sweep_summary(runs: int = 3) -> list[dict[str, Any]]:
    """summary.json of `vllm bench sweep serve --num-runs 3`, bench params {max_concurrency}."""
    return [_result(run_number=k, max_concurrency=4) for k in range(runs)]


def _sla_search() -> list[dict[str, Any]]:
    """SLA--p99_e2el_ms<=500.json: the runs at each request rate the search tried."""
    return [_result(run_number=0, request_rate=rate) for rate in (65536, 1, 17, 9, 8)]


# rows as convert-results-json-to-markdown.py renames them (a latency, a throughput and two
# serving tests), and as summary-nightly-results.py does (with its Engine column)
PERFORMANCE_TABLE: list[dict[str, Any]] = [
    {
        "Test name": "latency_llama8B_tp1",
        "GPU": "8xH100",
        "Mean latency (ms)": 1163.2,
        "Median latency (ms)": 1161.9,
        "P99 latency (ms)": 1175.4,
    },
    {
        "Test name": "throughput_llama8B_tp1",
        "GPU": "8xH100",
        "# of req.": 200,
        "Total # of tokens": 101286,
        "Elapsed time (s)": 11.2,
        "Tput (req/s)": 17.86,
        "Tput (tok/s)": 9043.4,
    },
    {
        "Test name": "serving_llama8B_tp1_sharegpt_qps_1",
        "GPU": "8xH100",
        "# of req.": 200,
        "Tput (req/s)": 0.98,
        "Output Tput (tok/s)": 201.5,
        "Median TTFT (ms)": 22.1,
        "Median ITL (ms)": 7.9,
    },
    {
        "Test name": "serving_llama8B_tp1_sharegpt_qps_inf",
        "GPU": "8xH100",
        "# of req.": 200,
        "Tput (req/s)": 21.4,
        "Output Tput (tok/s)": 4401.0,
        "Median TTFT (ms)": 410.6,
        "Median ITL (ms)": 18.2,
    },
]
NIGHTLY_TABLE: list[dict[str, Any]] = [
    {
        "Test name": "llama8B_tp1_sharegpt_qps_4",
        "GPU": "8xH100",
        "Successful req.": 500,
        "Tput (req/s)": 3.9,
        "Mean TTFT (ms)": 31.0,
        "Median TTFT (ms)": 29.4,
        "P99 TTFT (ms)": 61.2,
        "Mean ITL (ms)": 8.1,
        "Median ITL (ms)": 7.7,
        "P99 ITL (ms)": 19.0,
        "Engine": "vllm",
    },
]


def test_a_sweep_summary_is_named_with_its_run_files() -> None:
    message = not_a_run_file(_sweep_summary())
    assert message is not None
    assert message.startswith("this is vllm bench sweep's summary.json: a list of the 3 runs")
    assert "run=0.json to run=2.json in the same folder" in message
    assert "Read those run=K.json files" in message
    one = not_a_run_file(_sweep_summary(1))
    assert one is not None and "saved on their own as run=0.json in the same" in one


def test_an_sla_search_is_named_with_its_folders() -> None:
    message = not_a_run_file(_sla_search())
    assert message is not None
    assert message.startswith("this is vllm bench sweep serve_sla's SLA--<criteria>.json")
    assert "over request_rate (1, 8, 9, 17, 65536)" in message
    assert "run=K.json in the request_rate=<value> folder" in message


def test_a_list_of_results_without_a_sweep_is_named() -> None:
    results = [_result(), _result(max_concurrency=8)]
    message = not_a_run_file(results)
    assert message is not None
    assert message.startswith("this is a JSON list of 2 vllm bench serve results, not one run")
    assert "Save each result as a file of its own" in message


def test_the_performance_table_names_a_serving_tests_result_file() -> None:
    message = not_a_run_file(PERFORMANCE_TABLE)
    assert message is not None
    assert "benchmark_results.json" in message and "convert-results-json-to-markdown.py" in message
    assert "4 rows of tests" in message
    assert "(here results/serving_llama8B_tp1_sharegpt_qps_1.json)" in message


def test_the_nightly_table_is_named_by_its_engine_column() -> None:
    message = not_a_run_file(NIGHTLY_TABLE)
    assert message is not None
    assert "<engine>_nightly_results.json" in message
    assert "(here results/llama8B_tp1_sharegpt_qps_4.json)" in message


def test_the_items_of_a_json_array_document_are_read_as_the_list() -> None:
    """As load.py holds a top-level array: its items keyed by index."""
    doc = parse_json("summary.json", json.dumps(_sweep_summary()).encode(), top_list=True)
    assert not_a_run_file(doc.data) == not_a_run_file(_sweep_summary())
    keyed = {str(k): row for k, row in enumerate(PERFORMANCE_TABLE)}
    assert not_a_run_file(keyed) == not_a_run_file(PERFORMANCE_TABLE)


@pytest.mark.parametrize(
    "data",
    [
        [],
        {},
        [1, 2],
        "text",
        None,
        [{"n_prompt": 512, "n_gen": 0, "avg_ts": 100.0}],  # llama-bench: not vLLM's
        [{"start_time": 1.0, "end_time": 2.0, "info": {}}],  # inference-perf's records
        {"model_id": "m", "num_prompts": 1},  # an object, not a list
    ],
)
def test_other_lists_and_values_are_not_claimed(data: Any) -> None:
    assert not_a_run_file(data) is None


def test_a_list_mixing_results_and_other_rows_is_not_claimed() -> None:
    mixed: list[Any] = [*_sweep_summary(2), {"note": "edited by hand"}]
    assert not_a_run_file(mixed) is None
    assert not_a_run_file([*copy.deepcopy(PERFORMANCE_TABLE), _result()]) is None


def test_each_item_of_a_sweep_is_itself_a_run_file_vllm_bench_reads() -> None:
    """What the refusal says to do works: run=K.json is read as one load point."""
    for item in _sweep_summary():
        item["max_num_seqs"] = 64  # a serve parameter of the sweep, added to each run
        assert bench_serve.detect(item) is not None
        doc = parse_json(f"run={item['run_number']}.json", json.dumps(item, indent=4).encode())
        run, problems = load_document(doc)
        assert run is not None and problems == []
    assert lists.not_a_run_file(_sweep_summary()[0]) is None


def test_the_sweeps_warmup_run_is_refused_naming_the_measured_runs() -> None:
    """vllm bench sweep serve --warmup-num-prompts saves its warm-up as warmup.json, a result
    with run_number -1 (sweep/serve.py)."""
    warmup = _result(run_number=-1, num_prompts=4)
    found = bench_serve.detect(warmup)
    assert found is not None and found.refusal == bench_serve.WARMUP
    doc = parse_json("warmup.json", json.dumps(warmup, indent=4).encode())
    run, problems = load_document(doc)
    assert run is None
    assert [p.message for p in problems] == [bench_serve.WARMUP]
    assert "Read the run=K.json files" in bench_serve.WARMUP
