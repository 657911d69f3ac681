"""The ledger's schema migrations: a version-1 ledger opens, migrates once, and keeps its runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import sqlalchemy as sa
from tests.ledger.schema_v1 import downgrade_to_version_1, downgrade_to_version_2

from benchdoc.ledger import Ledger, NewRun, RunMetadata, Sample
from benchdoc.ledger.schema import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[2]


def test_a_version_1_ledger_migrates_and_keeps_its_runs(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'l.db'}"
    with Ledger.open(url) as ledger:
        run_id = ledger.record_run(NewRun("a", samples=[Sample("x", 1.0)], metadata=RunMetadata(log_path="a.log")))
    downgrade_to_version_1(url)
    with Ledger.open(url) as ledger:
        assert ledger.schema_version() == SCHEMA_VERSION == 3
        run = ledger.run(run_id)
        assert run.values("x") == [1.0] and run.metadata.log_path == "a.log"
        assert run.failure_cause is None and run.retraction is None and ledger.requests([run_id]) == {run_id: []}
        ledger.retract(run_id, "measured on the wrong branch")  # the new tables are there
    tables = set(sa.inspect(sa.create_engine(url)).get_table_names())
    assert {"runs", "samples", "run_requests", "retractions", "benchdoc_meta"} <= tables


def test_a_version_2_ledger_reads_each_run_as_one_server_start(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'l.db'}"
    with Ledger.open(url) as ledger:
        samples = [Sample("x", float(i), i, start=i // 2) for i in range(4)]
        run_id = ledger.record_run(NewRun("a", samples=samples))
        assert ledger.run(run_id).starts == 2
    downgrade_to_version_2(url)
    with Ledger.open(url, create=False, read_only=True) as ledger:  # read, upgraded in memory
        run = ledger.run(run_id)
        assert run.values("x") == [0.0, 1.0, 2.0, 3.0] and run.starts == 1
    with Ledger.open(url) as ledger:
        assert ledger.schema_version() == 3
        assert {s.start for s in ledger.run(run_id).samples} == {0}


def test_the_committed_benchmark_ledger_opens_at_the_current_version(tmp_path: Path) -> None:
    copy = tmp_path / "ledger.db"
    shutil.copy(ROOT / "benchmarks" / "ledger.db", copy)
    with Ledger.open(f"sqlite:///{copy}", create=False) as ledger:
        assert ledger.schema_version() == SCHEMA_VERSION
        runs = ledger.runs()
    assert runs and all(r.source != "benchmark" or r.metadata.figures for r in runs)
