"""A workload that sweeps the load, run by `run_experiments`: one server start for every
level, each level recorded as its own experiment `EXP@rate=R` with its repetitions, and a
failing level recorded failed while the sweep goes on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchdoc.ledger.metadata import LevelRecord
from benchdoc.ledger.store import Ledger
from benchdoc.planning.fingerprint import experiment_fingerprint, missing_in_ledger
from benchdoc.runner import RunOptions, plan_runs, run_experiments
from benchdoc.runner import events as ev

from .conftest import assert_gone, write_project

STEP_MS = 2.0
LOAD_SLOPE = 0.2  # the simulator's step grows by this fraction per further running request


def run(config: Any, names: list[str], options: RunOptions = RunOptions()) -> tuple[Any, dict[str, Any], list[Any]]:
    events: list[Any] = []
    with Ledger.open(config.ledger_url) as ledger:
        report = run_experiments(config, ledger, names, options, on_event=events.append)
        return report, {r.experiment: r for r in ledger.runs()}, events


@pytest.mark.timeout(90)
def test_a_rate_sweep_starts_the_server_once_and_records_each_level(tmp_path: Path) -> None:
    config = write_project(tmp_path, f"""
        [workloads.rates]
        rate = [10, 100]
        requests = 20
        input_tokens = 8
        output_tokens = 20

        [experiments.base]
        server = "sim"
        workload = "rates"
        args = ["--ttft-ms", "5", "--step-ms", "{STEP_MS}", "--load-slope", "{LOAD_SLOPE}"]
        repetitions = 2
        """)
    report, runs, events = run(config, ["base"])
    assert [o.experiment for o in report.outcomes] == ["base@rate=10", "base@rate=100"]
    assert all(o.outcome == "ok" and o.repetitions == 2 for o in report.outcomes)
    assert len([e for e in events if isinstance(e, ev.ServerReady)]) == 1  # one start for the whole sweep
    low, high = runs["base@rate=10"], runs["base@rate=100"]
    assert low.metadata.launch.ports == high.metadata.launch.ports and len(low.metadata.launch.pids) == 1
    assert low.metadata.load == LevelRecord("base", "rate", 10.0)
    workload = high.metadata.workload
    assert workload is not None and workload.settings is not None and workload.level is not None
    assert workload.settings["rate"] == 100.0 and workload.level.of == "base"
    assert {s.repetition for s in high.samples} == {0, 1}
    assert high.metadata.config_fingerprint == experiment_fingerprint(config, "base@rate=100") is not None
    assert low.metadata.config_fingerprint != high.metadata.config_fingerprint
    # The simulator's load model: a step takes STEP_MS x (1 + LOAD_SLOPE x (running - 1)). By
    # Little's law, `rate` x the mean time in the server requests run at once, so TPOT rises with
    # the rate as that many requests share each step.
    measured = {}
    for record, rate in ((low, 10.0), (high, 100.0)):
        tpot = sum(record.values("tpot_ms_mean")) / 2
        in_flight = max(1.0, rate * sum(record.values("e2e_ms_mean")) / 2 / 1000.0)
        model = STEP_MS * (1 + LOAD_SLOPE * (in_flight - 1))
        assert 0.6 * model <= tpot <= 1.7 * model, (rate, tpot, model, in_flight)
        measured[rate] = tpot
    assert measured[100.0] > 1.5 * measured[10.0]
    assert_gone(low.metadata.launch.pids)
    # The views read the levels as `bench --record` leaves them: a line of the latency-throughput chart.
    from benchdoc.plots import chart_data
    from benchdoc.results import build_results

    with Ledger.open(config.ledger_url) as ledger:
        chart = chart_data("latency-throughput", build_results(config, ledger), None, ["base"])
        assert missing_in_ledger(config, ["base"], ledger) == []  # every level has its run
    (series,) = chart.series  # type: ignore[attr-defined]
    assert [p.level for p in series.points] == ["rate=10", "rate=100"]


@pytest.mark.timeout(90)
def test_a_failing_level_is_recorded_failed_and_the_sweep_goes_on(tmp_path: Path) -> None:
    # The server dies at its 15th request: in the second level (10 requests each), and the
    # third level gets a server started afresh.
    config = write_project(tmp_path, """
        [workloads.streams]
        concurrency = [1, 2, 4]
        requests = 10
        input_tokens = 8
        output_tokens = 8

        [experiments.crashy]
        server = "sim"
        workload = "streams"
        args = ["--die-after-requests", "15"]
        repetitions = 1
        """)
    report, runs, events = run(config, ["crashy"])
    outcomes = {o.experiment: o.outcome for o in report.outcomes}
    assert outcomes == {"crashy@concurrency=1": "ok", "crashy@concurrency=2": "failed", "crashy@concurrency=4": "ok"}
    assert runs["crashy@concurrency=2"].failure_reason == "illegal memory access"
    assert len([e for e in events if isinstance(e, ev.ServerReady)]) == 2
    last = runs["crashy@concurrency=4"]
    assert last.metadata.load == LevelRecord("crashy", "concurrency", 4.0)
    assert len(last.metadata.launch.pids) == 2  # the sweep's server, started twice
    assert_gone(last.metadata.launch.pids)
    with Ledger.open(config.ledger_url) as ledger:  # `run --missing` runs the sweep again
        assert missing_in_ledger(config, ["crashy"], ledger) == ["crashy"]


def test_the_dry_run_lists_each_level(tmp_path: Path) -> None:
    config = write_project(tmp_path, """
        [workloads.rates]
        rate = [1, 4]
        requests = 5

        [experiments.base]
        server = "sim"
        workload = "rates"
        """)
    planned = plan_runs(config, ["base"])
    assert [p.experiment for p in planned] == ["base@rate=1", "base@rate=4"]
    assert [p.workload["settings"]["rate"] for p in planned] == [1.0, 4.0]
    assert not (tmp_path / ".benchdoc").exists()


@pytest.mark.timeout(120)
def test_a_capacity_search_per_repetition_records_its_answer_and_every_level_tried(tmp_path: Path) -> None:
    # One batch slot held about 21 ms per request: past about 47 req/s the queue, and TTFT, grow.
    config = write_project(tmp_path, """
        [workloads.search]
        slo = "ttft_ms:300"
        duration_s = 0.5
        input_tokens = 8
        output_tokens = 2
        find_capacity = { target = 0.8, start_rate = 20, precision = 0.5, time_budget_s = 30 }

        [experiments.base]
        server = "sim"
        workload = "search"
        args = ["--ttft-ms", "20", "--step-ms", "1", "--max-running", "1"]
        repetitions = 2
        """)
    report, runs, events = run(config, ["base"])
    assert [(o.experiment, o.outcome, o.repetitions) for o in report.outcomes] == [("base", "ok", 2)]
    assert len([e for e in events if isinstance(e, ev.ServerReady)]) == 1
    record = runs["base"]
    capacities = record.values("capacity_req_s")
    assert len(capacities) == 2 and all(c >= 20 for c in capacities)  # one answer per search: an interval
    assert record.metadata.capacity is not None
    searches = record.metadata.capacity.searches
    assert len(searches) == 2 and searches[-1].resolution[0] == capacities[-1]
    # run's summary says each search's answer and why it stopped.
    from benchdoc.cli.run import _run_notes

    notes = [n for n in _run_notes(record.metadata, {}) if n.startswith("capacity: ")]
    assert len(notes) == 2 and all("req/s with SLO attainment >= 0.8 (resolution: between" in n for n in notes)
    assert all(n.endswith("resolution within 50%)") for n in notes), notes
    workload = record.metadata.workload
    assert workload is not None and workload.capacity is not None and workload.capacity.target == 0.8
    tried = {level.rate for search in searches for level in search.levels}
    notices = [e.message for e in events if isinstance(e, ev.Notice)]
    with Ledger.open(config.ledger_url) as ledger:
        levels = [r for r in ledger.runs() if r.experiment.startswith("base@rate=")]
    assert {r.metadata.load.value for r in levels if r.metadata.load} == tried and len(levels) == len(notices)
    assert all(r.metadata.load and r.metadata.load.of == "base" and "slo_attainment" in r.metrics for r in levels)
    assert any("rate=20: SLO attainment 1.000; recorded as run" in n for n in notices)
    assert_gone(record.metadata.launch.pids)
