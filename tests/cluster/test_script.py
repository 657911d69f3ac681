"""The sbatch script: one array, names quoted, options as given, no credential."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from benchdoc.cluster import SlurmOptions
from benchdoc.cluster.script import array_spec, job_name, render_script


def test_array_specs_and_job_names() -> None:
    assert (array_spec(16, 4), array_spec(3, None), array_spec(1, None)) == ("0-15%4", "0-2", "0")
    sweeps = {"grid": ("g-1", "g-2", "g-3")}
    assert job_name(["g-1", "g-3"], sweeps) == "benchdoc-grid"
    assert job_name(["g-1", "other"], sweeps) == "benchdoc"
    assert job_name(["other"], sweeps) == "benchdoc-other"


def test_the_script_runs_task_i_on_experiment_i(tmp_path: Path) -> None:
    text = render_script(
        names=["eagle3-s1-k1", "odd;name"], options=SlurmOptions(partition="gpu", gres="gpu:8", max_parallel=1,
                                                                 setup=("module load cuda/12.8",)),
        config_path=tmp_path / "benchdoc.toml", folder=tmp_path / ".benchdoc" / "slurm" / "x",
        submitted_at=datetime(2026, 5, 4, 9, 30, tzinfo=timezone.utc), sweeps={}, python="/opt/venv/bin/python",
    )
    lines = text.splitlines()
    assert lines[0] == "#!/bin/bash"
    assert "#SBATCH --array=0-1%1" in lines and "#SBATCH --partition=gpu" in lines and "#SBATCH --exclusive" in lines
    assert f"#SBATCH --output={tmp_path}/.benchdoc/slurm/x/%A_%a.out" in lines
    assert "#SBATCH --open-mode=append" in lines  # a requeued attempt appends to the log, never truncates it
    assert "  'odd;name'" in lines  # quoted for the shell
    assert lines[-2] == "module load cuda/12.8"  # setup runs just before benchdoc
    assert lines[-1] == (f"exec /opt/venv/bin/python -m benchdoc --config {tmp_path}/benchdoc.toml run --slurm-task "
                         '"${experiments[$SLURM_ARRAY_TASK_ID]}"')
    assert "postgresql" not in text and "LEDGER_URL=" not in text
