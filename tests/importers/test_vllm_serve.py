"""vllm bench serve JSON: single results and --append-result files, vLLM's ITL as chunk gaps."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from benchdoc.errors import ImportFormatError
from benchdoc.importers import ImportedRun, vllm_serve

from .conftest import Truncate, sample


def values(run: ImportedRun) -> dict[str, float]:
    return {m: v[0] for m, v in run.metrics().items()}


def test_appended_results_are_one_run_each_with_start_and_end() -> None:
    first, second = vllm_serve.parse(sample("vllm_serve_append.json"))
    assert (first.line, second.line) == (1, 2)
    assert first.finished_at == datetime(2025, 11, 3, 14, 15, 2, tzinfo=timezone.utc)
    assert first.finished_at - first.started_at == timedelta(seconds=48.731)
    assert values(second)["error_rate"] == pytest.approx(2 / 500)
    assert values(first)["error_rate"] == 0.0
    assert first.label == second.label


def test_vllm_itl_is_recorded_as_chunk_gaps_not_itl() -> None:
    (run,) = vllm_serve.parse(sample("vllm_serve.json"))
    got = values(run)
    assert got["chunk_gap_ms_mean"] == 19.91 and got["chunk_gap_ms_p99"] == 61.2
    assert not any(m.startswith("itl_ms") for m in got)
    assert got["tpot_ms_mean"] == 7.84 and got["ttft_ms_p50"] == 127.5
    assert got["e2e_ms_mean"] == 2011.7 and got["e2e_ms_p99"] == 3012.6


def test_any_percentile_is_kept_and_median_and_p50_give_one_value() -> None:
    (run,) = vllm_serve.parse(sample("vllm_serve.json"))
    metrics = run.metrics()
    assert metrics["ttft_ms_p99_9"] == [702.4]
    assert metrics["ttft_ms_p50"] == [127.5]  # median_ttft_ms and p50_ttft_ms both present
    assert vllm_serve.latency_metric("p99.9_ttft_ms") == "ttft_ms_p99_9"
    assert vllm_serve.latency_metric("median_e2el_ms") == "e2e_ms_p50"
    assert vllm_serve.latency_metric("std_itl_ms") is None


def test_derived_values_and_speculative_decoding() -> None:
    (run,) = vllm_serve.parse(sample("vllm_serve.json"))
    source = json.loads(sample("vllm_serve.json").read_text())
    got = values(run)
    assert got["input_tok_s"] == pytest.approx(source["total_input_tokens"] / source["duration"])
    assert got["output_tok_s"] == source["output_throughput"]
    assert got["accept_length"] == 2.2824
    assert run.metadata["spec_decode"]["spec_decode_num_drafts"] == 41230
    assert "spec_decode_num_drafts" not in run.metadata  # kept once, grouped
    assert run.metadata["std_ttft_ms"] == 97.2 and run.metadata["label"] == "eagle3-k2"
    assert "latencies" not in run.metadata and run.metadata["per_request_details_not_kept"] == ["latencies", "queue_times"]
    assert run.environment["model_id"] == "meta-llama/Llama-3.1-8B-Instruct"


def test_a_truncated_append_file_is_refused_at_the_second_object(truncated: Truncate) -> None:
    path, line = truncated("vllm_serve_append.json", 0.8)
    assert line == 2
    with pytest.raises(ImportFormatError) as info:
        vllm_serve.parse(path)
    assert (info.value.file, info.value.line) == (str(path), 2) and "looks truncated" in info.value.message


def test_a_truncated_pretty_file_is_refused_with_the_decoders_line(truncated: Truncate) -> None:
    path, line = truncated("vllm_serve.json", 0.5)
    with pytest.raises(ImportFormatError) as info:
        vllm_serve.parse(path)
    assert info.value.line == line and "looks truncated" in info.value.message


def test_a_result_without_its_throughput_is_refused(tmp_path: Path) -> None:
    record = json.loads(sample("vllm_serve.json").read_text())
    del record["request_throughput"]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record))
    with pytest.raises(ImportFormatError, match=r"r.json:1: missing key 'request_throughput'"):
        vllm_serve.parse(path)
