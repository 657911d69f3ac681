"""Never lose a measured run: PostgreSQL stopped while a run measures and started again
after it ended. The run is kept in the spool, recorded once by the next command, with its
samples, and nothing reads as failed. Plus the spool's own pieces: a run kept whole,
retry delays bounded, a replay that finds its run already recorded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from tests.ledger.postgres_server import postgres_instance
from tests.runner.conftest import write_project

from benchdoc.errors import LedgerUnreachable
from benchdoc.ledger import Ledger, NewRun, RequestRow, Sample
from benchdoc.ledger.metadata import RunMetadata
from benchdoc.ledger.spool import SPOOL_DIR, RetryPolicy, RunSpooled, keep, pending, replay, run_from_json, write
from benchdoc.runner import events as ev
from benchdoc.runner import run_experiments


def a_run(**changes: Any) -> NewRun:
    run = NewRun(
        experiment="baseline", samples=[Sample("output_tok_s", 101.5, 0), Sample("output_tok_s", 99.0, 1)],
        started_at=datetime(2026, 5, 4, 9, 30, tzinfo=timezone.utc), finished_at=datetime(2026, 5, 4, 9, 31, tzinfo=timezone.utc),
        command=["serve", "--api-key", "sk-abcdefghijklmnopqrstuvwx0123"], host="gpu7", source="run",
        environment={"gpu": "H100"}, metadata=RunMetadata(repetitions=2),
        requests=[RequestRow(0, 0, True, None, 12.5, 80.0, 16, {"ttft_ms": 12.5})],
    )
    for key, value in changes.items():
        setattr(run, key, value)
    return run


def test_a_kept_run_comes_back_whole_with_a_key_and_no_secret(tmp_path: Path) -> None:
    path = keep(tmp_path / "spool", a_run())
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert "sk-abcdefghijklmnopqrstuvwx0123" not in path.read_text()
    back = run_from_json(json.loads(path.read_text()))
    assert back.samples == a_run().samples and back.requests == a_run().requests
    assert back.started_at == a_run().started_at and back.environment == {"gpu": "H100"}
    assert back.metadata.repetitions == 2 and (back.metadata.record_id or "").startswith("run:")


def test_retry_delays_double_and_stay_within_the_budget() -> None:
    assert RetryPolicy(budget_s=10, first_delay_s=1, max_delay_s=4).delays() == [1, 2, 4, 3]
    assert RetryPolicy(budget_s=0).delays() == []


def test_an_unreachable_ledger_is_retried_then_the_run_kept(tmp_path: Path) -> None:
    # A server that does not answer (port 1): unreachable, worth retrying.
    unreachable = Ledger(sa.create_engine("postgresql+psycopg://bench@127.0.0.1:1/nope"), "postgresql://bench@127.0.0.1:1/nope")
    store = Ledger.open(f"sqlite:///{tmp_path / 'l.db'}")
    unreachable.retry = RetryPolicy(budget_s=0.3, first_delay_s=0.1)
    slept: list[float] = []
    with pytest.raises(LedgerUnreachable):
        write(unreachable, a_run(), once=False, sleep=slept.append)  # no spool: the error, after the retries
    assert slept == pytest.approx([0.1, 0.2])
    unreachable.spool = tmp_path / "spool"
    with pytest.raises(RunSpooled) as spooled:
        write(unreachable, a_run(), once=False, sleep=lambda s: None)
    assert spooled.value.exit_code == 75 and "benchdoc replay" in str(spooled.value)
    assert pending(tmp_path / "spool") == [spooled.value.path]
    # Replayed into a reachable ledger: recorded once; a second copy of it finds it there.
    (tmp_path / "spool" / "copy.json").write_bytes(spooled.value.path.read_bytes())
    done = replay(store, tmp_path / "spool")
    assert len(done.recorded) == 1 and done.already == 1 and done.kept == []
    assert pending(tmp_path / "spool") == []
    assert [len(r.samples) for r in store.runs()] == [2]


@pytest.mark.timeout(180)
def test_postgres_stopped_mid_run_the_run_is_recorded_once_after_restart(tmp_path: Path) -> None:
    with postgres_instance() as server:
        config = write_project(tmp_path, """
            [experiments.baseline]
            server = "sim"
            workload = "small"
            repetitions = 2
            """)
        stopped: list[bool] = []

        def on_event(event: Any) -> None:
            if isinstance(event, ev.ServerReady) and not stopped:
                server.stop()  # while the run measures
                stopped.append(True)

        with Ledger.open(server.url) as ledger:
            ledger.retry = RetryPolicy(budget_s=1.0, first_delay_s=0.2)
            ledger.spool = tmp_path / SPOOL_DIR
            with pytest.raises(RunSpooled) as spooled:
                run_experiments(config, ledger, ["baseline"], on_event=on_event)
        assert stopped and spooled.value.path.exists()
        server.start()
        env = {**os.environ, "BENCHDOC_LEDGER_URL": server.url}
        shown = subprocess.run([sys.executable, "-m", "benchdoc", "show", "baseline"], cwd=tmp_path, env=env,
                               capture_output=True, text=True, timeout=120)
        assert shown.returncode == 0, shown.stderr
        assert "recorded run" in shown.stderr and "while the ledger was unreachable" in shown.stderr
        assert "Failed" not in shown.stdout
        again = subprocess.run([sys.executable, "-m", "benchdoc", "replay"], cwd=tmp_path, env=env,
                               capture_output=True, text=True, timeout=120)
        assert again.returncode == 0 and "nothing to replay" in again.stdout
        with Ledger.open(server.url) as ledger:
            runs = ledger.runs()
        assert [(r.experiment, r.outcome) for r in runs] == [("baseline", "ok")]
        assert len(runs[0].samples) >= 2 and {s.repetition for s in runs[0].samples} == {0, 1}
