"""Taking a run back without deleting it (table ``retractions``).

Runs are append-only; so are retractions. Retracting a run appends a row with its reason;
undoing it appends another. A run's state is its latest row.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

import sqlalchemy as sa

from benchdoc.ledger.models import Retraction, as_utc
from benchdoc.ledger.schema import retractions_table


def append_retraction(conn: sa.Connection, run_id: int, *, retracted: bool, reason: str | None, at: datetime) -> None:
    from benchdoc.untrusted import safe_text

    conn.execute(
        retractions_table.insert().values(
            run_id=run_id, retracted=retracted, reason=safe_text(reason) if reason is not None else None, at=at
        )
    )


def current_retractions(conn: sa.Connection, run_ids: Iterable[int] | sa.Subquery | None = None) -> dict[int, Retraction]:
    """The runs whose latest retraction row takes them back, with its reason and time."""
    table = retractions_table
    query = sa.select(table.c.run_id, table.c.retracted, table.c.reason, table.c.at).order_by(table.c.run_id, table.c.id)
    if isinstance(run_ids, sa.Subquery):
        query = query.where(table.c.run_id.in_(sa.select(run_ids.c.id)))
    elif run_ids is not None:
        query = query.where(table.c.run_id.in_(list(run_ids)))
    state: dict[int, Retraction | None] = {}
    for run_id, retracted, reason, at in conn.execute(query):
        state[run_id] = Retraction(reason or "", as_utc(at)) if retracted else None
    return {run_id: retraction for run_id, retraction in state.items() if retraction is not None}
