"""Code-health gates that run with the suite: ruff and mypy are clean, and every command is
documented in the README and answers ``--help``.

ruff and mypy are pinned in the ``test`` extra (pyproject.toml), where their settings live
too, so the same tree gives the same answer on every machine.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchdoc.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail(f"{name} is not installed: install the test extra (pip install -e '.[test]')")
    return found


def test_ruff_is_clean() -> None:
    result = subprocess.run([_tool("ruff"), "check", "--no-cache", "src", "tests", "benchmarks"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.timeout(600)
def test_mypy_is_clean() -> None:
    result = subprocess.run([_tool("mypy")], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def _commands() -> list[str]:
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return sorted(subparsers.choices)  # type: ignore[attr-defined]


def test_every_command_is_in_the_readme_and_has_help() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`benchdoc ([a-z][a-z-]*)", readme))
    missing = [c for c in _commands() if c not in documented]
    assert not missing, f"commands not in README.md: {missing}"
    for command in _commands():
        result = subprocess.run([sys.executable, "-m", "benchdoc", command, "--help"], capture_output=True, text=True)
        assert result.returncode == 0, (command, result.stderr)
        assert f"benchdoc {command}" in result.stdout, command
