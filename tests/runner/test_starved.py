"""A repetition that other processes starved is named, from the per-repetition figures `run`
records: during the second of three repetitions only, real CPU hogs pinned to the one CPU the
simulated server is pinned to keep the machine busy, and the server is stopped (SIGSTOP) for
most of the repetition.

The hogs alone do not always starve it: the simulator sleeps between its steps and uses
about a third of a CPU, and the scheduler runs a task waking from sleep ahead of busy loops,
so whether it lost half of its CPU to them depended on the kernel and the machine. Held
stopped for STOPPED_S of the repetition's DURATION_S, it gets at most the rest, whatever the
scheduler does: the CPU a starved server does not get, and what the figures must show."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import sim_argv, toml_list

from benchdoc.ledger import Ledger
from benchdoc.machineload import starved_repetitions
from benchdoc.results import build_results
from benchdoc.runner import run_experiments
from benchdoc.runner.events import RepetitionFinished, RepetitionStarted, ServerReady

from .conftest import write_project

HOGS = 8
HOG = "import os; os.sched_setaffinity(0, {0})\nwhile True: pass"
DURATION_S = 3
# Long enough that the server's CPU in the repetition falls well under half of its usual
# share, short of every request timeout (the first token's is 120 s).
STOPPED_S = 2.0


@pytest.mark.timing
@pytest.mark.skipif(not shutil.which("taskset") or not os.path.exists("/proc/stat"), reason="needs taskset and /proc")
def test_the_starved_repetition_is_named(tmp_path: Path) -> None:
    argv = ["taskset", "-c", "0", *sim_argv("--step-ms", "0.2")]
    config = write_project(tmp_path, f"""
        [servers.pinned]
        argv = {toml_list(argv)}
        ready_timeout = 30
        shutdown_grace = 3

        [workloads.steady]
        duration_s = {DURATION_S}
        concurrency = 8
        input_tokens = 8
        output_tokens = 32

        [experiments.pinned]
        server = "pinned"
        workload = "steady"
        repetitions = 3
        """)
    hogs: list[subprocess.Popen[bytes]] = []
    servers: list[int] = []
    resume: list[threading.Timer] = []

    def on_event(event: Any) -> None:
        if isinstance(event, ServerReady):
            servers.append(event.pid)  # taskset execs the simulator: its pid is the server's
        elif isinstance(event, RepetitionStarted) and event.repetition == 1:
            hogs.extend(subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(HOGS))
            os.kill(servers[-1], signal.SIGSTOP)
            resume.append(threading.Timer(STOPPED_S, os.kill, (servers[-1], signal.SIGCONT)))
            resume[-1].start()
        elif isinstance(event, RepetitionFinished) and event.repetition == 1:
            stop(hogs)

    try:
        with Ledger.open(config.ledger_url) as ledger:
            report = run_experiments(config, ledger, ["pinned"], on_event=on_event)
            result = build_results(config, ledger)["pinned"]
    finally:
        for timer in resume:  # fired long before a run that went through; the runner kills a server left stopped
            timer.cancel()
        stop(hogs)
    assert report.outcomes[0].outcome == "ok"
    run = result.pooled[0]
    each = run.environment["load"]["figures"]["each"]
    starved = starved_repetitions(run.environment["load"])
    assert [(s.repetition, s.who) for s in starved] == [(1, "server")], each
    assert any(w.startswith(f"pinned: run {run.id}: repetition 2 was starved of CPU") for w in result.warnings)


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        process.kill()
        process.wait()
    processes.clear()
