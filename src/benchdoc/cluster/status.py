"""Where a submitted sweep stands, per experiment, from Slurm and the ledger; and the
reconciliation of tasks that ended without recording their run.

A task's run in the ledger is the truth once it exists. Until then Slurm's view says
pending or running. A task Slurm has finished that left no run — killed at its time
limit before it could record, cancelled while pending, lost with its node, killed by
the kernel's OOM killer — gets a failed run with Slurm's reason ("TIMEOUT after
02:00:00", "NODE_FAIL", "CANCELLED by 0", "OUT_OF_MEMORY"), recorded once whoever
checks first.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from benchdoc.cluster.slurm import JobView, TaskState, job_view
from benchdoc.cluster.submit import Submission
from benchdoc.cluster.task import record_key
from benchdoc.ledger.metadata import RunMetadata, SlurmTask
from benchdoc.ledger.models import Outcome, RunRecord
from benchdoc.ledger.spool import EXIT_SPOOLED, SPOOL_DIR
from benchdoc.provenance import Provenance
from benchdoc.recording import Failure, Measurement, now, record

if TYPE_CHECKING:
    from benchdoc.config import Config
    from benchdoc.ledger.store import Ledger

State = Literal["pending", "running", "done", "failed", "unknown"]


@dataclass(frozen=True)
class ExperimentState:
    """One experiment of a submission: its task, where it stands and why."""

    experiment: str
    task: int
    state: State
    detail: str = ""  # the failure's reason, Slurm's pending reason, or the run's id
    run_id: int | None = None
    reconciled: bool = False  # this check recorded its failed run


@dataclass(frozen=True)
class SweepStatus:
    submission: Submission
    experiments: tuple[ExperimentState, ...]
    forgotten: frozenset[int] = frozenset()  # tasks Slurm lists nowhere and never will again

    def count(self, state: State) -> int:
        return sum(1 for e in self.experiments if e.state == state)

    @property
    def finished(self) -> int:
        return self.count("done") + self.count("failed")

    @property
    def complete(self) -> bool:
        """Every task finished. An "unknown" task counts only when Slurm has forgotten it:
        with accounting, a task between a node failure and its requeue is briefly listed
        nowhere, yet not over."""
        unknown = sum(1 for e in self.experiments if e.state == "unknown" and e.task in self.forgotten)
        return self.finished + unknown == len(self.experiments)


def sweep_status(
    config: Config, ledger: Ledger, submission: Submission, env: Mapping[str, str] | None = None
) -> SweepStatus:
    """Every experiment of ``submission``: its state, reconciling finished tasks that left
    no run (a failed run with Slurm's reason, recorded once)."""
    assert submission.job_id is not None
    view: JobView = job_view(submission.job_id, len(submission.experiments), env)
    slurm = view.tasks
    recorded: dict[str, RunRecord] = {}
    for run in ledger.runs(list(set(submission.experiments)), with_samples=False):  # newest first
        key = run.metadata.record_id
        if key and (key not in recorded or _rank(run) > _rank(recorded[key])):
            recorded[key] = run  # the newest of the best: counting, then measured by the task itself
    states = []
    for task, name in enumerate(submission.experiments):
        key = record_key(submission.job_id, task)
        states.append(_state(config, ledger, submission, task, name, recorded.get(key), slurm.get(task)))
    forgotten = frozenset(task for task in range(len(submission.experiments)) if view.forgotten(task))
    return SweepStatus(submission, tuple(states), forgotten)


def _state(
    config: Config, ledger: Ledger, submission: Submission, task: int, name: str,
    run: RunRecord | None, slurm: TaskState | None,
) -> ExperimentState:
    state: State
    if run is not None:
        if run.outcome == Outcome.OK:
            return ExperimentState(name, task, "done", f"run {run.id}", run.id)
        if slurm is not None and slurm.active:  # requeued: the failed attempt is not the task's last word
            state = "pending" if slurm.state == "PENDING" else "running"
            return ExperimentState(name, task, state, f"{slurm.state.lower()}, again after: {run.failure_reason}")
        return ExperimentState(name, task, "failed", _with_slurms_word(run.failure_reason or run.outcome, slurm), run.id)
    if slurm is None:
        return ExperimentState(name, task, "unknown", "Slurm lists this task nowhere and it recorded no run")
    if slurm.active:
        state = "pending" if slurm.state == "PENDING" else "running"
        return ExperimentState(name, task, state, slurm.state.lower())
    reason = slurm.failure_reason() or slurm.state
    if _kept_its_run(slurm):
        reason = ("the ledger was unreachable when the task ended: its run is kept in "
                  f"{SPOOL_DIR}/ and is recorded by the next command that reaches the ledger")
    run_id = record(ledger, _reconciled_run(config, submission, task, name, slurm, reason), once=True)
    return ExperimentState(name, task, "failed", reason, run_id, reconciled=run_id is not None)


def _rank(run: RunRecord) -> tuple[bool, bool]:
    """Which of a task's runs status shows: one still counting (an earlier attempt of a
    requeued task is taken back), then one the task recorded over one reconciled from Slurm."""
    return run.retraction is None, not _reconciled(run)


def _reconciled(run: RunRecord) -> bool:
    return run.metadata.slurm is not None and run.metadata.slurm.reconciled


def _kept_its_run(slurm: TaskState) -> bool:
    """The task exited 75: it could not reach the ledger and kept its run in the spool."""
    return slurm.state == "FAILED" and slurm.exit_code.split(":")[0] == str(EXIT_SPOOLED)


# Final states only Slurm knows for sure: the task itself saw a SIGTERM or a killed server.
SLURM_FINAL = ("OUT_OF_MEMORY", "NODE_FAIL", "PREEMPTED", "TIMEOUT")


def _with_slurms_word(reason: str, slurm: TaskState | None) -> str:
    """The reason a task recorded itself, with Slurm's final state beside it when Slurm
    knows better ('server exited (OOM killer?); Slurm: OUT_OF_MEMORY')."""
    if slurm is None or slurm.state not in SLURM_FINAL or reason.startswith(slurm.state):
        return reason
    return f"{reason}; Slurm: {slurm.failure_reason() or slurm.state}"


def _reconciled_run(
    config: Config, submission: Submission, task: int, name: str, slurm: TaskState, reason: str
) -> Measurement:
    assert submission.job_id is not None
    started, finished = reconciled_period(slurm)
    return Measurement(
        experiment=name,
        source="run",
        started_at=started,
        finished_at=finished,
        # A task that finished normally yet recorded nothing, or kept its run because the
        # ledger was down, says nothing about the configuration: a harness error.
        failure=Failure(reason, harness=slurm.state == "COMPLETED" or _kept_its_run(slurm)),
        provenance=Provenance(environment={}, host=socket.gethostname(), git_commit=None, git_dirty=None),
        metadata=RunMetadata(
            slurm=SlurmTask(job=submission.job_id, task=task, state=slurm.state, ended_by="slurm", reconciled=True,
                            log=_relative(submission, task, config)),
            record_id=record_key(submission.job_id, task),
            config_fingerprint=submission.fingerprints.get(name),
        ),
    )


def reconciled_period(slurm: TaskState) -> tuple[datetime, datetime]:
    """When a task that left no run ran, as Slurm reports it: its start and end (a task
    cancelled before it started spans the moment it was cancelled); the moment of the
    check only for what Slurm does not say."""
    ended = slurm.ended or now()
    started = slurm.started or ended
    return min(started, ended), ended


def _relative(submission: Submission, task: int, config: Config) -> str:
    path = submission.task_log(task)
    try:
        return str(path.relative_to(config.root))
    except ValueError:
        return str(path)
