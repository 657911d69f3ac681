"""genai-perf and AIPerf JSON exports: metric objects with a unit, avg and percentiles."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from benchdoc.errors import ImportFormatError
from benchdoc.importers import ImportedRun, genai_perf

from .conftest import Truncate, sample


def values(run: ImportedRun) -> dict[str, float]:
    return {m: v[0] for m, v in run.metrics().items()}


def test_genai_perf_inter_token_latency_is_tpot() -> None:
    (run,) = genai_perf.parse_genai_perf(sample("genai_perf.json"))
    got = values(run)
    assert got["tpot_ms_mean"] == 15.71 and got["tpot_ms_p50"] == 15.52 and got["tpot_ms_p99"] == 19.86
    assert not any(m.startswith("itl_ms") for m in got)
    assert got["ttft_ms_p90"] == 91.37 and got["e2e_ms_mean"] == 2041.66
    assert got["output_tok_s"] == 990.12 and got["request_s"] == 7.8213
    assert got["user_output_tok_s_p50"] == 64.4
    assert got["ttft_ms_p5"] == pytest.approx(32.634)  # every percentile the tool wrote
    assert "error_rate" not in got  # genai-perf reports no errors: unknown, not zero
    assert run.format == "genai-perf" and run.environment["tool"] == "genai-perf"
    assert run.environment["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert run.label == "genai-perf concurrency=16"
    assert run.metadata["metrics_not_mapped"] == ["input_sequence_length", "output_sequence_length", "request_count", "time_to_second_token"]


def test_aiperf_adds_chunk_gaps_errors_accept_length_and_times() -> None:
    (run,) = genai_perf.parse_aiperf(sample("profile_export_aiperf.json"))
    got = values(run)
    assert got["chunk_gap_ms_mean"] == 51.7 and got["tpot_ms_mean"] == 51.76
    assert got["accept_length"] == 2.61
    assert got["error_rate"] == pytest.approx(3 / 200)
    assert got["input_tok_s"] == pytest.approx(108350 / 15.1966)
    assert run.started_at == datetime(2025, 10, 17, 20, 22, 8, 939332, tzinfo=timezone.utc)
    assert run.finished_at == datetime(2025, 10, 17, 20, 22, 24, 967633, tzinfo=timezone.utc)
    assert run.environment == {
        "tool": "aiperf",
        "tool_version": "0.13.0",
        "model": "openai/gpt-oss-20b",
        "gpus": ["NVIDIA H100 80GB HBM3"],
    }
    assert run.label == "aiperf concurrency=100"
    assert run.metadata["input_config"]["loadgen"]["request_count"] == 200


def test_units_are_converted_and_a_wrong_unit_is_refused(tmp_path: Path) -> None:
    document = json.loads(sample("genai_perf.json").read_text())
    document["request_latency"] = {"unit": "s", "avg": 2.04166, "p50": 2.00312}
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document))
    got = values(genai_perf.parse_genai_perf(path)[0])
    assert got["e2e_ms_mean"] == 2041.66 and got["e2e_ms_p50"] == 2003.12

    document["time_to_first_token"]["unit"] = "tokens"
    path.write_text(json.dumps(document))
    with pytest.raises(ImportFormatError, match="time_to_first_token: unit 'tokens' is not a time unit"):
        genai_perf.parse_genai_perf(path)


def test_a_file_without_request_latency_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"request_throughput": {"unit": "requests/sec", "avg": 1.0}}))
    with pytest.raises(ImportFormatError, match="missing metric 'request_latency'"):
        genai_perf.parse_genai_perf(path)


@pytest.mark.parametrize("name", ["genai_perf.json", "profile_export_aiperf.json"])
def test_a_truncated_export_is_refused_with_the_decoders_line(truncated: Truncate, name: str) -> None:
    path, line = truncated(name, 0.5)
    with pytest.raises(ImportFormatError) as info:
        genai_perf.parse_aiperf(path)
    assert (info.value.file, info.value.line) == (str(path), line)
    assert "looks truncated" in info.value.message
