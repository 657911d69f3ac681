"""An experiment's status: the fixed vocabulary, computed from the ledger, never typed by hand."""

from __future__ import annotations

from enum import Enum


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
