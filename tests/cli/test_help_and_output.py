"""What a newcomer meets first: help that reads well, output that survives a pipe, options
where they are typed, and shell completion."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import Project

LONG_NAME = "baseline-cuda13-with-a-configuration-name-far-longer-than-eighty-columns-of-terminal"


def _piped(project: Project, *args: str) -> subprocess.CompletedProcess[str]:
    """The real command with stdout a pipe and no COLUMNS: how `benchdoc show | less` runs."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "BENCHDOC_LEDGER_URL")}
    env["NO_COLOR"] = "1"
    return subprocess.run([sys.executable, "-m", "benchdoc", *args], cwd=project.root, env=env,
                          capture_output=True, text=True, timeout=120)


def test_piped_tables_are_never_cut(project: Project) -> None:
    project.write_config(f'[experiments.{LONG_NAME}]\nlabel = "{LONG_NAME}"\n')
    assert project.run("record", LONG_NAME, "--metric", "output_tok_s=92.6,92.4,92.9",
                       "--note", "kept at /a/very/long/path/that/must/not/be/cut/in/a/pipe/either").returncode == 0
    for args in (("show",), ("show", "--all-metrics"), ("history", LONG_NAME)):
        result = _piped(project, *args)
        assert result.returncode == 0, result.stderr
        assert LONG_NAME in result.stdout, (args, result.stdout)
        assert "…" not in result.stdout, (args, result.stdout)
    assert "/a/very/long/path/that/must/not/be/cut/in/a/pipe/either" in _piped(project, "history", LONG_NAME).stdout


def test_config_works_after_the_subcommand(project: Project, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    config = str(project.root / "benchdoc.toml")
    assert project.run("record", "baseline", "--metric", "output_tok_s=92.6", "--config", config, cwd=elsewhere).returncode == 0
    after = project.run("show", "--config", config, cwd=elsewhere)
    before = project.run("--config", config, "show", cwd=elsewhere)
    assert after.returncode == 0, after.stderr
    assert after.stdout == before.stdout
    assert "Baseline (no spec)" in after.stdout


def _commands() -> list[str]:
    from benchdoc.cli import build_parser

    parser = build_parser()
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return sorted(action.choices)  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", _commands())
def test_help_has_no_doubled_percent_and_prose_is_wrapped(project: Project, command: str) -> None:
    result = _piped(project, command, "--help")
    assert result.returncode == 0
    assert "%%" not in result.stdout
    # Prose is wrapped to the width; only example lines (indented) may run longer.
    long = [line for line in result.stdout.splitlines() if len(line) > 100 and not line.startswith("  ")]
    assert not long, long


def test_completion_prints_shell_code_for_each_shell(project: Project) -> None:
    for shell in ("bash", "zsh", "fish"):
        result = project.run("completion", shell)
        assert result.returncode == 0, result.stderr
        assert "benchdoc" in result.stdout and "_ARGCOMPLETE" in result.stdout
    assert project.run("completion", "tcsh").returncode == 2


def _complete(project: Project, line: str) -> list[str]:
    """Ask the real command what the shell should offer for ``line`` (as argcomplete's hook does)."""
    out = project.root / "completions.txt"
    env = {**os.environ, "_ARGCOMPLETE": "1", "_ARGCOMPLETE_STDOUT_FILENAME": str(out), "COMP_LINE": line,
           "COMP_POINT": str(len(line)), "_ARGCOMPLETE_IFS": "\n"}
    result = subprocess.run([sys.executable, "-m", "benchdoc"], cwd=project.root, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return [w.strip() for w in out.read_text().split("\n") if w.strip()]


def test_completion_offers_subcommands_options_and_experiment_names(project: Project) -> None:
    assert "show" in _complete(project, "benchdoc sh")
    assert set(_complete(project, "benchdoc show eagle")) == {"eagle3", "eagle3-cuda13"}
    assert "EAGLE-3" in _complete(project, "benchdoc history EA")
    assert "--all-metrics" in _complete(project, "benchdoc show --all-")
