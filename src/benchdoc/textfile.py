"""Atomic file writes: a temporary file in the same folder, flushed, then renamed over the target.

Every file benchdoc writes (documents, chart files, reports, exports, its cache) goes
through here, so a crash or a full disk never leaves half a file behind.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

TEMP_PREFIX = "."
TEMP_SUFFIX = ".benchdoc-tmp"
_WRITE_CHUNK = 1 << 20


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace a file's content so that readers see either the old or the new bytes.

    The bytes go to a temporary file in the same folder (same filesystem, so the
    rename is atomic), are flushed to disk, get the original file's permissions,
    and then replace it. A symlink is followed: its target is replaced, the link
    stays. If anything fails or the process dies, the original file is intact.
    """
    target = Path(os.path.realpath(path))
    try:
        mode: int | None = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None
    fd, temp_name = tempfile.mkstemp(
        prefix=f"{TEMP_PREFIX}{target.name}.", suffix=TEMP_SUFFIX, dir=target.parent
    )
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view[:_WRITE_CHUNK])
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        if mode is None:
            # mkstemp creates 0600; a new file gets the mode any other new file would.
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temp_name, mode)
        os.replace(temp_name, target)
    except BaseException:
        try:
            os.unlink(temp_name)
        except FileNotFoundError:
            pass
        raise
    _fsync_directory(target.parent)


def _fsync_directory(folder: Path) -> None:
    """Make the rename itself durable; not every platform lets a folder be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes) -> None:
    """Replace (or create) ``path`` with ``data`` atomically; see :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, data)
