"""Submissions kept in the ledger: a second clone of the project finds the first clone's
submission for `status`."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from benchdoc.cluster.options import SlurmOptions
from benchdoc.cluster.shared import load_submission, publish, team_submissions
from benchdoc.cluster.submit import Submission
from benchdoc.config import load_config
from benchdoc.errors import UsageError
from benchdoc.ledger import Ledger


def clone(root: Path) -> Path:
    root.mkdir()
    (root / "benchdoc.toml").write_text('[experiments.a]\nlabel = "A"\n[experiments.b]\nlabel = "B"\n')
    return root


def test_a_second_clone_finds_the_first_clones_submission_in_the_ledger(tmp_path: Path) -> None:
    first, second = clone(tmp_path / "first"), clone(tmp_path / "second")
    submission = Submission(first / ".benchdoc" / "slurm" / "20261203T190000Z", ("a", "b"),
                            datetime(2026, 12, 3, 19, 0, tzinfo=timezone.utc),
                            SlurmOptions(partition="gpu", requeue=False, sbatch_args=("--mem=64G",)),
                            {"a": "f1", "b": "f2"}, job_id="36")
    with Ledger.open(f"sqlite:///{tmp_path / 'ledger.db'}") as ledger:
        publish(ledger, submission)
        publish(ledger, submission)  # shared again: kept once
        assert team_submissions(ledger) == [submission]
        config = load_config(second / "benchdoc.toml")
        with pytest.raises(UsageError, match="no submission of any job"):
            load_submission(config)  # this clone alone knows none
        found = load_submission(config, None, ledger)
        assert found == submission and found.task_log(1) == submission.folder / "36_1.out"
        assert load_submission(config, "36", ledger) == submission
        with pytest.raises(UsageError, match="no submission of job 37 under .benchdoc/slurm/ nor in the ledger"):
            load_submission(config, "37", ledger)
