"""Turn a fresh ledger into what a version-1 benchdoc left: no failure_cause column, no
run_requests or retractions table, schema_version 1."""

from __future__ import annotations

import sqlalchemy as sa


def downgrade_to_version_1(url: str) -> None:
    engine = sa.create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as conn:
        conn.execute(sa.text("DROP TABLE run_requests"))
        conn.execute(sa.text("DROP TABLE retractions"))
        conn.execute(sa.text("ALTER TABLE runs DROP COLUMN failure_cause"))
        conn.execute(sa.text("UPDATE benchdoc_meta SET value = '1' WHERE key = 'schema_version'"))
    engine.dispose()
