"""The ledger's tables, its schema version, and the migrations between versions.

Kept portable across SQLite and PostgreSQL: only types both have, JSON for the
free-form parts (environment, command, metadata), timestamps stored in UTC.

Version 2 added the cause of a failure read from the log (``runs.failure_cause``), the
per-request records of a run (``run_requests``) and retractions (``retractions``: runs
stay append-only; taking one back, or undoing that, is a row of its own).

Version 3 added the server start of each sample (``samples.server_start``, numbered from 0
within its run): comparisons are made between starts. A run recorded before it is one
start, which is what the column's default says.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa

from benchdoc.ledger.models import Outcome

SCHEMA_VERSION = 3

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
    sa.Column("failure_cause", sa.Text),
    sa.Column("command", sa.JSON),
    sa.Column("host", sa.String(255)),
    sa.Column("git_commit", sa.String(64)),
    sa.Column("git_dirty", sa.Boolean),
    sa.Column("environment", sa.JSON, nullable=False),
    sa.Column("note", sa.Text),
    sa.Column("source", sa.String(64), nullable=False),
    sa.Column("run_metadata", sa.JSON, nullable=False),
    sa.CheckConstraint(f"outcome IN ({', '.join(repr(o.value) for o in Outcome)})", name="runs_outcome_known"),
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
    sa.Column("server_start", sa.Integer, nullable=False, server_default="0"),
    sa.Index("samples_by_run", "run_id"),
    sa.Index("samples_by_metric", "metric"),
)

requests_table = sa.Table(
    "run_requests",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    sa.Column("repetition", sa.Integer, nullable=False),
    sa.Column("request_index", sa.Integer, nullable=False),
    sa.Column("ok", sa.Boolean, nullable=False),
    sa.Column("error", sa.Text),
    sa.Column("ttft_ms", sa.Float(precision=53)),
    sa.Column("e2e_ms", sa.Float(precision=53)),
    sa.Column("output_tokens", sa.Integer),
    sa.Column("record", sa.JSON, nullable=False),
    sa.Index("run_requests_by_run", "run_id", "repetition", "request_index"),
)

retractions_table = sa.Table(
    "retractions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    sa.Column("retracted", sa.Boolean, nullable=False),  # false: a retraction undone
    sa.Column("reason", sa.Text),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("retractions_by_run", "run_id", "id"),
)


def _to_version_2(conn: sa.Connection) -> None:
    conn.execute(sa.text("ALTER TABLE runs ADD COLUMN failure_cause TEXT"))
    requests_table.create(conn)
    retractions_table.create(conn)


def _to_version_3(conn: sa.Connection) -> None:
    conn.execute(sa.text("ALTER TABLE samples ADD COLUMN server_start INTEGER NOT NULL DEFAULT 0"))


# Migrations from version N to N+1, in order. Each runs inside the transaction that
# bumps the stored version, so a ledger is never left half-migrated.
MIGRATIONS: dict[int, Callable[[sa.Connection], None]] = {1: _to_version_2, 2: _to_version_3}
