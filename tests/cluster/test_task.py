"""Inside an array task: its tags, and why Slurm is ending it, read from its log."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchdoc.cluster import task_tags, termination_reason
from benchdoc.cluster.task import attempt_line, beyond_retries, retire_earlier_attempts
from benchdoc.ledger import Ledger, NewRun, Sample
from benchdoc.ledger.metadata import RunMetadata, SlurmTask
from benchdoc.ledger.models import Outcome


def test_tags_name_the_job_task_and_node() -> None:
    tags = task_tags({"SLURM_ARRAY_JOB_ID": "12", "SLURM_ARRAY_TASK_ID": "3", "SLURM_JOB_ID": "15",
                      "SLURMD_NODENAME": "gpu7"})
    assert tags == {"slurm": {"job": "12", "task": 3, "job_id": "15", "node": "gpu7", "attempt": 0},
                    "record_id": "slurm:12_3"}
    requeued = task_tags({"SLURM_ARRAY_JOB_ID": "12", "SLURM_ARRAY_TASK_ID": "3", "SLURM_RESTART_COUNT": "1"})
    assert requeued["slurm"]["attempt"] == 1
    assert task_tags({"SLURM_JOB_ID": "15"}) == {}  # not an array task


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("slurmstepd: error: *** JOB 15 ON gpu7 CANCELLED AT 2026-05-04T11:30:00 DUE TO TIME LIMIT ***",
         "TIMEOUT after 02:00:00"),
        ("slurmstepd: error: *** JOB 15 ON gpu7 CANCELLED AT 2026-05-04T11:30:00 DUE TO PREEMPTION ***", "PREEMPTED"),
        ("slurmstepd-gpu7: error: *** JOB 15 ON gpu7 CANCELLED AT 2026-05-04T11:30:00 ***", "CANCELLED"),
        ("slurmstepd: error: *** JOB 36 ON vm CANCELLED AT 2026-12-01T10:02:11 DUE TO NODE FAILURE, SEE SLURMCTLD LOG "
         "FOR DETAILS ***", "NODE_FAIL"),
        ("just the server's own output", "terminated by SIGTERM"),
    ],
)
def test_why_slurm_ends_the_task_comes_from_its_log(tmp_path: Path, line: str, reason: str) -> None:
    log = tmp_path / "15_3.out"
    log.write_text("starting\n" + line + "\n")
    assert termination_reason(log, "02:00:00", wait_s=0) == reason
    assert termination_reason(None, wait_s=0) == "terminated by SIGTERM"


def test_the_last_line_slurm_wrote_is_the_reason(tmp_path: Path) -> None:
    log = tmp_path / "15_3.out"
    log.write_text("slurmstepd: error: *** JOB 15 ON gpu7 CANCELLED AT 2026-05-04T11:30:00 DUE TO PREEMPTION ***\n"
                   "requeued\n"
                   "slurmstepd: error: *** JOB 15 ON gpu7 CANCELLED AT 2026-05-04T11:40:00 DUE TO TIME LIMIT ***\n")
    assert termination_reason(log, "00:10:00", wait_s=0) == "TIMEOUT after 00:10:00"


def test_a_requeued_attempt_reads_only_its_own_part_of_the_appended_log(tmp_path: Path) -> None:
    first, second = (attempt_line({"slurm": {"attempt": n, "node": "vm"}, "record_id": "slurm:36_0"}) for n in (0, 1))
    log = tmp_path / "36_0.out"
    log.write_text(f"{first}\nslurmstepd-vm: error: *** JOB 37 ON vm CANCELLED AT 2026-12-03T19:24:32 DUE TO NODE "
                   f"FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***\n{second}\nmeasuring\n")
    assert termination_reason(log, wait_s=0, after=second) == "terminated by SIGTERM"
    assert termination_reason(log, wait_s=0, after=first) == "NODE_FAIL"


def _attempt_run(experiment: str, attempt: int, ok: bool) -> NewRun:
    return NewRun(experiment=experiment, outcome=Outcome.OK if ok else Outcome.FAILED,
                  samples=[Sample("tok_s", 100.0)] if ok else [], failure_reason=None if ok else "NODE_FAIL",
                  source="run", metadata=RunMetadata(slurm=SlurmTask(job="36", task=0, attempt=attempt),
                                                     record_id="slurm:36_0"))


def test_a_requeued_task_counts_once_the_attempt_that_finished(tmp_path: Path) -> None:
    with Ledger.open(f"sqlite:///{tmp_path / 'ledger.db'}") as ledger:
        first = ledger.record_run_once(_attempt_run("e", 0, ok=False))  # attempt 0 ended by the node failure
        assert first is not None
        assert ledger.record_run_once(_attempt_run("e", 0, ok=False)) is None  # the same attempt: once
        second = ledger.record_run_once(_attempt_run("e", 1, ok=True))  # the requeued attempt is recorded
        assert second is not None
        assert retire_earlier_attempts(ledger, "e", "slurm:36_0", second) == [first]
        runs = {r.id: r for r in ledger.runs(["e"])}
        assert runs[first].retraction is not None and "earlier attempt" in runs[first].retraction.reason
        assert runs[second].retraction is None
        assert retire_earlier_attempts(ledger, "e", "slurm:36_0", second) == []


def test_an_attempt_beyond_retries_gives_up_with_the_last_attempts_reason(tmp_path: Path) -> None:
    log = tmp_path / "36_0.out"
    log.write_text("benchdoc: attempt 0 of slurm:36_0 on vm\n"
                   "slurmstepd-vm: error: *** JOB 37 ON vm CANCELLED AT 2026-12-03T19:24:32 DUE TO NODE FAILURE, SEE "
                   "SLURMCTLD LOG FOR DETAILS ***\nbenchdoc: attempt 1 of slurm:36_0 on vm2\n")
    tags = {"slurm": {"job": "36", "task": 0, "attempt": 1, "node": "vm2"}, "record_id": "slurm:36_0"}
    assert beyond_retries(tags, {"BENCHDOC_TASK_RETRIES": "1"}, log) is None  # one requeue allowed
    assert beyond_retries(tags, {}, log) is None  # no --retries: Slurm's own limit
    assert beyond_retries(tags, {"BENCHDOC_TASK_RETRIES": "0"}, log) == (
        "NODE_FAIL, requeued 1 time(s): beyond --retries 0, not run again")
