"""What the runner reports while it works, for a progress display to show.

The runner never prints: it calls ``on_event(event)`` with one of these. Command lines
in events are already redacted.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchdoc.ledger.models import Outcome
from benchdoc.runner.sequential import Look, StoppingPlan


@dataclass(frozen=True)
class ExperimentOutcome:
    """How one experiment ended and where its record is."""

    experiment: str
    outcome: Outcome
    run_id: int | None
    repetitions: int  # completed repetitions
    failure_reason: str | None = None
    failure_log_line: str | None = None
    failure_cause: str | None = None  # the log's last exception line, when no known reason matched
    log_path: Path | None = None  # the (first) server log
    decision: str | None = None  # --until-decided: "significant", "equivalent" or None

    @property
    def explanation(self) -> str | None:
        """The cause first, then the reason (as a run record shows it)."""
        cause, reason = self.failure_cause, self.failure_reason
        if cause and reason and cause not in reason:
            return f"{cause} ({reason})"
        return cause or reason


@dataclass(frozen=True)
class ExperimentStarted:
    experiment: str
    index: int  # 0-based position in this invocation
    total: int
    repetitions: int  # planned (with --until-decided: the most it may take)


@dataclass(frozen=True)
class ServerStarting:
    experiment: str
    argv: tuple[str, ...]
    log_path: Path
    port: int


@dataclass(frozen=True)
class ServerReady:
    experiment: str
    seconds: float
    pid: int  # the leader of the server's process group


@dataclass(frozen=True)
class WaitingForServer:
    experiment: str
    seconds: float
    timeout_s: float


@dataclass(frozen=True)
class RepetitionStarted:
    experiment: str
    repetition: int  # 0-based
    planned: int
    requests: int | None  # measured requests, when known


@dataclass(frozen=True)
class RequestsProgress:
    experiment: str
    repetition: int
    completed: int
    total: int | None


@dataclass(frozen=True)
class RepetitionFinished:
    experiment: str
    repetition: int
    metrics: dict[str, float]


@dataclass(frozen=True)
class LookTaken:
    """--until-decided compared the repetitions so far with the baseline."""

    experiment: str
    look: Look
    plan: StoppingPlan


@dataclass(frozen=True)
class Notice:
    """Something the user should know that is not a failure (e.g. no baseline to decide against)."""

    experiment: str
    message: str


@dataclass(frozen=True)
class ExperimentFinished:
    experiment: str
    result: ExperimentOutcome


RunEvent = (
    ExperimentStarted
    | ServerStarting
    | WaitingForServer
    | ServerReady
    | RepetitionStarted
    | RequestsProgress
    | RepetitionFinished
    | LookTaken
    | Notice
    | ExperimentFinished
)
