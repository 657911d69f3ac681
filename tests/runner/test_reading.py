"""A command workload's numbers: JSON paths into its output, patterns over its stdout,
and the importers for other tools' files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchdoc.config.tables import ResultReader
from benchdoc.runner.reading import (
    ReportedFailure,
    ResultReadError,
    read_json_metrics,
    read_regex_metrics,
    read_results,
    value_at,
)

VLLM_LIKE = {
    "completed": 200,
    "output_throughput": 1532.25,
    "ttft": {"p50_ms": "41.5"},
    "runs": [{"tok_s": 1.0}, {"tok_s": 2.0}],
    "per.dotted": {"key": 7},
}


def test_values_at_json_paths() -> None:
    assert value_at(VLLM_LIKE, "runs[-1].tok_s") == 2.0
    assert value_at(VLLM_LIKE, '["per.dotted"].key') == 7


def test_json_metrics_accept_numbers_and_numeric_strings() -> None:
    text = json.dumps(VLLM_LIKE)
    fields = {"output_tok_s": "output_throughput", "ttft_ms_p50": "ttft.p50_ms", "requests": "completed"}
    assert read_json_metrics(text, fields, "out.json") == {"output_tok_s": 1532.25, "ttft_ms_p50": 41.5, "requests": 200.0}


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("output_throughput_tok_s", "no key 'output_throughput_tok_s' at the top (did you mean 'output_throughput'?)"),
        ("runs[5].tok_s", "no item [5] at runs (a list of 2)"),
        ("ttft", "the value is an object, not a number"),
        ("ttft.p50_ms.x", "no key 'x' at ttft.p50_ms"),
    ],
)
def test_json_problems_say_where(path: str, message: str) -> None:
    with pytest.raises(ResultReadError) as info:
        read_json_metrics(json.dumps(VLLM_LIKE), {"m": path}, "the output file out.json")
    assert message in str(info.value) and str(info.value).endswith("in the output file out.json")
    with pytest.raises(ResultReadError, match="out.json is not JSON"):
        read_json_metrics('{"truncated": ', {"m": "truncated"}, "out.json")


def test_regex_takes_the_last_match() -> None:
    stdout = "warming up... throughput: 10.0 tok/s\nthroughput: 95.8 tok/s\nthroughput: 96.1 tok/s\nlatency p50: 41 ms\n"
    fields = {"output_tok_s": r"throughput: ([0-9.]+)", "ttft_ms_p50": r"^latency p50: (\d+)"}
    assert read_regex_metrics(stdout, fields, "stdout") == {"output_tok_s": 96.1, "ttft_ms_p50": 41.0}
    with pytest.raises(ResultReadError, match="does not match stdout"):
        read_regex_metrics("nothing here", fields, "stdout")
    with pytest.raises(ResultReadError, match="is 'n/a', not a number"):
        read_regex_metrics("throughput: n/a", {"x": r"throughput: (\S+)"}, "stdout")


def test_read_results_from_files(tmp_path: Path) -> None:
    output = tmp_path / "out.json"
    output.write_text(json.dumps(VLLM_LIKE))
    assert read_results(ResultReader("json", fields={"x": "completed"}), output, "out") == {"x": 200.0}
    with pytest.raises(ResultReadError, match="the output file does not exist: the command wrote nothing there"):
        read_results(ResultReader("json", fields={"x": "completed"}), tmp_path / "none.json", "the output file")


def test_importer_reads_one_run_and_takes_the_median_of_its_own_repetitions(tmp_path: Path) -> None:
    output = tmp_path / "hyperfine.json"
    output.write_text(json.dumps({"results": [{"command": "curl x", "times": [0.1, 0.3, 0.2], "exit_codes": [0, 0, 0]}]}))
    assert read_results(ResultReader("format", format="hyperfine"), output, "x") == {"time_ms": 200.0}


def test_importer_failures_and_refusals(tmp_path: Path) -> None:
    failing = tmp_path / "failing.json"
    failing.write_text(json.dumps({"results": [{"command": "c", "times": [0.1, 0.2], "exit_codes": [0, 1]}]}))
    with pytest.raises(ReportedFailure, match="exited with status 1"):
        read_results(ResultReader("format", format="hyperfine"), failing, "x")
    two = tmp_path / "two.json"
    two.write_text(json.dumps({"results": [{"command": "a", "times": [0.1]}, {"command": "b", "times": [0.2]}]}))
    with pytest.raises(ResultReadError, match=r"holds 2 runs \(a, b\)"):
        read_results(ResultReader("format", format="hyperfine"), two, "x")
    truncated = tmp_path / "truncated.json"
    truncated.write_text('{"results": [{"command": "a", "times": [0.1')
    with pytest.raises(ResultReadError, match="truncated.json"):
        read_results(ResultReader("format", format="hyperfine"), truncated, "x")
