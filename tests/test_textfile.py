"""Atomic writes keep a file's mode, give a new file the usual mode, and leave no temp file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchdoc.textfile import TEMP_SUFFIX, write_atomic, write_together


def test_new_file_gets_the_umask_mode_and_existing_keeps_its_own(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        fresh = tmp_path / "report.html"
        write_atomic(fresh, b"<p>hi</p>")
        assert fresh.read_bytes() == b"<p>hi</p>" and (fresh.stat().st_mode & 0o777) == 0o644
        kept = tmp_path / "log.md"
        kept.write_text("x")
        os.chmod(kept, 0o600)
        write_atomic(kept, b"y")
        assert kept.read_text() == "y" and (kept.stat().st_mode & 0o777) == 0o600
    finally:
        os.umask(old)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(TEMP_SUFFIX)]


def test_files_written_together_change_none_when_one_cannot_be_staged(tmp_path: Path) -> None:
    doc = tmp_path / "log.md"
    doc.write_bytes(b"old\n")
    with pytest.raises(FileNotFoundError):
        write_together([(doc, b"new\n"), (tmp_path / "missing-folder" / "chart.svg", b"<svg/>")])
    assert doc.read_bytes() == b"old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.md"]


def test_stale_temporary_of_a_live_writer_is_kept_and_of_a_dead_one_removed(tmp_path: Path) -> None:
    import subprocess
    import sys

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    gone = tmp_path / f".log.md.{dead.pid}.abc{TEMP_SUFFIX}"
    alive = tmp_path / f".log.md.{os.getppid()}.def{TEMP_SUFFIX}"
    gone.write_bytes(b"x")
    alive.write_bytes(b"y")
    removed = write_atomic(tmp_path / "log.md", b"new")
    assert removed == [gone] and alive.exists() and not gone.exists()
