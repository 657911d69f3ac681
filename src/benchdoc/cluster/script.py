"""The sbatch script of one submission: one job array, task i runs experiment i.

The script holds the project's paths, the experiments' names and the sbatch options;
never the ledger's URL (the task reads it from the project file, or from
BENCHDOC_LEDGER_URL in the environment sbatch exports), so no credential is written.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from benchdoc.cluster.options import SlurmOptions


def array_spec(count: int, max_parallel: int | None) -> str:
    """``0-15%4``: task ids 0..count-1, at most ``max_parallel`` running at once."""
    spec = f"0-{count - 1}" if count > 1 else "0"
    return f"{spec}%{max_parallel}" if max_parallel else spec


def job_name(names: Sequence[str], sweeps: dict[str, tuple[str, ...]]) -> str:
    """``benchdoc-<sweep>`` when every experiment comes from one sweep, else ``benchdoc``."""
    for sweep, members in sweeps.items():
        if all(name in members for name in names):
            return f"benchdoc-{sweep}"
    return "benchdoc" if len(names) != 1 else f"benchdoc-{names[0]}"


def render_script(
    *,
    names: Sequence[str],
    options: SlurmOptions,
    config_path: Path,
    folder: Path,
    submitted_at: datetime,
    sweeps: dict[str, tuple[str, ...]],
    python: str | None = None,
) -> str:
    """The text of the sbatch script. ``folder`` is the submission's folder (task logs go
    there); ``python`` is the interpreter benchdoc runs under on the nodes (default: this one)."""
    root = config_path.parent
    command = [python or sys.executable, "-m", "benchdoc", "--config", str(config_path), "run", "--slurm-task"]
    lines = [
        "#!/bin/bash",
        f"# benchdoc submit, {submitted_at:%Y-%m-%dT%H:%M:%SZ}: {len(names)} experiment(s) of {config_path.name},",
        "# one array task each. The ledger comes from the project file or from BENCHDOC_LEDGER_URL in the",
        "# environment sbatch exports to the tasks: no credential is written here.",
        f"#SBATCH --job-name={job_name(names, sweeps)}",
        f"#SBATCH --array={array_spec(len(names), options.max_parallel)}",
        f"#SBATCH --output={folder}/%A_%a.out",
        "#SBATCH --open-mode=append",  # a requeued task's next attempt appends: no attempt's log is lost
        f"#SBATCH --chdir={root}",
        *(f"#SBATCH {directive}" for directive in options.directives()),
        "",
        "experiments=(",
        *(f"  {shlex.quote(name)}" for name in names),
        ")",
        # Where Slurm writes this task's log: benchdoc reads why Slurm ends the task there.
        f'export BENCHDOC_TASK_LOG={shlex.quote(str(folder))}/"${{SLURM_ARRAY_JOB_ID}}_${{SLURM_ARRAY_TASK_ID}}.out"',
        *([f"export BENCHDOC_TASK_RETRIES={options.retries}"] if options.retries is not None else []),
        *options.setup,
        # exec: benchdoc becomes the task's process and receives Slurm's SIGTERM itself.
        "exec " + shlex.join(command) + ' "${experiments[$SLURM_ARRAY_TASK_ID]}"',
        "",
    ]
    return "\n".join(lines)
