"""pytest-benchmark JSON: one run per benchmark, rounds as repetitions when the file has them."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from benchdoc.errors import ImportFormatError
from benchdoc.importers import pytest_benchmark

from .conftest import Truncate, sample

NAME = "pytest_benchmark.json"


def test_rounds_become_repetitions_and_stats_only_entries_give_summaries() -> None:
    short, long = pytest_benchmark.parse(sample(NAME))
    assert short.label == "tests/test_bench.py::test_encode[short]"
    assert short.metrics() == {"time_ms": [0.2294, 0.1509, 0.1527, 0.1486, 0.1431, 0.1406, 0.1498, 0.1593]}
    assert [s.repetition for s in short.samples] == list(range(8))
    assert long.metrics() == {
        "ops_s": [208.055],
        "time_ms_max": [7.1687],
        "time_ms_mean": [4.80642],
        "time_ms_min": [4.0666],
        "time_ms_p50": [4.2467],
    }
    assert long.metadata["stats"]["rounds"] == 5 and long.metadata["extra_info"] == {"chars": 65536}


def test_machine_and_commit_travel_with_each_run() -> None:
    run = pytest_benchmark.parse(sample(NAME))[0]
    assert run.host == "bench-runner-2"
    assert run.git_commit == "9f3b2c1d8e7a6f5b4c3d2e1f0a9b8c7d6e5f4a3b" and run.git_dirty is False
    assert run.finished_at == datetime(2025, 11, 2, 16, 45, 12, 401873, tzinfo=timezone.utc)
    assert run.environment["machine_info"]["cpu"]["brand_raw"] == "AMD EPYC 7763 64-Core Processor"
    assert run.environment["tool_version"] == "4.0.0"


def test_a_truncated_file_is_refused_with_the_decoders_line(truncated: Truncate) -> None:
    path, line = truncated(NAME, 0.6)
    with pytest.raises(ImportFormatError) as info:
        pytest_benchmark.parse(path)
    assert (info.value.file, info.value.line) == (str(path), line) and "looks truncated" in info.value.message
