"""Turn a fresh ledger into what a version-1 benchdoc left: no failure_cause column, no
run_requests or retractions table, no server start of a sample, schema_version 1; and what a
version-2 benchdoc left (no server start)."""

from __future__ import annotations

import sqlalchemy as sa


def downgrade_to_version_1(url: str) -> None:
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:
        conn.execute(sa.text("DROP TABLE run_requests"))
        conn.execute(sa.text("DROP TABLE retractions"))
        conn.execute(sa.text("ALTER TABLE runs DROP COLUMN failure_cause"))
        conn.execute(sa.text("ALTER TABLE samples DROP COLUMN server_start"))
        conn.execute(sa.text("UPDATE benchdoc_meta SET value = '1' WHERE key = 'schema_version'"))
    engine.dispose()


def downgrade_to_version_2(url: str) -> None:
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:
        conn.execute(sa.text("ALTER TABLE samples DROP COLUMN server_start"))
        conn.execute(sa.text("UPDATE benchdoc_meta SET value = '2' WHERE key = 'schema_version'"))
    engine.dispose()
