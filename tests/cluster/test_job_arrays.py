"""Sweeps on a real Slurm cluster (single node, started by the test) writing to a real
PostgreSQL ledger, with `benchdoc sim` as the server under test."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.cluster.conftest import PASSWORD, ClusterProject
from tests.cluster.slurm_cluster import slurm_cluster

from benchdoc.ledger import Ledger

pytestmark = pytest.mark.slurm

GRID = """
[experiments.eagle3]
label = "EAGLE-3"
server = "sim"
workload = "quick"
repetitions = 2

[sweeps.grid]
base = "eagle3"
name = "eagle3-s{steps}-p{prob}"
matrix = { steps = [1, 2], prob = [0.6, 0.8] }
args = ["--draft-steps", "{steps}", "--accept-prob", "{prob}"]
"""


def files_holding(folder: Path, text: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and text.encode() in p.read_bytes()]


@pytest.mark.timeout(300)
def test_a_sweep_runs_as_one_array_into_postgres_one_task_at_a_time(
    cluster_project: Callable[[str], ClusterProject],
) -> None:
    project = cluster_project(GRID)
    (project.root / "log.md").write_text('<!-- benchdoc:table experiments="eagle3-s*" columns="label status" -->\n'
                                         "<!-- benchdoc:end -->\n")
    submitted = project.run("submit", "eagle3-s*", "--slurm", "--no-exclusive", "--gres", "gpu:1", "--max-parallel", "1",
                            "--partition", project.cluster.partition)
    assert submitted.returncode == 0, submitted.stderr
    job_id = submitted.stdout.strip()
    assert job_id.isdigit()
    script = next((project.root / ".benchdoc" / "slurm").glob("*/job.sh")).read_text()
    assert "#SBATCH --array=0-3%1" in script and "#SBATCH --gres=gpu:1" in script
    # While it runs: the password is on no process's command line, nor in Slurm's record of the job.
    seen_running = project.wait(job_id, until=lambda s: s.count("running") > 0 or s.complete)
    command_lines = []
    for path in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            command_lines.append(path.read_bytes())
        except OSError:  # the process ended since the listing
            continue
    assert not any(PASSWORD.encode() in line for line in command_lines)
    assert PASSWORD not in project.cluster.run("scontrol", "show", "job", job_id).stdout
    assert seen_running.count("running") <= 1

    status = project.wait(job_id)
    assert [e.state for e in status.experiments] == ["done"] * 4, status
    with Ledger.open(project.url) as ledger:
        runs = sorted(ledger.runs(), key=lambda r: r.started_at)
    assert sorted(r.experiment for r in runs) == ["eagle3-s1-p0.6", "eagle3-s1-p0.8", "eagle3-s2-p0.6", "eagle3-s2-p0.8"]
    assert all(r.outcome == "ok" and r.metadata.slurm is not None and r.metadata.slurm.job == job_id for r in runs)
    # --max-parallel 1: each task started after the previous one had recorded its run.
    assert all(later.started_at >= earlier.finished_at for earlier, later in zip(runs, runs[1:]))

    shown = project.run("status", job_id)
    assert shown.returncode == 0 and "4/4 finished: 4 done" in shown.stdout, shown.stdout + shown.stderr
    synced = project.run("sync", "--write")
    assert synced.returncode == 0, synced.stderr
    assert (project.root / "log.md").read_text().count("| Works |") + (project.root / "log.md").read_text().count(
        "| Measured |") == 4
    # The password reached no file benchdoc or Slurm wrote in the project: scripts, task logs, server logs.
    assert files_holding(project.root / ".benchdoc", PASSWORD) == []
    assert project.leftover_servers() == []


@pytest.mark.timeout(360)
def test_time_limit_scancel_and_missing(cluster_project: Callable[[str], ClusterProject]) -> None:
    """A task killed at its time limit records its own failure and stops its server; a
    cancelled pending task is reconciled by --status; --missing resubmits only those two."""
    project = cluster_project("""
[experiments.endless]
server = "sim"
workload = "endless"
repetitions = 1

[experiments.quick]
server = "sim"
workload = "quick"
repetitions = 1

[experiments.cancelled]
server = "sim"
workload = "quick"
repetitions = 1
""")
    submitted = project.run("submit", "endless", "quick", "cancelled", "--slurm", "--time", "1", "--max-parallel", "1")
    assert submitted.returncode == 0, submitted.stderr
    job_id = submitted.stdout.strip()
    project.cluster.run("scancel", f"{job_id}_2")  # still pending behind the first task
    status = project.wait(job_id, timeout_s=240)
    states = {e.experiment: (e.state, e.detail) for e in status.experiments}
    assert states["endless"] == ("failed", "TIMEOUT after 00:01:00"), states
    assert states["quick"][0] == "done"
    assert states["cancelled"][0] == "failed" and states["cancelled"][1].startswith("CANCELLED"), states
    assert project.leftover_servers() == []

    again = project.run("submit", "--status", job_id)
    assert again.returncode == 0 and "3/3 finished: 1 done, 2 failed" in again.stdout, again.stdout + again.stderr
    with Ledger.open(project.url) as ledger:
        runs = ledger.runs()
    assert sorted(r.experiment for r in runs) == ["cancelled", "endless", "quick"]  # nothing recorded twice
    endless = next(r for r in runs if r.experiment == "endless")
    slurm = endless.metadata.slurm
    assert slurm is not None and slurm.ended_by == "slurm" and not slurm.reconciled  # the task's own record

    resubmitted = project.run("submit", "--slurm", "--missing", "--time", "1")
    assert resubmitted.returncode == 0, resubmitted.stderr
    new_job = resubmitted.stdout.strip()
    # Still queued or running in new_job: --missing leaves them alone.
    twice = project.run("submit", "--slurm", "--missing", "--time", "1")
    assert twice.returncode == 0 and "nothing to submit" in twice.stdout, twice.stdout + twice.stderr
    assert f"endless: skipped, still queued or running in job {new_job}" in twice.stderr
    # A teammate's clone (no .benchdoc/slurm/ of its own) sees the submission through the ledger.
    teammate = project.root.parent / (project.root.name + "-clone")
    teammate.mkdir()
    (teammate / "benchdoc.toml").write_bytes((project.root / "benchdoc.toml").read_bytes())
    seen = subprocess.run([sys.executable, "-m", "benchdoc", "status", job_id], cwd=teammate, env=project.env,
                          capture_output=True, text=True, timeout=120)
    assert seen.returncode == 0 and f"job {job_id}" in seen.stdout and "3/3 finished" in seen.stdout, seen.stdout + seen.stderr
    project.cluster.run("scancel", new_job)
    manifests = sorted((project.root / ".benchdoc" / "slurm").glob("*/submission.json"))
    assert '"endless",\n    "cancelled"' in manifests[-1].read_text()
    assert "quick" not in manifests[-1].read_text().split('"experiments"')[1].split("]")[0]


@pytest.mark.timeout(300)
def test_a_node_failure_with_requeue_records_the_task_once(cluster_project: Callable[[str], ClusterProject]) -> None:
    """The node goes down while the task measures: the attempt records NODE_FAIL, Slurm
    requeues the task, the next attempt records its run, and only that one counts; both
    attempts' lines are in the one log."""
    project = cluster_project("""
[experiments.flaky]
server = "sim"
workload = "endless"
repetitions = 1
""")
    submitted = project.run("submit", "flaky", "--slurm", "--requeue", "--no-exclusive")
    assert submitted.returncode == 0, submitted.stderr
    job_id = submitted.stdout.strip()
    log = next((project.root / ".benchdoc" / "slurm").glob("*/")) / f"{job_id}_0.out"
    deadline = time.monotonic() + 60
    while "attempt 0" not in (log.read_text() if log.exists() else "") and time.monotonic() < deadline:
        time.sleep(0.5)
    time.sleep(3)  # the server is up and measuring
    # The requeued attempt measures the quick workload, so that it finishes.
    config = project.root / "benchdoc.toml"
    config.write_text(config.read_text().replace('workload = "endless"', 'workload = "quick"'))
    node = project.cluster.run("sinfo", "-h", "-o", "%N").stdout.strip()
    project.cluster.run("scontrol", "update", f"nodename={node}", "state=down", "reason=benchdoc-test")
    try:
        deadline = time.monotonic() + 60
        while "NODE_FAIL" not in _runs_text(project) and time.monotonic() < deadline:
            time.sleep(0.5)
    finally:
        _bring_back(project, node)
    # Slurm holds a requeued job about two minutes (BeginTime): once the node is back, start it now.
    seen = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        queued = project.cluster.run("squeue", "-h", "-r", "-j", job_id, "-o", "%i|%T|%r", check=False).stdout.strip()
        seen.append(queued)
        if "RUNNING" in queued or not queued:
            break
        seen = seen[-12:]
        node_state = project.cluster.run("sinfo", "-h", "-o", "%T", check=False).stdout.strip()
        seen.append(node_state)
        idle = node_state in ("idle", "mixed", "allocated")
        if not idle:
            _bring_back(project, node)
        if idle and "BeginTime" in queued:
            done = project.cluster.run("scontrol", "update", f"jobid={job_id}", "StartTime=now", check=False)
            seen.append(f"start: {done.returncode} {done.stderr.strip()}")
        if "held" in queued:  # a launch that failed while the node came back: let it go again
            done = project.cluster.run("scontrol", "release", job_id, check=False)
            seen.append(f"release: {done.returncode} {done.stderr.strip()}")
        time.sleep(1)
    seen.append(project.cluster.run("sinfo", "-h", "-o", "%N %T", check=False).stdout.strip())
    status = project.wait(job_id, timeout_s=150)
    assert [(e.state, e.detail.startswith("run ")) for e in status.experiments] == [("done", True)], (status, seen)
    with Ledger.open(project.url) as ledger:
        runs = sorted(ledger.runs(["flaky"]), key=lambda r: r.id)
    # A launch that failed as the node came back is one more requeue: the last attempt is 1 or more.
    assert [(r.outcome, r.failure_reason) for r in runs] == [("failed", "NODE_FAIL"), ("ok", None)]
    attempts = [r.metadata.slurm.attempt if r.metadata.slurm else None for r in runs]
    assert attempts[0] == 0 and attempts[1] >= 1, attempts
    assert runs[0].retraction is not None and "earlier attempt" in runs[0].retraction.reason
    assert runs[1].retraction is None and {r.metadata.record_id for r in runs} == {f"slurm:{job_id}_0"}
    text = log.read_text()
    assert "benchdoc: attempt 0 of" in text and f"benchdoc: attempt {attempts[1]} of" in text and "NODE FAILURE" in text
    assert project.leftover_servers() == []


def _runs_text(project: ClusterProject) -> str:
    with Ledger.open(project.url) as ledger:
        return " ".join(str(r.failure_reason) for r in ledger.runs())


def _bring_back(project: ClusterProject, node: str) -> None:
    """The node back in service: RESUME clears a drain; a node Slurm still holds DOWN takes IDLE."""
    for state in ("resume", "idle"):
        project.cluster.run("scontrol", "update", f"nodename={node}", f"state={state}", check=False)


@pytest.mark.timeout(240)
def test_bad_input_is_one_clear_line_and_nothing_is_recorded(cluster_project: Callable[[str], ClusterProject]) -> None:
    project = cluster_project(GRID)
    slurm_dir = project.root / ".benchdoc" / "slurm"

    unknown = project.run("submit", "--slurm", "--partition", "nope")
    assert unknown.returncode == 1
    assert re.fullmatch(r"benchdoc: error: the cluster refused the job: .*[Ii]nvalid partition.*\n", unknown.stderr), unknown.stderr
    too_big = project.run("submit", "--slurm", "--gres", "gpu:9")
    assert too_big.returncode == 1 and too_big.stderr.count("\n") == 1 and "refused" in too_big.stderr, too_big.stderr
    no_sbatch = project.run("submit", "--slurm", env={**project.env, "PATH": "/nonexistent"})
    assert no_sbatch.returncode == 2 and "sbatch not found on PATH" in no_sbatch.stderr, no_sbatch.stderr
    sqlite = project.run("submit", "--slurm", env={**project.env, "BENCHDOC_LEDGER_URL": "sqlite:///x.db"})
    assert sqlite.returncode == 2 and "not safe for many writers" in sqlite.stderr and sqlite.stderr.count("\n") == 1
    bad_time = project.run("submit", "--slurm", "--time", "soon")
    assert bad_time.returncode == 2 and "--time: expected a Slurm time" in bad_time.stderr
    assert not slurm_dir.exists() or list(slurm_dir.iterdir()) == []
    with Ledger.open(project.url) as ledger:
        assert ledger.run_count() == 0
    dry = project.run("submit", "--slurm", "--dry-run", "eagle3-s1-*")
    assert dry.returncode == 0 and dry.stdout.startswith("#!/bin/bash\n") and "--array=0-1\n" in dry.stdout
    assert "#SBATCH --exclusive" in dry.stdout and PASSWORD not in dry.stdout


@pytest.mark.timeout(240)
def test_without_accounting_status_reads_scontrol(cluster_project: Callable[..., ClusterProject]) -> None:
    """A cluster without slurmdbd: sacct says so, and status asks scontrol instead; a
    pending task removed by scancel (no record anywhere) is reconciled all the same."""
    with slurm_cluster(accounting=False) as bare:
        project = cluster_project(GRID, on=bare)
        assert "accounting storage is disabled" in bare.run("sacct", check=False).stderr.lower()
        submitted = project.run("submit", "eagle3-s1-*", "--slurm", "--max-parallel", "1")
        assert submitted.returncode == 0, submitted.stderr
        job_id = submitted.stdout.strip()
        bare.run("scancel", f"{job_id}_1")
        status = project.wait(job_id, timeout_s=120)
        assert [(e.state, e.detail.split(" ")[0]) for e in status.experiments] == [("done", "run"), ("failed", "CANCELLED")]
        # Removed while pending, the task usually leaves no record ("before it started"); when
        # slurmctld had already split it off the array, scontrol keeps a CANCELLED record.
        assert status.experiments[1].detail in ("CANCELLED (before it started)", "CANCELLED"), status.experiments[1]
        with Ledger.open(project.url) as ledger:
            (cancelled,) = ledger.runs("eagle3-s1-p0.8")
        assert cancelled.outcome == "failed" and cancelled.metadata.slurm is not None and cancelled.metadata.slurm.reconciled
        assert project.leftover_servers() == []
