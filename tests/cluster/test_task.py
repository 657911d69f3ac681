"""Inside an array task: its tags, and why Slurm is ending it, read from its log."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchdoc.cluster import task_tags, termination_reason


def test_tags_name_the_job_task_and_node() -> None:
    tags = task_tags({"SLURM_ARRAY_JOB_ID": "12", "SLURM_ARRAY_TASK_ID": "3", "SLURM_JOB_ID": "15",
                      "SLURMD_NODENAME": "gpu7"})
    assert tags == {"slurm": {"job": "12", "task": 3, "job_id": "15", "node": "gpu7"}, "record_id": "slurm:12_3"}
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
