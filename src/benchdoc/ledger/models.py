"""Plain data that crosses the ledger's boundary: runs to record and runs read back."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from benchdoc.ledger.metadata import RunMetadata
from benchdoc.outcome import OUTCOMES, Outcome

# Outcome is declared in benchdoc.outcome, a module the commands load without the ledger.
__all__ = ["OUTCOMES", "NewRun", "Outcome", "RequestRow", "Retraction", "RunRecord", "Sample", "as_utc"]


def as_utc(moment: datetime | None) -> datetime:
    """``moment`` in UTC (a naive time is taken as UTC); now when None."""
    if moment is None:
        return datetime.now(timezone.utc)
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


@dataclass(frozen=True)
class Sample:
    """One measured value of one metric in one repetition of a run.

    ``start`` numbers the server start (from 0, within its run) that measured it: the
    repetitions of one start share its clocks, memory layout and compiled graphs, so a
    comparison treats the start, not the repetition, as its unit. A run recorded before
    starts were kept is one start.
    """

    metric: str
    value: float
    repetition: int = 0
    start: int = 0


@dataclass(frozen=True)
class RequestRow:
    """One request of one repetition, kept with its run so that a result can be audited.

    ``record`` is the whole per-request record as the load generator saw it (timings,
    token counts and where they came from, finish reason, chunk arrival times); the
    columns beside it are what a listing shows without reading it.
    """

    repetition: int
    index: int
    ok: bool
    error: str | None
    ttft_ms: float | None
    e2e_ms: float | None
    output_tokens: int | None
    record: dict[str, Any]


@dataclass(frozen=True)
class Retraction:
    """A run taken back: out of every result, kept in the history with its reason."""

    reason: str
    at: datetime


@dataclass
class NewRun:
    """A run about to be recorded. The ledger fills in nothing but its id.

    ``outcome`` is ``ok`` (measured), ``failed`` (the configuration under test failed:
    OOM, crash, timeout; ``failure_reason`` says why) or ``error`` (benchdoc or the
    harness failed, so the run says nothing about the configuration).
    """

    experiment: str
    outcome: Outcome = Outcome.OK
    samples: list[Sample] = field(default_factory=list)
    started_at: datetime | None = None  # UTC; now if None
    finished_at: datetime | None = None  # UTC; now if None
    failure_reason: str | None = None
    failure_log_line: str | None = None
    failure_cause: str | None = None  # the log's last exception line, when no known reason matched
    command: list[str] | None = None  # argv that ran, secrets redacted before storage
    host: str | None = None
    git_commit: str | None = None
    git_dirty: bool | None = None
    environment: dict[str, Any] = field(default_factory=dict)
    note: str | None = None
    source: str = "record"  # record | run | bench | import:<format> | mcp
    metadata: RunMetadata = field(default_factory=RunMetadata)
    requests: list[RequestRow] = field(default_factory=list)  # kept in the ledger's run_requests


@dataclass(frozen=True)
class RunRecord:
    """A recorded run, as read back from the ledger."""

    id: int
    experiment: str
    outcome: Outcome
    started_at: datetime
    finished_at: datetime
    failure_reason: str | None
    failure_log_line: str | None
    command: list[str] | None
    host: str | None
    git_commit: str | None
    git_dirty: bool | None
    environment: dict[str, Any]
    note: str | None
    source: str
    metadata: RunMetadata
    samples: tuple[Sample, ...] = ()
    failure_cause: str | None = None
    retraction: Retraction | None = None

    def values(self, metric: str) -> list[float]:
        """The values of one metric in this run, in repetition order."""
        return [s.value for s in sorted(self.samples, key=lambda s: s.repetition) if s.metric == metric]

    def start_labels(self, metric: str) -> list[tuple[int, int]]:
        """The server start of each of :meth:`values`, as (run id, start within the run)."""
        ordered = sorted(self.samples, key=lambda s: s.repetition)
        return [(self.id, s.start) for s in ordered if s.metric == metric]

    @property
    def starts(self) -> int:
        """How many server starts this run's samples come from."""
        return len({s.start for s in self.samples}) if self.samples else 0

    @property
    def metrics(self) -> list[str]:
        """Metric names this run has samples for, sorted."""
        return sorted({s.metric for s in self.samples})

    @property
    def explanation(self) -> str | None:
        """Why the run did not succeed, as shown everywhere: the cause read from the log
        first (it says what happened), then the reason benchdoc saw (how it showed)."""
        cause, reason = self.failure_cause, self.failure_reason
        if cause and reason and cause not in reason:
            return f"{cause} ({reason})"
        return cause or reason

    def columns(self) -> dict[str, Any]:
        """The run's own fields as flat, JSON-ready columns (one export row holds them)."""
        return {
            "run_id": self.id,
            "experiment": self.experiment,
            "outcome": self.outcome.value,
            "started_at": self.started_at.isoformat(),
            "finished_at": self.finished_at.isoformat(),
            "failure_reason": self.failure_reason,
            "cause": self.failure_cause,
            "host": self.host,
            "git_commit": self.git_commit,
            "git_dirty": self.git_dirty,
            "source": self.source,
            "note": self.note,
            "retracted": self.retraction.reason if self.retraction else None,
        }

    def to_json(self) -> dict[str, Any]:
        """The whole run, nested, as JSON-ready data (`history --json`)."""
        return {
            **self.columns(),
            "failure_log_line": self.failure_log_line,
            "command": self.command,
            "samples": [{"metric": s.metric, "repetition": s.repetition, "start": s.start, "value": s.value}
                        for s in self.samples],
            "environment": self.environment,
            "metadata": self.metadata.to_json(),
            "retraction": {"reason": self.retraction.reason, "at": self.retraction.at.isoformat()}
            if self.retraction else None,
        }
