"""The ledger: every run and its samples, append-only, in SQLite or PostgreSQL."""

from __future__ import annotations

from typing import Any

from benchdoc.ledger.metadata import (
    CapacityPlan,
    CapacitySearch,
    ClientLoad,
    ClientVerdict,
    CommandResults,
    ImportSource,
    LevelRecord,
    RepetitionRecord,
    RunLogs,
    RunMetadata,
    SequentialLook,
    SequentialTest,
    ServedBy,
    ServerLaunch,
    ServerMetrics,
    ServerSeries,
    ServerStop,
    SlurmTask,
    WorkloadRecord,
)
from benchdoc.ledger.models import OUTCOMES, NewRun, Outcome, RequestRow, Retraction, RunRecord, Sample

__all__ = [
    "OUTCOMES", "CapacityPlan", "CapacitySearch", "ClientLoad", "ClientVerdict", "CommandResults", "ImportSource", "Ledger",
    "LevelRecord", "NewRun", "Outcome", "RepetitionRecord", "RequestRow", "Retraction", "RunLogs", "RunMetadata", "RunRecord",
    "Sample", "SequentialLook", "SequentialTest", "ServedBy", "ServerLaunch", "ServerMetrics", "ServerSeries", "ServerStop",
    "SlurmTask", "WorkloadRecord", "display_url",
]


def __getattr__(name: str) -> Any:
    # The store pulls in SQLAlchemy; the data models alone should not.
    if name in ("Ledger", "display_url"):
        from benchdoc.ledger import store

        return getattr(store, name)
    raise AttributeError(name)
