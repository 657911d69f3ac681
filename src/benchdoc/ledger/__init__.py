"""The ledger: every run and its samples, append-only, in SQLite or PostgreSQL."""

from __future__ import annotations

from typing import Any

from benchdoc.ledger.metadata import RepetitionRecord, RunMetadata, ServerLaunch, ServerStop
from benchdoc.ledger.models import OUTCOMES, NewRun, Outcome, RequestRow, Retraction, RunRecord, Sample

__all__ = [
    "OUTCOMES", "Ledger", "NewRun", "Outcome", "RepetitionRecord", "RequestRow", "Retraction", "RunMetadata", "RunRecord", "Sample",
    "ServerLaunch", "ServerStop", "display_url",
]


def __getattr__(name: str) -> Any:
    # The store pulls in SQLAlchemy; the data models alone should not.
    if name in ("Ledger", "display_url"):
        from benchdoc.ledger import store

        return getattr(store, name)
    raise AttributeError(name)
