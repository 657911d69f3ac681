"""Submissions shared through the ledger: any clone's `status` sees the team's submissions,
and `submit --missing` leaves alone what is still queued or running.

``submit`` keeps each submission's manifest (which task runs which experiment, the
fingerprints, the folder its task logs go to) in its own folder under ``.benchdoc/slurm/``
and, the same JSON, in the ledger's table of entries under ``slurm-submission:<job id>``.
A clone that has no folder of that job finds it there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchdoc.cluster.options import SlurmOptions
from benchdoc.cluster.slurm import ACTIVE, active_tasks
from benchdoc.cluster.submit import MANIFEST, SLURM_DIR, Submission
from benchdoc.errors import UsageError

if TYPE_CHECKING:
    from benchdoc.config import Config
    from benchdoc.ledger.store import Ledger

ENTRY_PREFIX = "slurm-submission:"
RECENT = 20  # submissions `--missing` asks squeue about, newest first


def publish(ledger: Ledger, submission: Submission) -> None:
    """Keep ``submission`` in the ledger for the team."""
    data = {**submission.to_json(), "folder": str(submission.folder)}
    ledger.put_entry(f"{ENTRY_PREFIX}{submission.job_id}", json.dumps(data, sort_keys=True))


def from_json(data: Mapping[str, Any], folder: Path) -> Submission:
    saved: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in data.get("options", {}).items()}
    known = set(SlurmOptions.__dataclass_fields__)
    return Submission(
        folder=folder,
        experiments=tuple(data["experiments"]),
        submitted_at=datetime.fromisoformat(data["submitted_at"]),
        options=SlurmOptions(**{k: v for k, v in saved.items() if k in known}),
        fingerprints=dict(data.get("fingerprints", {})),
        job_id=str(data["job_id"]),
    )


def team_submissions(ledger: Ledger) -> list[Submission]:
    """Every submission kept in the ledger, oldest first (unreadable entries skipped)."""
    found = []
    for value in ledger.entries(ENTRY_PREFIX).values():
        try:
            data = json.loads(value)
            found.append(from_json(data, Path(data["folder"])))
        except (ValueError, KeyError, TypeError):
            continue
    return sorted(found, key=lambda s: (s.submitted_at, int(s.job_id or 0)))


def still_active(submissions: list[Submission], names: list[str], env: Mapping[str, str] | None = None) -> dict[str, str]:
    """Of ``names``, those a recent submission still has queued or running: name -> job id."""
    wanted = set(names)
    found: dict[str, str] = {}
    for submission in sorted(submissions, key=lambda s: s.submitted_at, reverse=True)[:RECENT]:
        if not wanted & set(submission.experiments) or submission.job_id is None:
            continue
        for task in active_tasks(submission.job_id, env):
            if task < len(submission.experiments) and submission.experiments[task] in wanted:
                found.setdefault(submission.experiments[task], submission.job_id)
    return found


__all__ = ["ACTIVE", "ENTRY_PREFIX", "from_json", "publish", "still_active", "team_submissions"]


def load_submission(config: Config, job_id: str | None = None, ledger: Ledger | None = None) -> Submission:
    """The submission of ``job_id``, or the latest one: of this clone's ``.benchdoc/slurm/``,
    or, given ``ledger``, of the team's submissions kept there (the later of the two)."""
    found = local_submissions(config)
    if ledger is not None:
        seen = {s.job_id for s in found}
        found += [s for s in team_submissions(ledger) if s.job_id not in seen]
    found = [s for s in found if job_id is None or s.job_id == job_id]
    if not found:
        which = f"job {job_id}" if job_id else "any job"
        where = f"under {SLURM_DIR}/" + (" nor in the ledger" if ledger is not None else "")
        raise UsageError(f"no submission of {which} {where} (submit with: benchdoc submit --slurm)")
    return max(found, key=lambda s: (s.submitted_at, int(s.job_id or 0)))


def local_submissions(config: Config) -> list[Submission]:
    """This clone's submissions, oldest first (an unreadable manifest skipped)."""
    found = []
    for path in sorted((config.root / SLURM_DIR).glob(f"*/{MANIFEST}"), key=lambda p: p.parent.name):
        try:
            found.append(from_json(json.loads(path.read_text(encoding="utf-8")), path.parent))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return found
