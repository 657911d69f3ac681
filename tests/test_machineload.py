"""The machine's load over a measurement: real CPU burned by processes the test starts."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from benchdoc.machineload import (
    LoadFigures,
    LoadMeter,
    Snapshot,
    busy_note,
    busy_reasons,
    busy_warning,
    environment_entry,
    figures_between,
    listener_pgids,
    local_server_pgids,
    starved_repetitions,
)

BURN = [sys.executable, "-c", "while True: pass"]


@pytest.fixture
def burner() -> Iterator[subprocess.Popen[bytes]]:
    """A CPU-burning child in its own process group."""
    process = subprocess.Popen(BURN, start_new_session=True)
    time.sleep(0.2)
    yield process
    process.kill()
    process.wait()


def burn_here(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


@pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="CPU accounting reads /proc")
def test_a_cpu_burning_process_makes_the_machine_busy(burner: subprocess.Popen[bytes]) -> None:
    meter = LoadMeter().start()
    time.sleep(1.0)
    figures = meter.stop()
    assert figures.others_cores is not None and figures.others_cores > 0.1
    assert figures.busy and any("other processes kept" in r for r in figures.reasons)
    assert figures.seconds == pytest.approx(1.0, abs=0.5)


@pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="CPU accounting reads /proc")
def test_the_server_under_test_and_benchdoc_itself_are_not_other_processes(
    burner: subprocess.Popen[bytes],
) -> None:
    # The burner is the server under test here: its CPU is the server's.
    meter = LoadMeter([burner.pid]).start()
    time.sleep(0.3)
    burn_here(0.3)
    figures = meter.stop()
    assert figures.server_cores > 0.05
    assert figures.own_cores > 0.05
    # What the server and this process burned was not counted twice as other processes'.
    assert figures.others_cores is not None
    assert figures.others_cores + figures.server_cores + figures.own_cores <= figures.cpus + 0.5


def test_busy_rules() -> None:
    assert busy_reasons(0.05, 0.5, 1.0, 4) == []
    assert busy_reasons(0.2, 0.5, 1.0, 4) == ["other processes kept 0.20 of 4 CPUs busy"]
    # Load beyond what benchdoc and its server account for, above the cores they left idle.
    assert busy_reasons(0.0, 3.5, 1.0, 3) == ["load average 3.50 on 3 CPUs"]
    assert busy_reasons(0.0, 2.9, 1.0, 3) == []
    assert busy_reasons(None, None, 1.0, 2) == []


def test_figures_between_two_snapshots() -> None:
    before = Snapshot(wall=10.0, machine_busy_s=100.0, own_s=5.0, server_s={7: 1.0}, load1=0.5)
    after = Snapshot(wall=12.0, machine_busy_s=104.0, own_s=6.0, server_s={7: 3.0, 8: 0.4}, load1=1.0)
    figures = figures_between(before, after, cpus=8)
    assert figures.own_cores == pytest.approx(0.5)
    assert figures.server_cores == pytest.approx(1.2)  # 2.0 from pid 7, 0.4 from the new pid 8
    assert figures.others_cores == pytest.approx(0.3)  # 2.0 cores in all, less 0.5 and 1.2
    assert figures.busy and figures.load_before == 0.5 and figures.load_after == 1.0


def quiet(cpus: int = 8) -> LoadFigures:
    return LoadFigures(1.0, cpus, 0.2, 0.3, 0.01, 0.5, 0.5, False, ())


def test_environment_entry_and_warning() -> None:
    busy = LoadFigures(1.0, 8, 9.0, 9.5, 1.5, 0.5, 0.5, True, ("other processes kept 1.50 of 8 CPUs busy",))
    entry = environment_entry([quiet(), busy])
    assert entry["state"] == "busy"
    assert entry["figures"]["max_others_cores"] == 1.5 and entry["figures"]["max_load"] == 9.5
    assert len(entry["figures"]["each"]) == 2
    # The busy repetition's server got as much CPU as the quiet one's: nothing to warn about.
    assert busy_warning(entry) is None
    note = busy_note(entry)
    assert note is not None and note.startswith("the machine was busy in 1 of 2 repetitions")
    assert "other processes kept up to 1.50 CPUs busy" in note and "none is singled out" in note
    single = busy_warning(environment_entry([busy]))
    assert single is not None and single.startswith("the machine was busy (other processes kept up to 1.50 CPUs busy")
    assert busy_warning(environment_entry([quiet()])) is None
    assert busy_warning(None) is None


@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="listeners are read from /proc")
def test_the_local_server_is_found_by_its_listening_port(sim_process_url: tuple[int, str]) -> None:
    pgid, url = sim_process_url
    port = int(url.rsplit(":", 1)[1])
    assert listener_pgids(port) == [pgid]
    assert local_server_pgids(url) == [pgid]
    assert local_server_pgids(f"http://example.invalid:{port}") == []



@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="listeners are read from /proc")
def test_a_server_restarted_on_the_same_port_is_found_afresh(sim_process_url: tuple[int, str]) -> None:
    """The answer for a port is kept while its server holds the socket it was found by;
    another server listening on that port after it is looked up again, not taken for it."""
    pgid, url = sim_process_url
    port = int(url.rsplit(":", 1)[1])
    assert listener_pgids(port) == [pgid]
    assert listener_pgids(port) == [pgid]  # kept: the same server still listens
    os.killpg(pgid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while listener_pgids(port) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert listener_pgids(port) == []
    script = ("import socket, sys, time\n"
              "s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
              "s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(); print('ready', flush=True); time.sleep(60)\n")
    other = subprocess.Popen([sys.executable, "-c", script, str(port)], stdout=subprocess.PIPE, text=True,
                             start_new_session=True)
    try:
        assert other.stdout is not None and other.stdout.readline().strip() == "ready"
        assert listener_pgids(port) == [other.pid]
    finally:
        other.kill()
        other.wait()


@pytest.fixture
def sim_process_url() -> Iterator[tuple[int, str]]:
    process = subprocess.Popen(
        [sys.executable, "-m", "benchdoc", "sim", "--port", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    try:
        assert process.stderr is not None
        for line in process.stderr:
            if "listening on " in line:
                yield process.pid, line.split("listening on ", 1)[1].strip()
                break
        else:
            raise AssertionError("the simulator did not start")
    finally:
        process.kill()
        process.wait()


def _rep(server: float, own: float = 0.4, others: float = 1.6, busy: bool = True) -> LoadFigures:
    reasons = (f"other processes kept {others:.2f} of 2 CPUs busy",) if busy else ()
    return LoadFigures(5.0, 2, 3.0, 3.2, others, own, server, busy, reasons)


def test_starved_repetitions_are_named() -> None:
    """The issue's figures: a server that got 0.15 of a core in two repetitions against
    0.6-0.8 in the others, on a machine busy in every repetition."""
    figures = [_rep(0.7), _rep(0.15), _rep(0.8), _rep(0.6), _rep(0.14, others=1.8), _rep(0.75)]
    entry = environment_entry(figures)
    starved = starved_repetitions(entry)
    assert [(s.repetition, s.who) for s in starved] == [(1, "server"), (4, "server")]
    assert starved[0].cores == 0.15 and starved[0].usual == pytest.approx(0.65)
    warning = busy_warning(entry)
    assert warning is not None and warning.startswith("repetitions 2 and 5 were starved of CPU by other processes")
    assert "repetition 2: the server got 0.15 of a CPU against 0.65 in the median repetition" in warning
    assert busy_note(entry) is None


def test_a_starved_load_generator_is_named_and_a_quiet_dip_is_not() -> None:
    client = environment_entry([_rep(0.7, own=0.5), _rep(0.7, own=0.1), _rep(0.7, own=0.5)])
    assert [(s.repetition, s.who) for s in starved_repetitions(client)] == [(1, "load generator")]
    # A server that used less CPU while nothing else ran was not starved by anyone.
    quiet_dip = environment_entry([_rep(0.7), _rep(0.1, busy=False, others=0.0), _rep(0.7)])
    assert starved_repetitions(quiet_dip) == []


def test_an_undisturbed_run_on_a_loaded_machine_is_not_warned_per_repetition() -> None:
    entry = environment_entry([_rep(0.62), _rep(0.7), _rep(0.66), _rep(0.58)])  # busy throughout, evenly
    assert entry["state"] == "busy" and starved_repetitions(entry) == []
    assert busy_warning(entry) is None
    note = busy_note(entry)
    assert note is not None and note.startswith("the machine was busy in 4 of 4 repetitions")
