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
