"""The guard of one server: a tiny process that stops the server's process group when
benchdoc dies, however it dies (SIGKILL included).

It is run by path with the standard library only (``python -I guard.py``), so it starts
in milliseconds and imports nothing of benchdoc. Its standard input is a pipe whose only
writer is the benchdoc process that started the server:

- the first line is ``PGID GRACE_S``: the group to watch and its SIGTERM grace period;
- a line ``release`` means benchdoc stopped the server itself: the guard leaves;
- end of input without ``release`` means benchdoc is gone: the guard sends SIGTERM to the
  group, SIGKILL after the grace period, and leaves.

The guard runs in its own session, so a terminal's Ctrl-C or hang-up does not reach it.
"""

from __future__ import annotations

import os
import signal
import sys
import time

RELEASE = "release"
_POLL_S = 0.05
_KILL_WAIT_S = 5.0


def _group_alive(pgid: int) -> bool:
    """Whether any process of group ``pgid`` still runs (zombies count as gone)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        entries = []
    if not entries:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) >= 3 and int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            return True
    return False


def _wait_gone(pgid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while _group_alive(pgid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL_S)
    return True


def stop_group(pgid: int, grace_s: float) -> None:
    """SIGTERM to the group, SIGKILL after ``grace_s`` if any member is left."""
    for signum, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, _KILL_WAIT_S)):
        if not _group_alive(pgid):
            return
        try:
            os.killpg(pgid, signum)
        except (ProcessLookupError, PermissionError):
            return
        if _wait_gone(pgid, wait_s):
            return


def main() -> int:
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(signum, signal.SIG_IGN)
    header = sys.stdin.readline().split()
    if len(header) != 2:
        return 0  # benchdoc died before naming a group: nothing to guard
    pgid, grace_s = int(header[0]), float(header[1])
    for line in sys.stdin:
        if line.strip() == RELEASE:
            return 0
    stop_group(pgid, grace_s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
