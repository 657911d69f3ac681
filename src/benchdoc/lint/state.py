"""Where the ledger stood at the last `benchdoc sync --write`, for `benchdoc lint --changed`.

A small JSON file in the derived-cache folder (which git ignores: the state belongs to one
checkout). Each sync that writes records the ledger's highest run id; the id recorded by
the sync before it is kept too, so that after a sync "what changed" still means the runs
that sync brought into the documents. Deleting it only means `--changed` asks for a date.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchdoc.config import Config

STATE_FILE = Path(".benchdoc") / "cache" / "sync-state.json"


@dataclass(frozen=True)
class SyncPoint:
    """The ledger position of the last writing sync, and of the one before it."""

    last_run_id: int  # the highest run id when the last sync wrote
    synced_at: str  # ISO 8601, UTC
    previous_run_id: int  # the highest run id at the sync before (0 when there was none)


def state_path(config: Config) -> Path:
    return config.root / STATE_FILE


def read_sync_point(config: Config) -> SyncPoint | None:
    """The recorded sync point, or None when no sync has written (or the file is unreadable)."""
    try:
        data = json.loads(state_path(config).read_text(encoding="utf-8"))
        return SyncPoint(int(data["last_run_id"]), str(data["synced_at"]), int(data.get("previous_run_id", 0)))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def record_sync(config: Config, last_run_id: int, now: datetime | None = None) -> SyncPoint:
    """Record that the documents were written from the ledger as of ``last_run_id``."""
    from benchdoc.textfile import write_atomic

    previous = read_sync_point(config)
    if previous is not None and previous.last_run_id == last_run_id:
        return previous  # nothing new since: keep what the earlier sync brought in
    point = SyncPoint(
        last_run_id=last_run_id,
        synced_at=(now or datetime.now(timezone.utc)).isoformat(timespec="seconds"),
        previous_run_id=previous.last_run_id if previous is not None else 0,
    )
    path = state_path(config)
    path.parent.mkdir(parents=True, exist_ok=True)
    ignore = path.parent / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# benchdoc's derived cache: safe to delete, never worth committing\n*\n")
    payload = json.dumps(
        {"last_run_id": point.last_run_id, "synced_at": point.synced_at, "previous_run_id": point.previous_run_id},
        indent=2,
    )
    write_atomic(path, (payload + "\n").encode("utf-8"))
    return point


def record_sync_quietly(config: Config) -> None:
    """Record the current ledger position after a writing sync; a failure here never fails the sync."""
    try:
        from benchdoc.ledger.store import Ledger

        with Ledger.open(config.ledger_url, create=False, read_only=True) as ledger:
            record_sync(config, ledger.last_run_id())
    except Exception:  # noqa: BLE001 - the review list is a convenience; the sync itself succeeded
        pass
