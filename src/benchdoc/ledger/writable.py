"""Prove a ledger can take a run before anything is measured.

A benchmark can take an hour; finding out only afterwards that the ledger is read-only,
on a full disk or in memory (``sqlite:///:memory:`` keeps nothing once the command
ends) throws the measurement away. Every command that measures and then records calls
:func:`prove_writable` first: a write transaction is opened, writes one row, and is
rolled back, and a SQLite ledger's folder must have room for the records to come.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa

from benchdoc.errors import LedgerError

if TYPE_CHECKING:
    from benchdoc.ledger.store import Ledger

# Room a run needs beyond its requests (its row, samples, environment, WAL growth).
BASE_BYTES = 4 * 1024 * 1024
BYTES_PER_REQUEST = 2048  # a kept request's record, chunk arrival times included


def refuse_in_memory(url: str) -> None:
    """A ledger in memory keeps nothing after the command: refused for commands that record."""
    parsed = sa.engine.make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:"):
        raise LedgerError(
            f"the ledger {url!r} lives in memory and keeps nothing after this command; "
            "give it a file (sqlite:///.benchdoc/ledger.db) or a PostgreSQL URL"
        )


def prove_writable(ledger: Ledger, expected_requests: int = 0) -> None:
    """Raise LedgerError (nothing measured yet) unless ``ledger`` accepts a write now and,
    for SQLite, its folder has room for a run of ``expected_requests`` requests."""
    from benchdoc.ledger.schema import meta_table
    from benchdoc.ledger.store import display_url

    refuse_in_memory(ledger.url)
    try:
        with ledger.engine.connect().execution_options(benchdoc_write=True) as conn:
            transaction = conn.begin()
            try:
                conn.execute(meta_table.insert().values(key="benchdoc_write_probe", value="rolled back"))
            finally:
                transaction.rollback()
    except sa.exc.SQLAlchemyError as exc:
        original = getattr(exc, "orig", None)
        reason = (str(original if original is not None else exc).splitlines() or ["refused"])[0]
        raise LedgerError(
            f"cannot write to the ledger at {display_url(ledger.url)}: {reason}; nothing was measured"
        ) from None
    database = sa.engine.make_url(ledger.url).database
    if ledger.is_sqlite and database:
        folder = Path(database).resolve().parent
        need = BASE_BYTES + BYTES_PER_REQUEST * max(0, expected_requests)
        free = shutil.disk_usage(folder).free
        if free < need:
            raise LedgerError(
                f"only {free // 1024:,} KiB free where the ledger lives ({folder}); a run of "
                f"{expected_requests:,} requests needs about {need // 1024:,} KiB; nothing was measured"
            )
