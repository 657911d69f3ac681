"""Command modules present what the library computes; they do not borrow each other's code."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import benchdoc.cli

CLI = Path(benchdoc.cli.__file__).parent


def _commands_imported(path: Path) -> set[str]:
    # Modules whose names start with "_" are the commands' shared helpers, not commands.
    commands = {p.stem for p in CLI.glob("*.py") if not p.stem.startswith("_")} - {path.stem}
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("benchdoc.cli."):
            found.add(node.module.split(".")[2])
    return found & commands


@pytest.mark.parametrize("command", sorted(p.stem for p in CLI.glob("*.py") if not p.stem.startswith("_")))
def test_a_command_imports_no_other_command(command: str) -> None:
    assert _commands_imported(CLI / f"{command}.py") == set()
