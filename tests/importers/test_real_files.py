"""Importers held against files the tools themselves wrote, run against benchdoc's
simulator on 127.0.0.1 (the tool's version is in each file's name): AIPerf 0.13.0,
guidellm 0.8.1 (10% of requests answered HTTP 500 by the simulator), pytest-benchmark
5.3.1 (outside a git repository) and hyperfine 1.15.0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchdoc.errors import ImportFormatError
from benchdoc.importers import detect_format, parse_file, plan_import

from .conftest import sample


def values(path: Path, fmt: str = "auto") -> dict[str, float]:
    (run,) = parse_file(path, fmt)
    return {m: v[0] for m, v in run.metrics().items()}


def document(name: str) -> dict:  # type: ignore[type-arg]
    return json.loads(sample(name).read_text())


@pytest.mark.parametrize("name", ["aiperf-0.13.0-concurrency.json", "aiperf-0.13.0-rate.json"])
def test_aiperf_throughputs_are_the_files_own(name: str) -> None:
    raw = document(name)
    got = values(sample(name))
    # The file's input_token_throughput, not a figure recomputed from totals.
    assert got["input_tok_s"] == raw["input_token_throughput"]["avg"]
    recomputed = raw["total_isl"]["avg"] / raw["benchmark_duration"]["avg"]
    assert got["input_tok_s"] != pytest.approx(recomputed, rel=1e-3)  # failed requests make them differ
    assert got["total_tok_s"] == raw["total_token_throughput"]["avg"]
    assert got["output_tok_s"] == raw["output_token_throughput"]["avg"]
    assert got["request_s"] == raw["request_throughput"]["avg"]
    errors = raw["error_request_count"]["avg"]
    assert got["error_rate"] == pytest.approx(errors / (raw["request_count"]["avg"] + errors))


def test_aiperf_0_13_settings_are_read() -> None:
    (by_concurrency,) = parse_file(sample("aiperf-0.13.0-concurrency.json"), "aiperf")
    (by_rate,) = parse_file(sample("aiperf-0.13.0-rate.json"), "aiperf")
    assert by_concurrency.label == "aiperf concurrency=2"
    assert by_rate.label == "aiperf request_rate=40.0"
    for run in (by_concurrency, by_rate):
        assert run.environment["model"] == "sim-llm" and run.environment["tool_version"] == "0.13.0"


def test_an_aiperf_file_given_as_genai_perf_is_refused_and_the_reverse() -> None:
    assert detect_format(sample("aiperf-0.13.0-rate.json")) == "aiperf"
    with pytest.raises(ImportFormatError) as info:
        parse_file(sample("aiperf-0.13.0-rate.json"), "genai-perf")
    message = info.value.message
    assert message.startswith("written by AIPerf 0.13.0, not genai-perf")
    assert message.endswith("the file looks like 'aiperf' output") and "\n" not in message
    with pytest.raises(ImportFormatError, match="written by genai-perf, not aiperf.*looks like 'genai-perf' output"):
        parse_file(sample("genai_perf.json"), "aiperf")


def test_duplicates_are_found_by_content_whatever_the_format(tmp_path: Path) -> None:
    (as_aiperf,) = parse_file(sample("aiperf-0.13.0-rate.json"), "aiperf")
    # The same content under another format's name: the fingerprint does not depend on it.
    renamed = tmp_path / "copy.json"
    renamed.write_text(sample("aiperf-0.13.0-rate.json").read_text())
    (again,) = parse_file(renamed, "auto")
    assert again.fingerprint == as_aiperf.fingerprint
    plan = plan_import([again], "baseline", recorded={as_aiperf.fingerprint: 7})
    assert plan.runs == () and plan.duplicates[0].recorded_as == 7
    # A run recorded by an earlier version (format-salted fingerprint) is still seen.
    assert as_aiperf.former_fingerprint is not None
    old = plan_import([again], "baseline", recorded={as_aiperf.former_fingerprint: 3})
    assert old.runs == () and old.duplicates[0].recorded_as == 3


def test_guidellm_records_the_figures_its_report_shows() -> None:
    raw = document("guidellm-0.8.1.json")["benchmarks"][0]["metrics"]
    assert raw["request_totals"]["errored"] > 0  # the case where the two figures differ
    got = values(sample("guidellm-0.8.1.json"))
    for source, metric in (
        ("requests_per_second", "request_s"),
        ("output_tokens_per_second", "output_tok_s"),
        ("prompt_tokens_per_second", "input_tok_s"),
        ("tokens_per_second", "total_tok_s"),
    ):
        # Its console table "Server Throughput Statistics (All Requests)" shows the total.
        assert got[metric] == raw[source]["total"]["mean"], metric
        assert got[f"{metric}_successful"] == raw[source]["successful"]["mean"], metric
    assert got["request_s"] != pytest.approx(got["request_s_successful"], rel=1e-3)
    # Latencies are the completed requests', as the report's latency table shows them.
    assert got["ttft_ms_mean"] == raw["time_to_first_token_ms"]["successful"]["mean"]
    assert got["error_rate"] == pytest.approx(raw["request_totals"]["errored"] / raw["request_totals"]["total"])


def test_pytest_benchmark_outside_a_git_repository_records_no_commit() -> None:
    assert document("pytest-benchmark-5.3.1.json")["commit_info"]["id"] == "unversioned"
    runs = parse_file(sample("pytest-benchmark-5.3.1.json"), "pytest-benchmark")
    assert [r.label for r in runs] == ["test_speed.py::test_fib", "test_speed.py::test_sorted"]
    for run in runs:
        assert run.git_commit is None and run.git_dirty is None
        assert len(run.metrics()["time_ms"]) >= 5


def test_hyperfine_1_15_file() -> None:
    raw = document("hyperfine-1.15.0.json")["results"]
    runs = parse_file(sample("hyperfine-1.15.0.json"), "auto")
    assert [r.label for r in runs] == [r["command"] for r in raw]
    for run, entry in zip(runs, raw):
        assert run.metrics()["time_ms"] == pytest.approx([t * 1000 for t in entry["times"]])
