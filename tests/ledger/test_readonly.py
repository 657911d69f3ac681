"""A ledger is read where its folder cannot be written; a file that is no ledger is one clear error."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from benchdoc.errors import LedgerError
from benchdoc.ledger import Ledger, NewRun, Sample


@contextmanager
def read_only_folder(folder: Path) -> Iterator[None]:
    """Make ``folder`` unwritable for this process: the immutable flag for root (whom
    permission bits do not stop), the permission bits for anyone else."""
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", str(folder)], check=True)
        try:
            yield
        finally:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
    else:
        mode = folder.stat().st_mode
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(mode)


def _recorded(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / '.benchdoc' / 'ledger.db'}"
    with Ledger.open(url) as ledger:
        ledger.record_run(NewRun("baseline", samples=[Sample("output_tok_s", 90.0, 0)]))
    return url


def test_a_ledger_in_a_read_only_folder_is_read(tmp_path: Path) -> None:
    url = _recorded(tmp_path)
    folder = tmp_path / ".benchdoc"
    before = sorted(p.name for p in folder.iterdir())
    with read_only_folder(folder):
        with pytest.raises(OSError):
            (folder / "probe").write_text("x")  # the folder really is read-only
        with Ledger.open(url, read_only=True) as ledger:
            assert [r.experiment for r in ledger.runs()] == ["baseline"]
        with pytest.raises(LedgerError):
            with Ledger.open(url) as ledger:  # a writer cannot open it there
                ledger.record_run(NewRun("baseline", samples=[Sample("output_tok_s", 91.0, 0)]))
    assert sorted(p.name for p in folder.iterdir()) == before


def test_reading_never_writes_or_creates(tmp_path: Path) -> None:
    url = _recorded(tmp_path)
    with Ledger.open(url, read_only=True) as ledger, pytest.raises(LedgerError, match="readonly|read-only|query_only"):
        ledger.record_run(NewRun("baseline", samples=[Sample("output_tok_s", 91.0, 0)]))
    missing = f"sqlite:///{tmp_path / 'none' / 'ledger.db'}"
    with Ledger.open(missing, read_only=True) as ledger:
        assert ledger.runs() == []
    assert not (tmp_path / "none").exists()
    with pytest.raises(LedgerError, match="no ledger at"):
        Ledger.open(missing, create=False, read_only=True)


@pytest.mark.parametrize("read_only", [False, True])
def test_a_file_that_is_not_a_database_is_one_clear_error(tmp_path: Path, read_only: bool) -> None:
    path = tmp_path / "ledger.db"
    path.write_text("these are notes, not a database\n" * 100)
    with pytest.raises(LedgerError, match="cannot open the ledger at .*: file is not a database"):
        Ledger.open(f"sqlite:///{path}", read_only=read_only)
    assert path.read_text().startswith("these are notes")


@pytest.mark.parametrize("read_only", [False, True])
def test_a_ledger_missing_its_runs_table_is_called_damaged(tmp_path: Path, read_only: bool) -> None:
    url = _recorded(tmp_path)
    with sqlite3.connect(tmp_path / ".benchdoc" / "ledger.db") as conn:
        conn.execute("DROP TABLE samples")
        conn.execute("DROP TABLE runs")
    with pytest.raises(LedgerError, match="is damaged: its 'runs' table is missing"):
        Ledger.open(url, read_only=read_only)
