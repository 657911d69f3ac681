"""A server belongs to its run: a fixed port already held is a setup error, and readiness
counts only from the process group benchdoc started. Real processes on loopback."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import sim_argv, toml_list

from benchdoc.ledger import Ledger
from benchdoc.runner import run_experiments
from benchdoc.runner.ports import foreign_listener, local_port, port_holder
from benchdoc.runner.process import ManagedProcess, pick_free_port, probe, wait_until_ready

from .conftest import assert_gone, write_project


def _http_server(tmp_path: Path, port: int, name: str) -> ManagedProcess:
    return ManagedProcess(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=tmp_path, env=dict(os.environ), stdout_path=tmp_path / f"{name}.log", grace_s=5,
    )


def _wait_answering(url: str, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while not probe(url)[0]:
        assert time.monotonic() < deadline, f"{url} never answered"
        time.sleep(0.05)


def test_readiness_from_another_process_group_is_not_readiness(tmp_path: Path) -> None:
    port = pick_free_port()
    url = f"http://127.0.0.1:{port}/"
    with _http_server(tmp_path, port, "other") as other:
        _wait_answering(url)
        assert port_holder(port) is not None and port_holder(port).pid == other.pid  # type: ignore[union-attr]
        # Ours never listens: the answer on its port is the other server's.
        with ManagedProcess([sys.executable, "-c", "import time; time.sleep(60)"], cwd=tmp_path,
                            env=dict(os.environ), stdout_path=tmp_path / "ours.log", grace_s=2) as ours:
            readiness = wait_until_ready(ours, url, 1.0)
            assert foreign_listener(port, ours.pgid) is not None
            assert foreign_listener(port, other.pgid) is None
    assert not readiness.ready and readiness.foreign is not None
    assert readiness.foreign.startswith(f"pid {other.pid}: ") and "http.server" in readiness.foreign
    assert readiness.last_answer is not None and readiness.last_answer.endswith("not the server benchdoc started")
    assert_gone([other.pid, ours.pid])


def test_readiness_from_its_own_server_is_accepted(tmp_path: Path) -> None:
    port = pick_free_port()
    with _http_server(tmp_path, port, "own") as own:
        readiness = wait_until_ready(own, f"http://127.0.0.1:{port}/", 20)
        assert readiness.ready and readiness.foreign is None
    assert port_holder(port) is None


def test_only_loopback_urls_are_checked() -> None:
    assert local_port("http://127.0.0.1:8123/health") == 8123
    assert local_port("http://localhost/health") == 80
    assert local_port("http://gpu-node-3:8000/health") is None


def test_two_concurrent_runs_on_one_fixed_port(tmp_path: Path) -> None:
    """The first run's requests all succeed; the second measures nothing and records a setup
    error, not a failure of the configuration (the simulator cuts a stream when another
    request arrives, as llama.cpp does, so any request sent to the first server would show)."""
    port = pick_free_port()
    argv = [a if a != "{port}" else str(port) for a in sim_argv("--step-ms", "2", "--preempt-on-arrival", "done")]
    body = f"""
        [servers.fixed]
        argv = {toml_list(argv)}
        port = {port}
        ready_timeout = 30
        shutdown_grace = 3

        [workloads.long]
        requests = 100
        concurrency = 1
        input_tokens = 8
        output_tokens = 16

        [experiments.first]
        server = "fixed"
        workload = "long"
        repetitions = 2

        [experiments.second]
        server = "fixed"
        workload = "small"
        """
    config = write_project(tmp_path, body)
    first = subprocess.Popen(
        [sys.executable, "-m", "benchdoc", "run", "first"], cwd=tmp_path,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        _wait_answering(f"http://127.0.0.1:{port}/health")
        with Ledger.open(config.ledger_url) as ledger:
            report = run_experiments(config, ledger, ["second"])
        assert first.poll() is None, "the first run ended before the second was tried"
        output, _ = first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 0, output
    with Ledger.open(config.ledger_url) as ledger:
        runs = {run.experiment: run for run in ledger.runs()}
    second = runs["second"]
    assert report.outcomes[0].outcome == "error" and second.outcome == "error" and not second.samples
    assert second.failure_reason is not None
    assert second.failure_reason.startswith(f"port {port} is already in use (pid ")
    assert "benchdoc sim" in second.failure_reason
    mine = runs["first"]
    assert mine.outcome == "ok" and mine.metadata.requests == 200
    assert not mine.metadata.failures and not mine.metadata.cut_short


def test_a_run_can_wait_for_its_fixed_port(tmp_path: Path) -> None:
    """With --wait-for-port the run says it waits, and starts once the holder has let go."""
    from benchdoc.runner import RunOptions
    from benchdoc.runner.events import Notice

    port = pick_free_port()
    holder = subprocess.Popen([sys.executable, "-c", (
        "import socket, time; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); "
        f"s.bind(('127.0.0.1', {port})); s.listen(); print('held', flush=True); time.sleep(2)")],
        stdout=subprocess.PIPE, text=True)
    argv = [a if a != "{port}" else str(port) for a in sim_argv()]
    config = write_project(tmp_path, f"""
        [servers.fixed]
        argv = {toml_list(argv)}
        port = {port}
        ready_timeout = 30
        shutdown_grace = 3

        [experiments.patient]
        server = "fixed"
        workload = "small"
        repetitions = 1
        """)
    notices: list[str] = []
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with Ledger.open(config.ledger_url) as ledger:
            report = run_experiments(config, ledger, ["patient"], RunOptions(port_wait_s=30),
                                     on_event=lambda e: notices.append(e.message) if isinstance(e, Notice) else None)
    finally:
        holder.kill()
        holder.wait()
    assert report.outcomes[0].outcome == "ok"
    assert notices[:2] == [f"port {port} is held by another process: waiting up to 30 s for it",
                           f"port {port} is free: starting the server"]
