"""Helpers for runner tests: a project folder with a benchdoc.toml that launches the real
simulator as a subprocess, and checks that no process outlives a run."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path

from tests.conftest import sim_config_head

from benchdoc.config import Config, load_config
from benchdoc.runner.process import live_group_members


def write_project(root: Path, body: str, *, server_extra: Sequence[str] = (), ready_timeout: float = 30) -> Config:
    """A benchdoc.toml with a `sim` server, a small `small` load-generator workload and
    the given experiments (``body``), loaded."""
    text = sim_config_head(server_extra=server_extra, ready_timeout=ready_timeout) + "\n" + textwrap.dedent(
        """\
        [workloads.small]
        requests = 6
        concurrency = 2
        input_tokens = 8
        output_tokens = 8
        warmup_requests = 1
        """
    ) + textwrap.dedent(body)
    path = root / "benchdoc.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(path)


def process_alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for its parent counts as dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(")") + 2] not in ("Z", "X")


def assert_gone(pids: Sequence[int]) -> None:
    """Neither the processes nor anything in their process groups still runs."""
    assert pids, "no server process was recorded"
    for pid in pids:
        assert not process_alive(pid), f"server process {pid} is still running"
        assert live_group_members(pid) == [], f"process group {pid} still has running members"
