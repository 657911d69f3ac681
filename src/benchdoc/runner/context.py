"""What every experiment of one `run` shares: the options, the project, the ledger, where
events go, the environment servers inherit, the failure patterns and the logs folder."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchdoc.config import Config
from benchdoc.errors import UsageError
from benchdoc.runner.events import Notice, RunEvent
from benchdoc.runner.failures import FailurePattern

if TYPE_CHECKING:
    from benchdoc.ledger.store import Ledger

DEFAULT_MAX_STARTS = 20
LOGS_DIR = Path(".benchdoc") / "logs"

EventSink = Callable[[RunEvent], None]


@dataclass(frozen=True)
class RunOptions:
    """How `run_experiments` runs: overrides and modes."""

    repetitions: int | None = None  # overrides each experiment's own count (per server start with ``starts``)
    starts: int | None = None  # server starts per experiment, each running ``repetitions``
    until_decided: bool = False
    max_starts: int | None = None  # with until_decided: the most server starts (default DEFAULT_MAX_STARTS)
    interleave: bool = False
    # Fields of every run's metadata set from outside the run: a Slurm task's job, task and record id.
    tags: Mapping[str, Any] | None = None
    # How long a server's fixed port held by another process is waited for (0: a setup error at once).
    port_wait_s: float = 0.0

    def check(self) -> None:
        if self.port_wait_s < 0:
            raise UsageError(f"--wait-for-port must be 0 or more seconds, got {self.port_wait_s:g}")
        if self.repetitions is not None and self.repetitions < 1:
            raise UsageError(f"--repetitions must be at least 1, got {self.repetitions}")
        if self.starts is not None and self.starts < 1:
            raise UsageError(f"--starts must be at least 1, got {self.starts}")
        if self.max_starts is not None:
            if not self.until_decided:
                raise UsageError("--max-starts goes with --until-decided")
            if self.max_starts < 1:
                raise UsageError(f"--max-starts must be at least 1, got {self.max_starts}")
            if self.starts is not None and self.max_starts < self.starts:
                raise UsageError(f"--max-starts ({self.max_starts}) is below --starts ({self.starts})")

    def repetitions_per_start(self, planned: int) -> int | None:
        """How many of an experiment's ``planned`` repetitions one server start runs:
        ``planned / starts``, one with ``interleave`` or ``until_decided`` without ``starts``
        (every repetition a start of its own), else None: one start runs every repetition."""
        if self.starts is not None:
            return max(1, planned // self.starts)
        # --until-decided adds server starts: every repetition is one.
        return 1 if self.interleave or self.until_decided else None

    def max_starts_for(self, planned_starts: int) -> int:
        """The most server starts --until-decided may take for an experiment planned with
        ``planned_starts`` (the starts before its first look)."""
        return max(self.max_starts or DEFAULT_MAX_STARTS, planned_starts)


@dataclass
class RunContext:
    """Shared by every experiment of one `run_experiments` call."""

    config: Config
    ledger: Ledger
    options: RunOptions
    emit: EventSink
    environ: dict[str, str]
    patterns: tuple[FailurePattern, ...]
    logs_dir: Path
    selected: tuple[str, ...] = ()  # every experiment this run measures (their comparisons will all change)

    def notice(self, experiment: str, message: str) -> None:
        self.emit(Notice(experiment, message))
