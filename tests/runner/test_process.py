"""Real processes: started in their own group, health-checked, and torn down as a group
(SIGTERM, then SIGKILL) on every way out."""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

import pytest

from benchdoc.runner.process import ManagedProcess, live_group_members, pick_free_port, probe, wait_until_ready

from .conftest import assert_gone, process_alive

# A parent and a child in one process group, both ignoring SIGTERM: only SIGKILL ends them.
STUBBORN_TREE = """
import signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
print(child.pid, flush=True)
time.sleep(60)
"""


def managed(tmp_path: Path, code: str, grace_s: float = 0.5) -> ManagedProcess:
    return ManagedProcess(
        [sys.executable, "-c", code], cwd=tmp_path, env=dict(os.environ), stdout_path=tmp_path / "logs" / "p.log",
        grace_s=grace_s,
    )


def wait_for_line(path: Path, timeout_s: float = 15.0) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = path.read_text() if path.exists() else ""
        if text.endswith("\n"):
            return text.strip()
        time.sleep(0.02)
    raise AssertionError(f"nothing written to {path}")


def test_own_group_and_sigkill_after_the_grace_period(tmp_path: Path) -> None:
    process = managed(tmp_path, STUBBORN_TREE).start()
    child = int(wait_for_line(process.stdout_path))
    assert os.getpgid(process.pid) == process.pid != os.getpgid(0)  # a group of its own
    assert os.getpgid(child) == process.pid
    assert sorted(live_group_members(process.pid)) == sorted([process.pid, child])
    started = time.monotonic()
    result = process.stop()
    assert result.killed and result.returncode == -9 and not result.exited_before_stop
    assert time.monotonic() - started >= 0.5  # SIGTERM was given its grace first
    assert not process_alive(child)  # the child went down with the group
    assert_gone([process.pid])
    assert process.stop() is result  # stopping twice is harmless


def test_a_polite_process_ends_on_sigterm(tmp_path: Path) -> None:
    process = managed(tmp_path, "import time; print('up', flush=True); time.sleep(60)", grace_s=10).start()
    wait_for_line(process.stdout_path)
    started = time.monotonic()
    result = process.stop()
    assert not result.killed and result.returncode == -15
    assert time.monotonic() - started < 5
    assert_gone([process.pid])


def test_exceptions_and_ctrl_c_inside_the_block_stop_the_group(tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        with managed(tmp_path, STUBBORN_TREE, grace_s=0.2) as process:
            child = int(wait_for_line(process.stdout_path))
            raise KeyboardInterrupt
    assert_gone([process.pid])
    assert not process_alive(child)
    with pytest.raises(RuntimeError):
        with managed(tmp_path, "import time; time.sleep(60)") as other:
            raise RuntimeError("workload blew up")
    assert_gone([other.pid])


def test_output_goes_to_the_log_file(tmp_path: Path) -> None:
    code = "import sys; print('to stdout'); print('to stderr', file=sys.stderr); sys.exit(4)"
    process = managed(tmp_path, code).start()
    assert process.wait(15) == 4
    result = process.stop()
    assert result.exited_before_stop and result.returncode == 4 and not result.killed
    text = process.stdout_path.read_text()
    assert "to stdout" in text and "to stderr" in text


def test_a_missing_program_raises_and_leaves_nothing_open(tmp_path: Path) -> None:
    process = ManagedProcess(["benchdoc-no-such-server"], cwd=tmp_path, env=dict(os.environ),
                             stdout_path=tmp_path / "x.log")
    with pytest.raises(FileNotFoundError):
        process.start()
    assert process.stop().returncode is None


def test_ready_when_the_url_answers_200(tmp_path: Path) -> None:
    port = pick_free_port()
    server = ManagedProcess(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=tmp_path, env=dict(os.environ), stdout_path=tmp_path / "http.log", grace_s=5,
    )
    with server:
        readiness = wait_until_ready(server, f"http://127.0.0.1:{port}/", 20)
        assert readiness.ready and readiness.last_answer == "HTTP 200" and not readiness.exited
        assert probe(f"http://127.0.0.1:{port}/no-such-page") == (False, "HTTP 404")
    assert_gone([server.pid])


def test_not_ready_when_the_process_exits(tmp_path: Path) -> None:
    with managed(tmp_path, "import sys; print('bad flag', file=sys.stderr); sys.exit(3)") as process:
        readiness = wait_until_ready(process, f"http://127.0.0.1:{pick_free_port()}/health", 20)
    assert not readiness.ready and readiness.exited and readiness.returncode == 3


def test_not_ready_within_the_timeout(tmp_path: Path) -> None:
    polls: list[float] = []
    with managed(tmp_path, "import time; time.sleep(60)") as process:
        readiness = wait_until_ready(process, f"http://127.0.0.1:{pick_free_port()}/health", 0.5, on_poll=polls.append)
    assert not readiness.ready and not readiness.exited
    assert readiness.waited_s >= 0.5 and polls
    assert readiness.last_answer is not None and "refused" in readiness.last_answer
    assert_gone([process.pid])


def test_picked_port_is_free_on_loopback() -> None:
    port = pick_free_port()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


def test_a_url_answering_404_stops_the_wait_before_the_timeout(tmp_path: Path) -> None:
    port = pick_free_port()
    server = ManagedProcess(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=tmp_path, env=dict(os.environ), stdout_path=tmp_path / "http.log", grace_s=5,
    )
    with server:
        readiness = wait_until_ready(server, f"http://127.0.0.1:{port}/no-such-health", 60, not_found_grace_s=1.0)
    assert not readiness.ready and not readiness.exited and readiness.last_answer == "HTTP 404"
    assert 1.0 <= readiness.waited_s < 30
