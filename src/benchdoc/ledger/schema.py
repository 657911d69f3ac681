"""The ledger's tables, its schema version, and the migrations between versions.

Kept portable across SQLite and PostgreSQL: only types both have, JSON for the
free-form parts (environment, command, metadata), timestamps stored in UTC.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa

SCHEMA_VERSION = 1

metadata = sa.MetaData()

meta_table = sa.Table(
    "benchdoc_meta",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)

runs_table = sa.Table(
    "runs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("experiment", sa.String(200), nullable=False),
    sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("outcome", sa.String(16), nullable=False),
    sa.Column("failure_reason", sa.Text),
    sa.Column("failure_log_line", sa.Text),
    sa.Column("command", sa.JSON),
    sa.Column("host", sa.String(255)),
    sa.Column("git_commit", sa.String(64)),
    sa.Column("git_dirty", sa.Boolean),
    sa.Column("environment", sa.JSON, nullable=False),
    sa.Column("note", sa.Text),
    sa.Column("source", sa.String(64), nullable=False),
    sa.Column("run_metadata", sa.JSON, nullable=False),
    sa.CheckConstraint("outcome IN ('ok', 'failed', 'error')", name="runs_outcome_known"),
    sa.Index("runs_by_experiment", "experiment", "started_at"),
)

samples_table = sa.Table(
    "samples",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    sa.Column("metric", sa.String(200), nullable=False),
    sa.Column("repetition", sa.Integer, nullable=False),
    sa.Column("value", sa.Float(precision=53), nullable=False),
    sa.Index("samples_by_run", "run_id"),
    sa.Index("samples_by_metric", "metric"),
)

# Migrations from version N to N+1, in order. Each runs inside the transaction that
# bumps the stored version, so a ledger is never left half-migrated.
MIGRATIONS: dict[int, Callable[[sa.Connection], None]] = {}
