"""No process group outlives benchdoc: real SIGKILLs of the process that started it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchdoc.runner.process import live_group_members
from benchdoc.runner.survivors import ServerRecords

from .conftest import process_alive

# A server tree: a leader and a child in one group. With IGNORE_TERM both ignore SIGTERM.
TREE = """
import signal, subprocess, sys, time
if "IGNORE_TERM" in sys.argv:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
print(child.pid, flush=True)
time.sleep(120)
"""

# Stands in for benchdoc: starts a managed tree, says the pids, and waits to be killed.
OWNER = """
import json, os, sys, time
from pathlib import Path
from benchdoc.runner.process import ManagedProcess
from benchdoc.runner.survivors import ServerRecords

tmp, tree, guarded = Path(sys.argv[1]), sys.argv[2], sys.argv[3] == "guarded"
argv = [sys.executable, "-c", tree, *sys.argv[4:]]
records = ServerRecords(tmp / "servers")
process = ManagedProcess(argv, cwd=tmp, env=dict(os.environ), stdout_path=tmp / "server.log", grace_s=0.5,
                         guarded=guarded, records=records, label="nccl-tree")
process.start()
deadline = time.monotonic() + 30
while not (tmp / "server.log").read_text().endswith("\\n"):
    assert time.monotonic() < deadline
    time.sleep(0.02)
child = int((tmp / "server.log").read_text())
print(json.dumps({"pgid": process.pgid, "child": child, "guard": process.guard_pid}), flush=True)
time.sleep(120)
"""


def start_owner(tmp_path: Path, *extra: str, guarded: bool = True) -> tuple[subprocess.Popen[str], dict[str, int]]:
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, str(tmp_path), TREE, "guarded" if guarded else "bare", *extra],
        stdout=subprocess.PIPE, text=True,
    )
    assert owner.stdout is not None
    line = owner.stdout.readline()
    assert line, "the owner process did not start its server"
    return owner, json.loads(line)


def wait_gone(pgid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while live_group_members(pgid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def kill(*pids: int | None) -> None:
    for pid in pids:
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@pytest.fixture
def cleanup():  # type: ignore[no-untyped-def]
    groups: list[int] = []
    yield groups
    for pgid in groups:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.mark.timeout(60)
def test_sigkill_of_the_owner_takes_the_whole_group_down(tmp_path: Path, cleanup: list[int]) -> None:
    owner, pids = start_owner(tmp_path)
    cleanup.append(pids["pgid"])
    assert sorted(live_group_members(pids["pgid"])) == sorted([pids["pgid"], pids["child"]])
    assert (tmp_path / "servers" / f"{pids['pgid']}.json").exists()
    owner.send_signal(signal.SIGKILL)
    owner.wait()
    # The guard notices the closed pipe and stops the group, grandchild included.
    assert wait_gone(pids["pgid"], 15), "the server group outlived its owner"
    assert not process_alive(pids["child"])
    assert wait_gone(pids["guard"], 15) or not process_alive(pids["guard"])


@pytest.mark.timeout(60)
def test_a_group_that_ignores_sigterm_is_killed_after_the_grace(tmp_path: Path, cleanup: list[int]) -> None:
    owner, pids = start_owner(tmp_path, "IGNORE_TERM")
    cleanup.append(pids["pgid"])
    owner.send_signal(signal.SIGKILL)
    owner.wait()
    assert wait_gone(pids["pgid"], 15), "SIGKILL after the grace period should have ended it"


@pytest.mark.timeout(60)
def test_the_leader_gets_sigterm_when_its_owner_dies_even_without_the_guard(tmp_path: Path, cleanup: list[int]) -> None:
    owner, pids = start_owner(tmp_path)
    cleanup.append(pids["pgid"])
    kill(pids["guard"])
    time.sleep(0.2)
    owner.send_signal(signal.SIGKILL)
    owner.wait()
    # PR_SET_PDEATHSIG: the kernel signals the leader; its child is the guard's (or the record's) job.
    deadline = time.monotonic() + 10
    while process_alive(pids["pgid"]):
        assert time.monotonic() < deadline, "the leader outlived its owner"
        time.sleep(0.05)
    assert process_alive(pids["child"])


@pytest.mark.timeout(60)
def test_unguarded_processes_are_not_tied_to_their_owner(tmp_path: Path, cleanup: list[int]) -> None:
    owner, pids = start_owner(tmp_path, guarded=False)
    cleanup.append(pids["pgid"])
    assert pids["guard"] is None
    owner.send_signal(signal.SIGKILL)
    owner.wait()
    time.sleep(0.3)
    assert sorted(live_group_members(pids["pgid"])) == sorted([pids["pgid"], pids["child"]])


@pytest.mark.timeout(60)
def test_a_normal_stop_releases_the_guard_and_the_record(tmp_path: Path) -> None:
    from benchdoc.runner.process import ManagedProcess

    records = ServerRecords(tmp_path / "servers")
    process = ManagedProcess([sys.executable, "-c", "import time; time.sleep(60)"], cwd=tmp_path,
                             env=dict(os.environ), stdout_path=tmp_path / "p.log", grace_s=0.5,
                             records=records, label="x")
    with process:
        guard = process.guard_pid
        assert guard is not None and process_alive(guard)
        ((path, record),) = records.records()
        assert record is not None and record.pgid == process.pgid and record.owner_pid == os.getpid()
    assert records.records() == [] and not process_alive(guard)


@pytest.mark.timeout(60)
def test_a_survivor_is_found_and_stopped_from_its_record(tmp_path: Path, cleanup: list[int]) -> None:
    owner, pids = start_owner(tmp_path, "IGNORE_TERM")
    cleanup.append(pids["pgid"])
    # The hardest case: the guard and its owner die together, and the tree ignores SIGTERM.
    kill(pids["guard"], owner.pid)
    owner.wait()
    time.sleep(0.3)
    assert live_group_members(pids["pgid"]), "the tree should have survived"
    records = ServerRecords(tmp_path / "servers")
    (survivor,) = records.stop_survivors()
    assert survivor.stopped and survivor.server.pgid == pids["pgid"]
    assert survivor.describe().startswith("stopped a server left running by an earlier benchdoc")
    assert "experiment nccl-tree" in survivor.describe()
    assert live_group_members(pids["pgid"]) == [] and records.records() == []


def test_records_of_a_running_owner_or_a_gone_server_are_handled_quietly(tmp_path: Path) -> None:
    records = ServerRecords(tmp_path / "servers")
    first, second = (subprocess.Popen([sys.executable, "-c", "pass"]) for _ in range(2))
    first.wait()
    second.wait()
    # Recorded by us, and we still run: left alone.
    records.add(first.pid, "a", ["server"], 1.0)
    # Its owner and its server are gone: dropped without a word.
    stale = {"pgid": second.pid, "pid": second.pid, "pid_ticks": None, "owner_pid": second.pid,
             "owner_ticks": None, "experiment": "b", "argv": ["server"], "started_at": "2024-01-01T00:00:00Z",
             "grace_s": 1.0}
    (records.folder / f"{second.pid}.json").write_text(json.dumps(stale))
    (records.folder / "junk.json").write_text("{not json")
    assert records.stop_survivors() == []
    assert [p.name for p, _ in records.records()] == [f"{first.pid}.json"]


def test_records_of_servers_on_other_machines_are_left_alone(tmp_path: Path, cleanup: list[int]) -> None:
    """A project folder on a shared file system (a Slurm cluster) holds other nodes' records:
    their pids mean nothing here, so nothing is stopped and the record stays."""
    owner, pids = start_owner(tmp_path, "IGNORE_TERM")
    cleanup.append(pids["pgid"])
    kill(pids["guard"], owner.pid)
    owner.wait()
    time.sleep(0.3)
    records = ServerRecords(tmp_path / "servers")
    ((path, record),) = records.records()
    assert record is not None and record.host == socket.gethostname()
    path.write_text(json.dumps({**json.loads(path.read_text()), "host": "gpu-node-7"}))
    assert records.stop_survivors() == []
    assert live_group_members(pids["pgid"]) and path.exists()
