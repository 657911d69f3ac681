"""A result that pools runs of different workloads says so, once, for every view."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from tests.conftest import STORY_CONFIG
from tests.test_results import Runs

from benchdoc.config import parse_config
from benchdoc.ledger.metadata import RunMetadata, WorkloadRecord
from benchdoc.pooling import Pooling
from benchdoc.results import compute_results
from benchdoc.results.workload import workload_mix

CONFIG = parse_config(STORY_CONFIG, Path("benchdoc.toml"))
BENCH = {"input_tokens": 128, "input_tokens_max": None, "output_tokens": 128, "output_tokens_max": None,
         "concurrency": 4, "rate": None, "dataset": None, "seed": 0, "url": "http://127.0.0.1:8000"}


def runs_with(*settings: dict[str, Any], as_run: bool = False) -> Runs:
    """Runs of eagle3, oldest first, each with these workload settings (as `bench` or `run` records them)."""
    runs = Runs()
    for day, changed in enumerate(settings):
        runs.add("eagle3", [96.0 + day, 96.5 + day], day=day)
        full = {**BENCH, **changed}
        metadata = RunMetadata(workload=WorkloadRecord("chat", "loadgen", settings=full)) if as_run \
            else RunMetadata(settings=full)
        runs.runs[-1] = replace(runs.runs[-1], metadata=metadata)
    return runs


def test_runs_of_one_workload_pool_without_a_warning() -> None:
    runs = runs_with({}, {"seed": 1}, {"url": "http://127.0.0.1:9000"})  # a seed or a URL is not the workload
    result = compute_results(CONFIG, runs.runs, pooling=Pooling("all"))["eagle3"]
    assert result.mixed_workloads is None and result.n_runs == 3
    assert not any("different workloads" in w for w in result.warnings)


def test_runs_of_different_workloads_name_what_differs() -> None:
    runs = runs_with({}, {"concurrency": 16}, {"concurrency": 16, "input_tokens": 512})
    result = compute_results(CONFIG, runs.runs, pooling=Pooling("all"))["eagle3"]
    mix = result.mixed_workloads
    assert mix is not None and mix.runs == 3
    assert mix.short() == "input length 128, 512; concurrency 4, 16"
    (warning,) = [w for w in result.warnings if "different workloads" in w]
    assert warning.startswith("eagle3 pools 3 runs of different workloads (input length 128, 512; concurrency 4, 16)")
    assert "\n" not in warning


def test_the_latest_run_alone_mixes_nothing() -> None:
    runs = runs_with({}, {"concurrency": 16})
    assert compute_results(CONFIG, runs.runs)["eagle3"].mixed_workloads is None
    assert compute_results(CONFIG, runs.runs, pooling=Pooling("runs", count=2))["eagle3"].mixed_workloads is not None


def test_runs_by_run_and_open_loop_rates_are_read_too() -> None:
    runs = runs_with({"concurrency": None, "rate": 2.0}, {"concurrency": None, "rate": 8.0}, as_run=True)
    mix = workload_mix("eagle3", compute_results(CONFIG, runs.runs, pooling=Pooling("all"))["eagle3"].pooled)
    assert mix is not None and mix.differences == (("request rate", ("2", "8")),)


def test_runs_that_recorded_no_workload_are_not_judged() -> None:
    runs = runs_with({})
    runs.add("eagle3", [97.0], day=5)  # numbers recorded by hand: no settings
    assert compute_results(CONFIG, runs.runs, pooling=Pooling("all"))["eagle3"].mixed_workloads is None


def test_one_dataset_path_holding_another_file_is_another_workload() -> None:
    runs = runs_with({"dataset": "prompts.jsonl"}, {"dataset": "prompts.jsonl"})
    for run, digest in zip(runs.runs, ("ab" * 32, "cd" * 32)):
        provenance = {"dataset": {"path": "prompts.jsonl", "sha256": digest}}
        runs.runs[run.id - 1] = replace(run, metadata=replace(run.metadata, provenance=provenance))
    mix = compute_results(CONFIG, runs.runs, pooling=Pooling("all"))["eagle3"].mixed_workloads
    assert mix is not None
    assert mix.short() == f"dataset prompts.jsonl (sha256 {'ab' * 6}), prompts.jsonl (sha256 {'cd' * 6})"


def test_imported_serving_benchmarks_say_their_workload_too() -> None:
    runs = Runs()
    for day, concurrency in enumerate((8, 32)):
        runs.add("eagle3", [96.0], day=day)
        tool = {"backend": "sglang", "max_concurrency": concurrency, "random_input_len": 1024, "request_rate": "inf"}
        runs.runs[-1] = replace(runs.runs[-1], metadata=RunMetadata(tool=tool))
    mix = compute_results(CONFIG, runs.runs, pooling=Pooling("all"))["eagle3"].mixed_workloads
    assert mix is not None and mix.differences == (("concurrency", ("8", "32")),)
