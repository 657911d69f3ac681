"""Atomic file writes: a temporary file in the same folder, flushed, then renamed over the target."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that readers see the old or the new file, never half of one.

    The file's permission bits are kept when it already exists.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
    handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "wb") as temp:
            temp.write(data)
            temp.flush()
            os.fsync(temp.fileno())
        if mode is not None:
            os.chmod(temp_name, mode)
        else:
            # mkstemp creates 0600; a new file should get the usual umask-derived mode.
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temp_name, 0o666 & ~umask)
        os.replace(temp_name, path)
    except BaseException:
        try:
            os.unlink(temp_name)
        except FileNotFoundError:
            pass
        raise
