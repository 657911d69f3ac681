"""A record of the servers benchdoc started, so that one left running is found and stopped.

Each started server gets a small JSON file in the project's ``.benchdoc/servers/``: its
process group, its leader's pid and start time, the benchdoc process that started it
(pid and start time), its experiment and its command (secrets redacted). The file is
removed when the server is stopped. If benchdoc was killed so hard that even the guard
could not stop the server (both SIGKILLed at once, say), the file stays; the next
``benchdoc run`` finds it, checks that its owner is gone and that the group still runs,
stops the group and says so.

Start times (from ``/proc/PID/stat``) tell a process from a later one that reuses its pid.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from benchdoc.procfs import stat_fields
from benchdoc.runner.guard import stop_group
from benchdoc.textfile import write_atomic

SERVERS_DIR = Path(".benchdoc") / "servers"


def start_ticks(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot), or None when unknown or gone."""
    fields = stat_fields(pid)
    if fields is None:
        return None
    try:
        return int(fields[19])  # field 22 of stat; fields here start at field 3
    except (IndexError, ValueError):
        return None


def _is_running(pid: int, ticks: int | None) -> bool:
    """Whether ``pid`` is the same process that had start time ``ticks``."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    current = start_ticks(pid)
    return ticks is None or current is None or current == ticks


@dataclass(frozen=True)
class StartedServer:
    """What is kept about one started server while it runs."""

    pgid: int
    pid: int
    pid_ticks: int | None
    owner_pid: int
    owner_ticks: int | None
    experiment: str
    argv: list[str]
    started_at: str
    grace_s: float
    # The machine it runs on: a project folder on a shared file system (a Slurm cluster)
    # holds records of servers on other nodes, whose pids mean nothing here.
    host: str = ""


@dataclass(frozen=True)
class Survivor:
    """A server an earlier benchdoc left running, and what was done about it."""

    server: StartedServer
    stopped: bool  # False: it could not be stopped (another user's process, say)

    def describe(self) -> str:
        s = self.server
        what = "stopped" if self.stopped else "could not stop"
        return (
            f"{what} a server left running by an earlier benchdoc (pid {s.owner_pid}, no longer running): "
            f"experiment {s.experiment}, process group {s.pgid}, started {s.started_at}: {' '.join(s.argv)}"
        )


class ServerRecords:
    """The ``.benchdoc/servers/`` folder of one project."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def of_project(cls, root: Path) -> ServerRecords:
        return cls(root / SERVERS_DIR)

    def path(self, pgid: int) -> Path:
        return self.folder / f"{pgid}.json"

    def add(self, pgid: int, experiment: str, argv: Sequence[str], grace_s: float) -> Path:
        """Keep a record of a server just started (by this process)."""
        owner = os.getpid()
        record = StartedServer(
            pgid=pgid,
            pid=pgid,
            pid_ticks=start_ticks(pgid),
            owner_pid=owner,
            owner_ticks=start_ticks(owner),
            experiment=experiment,
            argv=list(argv),
            started_at=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            grace_s=grace_s,
            host=socket.gethostname(),
        )
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.path(pgid)
        write_atomic(path, (json.dumps(asdict(record), indent=1) + "\n").encode())
        return path

    def remove(self, pgid: int) -> None:
        try:
            self.path(pgid).unlink()
        except FileNotFoundError:
            pass

    def records(self) -> list[tuple[Path, StartedServer | None]]:
        """Every record, read (None for a file that cannot be read as one)."""
        if not self.folder.is_dir():
            return []
        found: list[tuple[Path, StartedServer | None]] = []
        for path in sorted(self.folder.glob("*.json")):
            found.append((path, _read(path)))
        return found

    def stop_survivors(self) -> list[Survivor]:
        """Stop every recorded server whose benchdoc is gone but whose group still runs.

        Records of servers that are gone are removed quietly; records owned by a benchdoc
        that still runs (another run in the same project) and records of servers on other
        machines are left alone.
        """
        from benchdoc.runner.process import live_group_members

        here = socket.gethostname()
        survivors: list[Survivor] = []
        for path, server in self.records():
            if server is None:
                path.unlink(missing_ok=True)
                continue
            if server.host and server.host != here:
                continue
            if _is_running(server.owner_pid, server.owner_ticks):
                continue
            leader_reused = start_ticks(server.pid) not in (None, server.pid_ticks)
            if live_group_members(server.pgid) and not leader_reused:
                stop_group(server.pgid, server.grace_s)
                survivors.append(Survivor(server, stopped=not live_group_members(server.pgid)))
            path.unlink(missing_ok=True)
        return survivors


def _read(path: Path) -> StartedServer | None:
    try:
        data: Any = json.loads(path.read_text())
        return StartedServer(**data)
    except (OSError, ValueError, TypeError):
        return None
