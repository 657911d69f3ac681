"""The one recorder: every road to the ledger (bench --record, bench --repetitions --record,
run, record, import, a Slurm task) gives a run with the same fields filled, its real start
and end times included; and the --repetitions summary keeps what a single pass says."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import Project, sim_argv, toml_list

from benchdoc.cluster import record_termination
from benchdoc.config import load_config
from benchdoc.ledger.metadata import ClientLoad, ClientVerdict, RepetitionRecord
from benchdoc.ledger.models import Outcome
from benchdoc.ledger.store import Ledger
from benchdoc.recording import Failure, Measurement, Repetition, build_run, record, summary
from benchdoc.sim import SimConfig, start_in_thread

DATA = Path(__file__).resolve().parent / "importers" / "data"
RUN_CONFIG = f"""
[servers.sim]
argv = {toml_list(sim_argv())}
ready_timeout = 30

[workloads.small]
requests = 6
concurrency = 2
input_tokens = 8
output_tokens = 8
"""


@pytest.fixture
def sim_url() -> Iterator[str]:
    with start_in_thread(SimConfig(ttft_ms=2.0, step_ms=0.5)) as sim:
        yield sim.url


def _history(project: Project, experiment: str) -> list[dict[str, Any]]:
    res = project.run("history", experiment, "--json")
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def _times(run: dict[str, Any]) -> tuple[datetime, datetime]:
    return datetime.fromisoformat(run["started_at"]), datetime.fromisoformat(run["finished_at"])


def assert_common(run: dict[str, Any], source: str, *, measured: bool) -> None:
    """What every road fills: the outcome, where it ran, when; a measured run spans its measuring."""
    assert run["source"] == source and run["outcome"] in {o.value for o in Outcome}
    assert run["host"], run
    started, finished = _times(run)
    assert started <= finished <= datetime.now(timezone.utc) + timedelta(seconds=1)
    if measured:
        assert run["environment"], "a measured run keeps its environment"
        span = (finished - started).total_seconds()
        assert span >= (run["metadata"].get("duration_s") or 0.0) > 0, (span, run["metadata"].get("duration_s"))


def assert_load_generator_run(run: dict[str, Any], repetitions: int) -> None:
    """A run of the load generator: the counts summed over repetitions, each repetition's
    bookkeeping with its server start, the client's load, the machine's load."""
    meta = run["metadata"]
    reps = meta["per_repetition"]
    assert len(reps) == repetitions and meta["repetitions"] == repetitions
    assert all(r["start"] == 0 for r in reps)
    assert meta["requests"] == sum(r["requests"] for r in reps) and meta["cut_short"] == 0
    assert all(isinstance(r.get("client"), dict) for r in reps)
    assert meta["settings"]["requests"] > 0 and meta["server"]["url"].startswith("http://127.0.0.1")
    assert run["environment"]["load"]["state"] in ("busy", "quiet")
    assert run["environment"]["load"]["figures"]["measurements"] == repetitions
    assert len({s["repetition"] for s in run["samples"]}) == repetitions


@pytest.mark.timeout(120)
def test_bench_record_spans_its_measuring(project: Project, sim_url: str) -> None:
    res = project.run("bench", "--url", sim_url, "--requests", "6", "--concurrency", "2", "--output-tokens", "8",
                      "--input-tokens", "8", "--record", "eagle3")
    assert res.returncode == 0, res.stderr
    (run,) = _history(project, "eagle3")
    assert_common(run, "bench", measured=True)
    assert_load_generator_run(run, 1)
    assert run["command"][0] == "benchdoc"


@pytest.mark.timeout(180)
def test_bench_repetitions_record_like_one_pass(project: Project, sim_url: str) -> None:
    res = project.run("bench", "--url", sim_url, "--requests", "4", "--concurrency", "2", "--output-tokens", "8",
                      "--input-tokens", "8", "--repetitions", "3", "--record", "eagle3")
    assert res.returncode == 0, res.stderr
    (run,) = _history(project, "eagle3")
    assert_common(run, "bench", measured=True)
    assert_load_generator_run(run, 3)
    assert run["metadata"]["planned_repetitions"] == 3
    assert "12 requests, 0 failed" in res.stdout
    assert "client kept up in all 3 repetitions" in res.stdout or "CLIENT-BOUND in" in res.stdout


@pytest.mark.timeout(180)
def test_run_records_through_the_recorder(project: Project) -> None:
    project.write_config((project.root / "benchdoc.toml").read_text() + RUN_CONFIG + """
[experiments.solo]
server = "sim"
workload = "small"
repetitions = 2
""")
    res = project.run("run", "solo")
    assert res.returncode == 0, res.stdout + res.stderr
    (run,) = _history(project, "solo")
    assert_common(run, "run", measured=True)
    assert_load_generator_run(run, 2)
    assert run["metadata"]["launch"]["pids"] and run["command"][0] == sys.executable


@pytest.mark.timeout(180)
def test_a_slurm_task_records_its_run_once(project: Project) -> None:
    project.write_config((project.root / "benchdoc.toml").read_text() + RUN_CONFIG + """
[experiments.solo]
server = "sim"
workload = "small"
repetitions = 1
""")
    env = {"SLURM_ARRAY_JOB_ID": "12", "SLURM_ARRAY_TASK_ID": "0", "SLURM_JOB_ID": "13", "SLURMD_NODENAME": "node1"}
    res = project.run("run", "solo", "--slurm-task", env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    (run,) = _history(project, "solo")
    assert_common(run, "run", measured=True)
    assert_load_generator_run(run, 1)
    assert run["metadata"]["record_id"] == "slurm:12_0" and run["metadata"]["slurm"]["node"] == "node1"

    # Slurm ending the same task afterwards records nothing: the task's one run is in.
    config = load_config(project.root / "benchdoc.toml")
    started = datetime.now(timezone.utc) - timedelta(seconds=5)
    with Ledger.open(project.ledger_url) as ledger:
        tags = {"slurm": {"job": "12", "task": 0}, "record_id": "slurm:12_0"}
        assert record_termination(config, ledger, "solo", "TIMEOUT", tags, started) is None
        other = {"slurm": {"job": "12", "task": 1}, "record_id": "slurm:12_1"}
        run_id = record_termination(config, ledger, "solo", "TIMEOUT after 00:01:00", other, started)
        assert run_id is not None
        ended = ledger.run(run_id)
    assert ended.outcome == Outcome.FAILED and ended.failure_reason == "TIMEOUT after 00:01:00"
    assert ended.started_at == started and ended.finished_at > started and ended.host


def test_record_fills_the_same_fields(project: Project) -> None:
    res = project.run("record", "eagle3", "--metric", "output_tok_s=96.1,95.8", "--metric", "ttft_ms_p50=21")
    assert res.returncode == 0, res.stderr
    (run,) = _history(project, "eagle3")
    assert_common(run, "record", measured=False)
    assert run["environment"] and run["outcome"] == "ok"
    assert sorted((s["metric"], s["repetition"]) for s in run["samples"]) == [
        ("output_tok_s", 0), ("output_tok_s", 1), ("ttft_ms_p50", 0)]


def test_import_fills_the_same_fields(project: Project) -> None:
    res = project.run("import", str(DATA / "vllm_serve.json"), "-f", "vllm-serve", "-e", "eagle3")
    assert res.returncode == 0, res.stdout + res.stderr
    runs = _history(project, "eagle3")
    assert runs
    for run in runs:
        assert run["source"] == "import:vllm-serve" and run["metadata"]["import"]["format"] == "vllm-serve"
        started, finished = _times(run)
        assert started <= finished


def test_an_import_spans_the_time_its_file_says_it_was_measured(project: Project) -> None:
    res = project.run("import", str(DATA / "vllm_serve_append.json"), "-f", "vllm-serve", "-e", "eagle3")
    assert res.returncode == 0, res.stdout + res.stderr
    first = min(_history(project, "eagle3"), key=lambda run: run["started_at"])
    assert first["source"] == "import:vllm-serve" and first["outcome"] == "ok"  # the file names no host
    started, finished = _times(first)
    assert finished == datetime(2025, 11, 3, 14, 15, 2, tzinfo=timezone.utc)
    assert finished - started == timedelta(seconds=48.731)


def test_the_summary_sums_cut_short_reasons_and_the_clients_verdict() -> None:
    bound = ClientLoad(bound=True, reasons=("event-loop lag p99 40 ms",))
    reps = [
        Repetition(0, {"x": 1.0}, RepetitionRecord(0, requests=10, failed_requests=2, cut_short_requests=2,
                                                   failure_reasons={"stream closed": 2}, duration_s=1.5, client=bound)),
        Repetition(1, {"x": 2.0}, RepetitionRecord(1, requests=10, failed_requests=1, cut_short_requests=0,
                                                   failure_reasons={"HTTP 500": 1}, duration_s=1.0,
                                                   client=ClientLoad(bound=False)), start=1),
    ]
    totals = summary(reps)
    assert totals["requests"] == 20 and totals["cut_short"] == 2 and totals["duration_s"] == 2.5
    assert totals["failures"] == {"stream closed": 2, "HTTP 500": 1}
    assert totals["client"] == ClientVerdict(True, 1, 2, ("event-loop lag p99 40 ms",))
    assert summary([Repetition(0, {"x": 1.0}, RepetitionRecord(0, client=ClientLoad(bound=False)))])["client"] == ClientVerdict(
        False, 0, 1, ())
    assert [r.start for r in totals["per_repetition"]] == [0, 1]


def test_a_run_that_measured_nothing_is_a_harness_error() -> None:
    moment = datetime.now(timezone.utc)
    run = build_run(Measurement("x", "run", moment, moment, [Repetition(0, {}, RepetitionRecord(0))]))
    assert run.outcome == Outcome.ERROR and run.failure_reason == "the workload produced no numbers"
    failed = build_run(Measurement("x", "bench", moment, moment, failure=Failure("OOM", cause="CUDA out of memory")))
    assert failed.outcome == Outcome.FAILED and failed.failure_cause == "CUDA out of memory"


def test_the_recorder_writes_one_run_in_one_transaction(tmp_path: Path) -> None:
    moment = datetime.now(timezone.utc)
    with Ledger.open(f"sqlite:///{tmp_path / 'ledger.db'}") as ledger:
        run_id = record(ledger, Measurement("x", "record", moment, moment + timedelta(seconds=3),
                                            [Repetition(0, {"m": 1.0})], command=["tool", "--api-key", "sk-secret"]))
        stored = ledger.run(run_id)
    assert stored.finished_at - stored.started_at == timedelta(seconds=3)
    assert "sk-secret" not in json.dumps(stored.command)


@pytest.mark.timeout(120)
def test_the_repetitions_summary_says_what_a_single_pass_says(sim_url: str) -> None:
    from benchdoc.cli._bench_reps import summary_lines
    from benchdoc.machineload import LoadFigures
    from benchdoc.workloads import Timeouts, WorkloadSpec
    from benchdoc.workloads.repeat import run_repetitions

    spec = WorkloadSpec(url=sim_url, requests=3, concurrency=1, input_tokens=8, output_tokens=4,
                        timeouts=Timeouts()).resolved()
    done = run_repetitions(spec, 2)
    busy = LoadFigures(seconds=1.0, cpus=2, load_before=6.0, load_after=6.5, others_cores=1.8, own_cores=0.1,
                       server_cores=0.1, busy=True, reasons=("other processes kept 1.80 CPUs busy",))
    first = done.results[0]
    assert first.client is not None
    client = dataclasses.replace(first.client, bound=True, reasons=("event-loop lag p99 40 ms",))
    done.results[0] = dataclasses.replace(first, load=busy, client=client)
    text = "\n".join(line for line, _ in summary_lines(done))
    assert "6 requests, 0 failed" in text
    assert "warning: " in text and "busy" in text
    # The first repetition is made client-bound; on a busy machine the second may be too.
    assert re.search(r"CLIENT-BOUND in [12] of 2 repetitions: event-loop lag p99 40 ms", text), text


@pytest.mark.timeout(120)
def test_the_repetitions_summary_keeps_cut_short_streams_and_their_reasons(project: Project) -> None:
    # Closed loop at 2: each arrival preempts the stream beside it, so 5 of each pass's 6 are cut short.
    with start_in_thread(SimConfig(ttft_ms=2.0, step_ms=10.0, preempt_on_arrival="done")) as sim:
        res = project.run("bench", "--url", sim.url, "--requests", "6", "--concurrency", "2", "--output-tokens", "32",
                          "--input-tokens", "8", "--repetitions", "2", "--record", "eagle3")
    assert res.returncode == 0, res.stderr
    assert "12 requests, 10 failed, 10 of them cut short" in res.stdout
    lines = res.stdout.splitlines()
    after = lines[lines.index("failures") + 1:]
    listed = after[: next((i for i, line in enumerate(after) if not line.startswith("  ")), len(after))]
    assert listed and sum(int(line.split("×")[0]) for line in listed) == 10, res.stdout
    assert all("stream ended after" in line for line in listed)
    assert "client kept up in all 2 repetitions" in res.stdout or "CLIENT-BOUND in" in res.stdout
    (run,) = _history(project, "eagle3")
    assert_common(run, "bench", measured=True)
    meta = run["metadata"]
    assert (meta["requests"], meta["cut_short"], sum(meta["failures"].values())) == (12, 10, 10)
    assert meta["client"]["of"] == 2 and run["environment"]["load"]["figures"]["measurements"] == 2
