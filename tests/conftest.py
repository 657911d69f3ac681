"""Shared fixtures: a project folder with a benchdoc.toml, and a way to run the real CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

# A suite started in the background by a non-interactive shell inherits SIGINT ignored, and
# so would every benchdoc it starts: the Ctrl-C tests would then test nothing. Python keeps
# an ignored SIGINT ignored, so restore the default here; children then start with it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

if TYPE_CHECKING:
    from benchdoc.ledger.models import RunRecord

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


# Small, fast simulated server: 1 ms to the first token, 0.5 ms per token.
FAST_SIM = ("--ttft-ms", "1", "--step-ms", "0.5")


def sim_argv(*extra: str) -> list[str]:
    """The simulator as a server under test, as a benchdoc.toml argv list."""
    return [sys.executable, "-m", "benchdoc", "sim", "--port", "{port}", *FAST_SIM, *extra]


def toml_list(items: Sequence[str]) -> str:
    return json.dumps(list(items))


def sim_config_head(*, server_extra: Sequence[str] = (), ready_timeout: float = 30) -> str:
    """The head of a benchdoc.toml that measures with the simulator: the primary metric
    (output_tok_s) and a fast `sim` server; workloads and experiments follow it."""
    return f"""\
[metrics.output_tok_s]
label = "tok/s"
unit = "tok/s"
primary = true

[servers.sim]
argv = {toml_list(sim_argv(*server_extra))}
ready_timeout = {ready_timeout}
shutdown_grace = 3
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

    def runs(self, *, read_only: bool = False) -> dict[str, RunRecord]:
        """The runs in the project's ledger, by experiment (of several, the first recorded)."""
        from benchdoc.ledger.store import Ledger

        with Ledger.open(self.ledger_url, read_only=read_only) as ledger:
            return {run.experiment: run for run in ledger.runs()}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """An empty project folder holding the story's benchdoc.toml."""
    proj = Project(tmp_path)
    proj.write_config(STORY_CONFIG)
    return proj
