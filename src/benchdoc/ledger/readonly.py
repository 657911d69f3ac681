"""Opening a SQLite ledger for reading only, even where its folder cannot be written.

Commands that only read (show, history, compare, export, check, sync, report, plot,
lint) must work on a ledger in a read-only folder or on a read-only mount. SQLite's
read-only mode still needs the write-ahead log's shared-memory file; when it cannot be
created and the log holds nothing (every write was checkpointed), the file is opened
as immutable, which needs no side file at all. A log with content it cannot read is
an error, never a silently stale answer.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

import sqlalchemy as sa

from benchdoc.errors import LedgerError

BUSY_TIMEOUT_MS = 60_000


def read_only_engine(path: Path) -> sa.Engine:
    """An engine whose every connection reads ``path`` and can never write it."""
    target = path.resolve()
    uri = f"file:{quote(str(target))}"

    def connect() -> sqlite3.Connection:
        # Where the folder is writable, a read-write connection (kept read-only by
        # query_only) cleans up the log's side files on close as a writer would.
        error: sqlite3.DatabaseError | None = None
        for mode in ("rw", "ro"):
            try:
                connection = sqlite3.connect(f"{uri}?mode={mode}", uri=True, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
                connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
                return connection
            except sqlite3.DatabaseError as err:
                error = err
        if not _log_is_empty(target):
            raise LedgerError(
                f"cannot read the ledger at {target}: {error}; its write-ahead log holds recent runs "
                "that can only be read with write access to its folder"
            ) from None
        return sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, check_same_thread=False)

    engine = sa.create_engine("sqlite://", creator=connect)

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # plain BEGIN, as the writing engine does
        dbapi_connection.execute("PRAGMA query_only = ON")

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        conn.exec_driver_sql("BEGIN")

    return engine


def _log_is_empty(database: Path) -> bool:
    wal = database.with_name(database.name + "-wal")
    try:
        return wal.stat().st_size == 0
    except FileNotFoundError:
        return True
    except OSError:
        return False
