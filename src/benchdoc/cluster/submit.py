"""Submitting experiments to Slurm as one job array, and finding submissions again.

Each submission has a folder under ``.benchdoc/slurm/`` (the project folder must be on
a file system the nodes share): the sbatch script, ``submission.json`` (which task runs
which experiment, the configuration's fingerprint, the job id) and the tasks' logs.
benchdoc never schedules: Slurm places, limits and kills; every task is a plain
``benchdoc run`` of one experiment.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchdoc.cluster.options import SlurmOptions
from benchdoc.cluster.script import render_script
from benchdoc.cluster.slurm import sbatch
from benchdoc.config import Config
from benchdoc.errors import UsageError
from benchdoc.planning.fingerprint import config_fingerprints
from benchdoc.planning.plan import check_setups

if TYPE_CHECKING:
    pass

SLURM_DIR = Path(".benchdoc") / "slurm"
MANIFEST = "submission.json"
SCRIPT = "job.sh"


@dataclass(frozen=True)
class Submission:
    """One job array: task ``i`` runs ``experiments[i]``."""

    folder: Path
    experiments: tuple[str, ...]
    submitted_at: datetime
    options: SlurmOptions
    fingerprints: dict[str, str] = field(default_factory=dict)
    job_id: str | None = None  # None for a dry run

    @property
    def script(self) -> Path:
        return self.folder / SCRIPT

    def task_log(self, task: int) -> Path:
        return self.folder / f"{self.job_id}_{task}.out"

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "job_id": self.job_id,
            "submitted_at": self.submitted_at.isoformat(),
            "experiments": list(self.experiments),
            "fingerprints": self.fingerprints,
            "options": asdict(self.options),
        }


def refuse_sqlite(config: Config) -> None:
    """A job array's tasks write from many nodes at once: the ledger must be a server."""
    if config.ledger_url.startswith("sqlite"):
        raise UsageError(
            "the ledger is SQLite, which is not safe for many writers over a shared file system: "
            "set BENCHDOC_LEDGER_URL (or [ledger] url) to the team's PostgreSQL before submitting"
        )


def submit(
    config: Config,
    names: Sequence[str],
    options: SlurmOptions,
    *,
    dry_run: bool = False,
    env: Mapping[str, str] | None = None,
) -> Submission:
    """Write the script of one job array over ``names`` and submit it with ``sbatch
    --parsable`` (unless ``dry_run``). When the cluster refuses the job, its folder is
    removed again and the SlurmError says why; nothing is recorded either way."""
    if not names:
        raise UsageError("nothing to submit")
    refuse_sqlite(config)
    check_setups(config, names)  # every experiment valid before anything is written
    if not dry_run and shutil.which("sbatch", path=(env or os.environ).get("PATH")) is None:
        raise UsageError("sbatch not found on PATH: submit from a Slurm login node (Debian's package: slurm-client)")
    submitted_at = datetime.now(timezone.utc).replace(microsecond=0)
    folder = _new_folder(config.root / SLURM_DIR, submitted_at)
    submission = Submission(
        folder=folder,
        experiments=tuple(names),
        submitted_at=submitted_at,
        options=options,
        fingerprints=config_fingerprints(config, names),
    )
    if dry_run:
        return submission
    folder.mkdir(parents=True)
    submission.script.write_text(script_text(config, submission), encoding="utf-8")
    try:
        job_id = sbatch(submission.script, env)
    except Exception:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    submitted = Submission(**{**submission.__dict__, "job_id": job_id})
    (folder / MANIFEST).write_text(json.dumps(submitted.to_json(), indent=2) + "\n", encoding="utf-8")
    return submitted


def script_text(config: Config, submission: Submission) -> str:
    """The script a (dry-run) submission would submit."""
    return render_script(
        names=submission.experiments, options=submission.options, config_path=config.path, folder=submission.folder,
        submitted_at=submission.submitted_at, sweeps={n: s.members for n, s in config.sweeps.items()},
    )


def _new_folder(parent: Path, moment: datetime) -> Path:
    base = moment.strftime("%Y%m%dT%H%M%SZ")
    candidate, number = parent / base, 1
    while candidate.exists():
        number += 1
        candidate = parent / f"{base}-{number}"
    return candidate
