"""Atomic writes keep a file's mode, give a new file the usual mode, and leave no temp file."""

from __future__ import annotations

import os
from pathlib import Path

from benchdoc.textfile import TEMP_SUFFIX, write_atomic


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
