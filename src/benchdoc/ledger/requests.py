"""The per-request records kept with a run (table ``run_requests``): written with the run,
read back by run id."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import sqlalchemy as sa

from benchdoc.ledger.models import RequestRow
from benchdoc.ledger.schema import requests_table


def insert_requests(conn: sa.Connection, run_id: int, rows: Sequence[RequestRow]) -> None:
    """Write ``rows`` for ``run_id`` in one statement, secrets redacted from each record."""
    from benchdoc.untrusted import safe_line, safe_obj

    if not rows:
        return
    conn.execute(
        requests_table.insert(),
        [
            {
                "run_id": run_id,
                "repetition": row.repetition,
                "request_index": row.index,
                "ok": row.ok,
                "error": safe_line(row.error) if row.error is not None else None,
                "ttft_ms": _finite(row.ttft_ms),
                "e2e_ms": _finite(row.e2e_ms),
                "output_tokens": row.output_tokens,
                "record": safe_obj(_json_safe(row.record)),
            }
            for row in rows
        ],
    )


def read_requests(conn: sa.Connection, run_ids: Iterable[int], *, records: bool = True) -> dict[int, list[RequestRow]]:
    """Each run's requests, by repetition and then request number.

    ``records=False`` leaves each whole record (chunk arrival times and all) unread, its
    ``record`` empty: the timing columns alone, for a distribution of many requests.
    """
    ids = list(run_ids)
    found: dict[int, list[RequestRow]] = {run_id: [] for run_id in ids}
    if not ids:
        return found
    table = requests_table
    columns = [c for c in table.c if records or c.name != "record"]
    query = (
        sa.select(*columns)
        .where(table.c.run_id.in_(ids))
        .order_by(table.c.run_id, table.c.repetition, table.c.request_index, table.c.id)
    )
    for row in conn.execute(query).mappings():
        found[row["run_id"]].append(
            RequestRow(
                repetition=row["repetition"],
                index=row["request_index"],
                ok=bool(row["ok"]),
                error=row["error"],
                ttft_ms=row["ttft_ms"],
                e2e_ms=row["e2e_ms"],
                output_tokens=row["output_tokens"],
                record=(row["record"] or {}) if records else {},
            )
        )
    return found


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _json_safe(value: Any) -> Any:
    """``value`` with non-finite floats as None: JSON (and PostgreSQL's json) has no NaN."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value
