"""Plain data that crosses the ledger's boundary: runs to record and runs read back."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from benchdoc.ledger.metadata import RunMetadata

Outcome = Literal["ok", "failed", "error"]
OUTCOMES: tuple[str, ...] = ("ok", "failed", "error")


@dataclass(frozen=True)
class Sample:
    """One measured value of one metric in one repetition of a run."""

    metric: str
    value: float
    repetition: int = 0


@dataclass
class NewRun:
    """A run about to be recorded. The ledger fills in nothing but its id.

    ``outcome`` is ``ok`` (measured), ``failed`` (the configuration under test failed:
    OOM, crash, timeout; ``failure_reason`` says why) or ``error`` (benchdoc or the
    harness failed, so the run says nothing about the configuration).
    """

    experiment: str
    outcome: Outcome = "ok"
    samples: list[Sample] = field(default_factory=list)
    started_at: datetime | None = None  # UTC; now if None
    finished_at: datetime | None = None  # UTC; now if None
    failure_reason: str | None = None
    failure_log_line: str | None = None
    command: list[str] | None = None  # argv that ran, secrets redacted before storage
    host: str | None = None
    git_commit: str | None = None
    git_dirty: bool | None = None
    environment: dict[str, Any] = field(default_factory=dict)
    note: str | None = None
    source: str = "record"  # record | run | bench | import:<format>
    metadata: RunMetadata = field(default_factory=RunMetadata)


@dataclass(frozen=True)
class RunRecord:
    """A recorded run, as read back from the ledger."""

    id: int
    experiment: str
    outcome: str
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

    def values(self, metric: str) -> list[float]:
        """The values of one metric in this run, in repetition order."""
        return [s.value for s in sorted(self.samples, key=lambda s: s.repetition) if s.metric == metric]

    @property
    def metrics(self) -> list[str]:
        """Metric names this run has samples for, sorted."""
        return sorted({s.metric for s in self.samples})

    def columns(self) -> dict[str, Any]:
        """The run's own fields as flat, JSON-ready columns (one export row holds them)."""
        return {
            "run_id": self.id,
            "experiment": self.experiment,
            "outcome": self.outcome,
            "started_at": self.started_at.isoformat(),
            "finished_at": self.finished_at.isoformat(),
            "failure_reason": self.failure_reason,
            "host": self.host,
            "git_commit": self.git_commit,
            "git_dirty": self.git_dirty,
            "source": self.source,
            "note": self.note,
        }

    def to_json(self) -> dict[str, Any]:
        """The whole run, nested, as JSON-ready data (`history --json`)."""
        return {
            **self.columns(),
            "failure_log_line": self.failure_log_line,
            "command": self.command,
            "samples": [{"metric": s.metric, "repetition": s.repetition, "value": s.value} for s in self.samples],
            "environment": self.environment,
            "metadata": self.metadata.to_json(),
        }
