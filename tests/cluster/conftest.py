"""Fixtures for the Slurm tests: a real single-node cluster, a real PostgreSQL ledger and a
project whose experiments run `benchdoc sim`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.cluster.slurm_cluster import SlurmCluster, missing_programs, slurm_cluster
from tests.ledger.postgres_server import postgres_server

# A password the trust-authenticated test server ignores, so that it can be looked for.
PASSWORD = "pw-" + uuid.uuid4().hex[:12]


def _why_no_cluster() -> str | None:
    if os.geteuid() != 0:
        return "the Slurm test cluster starts munged, slurmctld and slurmd as root; not root here"
    missing = missing_programs()
    if missing:
        return f"Slurm is not installed ({', '.join(missing)} missing); scripts/test installs it as root"
    return None


# Module scope: torn down after this folder's tests, within their time limits, not at the
# end of the whole session (where the last test of the suite would pay for it).
@pytest.fixture(scope="module")
def cluster() -> Iterator[SlurmCluster]:
    reason = _why_no_cluster()
    if reason:
        pytest.skip(reason)
    with slurm_cluster() as running:
        yield running


@pytest.fixture(scope="module")
def pg_server() -> Iterator[str]:
    with postgres_server() as url:
        yield url


@dataclass
class ClusterProject:
    root: Path
    url: str  # the ledger's URL, password included
    cluster: SlurmCluster
    marker: str  # in every server's environment: finds leftover processes

    @property
    def env(self) -> dict[str, str]:
        inherited = {k: v for k, v in os.environ.items() if k != "BENCHDOC_LEDGER_URL"}
        return {**inherited, **self.cluster.env, "BENCHDOC_LEDGER_URL": self.url, "NO_COLOR": "1", "COLUMNS": "200"}

    def run(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "benchdoc", *args], cwd=self.root, env=env or self.env,
                              capture_output=True, text=True, timeout=120)

    def config(self):  # type: ignore[no-untyped-def]
        from benchdoc.config import load_config

        os.environ["BENCHDOC_LEDGER_URL"] = self.url
        try:
            return load_config(self.root / "benchdoc.toml")
        finally:
            del os.environ["BENCHDOC_LEDGER_URL"]

    def wait(self, job_id: str, timeout_s: float = 300.0, until: Callable[..., bool] | None = None):  # type: ignore[no-untyped-def]
        """Poll the submission's status (in-process, reconciling) until every task finished."""
        from benchdoc.cluster import load_submission, sweep_status
        from benchdoc.ledger import Ledger

        config = self.config()
        submission = load_submission(config, job_id)
        deadline = time.monotonic() + timeout_s
        with Ledger.open(config.ledger_url) as ledger:
            while True:
                status = sweep_status(config, ledger, submission, env={**os.environ, **self.cluster.env})
                if (until or (lambda s: s.complete))(status) or time.monotonic() > deadline:
                    return status
                time.sleep(2)

    def leftover_servers(self) -> list[int]:
        """Processes still running with this project's marker in their environment."""
        found = []
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                if self.marker.encode() in (proc / "environ").read_bytes():
                    found.append(int(proc.name))
            except OSError:
                continue
        return found


def project_text(sim: list[str], marker: str, body: str) -> str:
    return textwrap.dedent(f"""\
        [metrics.output_tok_s]
        label = "tok/s"
        unit = "tok/s"
        primary = true

        [servers.sim]
        argv = {json.dumps(sim)}
        env = {{ SERVER_TEST_MARK = "{marker}" }}
        ready_timeout = 60
        shutdown_grace = 3

        [workloads.quick]
        requests = 4
        concurrency = 2
        input_tokens = 8
        output_tokens = 8

        [workloads.endless]
        requests = 100000
        concurrency = 1
        input_tokens = 8
        output_tokens = 64

        [documents]
        paths = ["log.md"]
        """) + textwrap.dedent(body)


@pytest.fixture
def cluster_project(cluster: SlurmCluster, pg_server: str, tmp_path_factory: pytest.TempPathFactory,
                    request: pytest.FixtureRequest) -> Callable[..., ClusterProject]:
    """A factory: a project folder (tasks run as root, any folder will do) with the given
    experiments and sweeps, and a fresh PostgreSQL database as its ledger, on the session's
    cluster (or the one given)."""
    import sqlalchemy as sa

    def make(body: str, on: SlurmCluster | None = None) -> ClusterProject:
        name = "s_" + uuid.uuid4().hex[:10]
        admin = sa.create_engine(pg_server.replace("postgresql://", "postgresql+psycopg://"), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        admin.dispose()
        host = pg_server.split("@", 1)[1].rsplit("/", 1)[0]
        url = f"postgresql://postgres:{PASSWORD}@{host}/{name}"
        root = tmp_path_factory.mktemp("cluster-project")
        marker = uuid.uuid4().hex
        sim = [sys.executable, "-m", "benchdoc", "sim", "--port", "{port}", "--ttft-ms", "1", "--step-ms", "1"]
        (root / "benchdoc.toml").write_text(project_text(sim, marker, body), encoding="utf-8")
        return ClusterProject(root=root, url=url, cluster=on or cluster, marker=marker)

    return make
