"""An experiment's status: the fixed vocabulary, computed from the ledger, never typed by hand."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

from benchdoc.ledger.models import Outcome

if TYPE_CHECKING:
    from benchdoc.config import Config, ExperimentConfig
    from benchdoc.ledger.models import RunRecord
    from benchdoc.stats import Comparison


class Status(str, Enum):
    """What an experiment's current result says, in table order.

    A ``str`` whose value is the word shown, so JSON, tables and comparisons with the word
    itself read as before.
    """

    REFERENCE = "Reference"
    WORKS = "Works"
    SLOWER = "Slower"
    WORSE = "Worse"
    NO_DIFFERENCE = "No difference"  # equivalence within the metric's margin is shown
    INCONCLUSIVE = "Inconclusive"  # compared, and the test could not decide (never "No difference")
    FAILED = "Failed"
    UNTESTED = "Untested"
    MEASURED = "Measured"
    SUPERSEDED = "Superseded"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    @classmethod
    def parse(cls, word: str) -> Status | None:
        """The status a word names, in any case ('failed', 'No Difference'), or None."""
        lowered = " ".join(word.split()).lower()
        return next((status for status in cls if status.value.lower() == lowered), None)

    @property
    def ran(self) -> bool:
        """The latest run completed and was compared (whatever the verdict)."""
        return self in (Status.WORKS, Status.SLOWER, Status.WORSE, Status.NO_DIFFERENCE, Status.INCONCLUSIVE)

    @property
    def loses(self) -> bool:
        """The result is worse than what it is compared with."""
        return self in (Status.SLOWER, Status.WORSE)


STATUSES: tuple[Status, ...] = tuple(Status)


def decide_status(
    config: Config,
    exp: ExperimentConfig,
    runs: list[RunRecord],
    comparisons: dict[str, Comparison],
    superseded_by: str | None,
) -> tuple[Status, str | None]:
    """The experiment's status and the reason shown with it (failure reason or notes)."""
    # words is built on Status; imported here so the two modules stay acyclic.
    from benchdoc.results.words import failure_reason, status_of_verdict, verdict_text

    if not runs:
        return Status.UNTESTED, exp.notes or None
    if superseded_by:
        replacement = config.experiments.get(superseded_by)
        return Status.SUPERSEDED, f"by {replacement.label}" if replacement else None
    latest = runs[0]
    if latest.outcome != Outcome.OK:
        return Status.FAILED, failure_reason(latest)
    if exp.is_reference:
        return Status.REFERENCE, None
    metric = config.primary_metric
    comparison = comparisons.get(metric) if metric else None
    if metric is None or comparison is None:
        return Status.MEASURED, None
    # A speed (a throughput or a latency) loses by being slower; anything else by being worse.
    status = status_of_verdict(comparison.verdict, config.metric_or_default(metric).measures_speed)
    if status is Status.INCONCLUSIVE:
        return status, verdict_text(comparison)  # with what would decide it
    if status is not None:
        return status, None
    return Status.MEASURED, verdict_text(comparison)  # one start a side, undecided: say what it needs
