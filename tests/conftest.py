"""Shared fixtures: a project folder with a benchdoc.toml, and a way to run the real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

STORY_CONFIG = """\
[metrics.output_tok_s]
label = "tok/s"
unit = "tok/s"
direction = "higher"
digits = 1
equivalence_margin = "1%"
primary = true

[metrics.ttft_ms_p50]
label = "TTFT p50"
unit = "ms"
direction = "lower"
digits = 1

[experiments.baseline]
label = "Baseline (no spec)"
role = "reference"

[experiments.eagle3]
label = "EAGLE-3 2-step"
aliases = ["EAGLE-3"]
compare_to = "baseline"

[experiments.eagle3-cuda13]
label = "EAGLE-3 2-step (CUDA 13 + fusion)"
compare_to = "baseline"
supersedes = "eagle3"

[experiments.nccl-tree]
label = "NCCL Tree"
compare_to = "baseline"

[experiments.nccl-fewer-channels]
label = "NCCL fewer channels"
compare_to = "baseline"
notes = "OOM (wrong mem-fraction, could retry)"
"""


@dataclass
class CliResult:
    returncode: int
    stdout: str
    stderr: str


def run_in_process(args: list[str], env: dict[str, str], cwd: Path, input: str | None) -> CliResult:
    """``benchdoc.cli.main(args)`` with captured output, a given environment and folder, all restored after."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from benchdoc.cli import main

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")  # has .buffer, like a real stdout
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")
    saved_env, saved_cwd, saved_stdin = dict(os.environ), os.getcwd(), sys.stdin
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.stdin = io.StringIO(input or "")
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(args)
            except SystemExit as exit_:  # argparse's own exits (--help, --version)
                code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    finally:
        sys.stdin = saved_stdin
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    out.flush()
    err.flush()
    text = [stream.buffer.getvalue().decode("utf-8", errors="replace") for stream in (out, err)]  # type: ignore[attr-defined]
    return CliResult(int(code), text[0], text[1])


@dataclass
class Project:
    root: Path

    def write_config(self, text: str) -> Path:
        path = self.root / "benchdoc.toml"
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    def run(self, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, input: str | None = None,
            process: bool = False) -> CliResult:
        """Run the real `benchdoc` command in the project folder.

        In this process by default (``benchdoc.cli.main`` with its own stdout, stderr, stdin,
        environment and working folder, as cog and sqlite-utils test theirs): the same code,
        without paying an interpreter start per call. ``process=True`` runs
        `python -m benchdoc` as a child, where a real process is the point (signals, what a
        fresh interpreter imports, a terminal).
        """
        inherited = {k: v for k, v in os.environ.items() if k != "BENCHDOC_LEDGER_URL"}
        full_env = {**inherited, "NO_COLOR": "1", "COLUMNS": "200", **(env or {})}
        # BENCHDOC_TEST_SUBPROCESS=1 runs every command as a child (to compare, or to debug).
        if not process and os.environ.get("BENCHDOC_TEST_SUBPROCESS") != "1":
            return run_in_process(list(args), full_env, cwd or self.root, input)
        proc = subprocess.run(
            [sys.executable, "-m", "benchdoc", *args],
            cwd=cwd or self.root,
            env=full_env,
            capture_output=True,
            text=True,
            input=input,
            timeout=120,
        )
        return CliResult(proc.returncode, proc.stdout, proc.stderr)

    @property
    def ledger_url(self) -> str:
        return f"sqlite:///{self.root / '.benchdoc' / 'ledger.db'}"


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """An empty project folder holding the story's benchdoc.toml."""
    proj = Project(tmp_path)
    proj.write_config(STORY_CONFIG)
    return proj
