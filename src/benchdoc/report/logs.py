"""The tail of a failed run's log file, for the report's failure excerpts.

The log lives outside the ledger (its path is the run's ``metadata.log_path``),
so it was never redacted: the excerpt is redacted here before anyone sees it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchdoc.untrusted import safe_line

TAIL_LINES = 40
TAIL_BYTES = 64 * 1024  # read at most this much from the end of a (possibly huge) log


@dataclass(frozen=True)
class LogExcerpt:
    path: str  # as recorded in the run's metadata
    lines: tuple[str, ...]
    truncated: bool  # earlier lines were left out


def log_tail(recorded: str | None, root: Path | None = None, lines: int = TAIL_LINES) -> LogExcerpt | None:
    """The last ``lines`` lines of the log at ``recorded`` (a run's ``metadata.log_path``;
    relative paths are under ``root``), redacted; None when there is no readable log."""
    if not recorded:
        return None
    path = Path(recorded)
    if not path.is_absolute() and root is not None:
        path = root / path
    try:
        if not path.is_file():
            return None
        with path.open("rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - TAIL_BYTES))
            data = handle.read()
    except OSError:
        return None
    text = data.decode("utf-8", errors="replace")
    all_lines = text.splitlines()
    if size > TAIL_BYTES and all_lines:
        all_lines = all_lines[1:]  # the first line read is probably cut in the middle
    tail = all_lines[-lines:]
    truncated = size > TAIL_BYTES or len(all_lines) > len(tail)
    return LogExcerpt(recorded, tuple(safe_line(line) for line in tail), truncated)
