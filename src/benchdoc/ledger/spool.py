"""Never lose a measured run: retry the ledger, then keep the run on disk, then replay it.

A ledger that cannot be reached when a run is about to be recorded (PostgreSQL restarting,
the network down, SQLite locked) is retried with backoff for a bounded time; when it still
cannot be written, the complete run (samples, requests, metadata) is kept as one JSON file
in the project's ``.benchdoc/spool/`` (on the shared file system on a cluster) and
:class:`RunSpooled` says so. The next command that reaches the ledger, or ``benchdoc
replay``, records it and removes the file.

Exactly once: before a run is retried or kept it gets an idempotency key
(``metadata.record_id``; a Slurm task's run already has its task's key), and a replay
records it only if no run of its experiment has that key. A run a status check recorded in
its place from Slurm's view (a task that could not reach the ledger reads as failed in
``sacct``) does not count: the measured run is recorded beside it and wins.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchdoc.errors import LedgerError, LedgerUnreachable
from benchdoc.ledger.metadata import RunMetadata
from benchdoc.ledger.models import NewRun, Outcome, RequestRow, Sample
from benchdoc.redact import redact_argv
from benchdoc.untrusted import safe_obj

if TYPE_CHECKING:
    from benchdoc.ledger.store import Ledger

__all__ = ["EXIT_SPOOLED", "SPOOL_DIR", "LedgerUnreachable", "Replayed", "RetryPolicy", "RunSpooled", "keep", "pending",
           "replay", "write"]

SPOOL_DIR = Path(".benchdoc") / "spool"
EXIT_SPOOLED = 75  # sysexits' EX_TEMPFAIL: the run is kept; the ledger was unreachable


class RunSpooled(LedgerError):
    """The ledger stayed unreachable: the run is kept in the spool, not lost."""

    exit_code = EXIT_SPOOLED

    def __init__(self, message: str, path: Path) -> None:
        self.path = path
        super().__init__(message)


@dataclass(frozen=True)
class RetryPolicy:
    """How long a write waits for the ledger: delays doubling from ``first_delay_s`` up
    to ``max_delay_s``, for at most ``budget_s`` in all."""

    budget_s: float = 60.0
    first_delay_s: float = 1.0
    max_delay_s: float = 15.0

    def delays(self) -> list[float]:
        found: list[float] = []
        delay = self.first_delay_s
        while sum(found) < self.budget_s and delay > 0:
            found.append(min(delay, self.budget_s - sum(found)))
            delay = min(delay * 2, self.max_delay_s)
        return found


@dataclass
class Replayed:
    """What a replay did: runs recorded (experiment, id), runs already in the ledger,
    and the files still kept (the ledger still unreachable, or a file unreadable)."""

    recorded: list[tuple[str, int]] = field(default_factory=list)
    already: int = 0
    kept: list[str] = field(default_factory=list)


def with_key(run: NewRun) -> NewRun:
    """``run`` with an idempotency key (its own when it has one)."""
    if run.metadata.record_id:
        return run
    return replace(run, metadata=replace(run.metadata, record_id=f"run:{uuid.uuid4().hex}"))


def write(ledger: Ledger, run: NewRun, *, once: bool, sleep: Callable[[float], None] = time.sleep) -> int | None:
    """Record ``run`` (``once``: unless its key is recorded), retrying an unreachable
    ledger as ``ledger.retry`` says; when it stays unreachable and ``ledger.spool`` is
    set, keep the run there and raise RunSpooled. Without a spool the error propagates."""
    delays = ledger.retry.delays() if ledger.retry else []
    attempt = 0
    while True:
        try:
            return ledger.record_run_once(run) if once else ledger.record_run(run)
        except LedgerUnreachable as error:
            if attempt >= len(delays):
                if ledger.spool is None:
                    raise
                return _keep(ledger.spool, with_key(run), error, waited=sum(delays))
            # From the first failure on, the run carries a key: a write that reached the
            # database before the connection dropped is not written twice.
            run, once = with_key(run), True
            sleep(delays[attempt])
            attempt += 1


def _keep(folder: Path, run: NewRun, error: LedgerError, waited: float) -> int:
    path = keep(folder, run)
    raise RunSpooled(
        f"{error}; retried for {waited:g} s. The run is kept in {SPOOL_DIR / path.name}: the next benchdoc "
        "command that reaches the ledger records it (or: benchdoc replay)", path,
    )


def keep(folder: Path, run: NewRun) -> Path:
    """Write ``run`` (with its key) to ``folder`` as one JSON file, atomically, readable
    by its owner only; its path."""
    folder.mkdir(parents=True, exist_ok=True)
    run = with_key(run)
    data = safe_obj(run_to_json(replace(run, command=redact_argv(list(run.command)) if run.command else None)))
    name = f"{datetime.now().strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}.json"
    temporary = folder / f".{name}.tmp"
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(data, out)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, folder / name)
    return folder / name


def pending(folder: Path) -> list[Path]:
    """The runs kept in ``folder``, oldest first."""
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def replay(ledger: Ledger, folder: Path) -> Replayed:
    """Record every run kept in ``folder`` exactly once, removing each file once its run
    is in the ledger (recorded now, or found there)."""
    done = Replayed()
    for path in pending(folder):
        try:
            run = run_from_json(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError):
            done.kept.append(path.name)
            continue
        try:
            run_id = ledger.record_run_once(run, over_reconciled=True)
        except LedgerError:
            done.kept.append(path.name)
            continue
        if run_id is None:
            done.already += 1
        else:
            done.recorded.append((run.experiment, run_id))
        path.unlink(missing_ok=True)
    return done


def run_to_json(run: NewRun) -> dict[str, Any]:
    """A NewRun as JSON, whole: :func:`run_from_json` gives it back."""
    return {
        "version": 1,
        "experiment": run.experiment,
        "outcome": str(run.outcome),
        "samples": [asdict(s) for s in run.samples],
        "started_at": run.started_at.isoformat() if run.started_at else None,
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "failure_reason": run.failure_reason,
        "failure_log_line": run.failure_log_line,
        "failure_cause": run.failure_cause,
        "command": run.command,
        "host": run.host,
        "git_commit": run.git_commit,
        "git_dirty": run.git_dirty,
        "environment": run.environment,
        "note": run.note,
        "source": run.source,
        "metadata": run.metadata.to_json(),
        "requests": [asdict(r) for r in run.requests],
    }


def run_from_json(data: dict[str, Any]) -> NewRun:
    def moment(value: str | None) -> datetime | None:
        return datetime.fromisoformat(value) if value else None

    return NewRun(
        experiment=data["experiment"],
        outcome=Outcome(data["outcome"]),
        samples=[Sample(**s) for s in data.get("samples", [])],
        started_at=moment(data.get("started_at")),
        finished_at=moment(data.get("finished_at")),
        failure_reason=data.get("failure_reason"),
        failure_log_line=data.get("failure_log_line"),
        failure_cause=data.get("failure_cause"),
        command=data.get("command"),
        host=data.get("host"),
        git_commit=data.get("git_commit"),
        git_dirty=data.get("git_dirty"),
        environment=data.get("environment") or {},
        note=data.get("note"),
        source=data.get("source", "record"),
        metadata=RunMetadata.from_json(data.get("metadata")),
        requests=[RequestRow(**r) for r in data.get("requests", [])],
    )
