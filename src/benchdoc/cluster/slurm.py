"""Talking to Slurm through its own commands: sbatch, squeue, sacct, scontrol.

Every command runs as an argv list with a timeout. What a task's state is comes from
``squeue`` while the task is pending or running and from ``sacct`` afterwards; where
accounting is not set up (``sacct`` says so), from ``scontrol show job``, which
remembers finished jobs for the cluster's MinJobAge. Neither keeps a pending task that
``scancel`` removed: a task of a job Slurm knows that is neither queued nor finished was
cancelled before it started.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from benchdoc.errors import BenchdocError, UsageError

COMMAND_TIMEOUT_S = 60.0
ACTIVE = ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING", "STOPPED")


class SlurmError(BenchdocError):
    """Slurm refused or failed a request (an unknown partition, a QOS limit, a dead controller)."""


@dataclass(frozen=True)
class TaskState:
    """One array task as Slurm sees it."""

    task: int
    state: str  # PENDING, RUNNING, COMPLETED, TIMEOUT, CANCELLED, NODE_FAIL, OUT_OF_MEMORY, FAILED, ...
    time_limit: str = ""
    exit_code: str = ""
    cancelled_by: str | None = None  # the uid sacct names ("CANCELLED by 1000"), or how we know
    started: datetime | None = None  # when it started running, as Slurm says (UTC); None before it ran
    ended: datetime | None = None  # when it ended, as Slurm says (UTC)

    @property
    def active(self) -> bool:
        return self.state in ACTIVE

    def failure_reason(self) -> str | None:
        """The reason a task that ended without recording its run failed, in Slurm's words;
        None for a task still pending or running."""
        if self.active:
            return None
        if self.state == "TIMEOUT":
            return f"TIMEOUT after {_clock(self.time_limit)}" if self.time_limit else "TIMEOUT"
        if self.state == "CANCELLED":
            by = self.cancelled_by
            return "CANCELLED" if not by else (f"CANCELLED by {by}" if by.isdigit() else f"CANCELLED ({by})")
        if self.state == "FAILED":
            return f"FAILED ({ended})" if (ended := exit_words(self.exit_code)) else "FAILED"
        if self.state == "COMPLETED":
            return "the task finished without recording a run (see its log)"
        return self.state  # NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL, DEADLINE


def exit_words(exit_code: str) -> str:
    """sacct's ``ExitCode`` (``exit:signal``) in words: '1:0' -> 'exit code 1', '0:9' ->
    'killed by signal 9' (the signal wins: a process killed by one has no exit code of its
    own); '' when Slurm gives none."""
    code, _, signal = exit_code.strip().partition(":")
    if signal.isdigit() and int(signal):
        return f"killed by signal {int(signal)}"
    return f"exit code {int(code)}" if code.isdigit() else ""


def run_command(argv: list[str], env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run a Slurm client command; a missing program is one clear line."""
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S,
                              env=dict(env) if env is not None else None)
    except FileNotFoundError:
        raise UsageError(
            f"{argv[0]} not found on PATH: run this on a Slurm login node (Debian's package: slurm-client)"
        ) from None
    except subprocess.TimeoutExpired:
        raise SlurmError(f"{argv[0]} did not answer within {COMMAND_TIMEOUT_S:g} s: is slurmctld up?") from None


def first_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def sbatch(script: Path, env: Mapping[str, str] | None = None) -> str:
    """Submit ``script`` with ``sbatch --parsable``; the job id (SlurmError when refused)."""
    done = run_command(["sbatch", "--parsable", str(script)], env)
    if done.returncode != 0:
        raise SlurmError(f"the cluster refused the job: {first_line(done.stderr or done.stdout) or 'sbatch failed'}")
    job_id = done.stdout.strip().split(";")[0]
    if not job_id.isdigit():
        raise SlurmError(f"sbatch answered {done.stdout.strip()!r}, not a job id")
    return job_id


@dataclass(frozen=True)
class JobView:
    """What Slurm says of one job array: its tasks' states, and whether Slurm keeps
    finished jobs (accounting: ``sacct`` answers for ever; without it ``scontrol``
    forgets a job after MinJobAge)."""

    tasks: dict[int, TaskState]
    accounting: bool = True

    def forgotten(self, task: int) -> bool:
        """Slurm lists ``task`` nowhere and never will again. With accounting a task listed
        nowhere is between two states (a node failed, the requeue is not queued yet)."""
        return task not in self.tasks and not self.accounting


def job_view(job_id: str, tasks: int, env: Mapping[str, str] | None = None) -> JobView:
    """Every array task (of ``tasks``) of ``job_id`` Slurm still knows of."""
    states, accounting = _finished(job_id, env)
    states.update(_queued(job_id, env))
    if states:
        # A pending array task removed by scancel leaves no record at all: of a job Slurm
        # still knows, a task neither queued nor finished was cancelled before it ran.
        for task in range(tasks):
            states.setdefault(task, TaskState(task, "CANCELLED", cancelled_by="before it started"))
    return JobView(states, accounting)


def task_states(job_id: str, tasks: int, env: Mapping[str, str] | None = None) -> dict[int, TaskState]:
    """Every array task (of ``tasks``) of ``job_id`` Slurm still knows of."""
    return job_view(job_id, tasks, env).tasks


def time_limit(job_id: str, env: Mapping[str, str] | None = None) -> str | None:
    """A running job's time limit as HH:MM:SS (None when Slurm does not say). ``job_id``
    names one job: an array task as ``12_3`` (the array's last task has the array's own
    job id, under which squeue lists every task of the array: one line is read)."""
    try:
        done = run_command(["squeue", "-h", "-j", job_id, "-o", "%l"], env)
    except BenchdocError:
        return None
    lines = done.stdout.split()
    limit = lines[0] if lines else ""
    return _clock(limit) if done.returncode == 0 and limit and limit != "UNLIMITED" else None


def active_tasks(job_id: str, env: Mapping[str, str] | None = None) -> set[int]:
    """The tasks of ``job_id`` squeue lists as pending or running (none for a job it forgot)."""
    return {task for task, state in _queued(job_id, env).items() if state.active}


def _queued(job_id: str, env: Mapping[str, str] | None) -> dict[int, TaskState]:
    done = run_command(["squeue", "-h", "-r", "-j", job_id, "-o", "%K|%T|%l"], env)
    if done.returncode != 0:
        if "Invalid job id" in done.stderr:
            return {}
        raise SlurmError(f"squeue failed: {first_line(done.stderr)}")
    found: dict[int, TaskState] = {}
    for line in done.stdout.splitlines():
        parts = line.strip().split("|")
        if len(parts) == 3:
            for task in _task_ids(parts[0]):
                found[task] = TaskState(task, parts[1], parts[2])
    return found


def _finished(job_id: str, env: Mapping[str, str] | None) -> tuple[dict[int, TaskState], bool]:
    """The finished tasks sacct lists, and whether accounting answered (else scontrol did)."""
    done = run_command(
        ["sacct", "-n", "-P", "-X", "-j", job_id, "--format=JobID,State,Timelimit,ExitCode,Start,End"], env
    )
    if done.returncode == 0:
        return parse_sacct(done.stdout), True
    if "accounting storage is disabled" in (done.stderr + done.stdout).lower():
        return _from_scontrol(job_id, env), False
    raise SlurmError(f"sacct failed: {first_line(done.stderr)}")


def parse_sacct(text: str) -> dict[int, TaskState]:
    """``sacct -n -P -X --format=JobID,State,Timelimit,ExitCode,Start,End`` lines of array
    tasks ('7_0|FAILED|365-00:00:00|0:9|2026-12-03T20:21:06|2026-12-03T20:21:07',
    '7_2|CANCELLED by 0|...|None|...') by task id; lines without the two times read too."""
    found: dict[int, TaskState] = {}
    for line in text.splitlines():
        parts = line.strip().split("|")
        if len(parts) not in (4, 6) or "_" not in parts[0]:
            continue
        state, _, by = parts[1].partition(" by ")
        started, ended = (slurm_time(parts[4]), slurm_time(parts[5])) if len(parts) == 6 else (None, None)
        for task in _task_ids(parts[0].split("_", 1)[1]):
            found[task] = TaskState(task, state.strip(), parts[2], parts[3], by.strip() or None, started, ended)
    return found


def slurm_time(text: str) -> datetime | None:
    """A time as sacct and scontrol print it ('2026-12-03T20:21:06', the local time of the
    machine asking) in UTC; None for 'Unknown', 'None' or anything else that is no time."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.astimezone()).astimezone(timezone.utc)


def _from_scontrol(job_id: str, env: Mapping[str, str] | None) -> dict[int, TaskState]:
    done = run_command(["scontrol", "-o", "show", "job", job_id], env)
    if done.returncode != 0:
        if "Invalid job id" in done.stderr:
            return {}
        raise SlurmError(f"scontrol failed: {first_line(done.stderr)}")
    found: dict[int, TaskState] = {}
    for line in done.stdout.splitlines():
        fields = dict(re.findall(r"(\w+)=(\S*)", line))
        if "ArrayTaskId" not in fields:
            continue
        for task in _task_ids(fields["ArrayTaskId"]):
            found[task] = TaskState(task, fields.get("JobState", ""), fields.get("TimeLimit", ""), fields.get("ExitCode", ""),
                                    started=slurm_time(fields.get("StartTime", "")),
                                    ended=slurm_time(fields.get("EndTime", "")))
    return found


def _task_ids(text: str) -> list[int]:
    """'3' -> [3]; '[2-4%1]' or '2-4' -> [2, 3, 4]; '1,5' -> [1, 5]."""
    text = text.strip("[]").split("%")[0]
    ids: list[int] = []
    for part in text.split(","):
        start, _, end = part.partition("-")
        if start.isdigit() and (not end or end.isdigit()):
            ids.extend(range(int(start), int(end or start) + 1))
    return ids


def _clock(limit: str) -> str:
    """Slurm's limit as HH:MM:SS: '1:00' (squeue's minutes:seconds) -> '00:01:00'."""
    days, _, rest = limit.rpartition("-")
    parts = rest.split(":")
    if len(parts) == 2:
        parts = ["0", *parts]
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return limit
    hours = int(parts[0]) + 24 * int(days or 0)
    return f"{hours:02d}:{int(parts[1]):02d}:{int(parts[2]):02d}"
