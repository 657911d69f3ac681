"""Reading Linux's /proc: a process's stat fields and the processes there are.

(runner/guard.py keeps its own few lines of this: it runs by path and imports nothing
of benchdoc, so that it starts in milliseconds.)
"""

from __future__ import annotations

import os


def stat_fields(pid: int | str) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name, from field 3 (state) on.

    The name is cut at its last ')' since it may itself hold spaces and parentheses.
    None when the process is gone or /proc cannot be read.
    """
    try:
        with open(f"/proc/{pid}/stat") as handle:
            stat = handle.read()
    except OSError:
        return None
    return stat[stat.rfind(")") + 2 :].split()


def process_ids() -> list[str]:
    """The ids of the processes /proc lists now (empty when it cannot be read)."""
    try:
        return [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def listening_inodes(port: int) -> set[str] | None:
    """The inodes of the TCP sockets listening on ``port`` (IPv4 and IPv6), or None when
    /proc/net cannot be read (not Linux)."""
    inodes: set[str] = set()
    readable = False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as handle:
                lines = handle.readlines()[1:]
        except OSError:
            continue
        readable = True
        for line in lines:
            fields = line.split()
            # sl local_address rem_address st ... inode (10th field); 0A is LISTEN
            if len(fields) >= 10 and fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    return inodes if readable else None


def holds_socket(pid: int | str, inodes: set[str]) -> bool:
    """Whether process ``pid`` has one of the sockets ``inodes`` open (False when its
    descriptors cannot be read: another user's process)."""
    targets = {f"socket:[{inode}]" for inode in inodes}
    try:
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in descriptors:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") in targets:
                return True
        except OSError:
            continue
    return False


def socket_holders(inodes: set[str]) -> list[int]:
    """The processes that have one of the sockets ``inodes`` open (those whose descriptors
    can be read), in pid order."""
    if not inodes:
        return []
    return sorted(int(name) for name in process_ids() if holds_socket(name, inodes))


def command_line(pid: int) -> str:
    """A process's command line, spaces between its arguments ('' when gone or unreadable)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            raw = handle.read()
    except OSError:
        return ""
    return raw.replace(b"\0", b" ").decode("utf-8", errors="replace").strip()


def in_process_tree(pid: int, pgid: int) -> bool:
    """Whether ``pid`` is in process group ``pgid`` or descends from its leader (a child that
    started a session of its own is still in the tree)."""
    seen: set[int] = set()
    current = pid
    while current > 1 and current not in seen:
        seen.add(current)
        if current == pgid:
            return True
        fields = stat_fields(current)
        if fields is None or len(fields) < 3:
            return False
        if int(fields[2]) == pgid:
            return True
        current = int(fields[1])
    return False
