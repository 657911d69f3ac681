"""A newcomer's path from `benchdoc init` to a synced experiment log, without editing code:
at each step the test does only what benchdoc printed, running each advised command exactly
as printed (through a shell, `benchdoc` on the PATH), and each must work."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

BACKTICKED = re.compile(r"`(benchdoc [^`]+)`")


def _shell(folder: Path, command: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BENCHDOC_")}
    env.update(PATH=str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", ""), NO_COLOR="1", COLUMNS="160")
    return subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True, timeout=120)


def _ok(folder: Path, command: str) -> str:
    proc = _shell(folder, command)
    assert proc.returncode == 0, f"`{command}` exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout + proc.stderr


@pytest.mark.timeout(240)
def test_from_init_to_a_synced_log_by_following_the_advice(tmp_path: Path) -> None:
    folder = tmp_path
    # 1. init says what to do next; both commands work as printed.
    said = _ok(folder, "benchdoc init")
    first, then = re.search(r"next: (benchdoc .+?)\s+\(then: (benchdoc [^)]+)\)", said).groups()  # type: ignore[union-attr]
    assert "recorded run 1: baseline" in _ok(folder, first)
    assert "Baseline (no spec)" in _ok(folder, then)
    config = folder / "benchdoc.toml"
    assert "[servers." in config.read_text() and "docs/running.md" in config.read_text()

    # 2. sync with no document says which line to put in benchdoc.toml: put it there.
    proc = _shell(folder, "benchdoc sync")
    assert proc.returncode == 2
    line = re.search(r"\(\[documents\] (paths = \[.+?\])\)", proc.stderr).group(1)  # type: ignore[union-attr]
    config.write_text(config.read_text().replace("paths = []", line))

    # 3. The document does not exist yet: what to write in it, and the command after.
    proc = _shell(folder, "benchdoc sync")
    assert proc.returncode == 2
    found = re.search(r"no such document: (\S+) \(create it: a Markdown file with the lines (<!--.+?-->) and "
                      r"(<!--.+?-->) where the results table goes, then run: (benchdoc .+)\)", proc.stderr)
    assert found, proc.stderr
    document, start, end, command = found.groups()
    (folder / document).write_text(f"# Experiment log\n\n{start}\n{end}\n\nNotes by hand.\n")
    _ok(folder, command)
    log = (folder / document).read_text()
    assert "| Baseline (no spec) | Reference | 89.5 |" in log and log.endswith("\nNotes by hand.\n")
    assert _ok(folder, "benchdoc check").startswith("benchdoc check: 1 document(s) up to date")

    # 4. A new result: sync shows the diff and says how to apply it; check says the same.
    _ok(folder, "benchdoc record eagle3 --metric output_tok_s=96.1,95.8,96.4")
    proc = _shell(folder, "benchdoc sync")
    assert proc.returncode == 0 and "+| EAGLE-3 2-step |" in proc.stdout
    (advised,) = BACKTICKED.findall(proc.stderr)
    proc = _shell(folder, "benchdoc check")
    assert proc.returncode == 1
    assert BACKTICKED.findall(proc.stderr) == [advised]
    _ok(folder, advised)
    assert "| EAGLE-3 2-step |" in (folder / document).read_text()
    _ok(folder, "benchdoc check")

    # 5. A hand edit inside the region: every command exits 3, and check's advice works.
    text = (folder / document).read_text()
    (folder / document).write_text(text.replace("| 89.5 |", "| 90.0 |"))
    for command in ("benchdoc check", "benchdoc sync --check", "benchdoc sync --write"):
        assert _shell(folder, command).returncode == 3, command
    (advised,) = BACKTICKED.findall(_shell(folder, "benchdoc check").stderr.splitlines()[-1])
    assert advised == "benchdoc sync --write --force"
    _ok(folder, advised)
    assert "| 89.5 |" in (folder / document).read_text()
    assert _ok(folder, "benchdoc check").startswith("benchdoc check: 1 document(s) up to date")
