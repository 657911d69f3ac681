"""How a run ended, in a module of its own: the commands name an outcome without loading the ledger."""

from __future__ import annotations

from enum import Enum


class Outcome(str, Enum):
    """How a run ended: the one list of outcomes (the ledger's SQL check is derived from it).

    ``OK``: measured. ``FAILED``: the configuration under test failed (OOM, crash, timeout);
    the run's failure reason says why. ``ERROR``: benchdoc or the harness failed, so the run
    says nothing about the configuration. A member equals its word (``Outcome.OK == "ok"``)
    and prints as it.
    """

    OK = "ok"
    FAILED = "failed"
    ERROR = "error"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    @classmethod
    def parse(cls, word: str) -> Outcome | None:
        """The outcome a word names, or None when it names none."""
        try:
            return cls(word)
        except ValueError:
            return None


OUTCOMES: tuple[str, ...] = tuple(o.value for o in Outcome)
