"""provenance: where a run came from, captured once and stamped on every recorded run."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.conftest import STORY_CONFIG, Project

from benchdoc.ledger import Ledger, NewRun, Sample
from benchdoc.provenance import provenance


def _git(repo: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=Bench", "-c", "user.email=bench@example.invalid", *args]
    return subprocess.run(command, cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder that is a git repository with one commit, and a `git` first on PATH
    that notes each call (in git-calls.log) before running the real git."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    root = tmp_path / "project"
    root.mkdir()
    (root / "benchdoc.toml").write_text(STORY_CONFIG)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "benchdoc.toml")
    _git(root, "commit", "-q", "-m", "first")
    real = shutil.which("git")
    assert real is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "git"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{tmp_path / "git-calls.log"}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return root


def _git_calls(repo: Path) -> list[str]:
    log = repo.parent / "git-calls.log"
    return log.read_text().splitlines() if log.exists() else []


def test_provenance_reads_the_git_state_once(repo: Path) -> None:
    head = _git(repo, "rev-parse", "HEAD")
    (repo.parent / "git-calls.log").unlink(missing_ok=True)
    where = provenance(repo)
    assert (where.git_commit, where.git_dirty) == (head, False)
    assert where.host == where.environment["host"]["hostname"] and where.environment["git"]["commit"] == head
    assert len(_git_calls(repo)) == 1
    stamped = where.stamp(NewRun(experiment="a", samples=[Sample("x", 1.0)], command=["measure"]))
    assert (stamped.git_commit, stamped.host, stamped.command) == (head, where.host, ["measure"])
    assert stamped.environment is where.environment


def test_record_asks_git_once_and_keeps_the_commit(repo: Path) -> None:
    head = _git(repo, "rev-parse", "HEAD")
    (repo / "notes.txt").write_text("untracked files do not make the tree dirty\n")
    (repo.parent / "git-calls.log").unlink(missing_ok=True)
    result = Project(repo).run("record", "baseline", "--metric", "output_tok_s=92.6", env={"PATH": os.environ["PATH"]})
    assert result.returncode == 0, result.stderr
    assert [call.split()[0] for call in _git_calls(repo)] == ["status"]
    with Ledger.open(Project(repo).ledger_url) as ledger:
        (run,) = ledger.runs("baseline")
    assert (run.git_commit, run.git_dirty, run.source) == (head, False, "record")
    assert run.environment["git"]["commit"] == head and run.host == run.environment["host"]["hostname"]
