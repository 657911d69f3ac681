"""The ledger store: round trips, atomic runs, crash safety, concurrent writers."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import sqlalchemy as sa

from benchdoc.errors import LedgerError
from benchdoc.ledger import Ledger, NewRun, RunMetadata, Sample


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'sub' / 'ledger.db'}"


def test_round_trip_keeps_every_field(url: str) -> None:
    started = datetime(2026, 11, 2, 10, 0, tzinfo=timezone.utc)
    with Ledger.open(url) as ledger:
        run_id = ledger.record_run(
            NewRun(
                experiment="eagle3",
                samples=[Sample("output_tok_s", 54.1, 0), Sample("output_tok_s", 54.3, 1), Sample("ttft_ms", 40.0, 0)],
                started_at=started,
                finished_at=started + timedelta(minutes=3),
                command=["python", "-m", "sglang.launch_server", "--speculative-num-steps", "2"],
                host="gpu-box",
                git_commit="abc123",
                git_dirty=True,
                environment={"gpu": {"models": ["H100"]}},
                note="first try",
                metadata=RunMetadata(settings={"concurrency": 1}),
            )
        )
        run = ledger.run(run_id)
    assert run.experiment == "eagle3" and run.outcome == "ok"
    assert run.started_at == started and run.finished_at == started + timedelta(minutes=3)
    assert run.values("output_tok_s") == [54.1, 54.3] and run.values("ttft_ms") == [40.0]
    assert run.command[-1] == "2" and run.git_dirty is True and run.host == "gpu-box"
    assert run.environment == {"gpu": {"models": ["H100"]}} and run.metadata.settings == {"concurrency": 1}


def test_failed_run_keeps_its_reason(url: str) -> None:
    with Ledger.open(url) as ledger:
        ledger.record_run(NewRun("nccl-tree", outcome="failed", failure_reason="CUDA graph incompatible",
                                 failure_log_line="RuntimeError: CUDA graph capture failed"))
        (run,) = ledger.runs("nccl-tree")
    assert run.outcome == "failed" and run.failure_reason == "CUDA graph incompatible"
    assert run.failure_log_line.startswith("RuntimeError") and run.samples == ()


def test_runs_are_newest_first_and_filterable(url: str) -> None:
    base = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with Ledger.open(url) as ledger:
        for day in range(3):
            ledger.record_run(NewRun("a", samples=[Sample("m", day)], started_at=base + timedelta(days=day)))
        ledger.record_run(NewRun("b", samples=[Sample("m", 9)], started_at=base))
        assert [r.values("m")[0] for r in ledger.runs("a")] == [2, 1, 0]
        assert [r.experiment for r in ledger.runs(["a", "b"], since=base + timedelta(days=1))] == ["a", "a"]
        assert ledger.experiment_names() == ["a", "b"]
        assert ledger.run_count() == 4 and ledger.last_run_id() == 4


@pytest.mark.parametrize(
    ("run", "message"),
    [
        (NewRun("a"), "needs at least one sample"),
        (NewRun("a", samples=[Sample("m", float("nan"))]), "not a finite number"),
        (NewRun("a", outcome="crashed", samples=[Sample("m", 1)]), "unknown outcome"),  # type: ignore[arg-type]
        (NewRun(" ", samples=[Sample("m", 1)]), "needs an experiment name"),
    ],
)
def test_invalid_runs_are_refused_and_nothing_is_written(url: str, run: NewRun, message: str) -> None:
    with Ledger.open(url) as ledger:
        with pytest.raises(LedgerError, match=message):
            ledger.record_runs([NewRun("ok", samples=[Sample("m", 1)]), run])
        assert ledger.run_count() == 0


def test_newer_schema_is_refused(url: str) -> None:
    Ledger.open(url).close()
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE benchdoc_meta SET value = '99' WHERE key = 'schema_version'"))
    engine.dispose()
    with pytest.raises(LedgerError, match="schema version 99, newer than this benchdoc understands"):
        Ledger.open(url)


def test_missing_ledger_is_not_created_when_reading(tmp_path: Path) -> None:
    with pytest.raises(LedgerError, match="no ledger at"):
        Ledger.open(f"sqlite:///{tmp_path / 'none.db'}", create=False)
    assert not (tmp_path / "none.db").exists()


def test_sqlite_runs_in_wal_mode_with_foreign_keys(url: str) -> None:
    with Ledger.open(url) as ledger, ledger.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 10_000


def test_crash_between_writes_leaves_no_partial_run(url: str, tmp_path: Path) -> None:
    """SIGKILL the recording process after the run row is written but before its samples."""
    script = textwrap.dedent(
        f"""
        import os, signal
        import sqlalchemy as sa
        from benchdoc.ledger import Ledger, NewRun, Sample
        ledger = Ledger.open({url!r})
        ledger.record_run(NewRun("a", samples=[Sample("m", 1.0)]))

        @sa.event.listens_for(ledger.engine, "before_cursor_execute")
        def die(conn, cursor, statement, *args):
            if statement.lstrip().upper().startswith("INSERT INTO SAMPLES"):
                os.kill(os.getpid(), signal.SIGKILL)

        ledger.record_run(NewRun("a", samples=[Sample("m", 2.0), Sample("m", 3.0, 1)]))
        print("not reached")
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == -9, proc.stderr
    assert "not reached" not in proc.stdout
    with Ledger.open(url) as ledger:
        runs = ledger.runs("a")
        assert [r.values("m") for r in runs] == [[1.0]]
        with ledger.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"
            orphans = conn.exec_driver_sql("SELECT count(*) FROM samples WHERE run_id NOT IN (SELECT id FROM runs)")
            assert orphans.scalar() == 0


def test_two_processes_recording_at_once_lose_nothing(url: str) -> None:
    Ledger.open(url).close()
    script = textwrap.dedent(
        """
        import sys
        from benchdoc.ledger import Ledger, NewRun, Sample
        url, name = sys.argv[1], sys.argv[2]
        with Ledger.open(url) as ledger:
            for i in range(200):
                ledger.record_run(NewRun(name, samples=[Sample("m", float(i)), Sample("m", float(i), 1)]))
        """
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, url, name], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for name in ("left", "right")
    ]
    for proc in procs:
        _out, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err
        assert "locked" not in err
    with Ledger.open(url) as ledger:
        assert ledger.run_count() == 400
        for name in ("left", "right"):
            runs = ledger.runs(name)
            assert len(runs) == 200 and all(len(r.samples) == 2 for r in runs)
