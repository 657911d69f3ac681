"""A sweep's status: Slurm's final state beside a reason the task gave itself, and when a
sweep is complete."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from benchdoc.cluster.options import SlurmOptions
from benchdoc.cluster.slurm import JobView, TaskState
from benchdoc.cluster.status import ExperimentState, SweepStatus, _with_slurms_word
from benchdoc.cluster.submit import Submission


@pytest.mark.parametrize(
    ("reason", "slurm", "shown"),
    [
        ("server exited with code -9 (OOM killer?)", TaskState(0, "OUT_OF_MEMORY", exit_code="0:125"),
         "server exited with code -9 (OOM killer?); Slurm: OUT_OF_MEMORY"),
        ("terminated by SIGTERM", TaskState(0, "NODE_FAIL"), "terminated by SIGTERM; Slurm: NODE_FAIL"),
        ("terminated by SIGTERM", TaskState(0, "TIMEOUT", "1:00"), "terminated by SIGTERM; Slurm: TIMEOUT after 00:01:00"),
        ("TIMEOUT after 00:01:00", TaskState(0, "TIMEOUT", "1:00"), "TIMEOUT after 00:01:00"),  # they agree
        ("server exited with code 1", TaskState(0, "FAILED", exit_code="1:0"), "server exited with code 1"),
        ("server exited with code 1", None, "server exited with code 1"),
    ],
)
def test_slurms_final_state_is_shown_beside_the_tasks_own_reason(reason: str, slurm: TaskState | None, shown: str) -> None:
    assert _with_slurms_word(reason, slurm) == shown


def _status(states: list[str], forgotten: frozenset[int]) -> SweepStatus:
    submission = Submission(Path("."), tuple(f"e{i}" for i in range(len(states))), datetime.now(timezone.utc),
                            SlurmOptions(), job_id="36")
    experiments = tuple(ExperimentState(f"e{i}", i, state) for i, state in enumerate(states))  # type: ignore[arg-type]
    return SweepStatus(submission, experiments, forgotten)


def test_a_task_slurm_briefly_lists_nowhere_is_not_finished() -> None:
    # With accounting, a task between a node failure and its requeue is neither queued nor in sacct.
    assert not _status(["done", "unknown"], frozenset()).complete
    assert _status(["done", "failed"], frozenset()).complete
    # Without accounting, scontrol forgets a job after MinJobAge: nothing more will come.
    assert _status(["done", "unknown"], frozenset({1})).complete


def test_only_slurm_without_accounting_forgets_a_task() -> None:
    assert not JobView({}, accounting=True).forgotten(0)
    assert JobView({}, accounting=False).forgotten(0)
    assert not JobView({0: TaskState(0, "COMPLETED")}, accounting=False).forgotten(0)


def test_a_task_that_kept_its_run_in_the_spool_is_a_harness_error_not_a_failure() -> None:
    from benchdoc.cluster.status import _kept_its_run

    assert _kept_its_run(TaskState(0, "FAILED", exit_code="75:0"))
    assert not _kept_its_run(TaskState(0, "FAILED", exit_code="1:0"))
    assert not _kept_its_run(TaskState(0, "NODE_FAIL", exit_code="75:0"))


def test_a_reconciled_task_is_dated_when_slurm_says_it_ran() -> None:
    from benchdoc.cluster.status import reconciled_period

    start = datetime(2026, 12, 3, 20, 21, 6, tzinfo=timezone.utc)
    end = datetime(2026, 12, 3, 20, 22, 7, tzinfo=timezone.utc)
    assert reconciled_period(TaskState(0, "TIMEOUT", started=start, ended=end)) == (start, end)
    # Cancelled before it started: it spans the moment it was cancelled.
    assert reconciled_period(TaskState(0, "CANCELLED", ended=end)) == (end, end)
    # Nothing said (scontrol forgot the times): the moment of the check, as before.
    started, finished = reconciled_period(TaskState(0, "NODE_FAIL"))
    assert started == finished and abs((finished - datetime.now(timezone.utc)).total_seconds()) < 5
