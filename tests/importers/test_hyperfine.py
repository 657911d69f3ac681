"""hyperfine --export-json: one run per command, each timed run a repetition."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchdoc.errors import ImportFormatError
from benchdoc.importers import hyperfine

from .conftest import Truncate, sample

NAME = "hyperfine.json"


def test_each_timed_run_is_a_repetition_in_milliseconds() -> None:
    plain, flash = hyperfine.parse(sample(NAME))
    times = json.loads(sample(NAME).read_text())["results"][0]["times"]
    assert plain.metrics()["time_ms"] == pytest.approx([t * 1000 for t in times])
    assert plain.metrics()["time_ms"][:2] == [2461.1, 2430.2]  # no binary noise from the unit change
    reps = sorted(s.repetition for s in plain.samples if s.metric == "time_ms")
    assert reps == list(range(10))
    assert plain.metrics()["memory_bytes"][0] == 4922310656
    assert plain.label == "llama-bench -m models/qwen2.5-7b-q4_k_m.gguf -p 512 -n 0" != flash.label
    assert plain.metadata["hyperfine_summary"]["user_s"] == 17.802
    assert plain.outcome == "ok" and plain.failure_reason is None


def test_a_command_that_failed_in_a_timed_run_is_a_failed_run() -> None:
    _, flash = hyperfine.parse(sample(NAME))
    assert flash.outcome == "failed"
    assert flash.failure_reason == "the command exited with status 1 in 1 of 10 timed runs"
    assert len(flash.metrics()["time_ms"]) == 10  # its timings are kept


def test_parameters_join_the_label_and_old_exports_give_the_mean(tmp_path: Path) -> None:
    path = tmp_path / "h.json"
    path.write_text(json.dumps({"results": [{"command": "sleep 0.1", "mean": 0.1032, "median": 0.1029, "parameters": {"t": "0.1"}}]}))
    (run,) = hyperfine.parse(path)
    assert run.label == "sleep 0.1 t=0.1"
    assert run.metrics() == {"time_ms_mean": [103.2], "time_ms_p50": [102.9]}


def test_bad_results_are_refused_with_their_path(tmp_path: Path) -> None:
    path = tmp_path / "h.json"
    path.write_text(json.dumps({"results": [{"command": "true", "times": [0.001, "slow"]}]}))
    with pytest.raises(ImportFormatError, match=r"results\[0\]\.times: item 1 should be a finite number"):
        hyperfine.parse(path)
    path.write_text(json.dumps({"results": []}))
    with pytest.raises(ImportFormatError, match="'results' is empty"):
        hyperfine.parse(path)


def test_a_truncated_export_is_refused_with_the_decoders_line(truncated: Truncate) -> None:
    path, line = truncated(NAME, 0.5)
    with pytest.raises(ImportFormatError) as info:
        hyperfine.parse(path)
    assert (info.value.file, info.value.line) == (str(path), line) and "looks truncated" in info.value.message
