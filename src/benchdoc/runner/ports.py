"""Whose server answers on a port: a server belongs to its run.

A server with a fixed ``port`` cannot start while another process listens there, yet the
readiness URL would still answer, from that other process (another run's server, a
forgotten one). Two rules keep a run from measuring a server it did not start:

- before launch, a fixed port that something already listens on is a setup error that
  names the holder (:func:`port_holder`);
- readiness counts only when the socket listening on the readiness URL's port belongs to
  the process group benchdoc started, or to a process descending from its leader
  (:func:`foreign_listener`).

The sockets are read from Linux's /proc (``/proc/net/tcp*`` for the listening socket's
inode, ``/proc/PID/fd`` for who holds it). Where /proc cannot tell (another OS, another
user's process, a port forwarded by a firewall rule with no listener), the port check
falls back to a connection attempt and readiness is accepted as before.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from benchdoc.procfs import command_line, in_process_tree, listening_inodes, socket_holders
from benchdoc.redact import redact_argv

CONNECT_TIMEOUT_S = 0.5
MAX_COMMAND_CHARS = 160


@dataclass(frozen=True)
class Holder:
    """A process that listens on a port: its pid (None when it cannot be seen) and command."""

    pid: int | None
    command: str = ""

    def describe(self) -> str:
        if self.pid is None:
            return "a process benchdoc cannot see"
        return f"pid {self.pid}: {self.command}" if self.command else f"pid {self.pid}"


def _describe_command(pid: int) -> str:
    text = " ".join(redact_argv(command_line(pid).split()))
    return text if len(text) <= MAX_COMMAND_CHARS else text[: MAX_COMMAND_CHARS - 1] + "…"


def local_port(url: str) -> int | None:
    """The port of ``url`` when it names this machine's loopback (or localhost), else None."""
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    if host in ("localhost", "::1", "0.0.0.0") or host.startswith("127."):
        return port
    return None


def port_holder(port: int, host: str = "127.0.0.1") -> Holder | None:
    """Who listens on TCP ``port`` now, or None when nobody does."""
    inodes = listening_inodes(port)
    if inodes is None:  # no /proc: something that accepts a connection holds it
        try:
            with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S):
                return Holder(None)
        except OSError:
            return None
    if not inodes:
        return None
    holders = socket_holders(inodes)
    if not holders:
        return Holder(None)
    return Holder(holders[0], _describe_command(holders[0]))


def foreign_listener(port: int, pgid: int) -> Holder | None:
    """The process listening on ``port`` when none of the listeners is of group ``pgid``'s
    tree; None when the group's own process listens there, or when /proc cannot tell."""
    inodes = listening_inodes(port)
    if not inodes:
        return None
    holders = socket_holders(inodes)
    if not holders or any(in_process_tree(pid, pgid) for pid in holders):
        return None
    return Holder(holders[0], _describe_command(holders[0]))
