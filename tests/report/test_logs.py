"""report.logs: the redacted tail of a failed run's log file."""

from __future__ import annotations

from pathlib import Path

from benchdoc.report.logs import TAIL_BYTES, log_tail


def test_tail_keeps_the_last_lines_and_redacts_secrets(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text("\n".join(f"step {i}" for i in range(100)) + "\nlaunch --api-key sk-abcdefghijklmnopqrstuvwx12345\n")
    excerpt = log_tail(str(log), lines=5)
    assert excerpt is not None
    assert excerpt.lines == ("step 96", "step 97", "step 98", "step 99", "launch --api-key ***")
    assert excerpt.truncated and excerpt.path == str(log)


def test_relative_path_is_read_from_the_project_root(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "run.log").write_text("only line\n")
    excerpt = log_tail("logs/run.log", tmp_path)
    assert excerpt is not None and excerpt.lines == ("only line",) and not excerpt.truncated


def test_huge_log_reads_only_its_end(tmp_path: Path) -> None:
    log = tmp_path / "big.log"
    log.write_bytes(b"x" * (TAIL_BYTES * 3) + b"\nCUDA out of memory\n")
    excerpt = log_tail(str(log))
    assert excerpt is not None and excerpt.lines == ("CUDA out of memory",) and excerpt.truncated


def test_no_log_gives_none(tmp_path: Path) -> None:
    assert log_tail(None) is None and log_tail("") is None
    assert log_tail(str(tmp_path / "gone.log")) is None
    assert log_tail(str(tmp_path)) is None  # a folder is not a log
