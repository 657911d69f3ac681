"""The ledger store: append-only runs and samples over SQLAlchemy Core.

SQLite (the default) is opened in WAL mode with a busy timeout and foreign keys on;
writes take the write lock up front (BEGIN IMMEDIATE) so that concurrent recorders
queue instead of failing with "database is locked". The same code runs on PostgreSQL.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from benchdoc.errors import LedgerError, LedgerUnreachable
from benchdoc.ledger.metadata import RunMetadata
from benchdoc.ledger.models import OUTCOMES, NewRun, Outcome, RequestRow, Retraction, RunRecord, Sample, as_utc
from benchdoc.ledger.requests import insert_requests, read_requests
from benchdoc.ledger.retractions import append_retraction, current_retractions
from benchdoc.ledger.schema import (
    MIGRATIONS,
    SCHEMA_VERSION,
    meta_table,
    metadata,
    retractions_table,
    runs_table,
    samples_table,
)
from benchdoc.redact import redact_argv, redact_text
from benchdoc.untrusted import safe_line, safe_obj, safe_text

if TYPE_CHECKING:
    from benchdoc.ledger.spool import RetryPolicy

SQLITE_BUSY_TIMEOUT_MS = 60_000
# A run's metadata key naming the event it records, for record_run_once.
RECORD_KEY = "record_id"


def display_url(url: str) -> str:
    """The URL with any password hidden, safe to print or log."""
    try:
        shown = sa.engine.make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "<unparseable database URL>"
    return redact_text(shown)  # a password may also sit in the query (?password=, ?sslpassword=)


_utc = as_utc  # the ledger stores every moment in UTC


class Ledger:
    """Every run benchdoc knows of. Open with :meth:`open`; close with :meth:`close` or ``with``."""

    def __init__(self, engine: sa.Engine, url: str) -> None:
        self.engine = engine
        self.url = url
        self.is_sqlite = engine.dialect.name == "sqlite"
        # Set by a command that measures (see benchdoc.ledger.spool): how long a write waits
        # for an unreachable ledger, and where a run is kept when it still cannot be written.
        self.retry: RetryPolicy | None = None
        self.spool: Path | None = None

    # -- opening ---------------------------------------------------------------------

    @classmethod
    def open(cls, url: str, *, create: bool = True, read_only: bool = False) -> Ledger:
        """Open (and, unless ``create`` is false, create or migrate) the ledger at ``url``.

        ``read_only`` (SQLite) opens it for reading only, creating and migrating nothing,
        so it works where its folder cannot be written; a ledger not yet created reads
        as empty when ``create`` is true.
        """
        try:
            parsed = sa.engine.make_url(url)
        except Exception as exc:
            raise LedgerError(f"invalid ledger URL {display_url(url)!r}: {exc}") from exc
        reading = read_only and parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:")
        if reading:
            return cls._open_for_reading(url, Path(parsed.database or ""), create)
        if parsed.get_backend_name() == "sqlite":
            engine = cls._sqlite_engine(parsed, create)
        else:
            if parsed.get_backend_name() == "postgresql" and parsed.drivername == "postgresql":
                parsed = parsed.set(drivername="postgresql+psycopg")  # psycopg 3, not psycopg2
            try:
                engine = sa.create_engine(parsed, pool_pre_ping=True)
            except ModuleNotFoundError as exc:
                raise LedgerError(
                    f"the driver for {parsed.get_backend_name()} is not installed ({exc.name}); "
                    "for PostgreSQL: pip install 'benchdoc[postgres]'"
                ) from exc
            except (sa.exc.NoSuchModuleError, sa.exc.ArgumentError):
                raise LedgerError(
                    f"invalid ledger URL {display_url(url)!r}: benchdoc keeps its ledger in SQLite "
                    "(sqlite:///path/ledger.db) or PostgreSQL (postgresql://user@host/db)"
                ) from None
        ledger = cls(engine, url)
        try:
            ledger._prepare(create)
        except (sa.exc.SQLAlchemyError, TypeError, ValueError) as exc:  # not a database, a bad option, ...
            engine.dispose()
            raise LedgerError(f"cannot open the ledger at {display_url(url)}: {_first_line(exc)}") from None
        except LedgerError:
            engine.dispose()
            raise
        return ledger

    @classmethod
    def _open_for_reading(cls, url: str, path: Path, create: bool) -> Ledger:
        from benchdoc.ledger.readonly import read_only_engine

        if not path.exists():
            if not create:
                raise LedgerError(f"no ledger at {path} (record a run first)")
            return cls.open("sqlite://", create=True)  # nothing recorded yet: an empty ledger, no file made
        engine = read_only_engine(path)
        ledger = cls(engine, url)
        try:
            with engine.connect() as conn:
                stored = ledger._stored_version_or_none(conn)
                if stored in (None, SCHEMA_VERSION) or stored > SCHEMA_VERSION:
                    ledger._check_schema(conn, writable=False)
        except (sa.exc.SQLAlchemyError, LedgerError) as exc:
            engine.dispose()
            if isinstance(exc, LedgerError):
                raise
            raise LedgerError(f"cannot open the ledger at {display_url(url)}: {_first_line(exc)}") from None
        if stored not in (None, SCHEMA_VERSION):  # older: upgraded by a writer, then read (the connection is closed)
            engine.dispose()
            return cls._upgraded_for_reading(url, path, create)
        return ledger

    @classmethod
    def _upgraded_for_reading(cls, url: str, path: Path, create: bool) -> Ledger:
        """An older schema is upgraded (a writer's job) when the folder allows it, then read."""
        try:
            cls.open(url, create=create).close()
        except LedgerError as err:
            raise LedgerError(f"{err.message} (upgrading the ledger to read it needs write access to it)") from None
        return cls._open_for_reading(url, path, create)

    def _stored_version_or_none(self, conn: sa.Connection) -> int | None:
        if not sa.inspect(conn).has_table(meta_table.name):
            return None
        return self._stored_version(conn)

    @staticmethod
    def _sqlite_engine(parsed: sa.URL, create: bool) -> sa.Engine:
        database = parsed.database or ""
        if database and database != ":memory:":
            path = Path(database)
            if not path.exists() and not create:
                raise LedgerError(f"no ledger at {path} (record a run first)")
            path.parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(parsed, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})

        @sa.event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection: Any, _record: Any) -> None:
            # Take transactions into our own hands (see _on_begin); pysqlite's implicit
            # BEGIN would start deferred transactions that fail to upgrade under contention.
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA foreign_keys = ON")
            if database and database != ":memory:":
                cursor.execute("PRAGMA journal_mode = WAL")
                cursor.execute("PRAGMA synchronous = NORMAL")
            cursor.close()

        @sa.event.listens_for(engine, "begin")
        def _on_begin(conn: sa.Connection) -> None:
            write = conn.get_execution_options().get("benchdoc_write", False)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

        return engine

    @contextmanager
    def _reading(self) -> Iterator[sa.Connection]:
        """A connection for queries; a damaged or vanished database is a LedgerError, not a traceback."""
        try:
            with self.engine.connect() as conn:
                yield conn
        except sa.exc.SQLAlchemyError as exc:
            raise LedgerError(f"cannot read the ledger at {display_url(self.url)}: {_first_line(exc)}") from None

    def _write(self) -> Any:
        """A connection whose transaction holds the write lock from its first statement."""
        return self.engine.connect().execution_options(benchdoc_write=True)

    def _prepare(self, create: bool) -> None:
        with self._write() as conn, conn.begin():
            if not self.is_sqlite:
                # Two first-time writers on a fresh PostgreSQL database would race to create tables.
                conn.execute(sa.text("SELECT pg_advisory_xact_lock(4242001)"))
            inspector = sa.inspect(conn)
            if not inspector.has_table(meta_table.name) and not inspector.has_table(runs_table.name) and create:
                metadata.create_all(conn)
                conn.execute(meta_table.insert().values(key="schema_version", value=str(SCHEMA_VERSION)))
                return
            version = self._check_schema(conn, writable=True)
            while version < SCHEMA_VERSION:
                MIGRATIONS[version](conn)
                version += 1
                conn.execute(
                    meta_table.update().where(meta_table.c.key == "schema_version").values(value=str(version))
                )

    def _check_schema(self, conn: sa.Connection, *, writable: bool) -> int:
        """The stored schema version, or a LedgerError when this is no ledger benchdoc can use."""
        inspector = sa.inspect(conn)
        where = display_url(self.url)
        if not inspector.has_table(meta_table.name):
            if inspector.has_table(runs_table.name):
                raise LedgerError(f"{where} has a 'runs' table but is not a benchdoc ledger")
            raise LedgerError(f"{where} is not a benchdoc ledger (no runs recorded yet)")
        version = self._stored_version(conn)
        if version > SCHEMA_VERSION:
            raise LedgerError(
                f"the ledger at {where} has schema version {version}, newer than this "
                f"benchdoc understands ({SCHEMA_VERSION}); upgrade benchdoc"
            )
        if version < SCHEMA_VERSION and not writable:
            raise LedgerError(
                f"the ledger at {where} has schema version {version} and needs upgrading to {SCHEMA_VERSION}: "
                "run a command that records (record, run, import) with write access to it"
            )
        for table in (runs_table, samples_table):
            if not inspector.has_table(table.name):
                raise LedgerError(f"the ledger at {where} is damaged: its '{table.name}' table is missing")
        return version

    @staticmethod
    def _stored_version(conn: sa.Connection) -> int:
        value = conn.execute(sa.select(meta_table.c.value).where(meta_table.c.key == "schema_version")).scalar()
        try:
            version = int(str(value)) if str(value).isascii() and len(str(value)) <= 9 else None
        except (TypeError, ValueError):
            version = None
        if version is None or version < 1:
            raise LedgerError(
                f"the ledger's schema version {str(value)[:20]!r} is not one benchdoc ever wrote: the ledger is "
                "damaged; restore it from a backup or record into a new one"
            )
        return version

    def schema_version(self) -> int:
        with self._reading() as conn:
            return self._stored_version(conn)

    def put_entry(self, key: str, value: str) -> None:
        """Keep ``value`` under ``key`` (at most 64 characters) in the ledger's own table
        of entries, replacing what was there: what the team shares beside the runs (a
        Slurm submission, see benchdoc.cluster.shared)."""
        if not key or len(key) > 64 or key == "schema_version":
            raise LedgerError(f"invalid ledger entry key {key!r}")
        try:
            with self._write() as conn, conn.begin():
                conn.execute(meta_table.delete().where(meta_table.c.key == key))
                conn.execute(meta_table.insert().values(key=key, value=value))
        except sa.exc.SQLAlchemyError as exc:
            raise _write_error(self.url, exc) from exc

    def entries(self, prefix: str) -> dict[str, str]:
        """The entries whose key starts with ``prefix``."""
        with self._reading() as conn:
            if not sa.inspect(conn).has_table(meta_table.name):
                return {}
            rows = conn.execute(sa.select(meta_table.c.key, meta_table.c.value).where(meta_table.c.key.startswith(prefix, autoescape=True)))
            return {str(key): str(value) for key, value in rows}

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- writing ---------------------------------------------------------------------

    def record_run(self, run: NewRun) -> int:
        """Append one run and its samples in a single transaction; return its id.

        Secrets are redacted from the command, environment, metadata and texts before
        anything reaches the database.
        """
        return self.record_runs([run])[0]

    def record_runs(self, runs: Sequence[NewRun]) -> list[int]:
        """Append several runs in one transaction (all or none), e.g. from one imported file."""
        for run in runs:
            _validate(run)
        try:
            with self._write() as conn, conn.begin():
                return [_insert_run(conn, run) for run in runs]
        except sa.exc.SQLAlchemyError as exc:
            raise _write_error(self.url, exc) from exc

    def record_imported(self, runs: Sequence[NewRun]) -> list[int | None]:
        """Append imported runs in one transaction, each unless a run with its import
        fingerprint is already recorded (None in its place). The check and the inserts hold
        the write lock together, so concurrent imports of one file record it once."""
        for run in runs:
            _validate(run)
        try:
            with self._write() as conn, conn.begin():
                if not self.is_sqlite:
                    conn.execute(sa.text("SELECT pg_advisory_xact_lock(4242003)"))
                query = sa.select(runs_table.c.run_metadata).where(runs_table.c.source.like("import:%"))
                seen = {meta["import"].get("fingerprint") for meta in conn.execute(query).scalars()
                        if isinstance(meta, dict) and isinstance(meta.get("import"), dict)}
                ids: list[int | None] = []
                for run in runs:
                    fingerprint = run.metadata.imported.fingerprint if run.metadata.imported else None
                    ids.append(None if fingerprint and fingerprint in seen else _insert_run(conn, run))
                    seen.add(fingerprint)
                return ids
        except sa.exc.SQLAlchemyError as exc:
            raise _write_error(self.url, exc) from exc

    def retract(self, run_id: int, reason: str) -> Retraction:
        """Take run ``run_id`` back (it stays in the ledger and its history) with ``reason``."""
        if not reason.strip():
            raise LedgerError("a retraction needs a reason")
        run = self.run(run_id)
        if run.retraction is not None:
            raise LedgerError(f"run {run_id} is already retracted ({run.retraction.reason})")
        with self._write() as conn, conn.begin():
            append_retraction(conn, run_id, retracted=True, reason=reason.strip(), at=_utc(None))
        retraction = self.run(run_id).retraction
        assert retraction is not None
        return retraction

    def unretract(self, run_id: int) -> Retraction:
        """Undo the retraction of run ``run_id``; the retraction it undid."""
        run = self.run(run_id)
        if run.retraction is None:
            raise LedgerError(f"run {run_id} is not retracted")
        with self._write() as conn, conn.begin():
            append_retraction(conn, run_id, retracted=False, reason=None, at=_utc(None))
        return run.retraction

    def record_run_once(self, run: NewRun, *, over_reconciled: bool = False) -> int | None:
        """Record ``run`` unless a run of its experiment already has the same
        ``metadata["record_id"]``; its id, or None when one had. Check and insert share
        one transaction (on PostgreSQL under a lock), so two recorders racing to record
        the same event (a job's end seen by its task and by a status check) record it once.
        ``over_reconciled``: a run a status check recorded from Slurm's view does not count
        (a measured run replayed from the spool is recorded beside it). A run of an earlier
        attempt of a requeued Slurm task (``slurm.attempt``) does not count either."""
        key = run.metadata.record_id
        if not key:
            raise LedgerError("record_run_once needs the run's metadata.record_id")
        _validate(run)
        try:
            with self._write() as conn, conn.begin():
                if not self.is_sqlite:
                    conn.execute(sa.text("SELECT pg_advisory_xact_lock(4242002)"))
                rows = conn.execute(
                    sa.select(runs_table.c.run_metadata).where(runs_table.c.experiment == run.experiment)
                ).scalars()
                attempt = _attempt(run.metadata.to_json())
                if any(isinstance(meta, dict) and meta.get(RECORD_KEY) == key
                       and not (over_reconciled and _reconciled(meta)) and _attempt(meta) >= attempt for meta in rows):
                    return None
                return _insert_run(conn, run)
        except sa.exc.SQLAlchemyError as exc:
            raise _write_error(self.url, exc) from exc

    # -- reading ---------------------------------------------------------------------

    def runs(
        self,
        experiment: str | Iterable[str] | None = None,
        *,
        outcome: Outcome | None = None,
        since: datetime | None = None,
        ids: Iterable[int] | None = None,
        limit: int | None = None,
        with_samples: bool = True,
    ) -> list[RunRecord]:
        """Runs matching the filters, newest first (by start time, then id)."""
        query = sa.select(runs_table)
        if isinstance(experiment, str):
            query = query.where(runs_table.c.experiment == experiment)
        elif experiment is not None:
            query = query.where(runs_table.c.experiment.in_(list(experiment)))
        if outcome is not None:
            query = query.where(runs_table.c.outcome == str(outcome))
        if since is not None:
            query = query.where(runs_table.c.started_at >= _utc(since))
        if ids is not None:
            query = query.where(runs_table.c.id.in_(list(ids)))
        query = query.order_by(runs_table.c.started_at.desc(), runs_table.c.id.desc())
        if limit is not None:
            query = query.limit(limit)
        with self._reading() as conn:
            rows = conn.execute(query).mappings().all()
            samples: dict[int, list[Sample]] = {}
            if with_samples and rows:
                run_ids = query.with_only_columns(runs_table.c.id).order_by(None).subquery()
                sample_rows = conn.execute(
                    sa.select(
                        samples_table.c.run_id, samples_table.c.metric, samples_table.c.repetition,
                        samples_table.c.value, samples_table.c.server_start,
                    )
                    .where(samples_table.c.run_id.in_(sa.select(run_ids.c.id)))
                    .order_by(samples_table.c.run_id, samples_table.c.repetition, samples_table.c.id)
                )
                for run_id, metric, repetition, value, start in sample_rows:
                    samples.setdefault(run_id, []).append(Sample(metric, value, repetition, start))
            retracted = current_retractions(conn, query.with_only_columns(runs_table.c.id).order_by(None).subquery()) if rows else {}
        return [_record(row, samples.get(row["id"], []), retracted.get(row["id"])) for row in rows]

    def requests(self, run_ids: Iterable[int]) -> dict[int, list[RequestRow]]:
        """The per-request records kept with each run (an empty list when none were kept)."""
        with self._reading() as conn:
            return read_requests(conn, run_ids)

    def request_timings(self, run_ids: Iterable[int]) -> dict[int, list[RequestRow]]:
        """As :meth:`requests`, without each whole record: outcome, TTFT, end-to-end time and tokens."""
        with self._reading() as conn:
            return read_requests(conn, run_ids, records=False)

    def run(self, run_id: int) -> RunRecord:
        found = self.runs(ids=[run_id])
        if not found:
            raise LedgerError(f"no run with id {run_id}")
        return found[0]

    def experiment_names(self) -> list[str]:
        """Every experiment that has at least one run, sorted."""
        with self._reading() as conn:
            return list(conn.execute(sa.select(runs_table.c.experiment).distinct().order_by(runs_table.c.experiment)).scalars())

    def run_count(self) -> int:
        with self._reading() as conn:
            return int(conn.execute(sa.select(sa.func.count()).select_from(runs_table)).scalar() or 0)

    def change_token(self) -> str:
        """Changes whenever what the ledger says changes: a run added, or one retracted or restored."""
        with self._reading() as conn:
            runs = conn.execute(sa.select(sa.func.count(), sa.func.max(runs_table.c.id))).one()
            retractions = conn.execute(sa.select(sa.func.max(retractions_table.c.id))).scalar()
        return f"{runs[0]}:{runs[1] or 0}:{retractions or 0}"

    def last_run_id(self) -> int:
        """The highest run id (0 when empty): a cheap token that changes whenever a run is added."""
        with self._reading() as conn:
            return int(conn.execute(sa.select(sa.func.max(runs_table.c.id))).scalar() or 0)


def _reconciled(meta: dict[str, Any]) -> bool:
    slurm = meta.get("slurm")
    return isinstance(slurm, dict) and bool(slurm.get("reconciled"))


def _attempt(meta: dict[str, Any]) -> int:
    slurm = meta.get("slurm")
    attempt = slurm.get("attempt") if isinstance(slurm, dict) else None
    return attempt if isinstance(attempt, int) else 0


def _write_error(url: str, exc: sa.exc.SQLAlchemyError) -> LedgerError:
    """A failed write as a LedgerError; LedgerUnreachable when trying again may succeed
    (the server down or restarting, the connection lost, SQLite locked)."""
    message = f"could not record the run in {display_url(url)}: {_first_line(exc)}"
    if isinstance(exc, (sa.exc.OperationalError, sa.exc.InterfaceError)) or getattr(exc, "connection_invalidated", False):
        return LedgerUnreachable(message)
    return LedgerError(message)


def _validate(run: NewRun) -> None:
    if not run.experiment or not run.experiment.strip():
        raise LedgerError("a run needs an experiment name")
    if Outcome.parse(run.outcome) is None:
        raise LedgerError(f"unknown outcome {str(run.outcome)!r} (expected one of {', '.join(OUTCOMES)})")
    if run.outcome == Outcome.OK and not run.samples:
        raise LedgerError(f"a successful run of '{run.experiment}' needs at least one sample")
    for sample in run.samples:
        if not isinstance(sample.value, (int, float)) or isinstance(sample.value, bool) or not math.isfinite(sample.value):
            raise LedgerError(f"metric {sample.metric!r} has a value that is not a finite number: {sample.value!r}")


def _maybe(func: Any, value: str | None) -> str | None:
    return None if value is None else func(value)


def _insert_run(conn: sa.Connection, run: NewRun) -> int:
    """Write one run, its samples and its request records; its id."""
    started = _utc(run.started_at)
    finished = _utc(run.finished_at) if run.finished_at else max(started, _utc(None))
    result = conn.execute(
        runs_table.insert().values(
            experiment=run.experiment,
            started_at=started,
            finished_at=finished,
            outcome=Outcome(run.outcome).value,
            failure_reason=_maybe(safe_line, run.failure_reason),
            failure_log_line=_maybe(safe_line, run.failure_log_line),
            failure_cause=_maybe(safe_line, run.failure_cause),
            command=redact_argv(list(run.command)) if run.command is not None else None,
            host=run.host,
            git_commit=run.git_commit,
            git_dirty=run.git_dirty,
            environment=safe_obj(run.environment or {}),
            note=_maybe(safe_text, run.note),
            source=run.source,
            run_metadata=safe_obj(run.metadata.to_json()),
        )
    )
    key = result.inserted_primary_key
    assert key is not None
    run_id = int(key[0])
    if run.samples:
        conn.execute(
            samples_table.insert(),
            [
                {"run_id": run_id, "metric": s.metric, "repetition": s.repetition, "value": float(s.value),
                 "server_start": s.start}
                for s in run.samples
            ],
        )
    insert_requests(conn, run_id, run.requests)
    return run_id


def _record(row: Any, samples: list[Sample], retraction: Retraction | None = None) -> RunRecord:
    return RunRecord(
        id=int(row["id"]),
        experiment=row["experiment"],
        outcome=Outcome(row["outcome"]),
        started_at=_utc(row["started_at"]),
        finished_at=_utc(row["finished_at"]),
        failure_reason=row["failure_reason"],
        failure_log_line=row["failure_log_line"],
        command=row["command"],
        host=row["host"],
        git_commit=row["git_commit"],
        git_dirty=row["git_dirty"],
        environment=row["environment"] or {},
        note=row["note"],
        source=row["source"],
        metadata=RunMetadata.from_json(row["run_metadata"]),
        samples=tuple(samples),
        failure_cause=row["failure_cause"],
        retraction=retraction,
    )


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc)
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__
