"""SGLang bench_one_batch / bench_one_batch_server JSONL: one batch per line, seconds to ms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchdoc.errors import ImportFormatError
from benchdoc.importers import ImportedRun, sglang_one_batch

from .conftest import Truncate, sample


def values(run: ImportedRun) -> dict[str, float]:
    return {m: v[0] for m, v in run.metrics().items()}


def test_in_process_cases_map_seconds_to_milliseconds() -> None:
    small, large = sglang_one_batch.parse(sample("sglang_one_batch.jsonl"))
    got = values(small)
    assert got["batch_ttft_ms"] == pytest.approx(41.2)
    assert got["decode_step_ms_p50"] == pytest.approx(7.11)
    assert got["batch_latency_ms"] == pytest.approx(944.1)
    assert got["decode_tok_s"] == 140.65 and got["prefill_tok_s"] == 24854.37
    # Derived: output tokens over the batch's wall time.
    assert got["output_tok_s"] == pytest.approx(1 * 128 / 0.9441)
    assert values(large)["output_tok_s"] == pytest.approx(8 * 128 / 1.2741)
    assert small.environment["tool"] == "sglang.bench_one_batch"
    assert small.label == "run_name=before batch_size=1 input_len=1024 output_len=128" != large.label
    assert "ttft_ms_mean" not in got and "tpot_ms_p50" not in got  # one batch is not a serving load


def test_server_cases_skip_a_missing_accept_length_and_use_the_real_token_count() -> None:
    plain, spec = sglang_one_batch.parse(sample("sglang_one_batch_server.jsonl"))
    assert plain.environment["tool"] == "sglang.bench_one_batch_server"
    assert "accept_length" not in values(plain)  # acc_length -1: no speculative decoding
    assert values(spec)["accept_length"] == 2.74
    assert values(plain)["batch_ttft_ms"] == pytest.approx(525.0)
    assert values(plain)["output_tok_s"] == pytest.approx(4096 / 3.412)
    assert plain.metadata["steady_state_output_throughput"] == 1250.4


def test_a_line_of_neither_kind_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "result.jsonl"
    path.write_text(json.dumps({"run_name": "x", "batch_size": 1, "input_len": 8, "output_len": 8}) + "\n")
    with pytest.raises(ImportFormatError) as info:
        sglang_one_batch.parse(path)
    assert info.value.line == 1 and "missing key 'prefill_latency'" in info.value.message


def test_a_truncated_file_is_refused_at_the_cut_line(truncated: Truncate) -> None:
    path, line = truncated("sglang_one_batch_server.jsonl", 0.75)
    with pytest.raises(ImportFormatError) as info:
        sglang_one_batch.parse(path)
    assert (info.value.file, info.value.line) == (str(path), line) and line == 2
