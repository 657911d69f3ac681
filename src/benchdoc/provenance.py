"""Where a run came from: the machine and the code's git state, captured once.

`run`, `bench` and `record` (and the project's benchmark scripts) stamp every run they
record with :func:`provenance`; git is asked once, by the environment capture.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from benchdoc.ledger.models import NewRun


@dataclass(frozen=True)
class Provenance:
    """The environment snapshot (see benchdoc.environment) and what runs take from it."""

    environment: dict[str, Any]
    host: str | None
    git_commit: str | None
    git_dirty: bool | None

    def stamp(self, run: NewRun) -> NewRun:
        """``run`` with this provenance."""
        return replace(
            run, environment=self.environment, host=self.host, git_commit=self.git_commit, git_dirty=self.git_dirty
        )


def provenance(cwd: Path, *, env: Mapping[str, str] | None = None) -> Provenance:
    """Capture the environment once: ``cwd`` is the tree whose git state is recorded, ``env``
    the environment the measured program sees (default: this process's)."""
    from benchdoc.environment import capture_environment

    environment = capture_environment(env=env, cwd=cwd)
    host = environment.get("host") or {}
    git = environment.get("git") or {}
    return Provenance(
        environment=environment,
        host=host.get("hostname"),
        git_commit=git.get("commit"),
        git_dirty=git.get("dirty"),
    )
