"""Inside one array task: which task this is, and recording the run when Slurm ends it.

Slurm ends a task with SIGTERM (then SIGKILL after the cluster's KillWait) at its time
limit, on ``scancel`` and on preemption, and writes why to the task's log first
(``*** JOB 12 ON node1 CANCELLED AT ... DUE TO TIME LIMIT ***``). The runner stops the
server, and :func:`record_termination` records the failed run with Slurm's reason, once:
a status check that reconciles the same task from ``sacct`` finds it and records nothing.
"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchdoc.ledger.metadata import RunMetadata, SlurmTask
from benchdoc.planning.fingerprint import experiment_fingerprint
from benchdoc.provenance import Provenance
from benchdoc.recording import Failure, Measurement, now, record

if TYPE_CHECKING:
    from benchdoc.config import Config
    from benchdoc.ledger.store import Ledger

# slurmstepd's line; the node-failure one goes on after a comma: "DUE TO NODE FAILURE, SEE
# SLURMCTLD LOG FOR DETAILS ***".
_SLURM_LINE = re.compile(r"\*\*\* JOB \S+ ON \S+ CANCELLED AT \S+(?: DUE TO ([A-Z ]+?))?(?:,[^*\n]*)?(?: \*\*\*|$)", re.M)
_CAUSES = {"TIME LIMIT": "TIMEOUT", "PREEMPTION": "PREEMPTED", "NODE FAILURE": "NODE_FAIL"}


def record_key(array_job: str, task: int | str) -> str:
    """The key of the one run an array task may leave: ``slurm:12_3``."""
    return f"slurm:{array_job}_{task}"


def task_tags(environ: Mapping[str, str]) -> dict[str, Any]:
    """The metadata fields of a run made in an array task: job, task, node, and the record
    id that makes it the task's one run. Empty outside an array task."""
    job = environ.get("SLURM_ARRAY_JOB_ID")
    task = environ.get("SLURM_ARRAY_TASK_ID")
    if not job or task is None or not task.isdigit():
        return {}
    restarts = environ.get("SLURM_RESTART_COUNT", "0")
    return {
        "slurm": {"job": job, "task": int(task), "job_id": environ.get("SLURM_JOB_ID"), "node": environ.get("SLURMD_NODENAME"),
                  "attempt": int(restarts) if restarts.isdigit() else 0},
        "record_id": record_key(job, task),
    }


def attempt_line(tags: Mapping[str, Any]) -> str:
    """The line a task writes to its log as it starts: the log is appended to by every
    attempt of a requeued task, and a reason is read only after this attempt's line."""
    slurm = tags.get("slurm") or {}
    return f"benchdoc: attempt {slurm.get('attempt', 0)} of {tags.get('record_id')} on {slurm.get('node') or '?'}"


RETRIES_ENV = "BENCHDOC_TASK_RETRIES"  # set by the job script of `submit --retries N`


def beyond_retries(tags: Mapping[str, Any], environ: Mapping[str, str], log: Path | None) -> str | None:
    """The reason a requeued task gives up instead of running (Slurm requeued it more
    than ``submit --retries N`` allows), with the last attempt's end read from its log;
    None when it may run."""
    retries = environ.get(RETRIES_ENV, "")
    attempt = int((tags.get("slurm") or {}).get("attempt") or 0)
    if not retries.isdigit() or attempt <= int(retries):
        return None
    previous = attempt_line({**tags, "slurm": {**(tags.get("slurm") or {}), "attempt": attempt - 1}})
    last = termination_reason(log, wait_s=0, after=previous.rsplit(" on ", 1)[0])
    return f"{last}, requeued {attempt} time(s): beyond --retries {retries}, not run again"


def retire_earlier_attempts(ledger: Ledger, experiment: str, key: str, keep: int) -> list[int]:
    """Take back, as history, every other run of ``experiment`` with the task key ``key``
    (earlier attempts of a task Slurm requeued, or a run a status check reconciled while
    the task was between attempts): run ``keep``, of the attempt that finished, counts.
    The ids taken back."""
    retired = []
    for run in ledger.runs([experiment], with_samples=False):
        if run.metadata.record_id == key and run.id != keep and run.retraction is None:
            ledger.retract(run.id, f"an earlier attempt of {key} (Slurm requeued the task): run {keep} counts")
            retired.append(run.id)
    return retired


def termination_reason(
    log: Path | None, time_limit: str | None = None, wait_s: float = 1.0, after: str | None = None
) -> str:
    """Why Slurm is ending this task, from the line slurmstepd writes to its log:
    'TIMEOUT after 00:01:00', 'PREEMPTED', 'NODE_FAIL', 'CANCELLED', or 'terminated by SIGTERM'.
    ``after``: only what follows the last occurrence of this line (this attempt's start)."""
    deadline = time.monotonic() + wait_s
    while True:
        text = _tail(log) if log else ""
        if after and after in text:
            text = text.rsplit(after, 1)[1]
        found = list(_SLURM_LINE.finditer(text))
        match = found[-1] if found else None  # the last: an earlier attempt's line may precede it
        if match or time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    if match is None:
        return "terminated by SIGTERM"
    cause = (match.group(1) or "").strip()
    if cause == "TIME LIMIT":
        return f"TIMEOUT after {time_limit}" if time_limit else "TIMEOUT"
    if cause in _CAUSES:
        return _CAUSES[cause]
    return "CANCELLED" if not cause else f"CANCELLED ({cause.lower()})"


def _tail(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - 8192))
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return ""


def record_termination(
    config: Config, ledger: Ledger, experiment: str, reason: str, tags: Mapping[str, Any], started_at: datetime
) -> int | None:
    """Record the failed run of a task Slurm ended (unless this task's run is already
    recorded); its id or None."""
    measured = Measurement(
        experiment=experiment,
        source="run",
        started_at=started_at,
        finished_at=now(),
        failure=Failure(reason),
        provenance=Provenance(environment={}, host=socket.gethostname(), git_commit=None, git_dirty=None),
        metadata=RunMetadata(
            slurm=SlurmTask.from_json({**(tags.get("slurm") or {}), "ended_by": "slurm"}),
            record_id=tags.get("record_id"),
            config_fingerprint=experiment_fingerprint(config, experiment),
        ),
    )
    run_id = record(ledger, measured, once=True)
    if run_id is not None and measured.metadata.record_id:
        retire_earlier_attempts(ledger, experiment, measured.metadata.record_id, run_id)
    return run_id
