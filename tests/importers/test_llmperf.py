"""llmperf summaries: seconds to ms, and llmperf's ITL (TTFT folded in) kept apart."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from benchdoc.errors import ImportFormatError
from benchdoc.importers import llmperf

from .conftest import Truncate, sample

NAME = "llmperf_summary.json"


def test_summary_maps_onto_benchdoc_names() -> None:
    (run,) = llmperf.parse(sample(NAME))
    got = {m: v[0] for m, v in run.metrics().items()}
    assert got["ttft_ms_mean"] == pytest.approx(253.8223)
    assert got["ttft_ms_p50"] == pytest.approx(241.6684)
    assert got["e2e_ms_p99"] == pytest.approx(1674.4317)
    assert got["e2e_per_token_ms_mean"] == pytest.approx(11.9292)
    assert not any(m.startswith(("tpot_ms", "itl_ms")) for m in got)
    assert got["output_tok_s"] == 988.34
    assert got["request_s"] == pytest.approx(397.42 / 60)
    assert got["error_rate"] == pytest.approx(0.0066667)
    assert got["user_output_tok_s_p50"] == 126.18
    assert run.finished_at == datetime(2024, 11, 4, 10, 10, 2, tzinfo=timezone.utc)
    assert run.metadata["num_concurrent_requests"] == 8 and run.metadata["results_number_errors"] == 1
    assert "results_ttft_s_mean" not in run.metadata and "results_ttft_s_stddev" in run.metadata
    assert run.label == "model=meta-llama/Llama-3.1-8B-Instruct num_concurrent_requests=8 mean_input_tokens=550 mean_output_tokens=150"


def test_an_individual_responses_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x_individual_responses.json"
    path.write_text(json.dumps([{"ttft_s": 0.2, "end_to_end_latency_s": 1.1}]))
    with pytest.raises(ImportFormatError, match="found a list where a JSON object belongs"):
        llmperf.parse(path)


def test_a_truncated_summary_is_refused_with_the_decoders_line(truncated: Truncate) -> None:
    path, line = truncated(NAME, 0.5)
    with pytest.raises(ImportFormatError) as info:
        llmperf.parse(path)
    assert (info.value.file, info.value.line) == (str(path), line)
