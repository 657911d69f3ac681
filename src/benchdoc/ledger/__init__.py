"""The ledger: every run and its samples, append-only, in SQLite or PostgreSQL."""

from __future__ import annotations

from typing import Any

from benchdoc.ledger.metadata import (
    CapacitySearch,
    ClientLoad,
    ClientVerdict,
    ImportSource,
    LevelRecord,
    RepetitionRecord,
    RunLogs,
    RunMetadata,
    ServedBy,
    ServerLaunch,
    ServerStop,
    SlurmTask,
)
from benchdoc.ledger.models import OUTCOMES, NewRun, Outcome, RequestRow, Retraction, RunRecord, Sample

__all__ = [
    "OUTCOMES", "CapacitySearch", "ClientLoad", "ClientVerdict", "ImportSource", "Ledger", "LevelRecord", "NewRun", "Outcome",
    "RepetitionRecord", "RequestRow", "Retraction", "RunLogs", "RunMetadata", "RunRecord", "Sample", "ServedBy", "ServerLaunch",
    "ServerStop", "SlurmTask", "display_url",
]


def __getattr__(name: str) -> Any:
    # The store pulls in SQLAlchemy; the data models alone should not.
    if name in ("Ledger", "display_url"):
        from benchdoc.ledger import store

        return getattr(store, name)
    raise AttributeError(name)
