"""Reading Slurm's answers: task ids, time limits, and a finished task's reason in Slurm's words."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from benchdoc.cluster.slurm import TaskState, _clock, _task_ids, exit_words, parse_sacct, slurm_time


@pytest.mark.parametrize(
    ("text", "ids"),
    [("3", [3]), ("[2-4%1]", [2, 3, 4]), ("2-4", [2, 3, 4]), ("1,5-6", [1, 5, 6]), ("[0-15%4]", list(range(16)))],
)
def test_array_task_ids(text: str, ids: list[int]) -> None:
    assert _task_ids(text) == ids


@pytest.mark.parametrize(
    ("limit", "clock"),
    [("1:00", "00:01:00"), ("02:00:00", "02:00:00"), ("1-00:00:00", "24:00:00"), ("UNLIMITED", "UNLIMITED")],
)
def test_time_limits_read_as_hours_minutes_seconds(limit: str, clock: str) -> None:
    assert _clock(limit) == clock


@pytest.mark.parametrize(
    ("state", "reason"),
    [
        (TaskState(0, "TIMEOUT", "02:00:00"), "TIMEOUT after 02:00:00"),
        (TaskState(0, "CANCELLED", cancelled_by="0"), "CANCELLED by 0"),
        (TaskState(0, "CANCELLED", cancelled_by="before it started"), "CANCELLED (before it started)"),
        (TaskState(0, "NODE_FAIL"), "NODE_FAIL"),
        (TaskState(0, "OUT_OF_MEMORY", exit_code="0:125"), "OUT_OF_MEMORY"),
        (TaskState(0, "FAILED", exit_code="1:0"), "FAILED (exit code 1)"),
        (TaskState(0, "FAILED", exit_code="0:9"), "FAILED (killed by signal 9)"),  # kill -9, as sacct says it
        (TaskState(0, "PREEMPTED"), "PREEMPTED"),
        (TaskState(0, "COMPLETED"), "the task finished without recording a run (see its log)"),
        (TaskState(0, "PENDING"), None),
        (TaskState(0, "COMPLETING"), None),
    ],
)
def test_a_finished_task_fails_in_slurms_words(state: TaskState, reason: str | None) -> None:
    assert state.failure_reason() == reason


@pytest.mark.parametrize(
    ("exit_code", "words"),
    [("0:9", "killed by signal 9"), ("1:0", "exit code 1"), ("137:0", "exit code 137"), ("0:15", "killed by signal 15"),
     ("0:0", "exit code 0"), ("", "")],
)
def test_sacct_exit_codes_read_as_exit_and_signal(exit_code: str, words: str) -> None:
    assert exit_words(exit_code) == words


# Lines Slurm 22.05's sacct gave on the test cluster: a `kill -9 $$` job (0:9), tasks lost
# with their node, a task at its one-minute limit, one cancelled by root.
SACCT = """7_0|FAILED|365-00:00:00|0:9
7_1|NODE_FAIL|365-00:00:00|0:0
7_2|TIMEOUT|00:01:00|0:0
7_3|CANCELLED by 0|00:01:00|0:15
"""


def test_sacct_lines_read_in_slurms_words() -> None:
    reasons = {task: state.failure_reason() for task, state in parse_sacct(SACCT).items()}
    assert reasons == {0: "FAILED (killed by signal 9)", 1: "NODE_FAIL", 2: "TIMEOUT after 00:01:00", 3: "CANCELLED by 0"}


def test_sacct_gives_each_task_its_start_and_end_in_utc() -> None:
    # The two times are printed in the local time of the machine asking (no zone).
    text = "9_0|TIMEOUT|00:01:00|0:0|2026-12-03T20:21:06|2026-12-03T20:22:07\n9_1|CANCELLED by 0|00:01:00|0:0|None|2026-12-03T20:21:09\n"
    states = parse_sacct(text)
    local = datetime(2026, 12, 3, 20, 21, 6).astimezone()
    assert states[0].started == local.astimezone(timezone.utc)
    assert states[0].ended is not None and (states[0].ended - local).total_seconds() == 61
    assert states[1].started is None and states[1].ended == datetime(2026, 12, 3, 20, 21, 9).astimezone()
    assert slurm_time("Unknown") is None and slurm_time("") is None
    assert parse_sacct(SACCT)[0].started is None  # the four-field form still reads
