"""guidellm JSON reports: one run per benchmark, guidellm's ITL is benchdoc's TPOT."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from benchdoc.errors import ImportFormatError
from benchdoc.importers import ImportedRun, guidellm

from .conftest import Truncate, sample

NAME = "guidellm.json"


def values(run: ImportedRun) -> dict[str, float]:
    return {m: v[0] for m, v in run.metrics().items()}


def test_each_benchmark_is_a_run_labelled_by_its_strategy() -> None:
    sync, constant = guidellm.parse(sample(NAME))
    assert (sync.entry, constant.entry) == ("benchmarks[0]", "benchmarks[1]")
    assert sync.label == "synchronous" and constant.label == "constant rate=4"
    assert sync.started_at == datetime.fromtimestamp(1762180000.25, tz=timezone.utc)
    assert (sync.finished_at - sync.started_at).total_seconds() == pytest.approx(30.0)
    assert constant.environment["tool_version"] == "0.4.0" and constant.environment["model"] == "Qwen/Qwen3-8B"


def test_definitions_are_mapped_explicitly() -> None:
    got = values(guidellm.parse(sample(NAME))[1])
    assert got["tpot_ms_mean"] == 7.02  # inter_token_latency_ms
    assert got["e2e_per_token_ms_mean"] == 7.25  # time_per_output_token_ms includes the first token
    assert got["e2e_ms_mean"] == pytest.approx(1851.2)  # request_latency is in seconds
    assert got["ttft_ms_p50"] == 58.235 and got["ttft_ms_p99_9"] == 116.47 and got["ttft_ms_p0_1"] == 30.65
    assert got["output_tok_s"] == 1015.5 and got["request_s"] == 3.9667
    assert got["input_tok_s"] == pytest.approx(256 * 119 / 30.0)
    assert got["error_rate"] == pytest.approx(1 / 120)
    assert not any(m.startswith("itl_ms") for m in got)


def test_a_distribution_with_no_successful_request_gives_no_values(tmp_path: Path) -> None:
    report = json.loads(sample(NAME).read_text())
    ttft = report["benchmarks"][0]["metrics"]["time_to_first_token_ms"]["successful"]
    ttft.update(count=0, mean=0.0, median=0.0)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    got = values(guidellm.parse(path)[0])
    assert not any(m.startswith("ttft_ms") for m in got) and "tpot_ms_mean" in got


def test_missing_pieces_are_refused_with_their_path(tmp_path: Path) -> None:
    report = json.loads(sample(NAME).read_text())
    del report["benchmarks"][1]["metrics"]["request_latency"]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    with pytest.raises(ImportFormatError, match=r"benchmarks\[1\]\.metrics: missing key 'request_latency'"):
        guidellm.parse(path)
    path.write_text(json.dumps({"metadata": {}, "benchmarks": []}))
    with pytest.raises(ImportFormatError, match="'benchmarks' is empty"):
        guidellm.parse(path)


def test_a_truncated_report_is_refused_with_the_decoders_line(truncated: Truncate) -> None:
    path, line = truncated(NAME, 0.4)
    with pytest.raises(ImportFormatError) as info:
        guidellm.parse(path)
    assert (info.value.file, info.value.line) == (str(path), line) and "looks truncated" in info.value.message
