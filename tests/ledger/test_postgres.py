"""The same ledger code on a real PostgreSQL server (started by the test, on loopback)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest
from tests.conftest import Project, sim_argv, toml_list
from tests.ledger.postgres_server import postgres_server

from benchdoc.errors import LedgerError
from benchdoc.ledger import Ledger, NewRun, RequestRow, Sample
from benchdoc.ledger.schema import SCHEMA_VERSION


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with postgres_server() as url:
        yield url


@pytest.fixture
def pg_url(server: str, request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh database per test on the shared server."""
    import sqlalchemy as sa

    name = "t_" + request.node.name.lower().replace("[", "_").replace("]", "")[:40]
    admin = sa.create_engine(server.replace("postgresql://", "postgresql+psycopg://"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    admin.dispose()
    yield server.rsplit("/", 1)[0] + "/" + name


def test_round_trip_on_postgres(pg_url: str) -> None:
    with Ledger.open(pg_url) as ledger:
        ok = ledger.record_run(NewRun("eagle3", samples=[Sample("output_tok_s", 96.1), Sample("output_tok_s", 95.8, 1)],
                                      command=["sglang", "--api-key", "sk-live-abcdefabcdef0123456789"],
                                      environment={"gpu": {"cuda": "13.0.1"}}))
        ledger.record_run(NewRun("nccl-tree", outcome="failed", failure_reason="CUDA graph incompatible"))
        run = ledger.run(ok)
        assert run.values("output_tok_s") == [96.1, 95.8]
        assert run.environment == {"gpu": {"cuda": "13.0.1"}}
        assert "sk-live-abcdefabcdef0123456789" not in json.dumps(run.command)
        assert run.started_at.tzinfo is not None
        assert [r.experiment for r in ledger.runs()] == ["nccl-tree", "eagle3"]
        assert ledger.schema_version() == SCHEMA_VERSION


def test_an_invalid_run_writes_nothing_on_postgres(pg_url: str) -> None:
    with Ledger.open(pg_url) as ledger:
        with pytest.raises(LedgerError):
            ledger.record_runs([NewRun("a", samples=[Sample("m", 1.0)]), NewRun("b")])
        assert ledger.run_count() == 0


def test_concurrent_writers_on_postgres(pg_url: str) -> None:
    Ledger.open(pg_url).close()
    script = textwrap.dedent(
        """
        import sys
        from benchdoc.ledger import Ledger, NewRun, Sample
        with Ledger.open(sys.argv[1]) as ledger:
            for i in range(100):
                ledger.record_run(NewRun(sys.argv[2], samples=[Sample("m", float(i))]))
        """
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, pg_url, name], stderr=subprocess.PIPE, text=True)
             for name in ("left", "right")]
    for proc in procs:
        _, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err
    with Ledger.open(pg_url) as ledger:
        assert ledger.run_count() == 200


def test_cli_against_postgres_hides_the_password(pg_url: str, project: Project) -> None:
    env = {"BENCHDOC_LEDGER_URL": pg_url}
    for values in ("92.6,92.4,92.9,92.5,92.7", "96.1,95.8,96.4,96.0,96.3"):
        name = "baseline" if values.startswith("92") else "eagle3-cuda13"
        res = project.run("record", name, "--each-start", "-m", f"output_tok_s={values}", env=env)
        assert res.returncode == 0, res.stderr
    shown = json.loads(project.run("compare", "eagle3-cuda13", "--json", env=env).stdout)
    assert shown["comparisons"]["output_tok_s"]["verdict"] == "better"
    assert not (project.root / ".benchdoc" / "ledger.db").exists()
    bad = project.run("show", env={"BENCHDOC_LEDGER_URL": "postgresql://bench:s3cret@127.0.0.1:1/nope"})
    assert bad.returncode == 1
    assert "cannot open the ledger at postgresql://bench:***@127.0.0.1:1/nope" in bad.stderr
    assert "s3cret" not in bad.stderr


def test_migration_requests_and_retractions_on_postgres(pg_url: str) -> None:
    from tests.ledger.schema_v1 import downgrade_to_version_1

    with Ledger.open(pg_url) as ledger:
        old = ledger.record_run(NewRun("a", samples=[Sample("x", 1.0)]))
    downgrade_to_version_1(pg_url)
    request = RequestRow(0, 0, True, None, 12.5, 40.0, 8, {"index": 0, "chunk_ms": [12.5, 20.0], "tpot_ms": float("nan")})
    with Ledger.open(pg_url) as ledger:
        assert ledger.schema_version() == SCHEMA_VERSION
        new = ledger.record_run(NewRun("a", samples=[Sample("x", 2.0)], failure_cause=None, requests=[request]))
        assert ledger.requests([old, new]) == {old: [], new: [RequestRow(0, 0, True, None, 12.5, 40.0, 8,
                                                                        {"index": 0, "chunk_ms": [12.5, 20.0], "tpot_ms": None})]}
        ledger.retract(old, "wrong branch")
        assert [(r.id, r.retraction.reason if r.retraction else None) for r in ledger.runs("a")] == [(new, None), (old, "wrong branch")]
        ledger.unretract(old)
        assert ledger.run(old).retraction is None


def test_a_run_keeps_its_requests_in_a_team_ledger(pg_url: str, project: Project) -> None:
    project.write_config(
        f"""\
        [metrics.output_tok_s]
        label = "tok/s"

        [servers.sim]
        argv = {toml_list(sim_argv())}

        [workloads.small]
        requests = 4
        output_tokens = 8

        [experiments.baseline]
        server = "sim"
        workload = "small"
        repetitions = 2
        """
    )
    env = {"BENCHDOC_LEDGER_URL": pg_url}
    result = project.run("run", "baseline", "--quiet", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    (run,) = json.loads(project.run("history", "baseline", "--requests", "--json", env=env).stdout)
    assert [(r["repetition"], r["index"], r["ok"]) for r in run["requests"]] == [(rep, i, True) for rep in (0, 1) for i in range(4)]
    assert all(r["output_tokens"] == 8 and r["output_token_source"] == "usage" for r in run["requests"])
    assert [rep["provenance"]["output_tokens"] for rep in run["metadata"]["per_repetition"]] == [{"usage": 4}] * 2
    assert not (project.root / ".benchdoc" / "ledger.db").exists()
