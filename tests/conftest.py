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


@dataclass
class Project:
    root: Path

    def write_config(self, text: str) -> Path:
        path = self.root / "benchdoc.toml"
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    def run(self, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, input: str | None = None) -> CliResult:
        """Run the real `benchdoc` command (as `python -m benchdoc`) in the project folder."""
        inherited = {k: v for k, v in os.environ.items() if k != "BENCHDOC_LEDGER_URL"}
        full_env = {**inherited, "NO_COLOR": "1", "COLUMNS": "200", **(env or {})}
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
