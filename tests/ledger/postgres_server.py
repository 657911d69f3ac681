"""A throwaway PostgreSQL server for tests: initdb into a temporary folder, listen on loopback.

Uses Debian's PostgreSQL server binaries (package `postgresql`, which `scripts/test`
installs when missing). PostgreSQL refuses to run as root, so as root the server runs
as the `postgres` system user.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


def _binary(name: str) -> str | None:
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)
    return candidates[0] if candidates else shutil.which(name)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class PostgresServer:
    """A running private PostgreSQL server that a test may stop and start again."""

    url: str
    pg_ctl: str
    data: Path
    options: str
    log: Path
    as_user: tuple[str, ...]

    def stop(self) -> None:
        subprocess.run([*self.as_user, self.pg_ctl, "-D", str(self.data), "-m", "fast", "-w", "stop"],
                       check=True, capture_output=True, timeout=60)

    def start(self) -> None:
        subprocess.run([*self.as_user, self.pg_ctl, "-D", str(self.data), "-o", self.options, "-l", str(self.log),
                        "-w", "-t", "60", "start"], check=True, capture_output=True, timeout=120)


@contextmanager
def postgres_server() -> Iterator[str]:
    """Start a private PostgreSQL cluster in a temporary folder; yield its URL; stop and delete it after."""
    with postgres_instance() as server:
        yield server.url


@contextmanager
def postgres_instance() -> Iterator[PostgresServer]:
    """Start a private PostgreSQL cluster in a temporary folder; yield it; stop and delete it after."""
    initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    if not initdb or not pg_ctl:
        raise RuntimeError("PostgreSQL server binaries not found: install Debian's 'postgresql' package")
    # Not under pytest's tmp_path: its parents are private to root, and the server
    # runs as the postgres user when we are root.
    folder = Path(tempfile.mkdtemp(prefix="benchdoc-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        as_user = ["runuser", "-u", "postgres", "--"]
        shutil.chown(folder, "postgres", "postgres")
    data = folder / "data"
    port = _free_port()
    subprocess.run(
        [*as_user, initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"],
        check=True, capture_output=True, timeout=120,
    )
    server = PostgresServer(f"postgresql://postgres@127.0.0.1:{port}/postgres", pg_ctl, data,
                            f"-h 127.0.0.1 -p {port} -k {folder} -F", folder / "server.log", tuple(as_user))
    server.start()
    try:
        yield server
    finally:
        subprocess.run([*as_user, pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"], capture_output=True, timeout=60)
        shutil.rmtree(folder, ignore_errors=True)
