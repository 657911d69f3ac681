"""Atomic file writes: a temporary file in the same folder, flushed, then renamed over the target.

Every file benchdoc writes (documents, chart files, reports, exports, its cache) goes
through here, so a crash or a full disk never leaves half a file behind. Several files
that belong together (a document and its charts) are staged first and renamed only
once every one of them is staged, so a failure leaves all of them as they were.

Only a regular file (or a new name) is ever replaced: a device, FIFO, socket or folder,
or a symlink to one, is refused before anything is written (renaming over ``/dev/null``
would replace the device node with a file). An existing target is never read whole: a
file written together with others is kept as a hard link (or a chunked copy) until all
are renamed, and :func:`same_content` compares size first, then bounded chunks.

A temporary file is named ``.NAME.PID.RANDOM.benchdoc-tmp``: hidden, never ending in
the target's suffix, and carrying the writer's process id, so the next write to the
same folder can tell a temporary left by a killed writer from one being written now,
and removes it.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

TEMP_PREFIX = "."
TEMP_SUFFIX = ".benchdoc-tmp"
_WRITE_CHUNK = 1 << 20
# A temporary without a process id in its name (an older naming) is stale after this long.
_UNNAMED_STALE_AFTER_S = 3600.0


class NotRegularFileError(OSError):
    """The output path names something other than a regular file (a device, FIFO, folder...)."""


@dataclass(frozen=True)
class StagedFile:
    """A file's new bytes, flushed to a temporary beside it, not yet renamed over it."""

    target: Path
    temp: Path
    backup: Path | None  # the target's old content (a hard link or copy), None if it did not exist
    existed: bool = False


def file_kind(mode: int) -> str:
    """What a stat mode names, in words: 'a character device', 'a FIFO', ..."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def check_output_path(path: str | os.PathLike[str]) -> os.stat_result | None:
    """The stat of an existing regular file at ``path`` (symlinks followed), None for a new name.

    Raises NotRegularFileError for a device, FIFO, socket or folder, or a symlink to one.
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        shown = os.fspath(path)
        real = os.path.realpath(path)
        via = f" (a symlink to {real})" if real != os.path.abspath(shown) else ""
        raise NotRegularFileError(
            0, f"{shown}{via} is {file_kind(info.st_mode)}: benchdoc writes only regular files or new names", shown
        )
    return info


def same_content(path: str | os.PathLike[str], data: bytes) -> bool:
    """Whether ``path`` is a regular file holding exactly ``data``; read in bounded chunks, never whole."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(data):
            return False
        view = memoryview(data)
        with open(path, "rb") as handle:
            offset = 0
            while chunk := handle.read(_WRITE_CHUNK):
                if view[offset : offset + len(chunk)] != chunk:
                    return False
                offset += len(chunk)
        return offset == len(data)
    except OSError:
        return False


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> list[Path]:
    """Replace a file's content so that readers see either the old or the new bytes.

    The bytes go to a temporary file in the same folder (same filesystem, so the
    rename is atomic), are flushed to disk, get the original file's permissions,
    and then replace it. A symlink is followed: its target is replaced, the link
    stays. If anything fails or the process dies, the original file is intact.
    Returns the stale temporaries of killed writes that were removed beside it.
    """
    return write_together([(Path(path), data)])


def write_atomic(path: Path, data: bytes) -> list[Path]:
    """Replace (or create) ``path`` with ``data`` atomically; see :func:`atomic_write_bytes`."""
    return atomic_write_bytes(path, data)


def write_together(files: Sequence[tuple[Path, bytes]]) -> list[Path]:
    """Write several files as one unit: every one of them, or (as far as the system allows) none.

    Every file is staged (written and flushed beside its target) before any is renamed;
    a failure while staging changes nothing. If a rename fails, the files already
    replaced get their old bytes back. Returns the stale temporaries removed.
    """
    removed: list[Path] = []
    for folder in dict.fromkeys(Path(os.path.realpath(p)).parent for p, _ in files):
        removed.extend(remove_stale_temporaries(folder))
    staged: list[StagedFile] = []
    for path, _ in files:  # refuse a device or folder before anything is staged
        check_output_path(path)
    try:
        for path, data in files:
            staged.append(stage(path, data, keep_old=len(files) > 1))
    except BaseException:
        discard(staged)
        raise
    commit(staged)
    return removed


def stage(path: str | os.PathLike[str], data: bytes, *, keep_old: bool = False) -> StagedFile:
    """Write ``data`` to a flushed temporary beside ``path`` with the mode ``path`` will have.

    With ``keep_old``, an existing target's content is kept aside (a hard link, else a
    chunked copy) so that :func:`commit` can put it back if a later rename fails.
    """
    target = Path(os.path.realpath(path))
    info = check_output_path(target)
    if info is not None:
        mode = stat.S_IMODE(info.st_mode)
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask  # mkstemp creates 0600; a new file gets the mode any new file would
    temp = _temporary(target)
    backup: Path | None = None
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(temp[0], view[:_WRITE_CHUNK])
                view = view[written:]
            os.fsync(temp[0])
        finally:
            os.close(temp[0])
        os.chmod(temp[1], mode)
        if keep_old and info is not None:
            backup = _keep_aside(target)
    except BaseException:
        _unlink(temp[1])
        raise
    return StagedFile(target, temp[1], backup, info is not None)


def _temporary(target: Path) -> tuple[int, Path]:
    fd, name = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{target.name}.{os.getpid()}.", suffix=TEMP_SUFFIX,
                                dir=target.parent)
    return fd, Path(name)


def _keep_aside(target: Path) -> Path:
    """A second name for the target's current content: a hard link, else a chunked copy."""
    fd, name = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{target.name}.{os.getpid()}.", suffix=TEMP_SUFFIX,
                                dir=target.parent)
    os.close(fd)
    backup = Path(name)
    try:
        os.unlink(backup)
        try:
            os.link(target, backup)
        except OSError:
            shutil.copy2(target, backup)  # copies in bounded chunks
    except BaseException:
        _unlink(backup)
        raise
    return backup


def commit(staged: Sequence[StagedFile]) -> None:
    """Rename every staged file over its target; on a failure, put back the ones already replaced."""
    done: list[StagedFile] = []
    try:
        for item in staged:
            os.replace(item.temp, item.target)
            done.append(item)
    except BaseException:
        discard([item for item in staged if item not in done])
        _restore(done)
        raise
    for item in staged:
        if item.backup is not None:
            _unlink(item.backup)
    for folder in dict.fromkeys(item.target.parent for item in staged):
        _fsync_directory(folder)


def discard(staged: Sequence[StagedFile]) -> None:
    """Remove staged temporaries (and kept-aside old contents) that will not be renamed."""
    for item in staged:
        _unlink(item.temp)
        if item.backup is not None:
            _unlink(item.backup)


def _restore(done: Sequence[StagedFile]) -> None:
    for item in reversed(done):
        try:
            if item.backup is not None:
                os.replace(item.backup, item.target)
            elif not item.existed:
                _unlink(item.target)
        except OSError:
            pass  # as far as the file system allows


def remove_stale_temporaries(folder: Path) -> list[Path]:
    """Remove this folder's benchdoc temporaries whose writer is gone; return them."""
    removed: list[Path] = []
    try:
        candidates = [p for p in folder.iterdir() if p.name.startswith(TEMP_PREFIX) and p.name.endswith(TEMP_SUFFIX)]
    except OSError:
        return removed
    for path in sorted(candidates):
        if _is_stale(path):
            try:
                path.unlink()
            except OSError:
                continue
            removed.append(path)
    return removed


def _is_stale(path: Path) -> bool:
    """Whether the writer of this temporary is gone (it is not ours and its process is dead)."""
    try:
        info = path.lstat()
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode):
        return False
    pieces = path.name[: -len(TEMP_SUFFIX)].split(".")
    pid = int(pieces[-2]) if len(pieces) >= 3 and pieces[-2].isdigit() else None
    if pid is None:
        return time.time() - info.st_mtime > _UNNAMED_STALE_AFTER_S
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, owned by someone else
        return False
    return False


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


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
