"""Simulators for the load generator's tests: in a thread (cheap) or in its own process
(so its CPU does not compete with the client's for one interpreter lock)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

from benchdoc.sim import SimConfig, start_in_thread

READY = "listening on "


@contextmanager
def sim_process(*options: str, startup_timeout_s: float = 20.0) -> Iterator[str]:
    """Run ``benchdoc sim --port 0 OPTIONS`` and yield its URL once it listens."""
    argv = [sys.executable, "-m", "benchdoc", "sim", "--host", "127.0.0.1", "--port", "0", *options]
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + startup_timeout_s
        url = None
        seen: list[str] = []
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            seen.append(line)
            if READY in line:
                url = line.split(READY, 1)[1].strip()
                break
        if url is None:
            raise RuntimeError("the simulator did not start:\n" + "".join(seen))
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


@pytest.fixture
def sim_thread() -> Iterator[Callable[..., str]]:
    """Start simulators in threads of this process: ``url = sim_thread(ttft_ms=..)``."""
    running = []

    def start(**settings: object) -> str:
        sim = start_in_thread(SimConfig(**settings))  # type: ignore[arg-type]
        running.append(sim)
        return sim.url

    yield start
    for sim in running:
        sim.stop()


@pytest.fixture
def sim_subprocess() -> Iterator[Callable[..., str]]:
    """Start simulators as separate processes: ``url = sim_subprocess("--ttft-ms", "20")``."""
    stack = []

    def start(*options: str) -> str:
        manager = sim_process(*options)
        url = manager.__enter__()
        stack.append(manager)
        return url

    yield start
    for manager in reversed(stack):
        manager.__exit__(None, None, None)

