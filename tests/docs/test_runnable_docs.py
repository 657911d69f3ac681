"""Every fenced block marked runnable in README.md and docs/ (```` ```sh runnable ````) runs as
written, in an empty folder with `benchdoc` on the PATH, and every command in it succeeds:
the documented commands cannot drift from the tool (as sqlite-utils checks its docs).

The blocks of one file run in order in one folder, so a later block may build on an earlier one.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```(\w+)[ \t]+runnable[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)


def runnable_blocks() -> dict[str, list[str]]:
    """Each Markdown file's runnable blocks, in order."""
    found: dict[str, list[str]] = {}
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        blocks = [m.group(2) for m in FENCE.finditer(path.read_text(encoding="utf-8")) if m.group(1) in ("sh", "bash")]
        if blocks:
            found[str(path.relative_to(ROOT))] = blocks
    return found


BLOCKS = runnable_blocks()


def test_the_docs_mark_their_runnable_blocks() -> None:
    # The test must not pass by finding nothing: the quick start and the command-line scan are marked.
    assert {"README.md", "docs/running.md"} <= set(BLOCKS), BLOCKS.keys()


@pytest.mark.timeout(300)
@pytest.mark.parametrize("document", sorted(BLOCKS))
def test_each_runnable_block_runs_as_written(document: str, tmp_path: Path) -> None:
    bin_dir = str(Path(sys.executable).parent)  # where this interpreter's `benchdoc` script is
    env = {k: v for k, v in os.environ.items() if not k.startswith("BENCHDOC_")}
    env.update(PATH=bin_dir + os.pathsep + env.get("PATH", ""), NO_COLOR="1", COLUMNS="160")
    for index, block in enumerate(BLOCKS[document], start=1):
        for command in _commands(block):
            proc = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                                  timeout=240)
            assert proc.returncode == 0, (
                f"{document}, runnable block {index}: `{command}` exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
            )


def _commands(block: str) -> list[str]:
    """The block's commands: one per line, a trailing backslash continuing it."""
    commands, current = [], ""
    for line in block.splitlines():
        current += line.rstrip("\\") + (" " if line.endswith("\\") else "")
        if not line.endswith("\\"):
            if current.strip() and not current.lstrip().startswith("#"):
                commands.append(current.strip())
            current = ""
    return commands
