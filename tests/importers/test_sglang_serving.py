"""SGLang bench_serving JSONL: one run per line, SGLang's keys mapped onto benchdoc's names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchdoc.errors import ImportFormatError
from benchdoc.importers import sglang_serving

from .conftest import Truncate, sample

NAME = "sglang_serving.jsonl"


def lines() -> list[dict[str, Any]]:
    return [json.loads(line) for line in sample(NAME).read_text().splitlines()]


def test_each_line_is_one_run_with_its_line_number() -> None:
    runs = sglang_serving.parse(sample(NAME))
    assert [r.line for r in runs] == [1, 2, 3]
    assert [r.location for r in runs] == [f"{NAME}:1", f"{NAME}:2", f"{NAME}:3"]
    assert all(r.format == "sglang-serving" and r.outcome == "ok" for r in runs)


def test_fields_map_onto_benchdoc_names_in_milliseconds() -> None:
    source = lines()[0]
    values = {m: v[0] for m, v in sglang_serving.parse(sample(NAME))[0].metrics().items()}
    assert values["output_tok_s"] == source["output_throughput"]
    assert values["input_tok_s"] == source["input_throughput"]
    assert values["request_s"] == source["request_throughput"]
    assert values["ttft_ms_mean"] == source["mean_ttft_ms"] == 86.41
    assert values["ttft_ms_p50"] == source["median_ttft_ms"] == 71.18
    assert values["ttft_ms_p99"] == source["p99_ttft_ms"]
    assert values["tpot_ms_p90"] == source["p90_tpot_ms"]
    assert values["itl_ms_p95"] == source["p95_itl_ms"]
    assert values["e2e_ms_p50"] == source["median_e2e_latency_ms"]
    assert values["accept_length"] == 2.81
    assert not any("std" in m for m in values), "standard deviations are kept in metadata, not as metrics"
    assert "error_rate" not in values  # no per-request errors in the file: unknown, not zero


def test_settings_and_server_info_are_kept() -> None:
    run = sglang_serving.parse(sample(NAME))[0]
    assert run.metadata["backend"] == "sglang" and run.metadata["max_concurrency"] == 16
    assert run.metadata["request_rate"] == "inf"  # the tool writes Infinity
    assert run.metadata["std_ttft_ms"] == 44.02 and run.metadata["completed"] == 200
    assert "cumulative" in run.metadata["accept_length_source"]
    assert run.environment["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert run.environment["server_version"] == "0.5.4.post1"
    assert run.environment["server_info"]["speculative_algorithm"] == "EAGLE3"


def test_the_label_tells_configurations_apart() -> None:
    runs = sglang_serving.parse(sample(NAME))
    assert runs[0].label == runs[1].label != runs[2].label
    assert "max_concurrency=16" in runs[0].label and "max_concurrency=32" in runs[2].label


def test_per_request_errors_give_the_error_rate_and_details_are_not_kept(tmp_path: Path) -> None:
    record = lines()[0] | {"errors": ["", "", "", "Connection reset"], "ttfts": [0.07, 0.08, 0.09, 0.0]}
    path = tmp_path / "details.jsonl"
    path.write_text(json.dumps(record) + "\n")
    (run,) = sglang_serving.parse(path)
    assert run.metrics()["error_rate"] == [0.25]
    assert "ttfts" not in run.metadata and run.metadata["per_request_details_not_kept"] == ["errors", "ttfts"]


def test_a_missing_key_names_the_line_and_the_key(tmp_path: Path) -> None:
    first, second, _ = lines()
    del second["output_throughput"]
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n")
    with pytest.raises(ImportFormatError) as info:
        sglang_serving.parse(path)
    assert info.value.line == 2
    assert "missing key 'output_throughput'" in info.value.message
    assert "expected an SGLang bench_serving result" in info.value.message


def test_a_wrong_type_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(lines()[0] | {"mean_ttft_ms": "86 ms"}) + "\n")
    with pytest.raises(ImportFormatError, match=r"bad.jsonl:1: key 'mean_ttft_ms' should be a number, found text"):
        sglang_serving.parse(path)


def test_a_truncated_file_is_refused_at_the_cut_line(truncated: Truncate) -> None:
    path, line = truncated(NAME, 0.6)
    assert line == 2
    with pytest.raises(ImportFormatError) as info:
        sglang_serving.parse(path)
    assert info.value.file == str(path) and info.value.line == 2
    assert "looks truncated" in info.value.message
