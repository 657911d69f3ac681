"""How busy the machine was while benchdoc measured: load average and the CPU time other
processes took, so that a result measured on a busy machine says so.

A :class:`LoadMeter` takes a snapshot before a measurement and one after it. Between the
two, the CPU time of the whole machine (``/proc/stat``) minus the CPU time of benchdoc
itself (its threads and the children it reaped) and of the processes under test (the
server's process group) is the time *other* processes took. The machine counts as busy
when

- other processes took more than ``OTHERS_CORES_LIMIT`` (a tenth of a core) on average, or
- the load average, less the cores benchdoc and its server kept busy, was above the
  cores they left idle (more runnable work than the machine had room for).

Linux only for the CPU accounting; elsewhere only the load average is kept and the
figures say the CPU time is unknown. Nothing here prints.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from benchdoc.procfs import holds_socket, listening_inodes, process_ids, socket_holders, stat_fields

OTHERS_CORES_LIMIT = 0.10
# A repetition is starved when, on a busy machine, the server (or the load generator) got
# less than this share of the CPU it got in the run's median repetition...
STARVED_SHARE = 0.5
# ...provided it used at least this much CPU in the median repetition.
MIN_USUAL_CORES = 0.05
BUSY = "busy"
QUIET = "quiet"
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class Snapshot:
    """CPU counters at one instant, in seconds of CPU time."""

    wall: float  # time.monotonic()
    machine_busy_s: float | None  # every CPU's non-idle time since boot, None off Linux
    own_s: float  # this process and the children it reaped
    server_s: dict[int, float]  # per process of the server's groups
    load1: float | None


@dataclass(frozen=True)
class LoadFigures:
    """The machine's load over one measurement."""

    seconds: float
    cpus: int
    load_before: float | None  # 1-minute load average when it started
    load_after: float | None  # and when it ended
    others_cores: float | None  # average cores other processes kept busy
    own_cores: float  # benchdoc's own average cores
    server_cores: float  # the server under test's
    busy: bool
    reasons: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("seconds", "load_before", "load_after", "others_cores", "own_cores", "server_cores"):
            if data[key] is not None:
                data[key] = round(data[key], 3)
        data["reasons"] = list(self.reasons)
        return data


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _load1() -> float | None:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def _machine_busy_s() -> float | None:
    """Non-idle CPU time of all CPUs since boot (user, nice, system, irq, softirq, steal)."""
    try:
        with open("/proc/stat") as handle:
            first = handle.readline().split()
    except OSError:
        return None
    if not first or first[0] != "cpu":
        return None
    values = [int(v) for v in first[1:]]
    # user nice system idle iowait irq softirq steal (guest time is inside user already)
    busy = sum(values[i] for i in (0, 1, 2, 5, 6, 7) if i < len(values))
    return busy / _CLOCK_TICKS


def _process_cpu_s(pid: int) -> float | None:
    fields = stat_fields(pid)
    if fields is None:
        return None
    try:
        # utime, stime, cutime, cstime: fields 14-17 of stat (11-14 here).
        return sum(int(fields[i]) for i in (11, 12, 13, 14)) / _CLOCK_TICKS
    except (IndexError, ValueError):
        return None


def _group_members(pgids: Iterable[int]) -> list[int]:
    wanted = set(pgids)
    if not wanted:
        return []
    members = []
    for name in process_ids():
        fields = stat_fields(name)
        if fields is not None and len(fields) >= 3 and int(fields[2]) in wanted:
            members.append(int(name))
    return members


def snapshot(server_pgids: Sequence[int] = ()) -> Snapshot:
    times = os.times()
    own = times.user + times.system + times.children_user + times.children_system
    server: dict[int, float] = {}
    for pid in _group_members(server_pgids):
        if pid == os.getpid():
            continue
        value = _process_cpu_s(pid)
        if value is not None:
            server[pid] = value
    return Snapshot(time.monotonic(), _machine_busy_s(), own, server, _load1())


def _server_delta(before: Mapping[int, float], after: Mapping[int, float]) -> float:
    """CPU the server's processes used in between: a process that appeared counts from 0."""
    return sum(max(0.0, value - before.get(pid, 0.0)) for pid, value in after.items())


def figures_between(before: Snapshot, after: Snapshot, cpus: int | None = None) -> LoadFigures:
    """The load figures of the interval between two snapshots."""
    cpus = cpus or _cpu_count()
    seconds = max(after.wall - before.wall, 1e-9)
    own = max(0.0, after.own_s - before.own_s) / seconds
    server = _server_delta(before.server_s, after.server_s) / seconds
    others = None
    if before.machine_busy_s is not None and after.machine_busy_s is not None:
        total = (after.machine_busy_s - before.machine_busy_s) / seconds
        others = max(0.0, total - own - server)
    loads = [v for v in (before.load1, after.load1) if v is not None]
    reasons = busy_reasons(others, max(loads) if loads else None, own + server, cpus)
    return LoadFigures(
        seconds=seconds, cpus=cpus, load_before=before.load1, load_after=after.load1, others_cores=others,
        own_cores=own, server_cores=server, busy=bool(reasons), reasons=tuple(reasons),
    )


def busy_reasons(others_cores: float | None, load1: float | None, measured_cores: float, cpus: int) -> list[str]:
    """Why the machine counts as busy (empty when it does not)."""
    reasons = []
    if others_cores is not None and others_cores > OTHERS_CORES_LIMIT:
        reasons.append(f"other processes kept {others_cores:.2f} of {cpus} CPUs busy")
    idle = max(0.0, cpus - measured_cores)
    if load1 is not None and load1 - measured_cores > idle:
        reasons.append(f"load average {load1:.2f} on {cpus} CPUs")
    return reasons


class LoadMeter:
    """Measure the machine's load over a stretch of time: ``start()``, then ``stop()``.

    ``server_pgids`` are the process groups of the processes under test, whose CPU time
    is theirs and not "other processes'".
    """

    def __init__(self, server_pgids: Sequence[int] = ()) -> None:
        self.server_pgids = tuple(server_pgids)
        self._before: Snapshot | None = None

    def start(self) -> LoadMeter:
        self._before = snapshot(self.server_pgids)
        return self

    def stop(self) -> LoadFigures:
        if self._before is None:
            raise RuntimeError("the load meter was not started")
        return figures_between(self._before, snapshot(self.server_pgids))


def environment_entry(figures: Sequence[LoadFigures]) -> dict[str, Any]:
    """What a run's environment keeps: ``state`` (busy or quiet, compared between runs)
    and the ``figures`` of each measurement (kept, not compared)."""
    busy = [f for f in figures if f.busy]
    others = [f.others_cores for f in figures if f.others_cores is not None]
    loads = [v for f in figures for v in (f.load_before, f.load_after) if v is not None]
    return {
        "state": BUSY if busy else QUIET,
        "figures": {
            "cpus": figures[0].cpus if figures else _cpu_count(),
            "busy_measurements": len(busy),
            "measurements": len(figures),
            "max_others_cores": round(max(others), 3) if others else None,
            "max_load": round(max(loads), 2) if loads else None,
            "each": [f.to_dict() for f in figures],
        },
    }


@dataclass(frozen=True)
class Starved:
    """A repetition in which other processes starved the server or the load generator:
    ``who`` got ``cores`` of a CPU against ``usual`` (the median of the run's repetitions)."""

    repetition: int  # 0-based, as the samples number them
    who: str  # "server" or "load generator"
    cores: float
    usual: float
    others_cores: float | None


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def starved_repetitions(entry: Mapping[str, Any] | None) -> list[Starved]:
    """The repetitions other processes starved (see STARVED_SHARE), from a run's load entry.

    A repetition is starved when the machine was busy during it and the server under test,
    or benchdoc's load generator, got less than ``STARVED_SHARE`` of the CPU it got in the
    run's median repetition (the server is named alone when both did: a load generator
    waiting on a starved server has less to do). A busy machine alone names no repetition: a run whose every
    repetition saw the same load was disturbed alike, and its figures are comparable
    among themselves. One measurement has nothing to be compared with and names none.
    """
    each = [f for f in ((entry or {}).get("figures") or {}).get("each") or [] if isinstance(f, Mapping)]
    if len(each) < 2:
        return []
    found: list[Starved] = []
    for key, who in (("server_cores", "server"), ("own_cores", "load generator")):
        values = [f.get(key) for f in each]
        if not all(isinstance(v, (int, float)) for v in values):
            continue
        usual = _median([float(v) for v in values])  # type: ignore[arg-type]
        if usual < MIN_USUAL_CORES:
            continue  # a server that needs no CPU of its own (a GPU server waiting on it) is not starved by others
        server_starved = {s.repetition for s in found}
        for index, (figures, value) in enumerate(zip(each, values)):
            # A load generator waiting on a starved server uses less CPU too: the server is named.
            if figures.get("busy") and float(value) < STARVED_SHARE * usual and index not in server_starved:  # type: ignore[arg-type]
                found.append(Starved(index, who, float(value), usual, figures.get("others_cores")))  # type: ignore[arg-type]
    return sorted(found, key=lambda s: (s.repetition, s.who))


def starved_sentence(starved: Sequence[Starved]) -> str | None:
    """'repetitions 3 and 7 were starved of CPU by other processes (repetition 3: the server
    got 0.15 of a CPU against 0.70 in the median repetition, others kept 1.60 busy; ...)'."""
    if not starved:
        return None
    numbers = sorted({s.repetition + 1 for s in starved})
    named = _and([str(n) for n in numbers])
    which = f"repetition {named} was" if len(numbers) == 1 else f"repetitions {named} were"
    details = []
    for s in starved:
        others = f", other processes kept {s.others_cores:.2f} busy" if s.others_cores is not None else ""
        details.append(f"repetition {s.repetition + 1}: the {s.who} got {s.cores:.2f} of a CPU "
                       f"against {s.usual:.2f} in the median repetition{others}")
    return f"{which} starved of CPU by other processes ({'; '.join(details)}): their figures are not the configuration's"


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def busy_warning(entry: Mapping[str, Any] | None) -> str | None:
    """One sentence for a summary when the machine's load bent the figures: the starved
    repetitions when several were measured, else (one measurement) that the machine was busy.

    A run of several repetitions that were all disturbed alike gets no warning: see
    :func:`busy_note` for the plain fact.
    """
    if not entry or entry.get("state") != BUSY:
        return None
    figures = entry.get("figures") or {}
    if (figures.get("measurements") or 0) > 1 and figures.get("each"):
        return starved_sentence(starved_repetitions(entry))
    return f"the machine was busy ({_busy_parts(figures)}): figures may be slower and noisier than on a quiet machine"


def busy_note(entry: Mapping[str, Any] | None) -> str | None:
    """The plain fact, for a run of several repetitions none of which was starved: how busy
    the machine was, and that no repetition was singled out."""
    if not entry or entry.get("state") != BUSY:
        return None
    figures = entry.get("figures") or {}
    measured = figures.get("measurements") or 0
    if measured <= 1 or not figures.get("each") or starved_repetitions(entry):
        return None
    return (f"the machine was busy in {figures.get('busy_measurements')} of {measured} repetitions "
            f"({_busy_parts(figures)}); no repetition's server or load generator got less than "
            f"{STARVED_SHARE:.0%} of its usual CPU, so none is singled out")


def _busy_parts(figures: Mapping[str, Any]) -> str:
    parts = []
    if figures.get("max_others_cores") is not None:
        parts.append(f"other processes kept up to {figures['max_others_cores']:.2f} CPUs busy")
    if figures.get("max_load") is not None:
        parts.append(f"load average up to {figures['max_load']:.2f} on {figures.get('cpus')} CPUs")
    return "; ".join(parts)


# The listeners last found, by port: (their socket inodes, the processes holding them, the
# answer). Reading /proc/net/tcp walks the kernel's whole socket table, tens of milliseconds
# on a large machine, and every run of a sweep or a long-lived client asks again for the same
# server: while each process found still holds one of those sockets, the answer stands.
_LISTENERS: dict[int, tuple[frozenset[str], tuple[int, ...], tuple[int, ...]]] = {}


def listener_pgids(port: int) -> list[int]:
    """Process groups of the local processes listening on TCP ``port`` (not benchdoc's own).

    Reads /proc; a process of another user whose sockets cannot be read is not found,
    and its CPU time then counts as other processes'. The answer is kept for the port
    while every process found still holds the listening socket it was found by (a
    server restarted on the port listens on a new socket, and is looked up afresh).
    """
    cached = _LISTENERS.get(port)
    if cached is not None:
        inodes, held_by, kept = cached
        if held_by and all(holds_socket(pid, set(inodes)) for pid in held_by):
            return list(kept)
        del _LISTENERS[port]
    found = listening_inodes(port)
    if not found:
        return []
    own = os.getpid()
    if holds_socket(own, found):
        # A server running inside benchdoc (a test's simulator): its CPU is ours.
        _LISTENERS[port] = (frozenset(found), (own,), ())
        return []
    groups: set[int] = set()
    holders = socket_holders(found)
    for pid in holders:
        if pid != own:
            try:
                groups.add(os.getpgid(pid))
            except OSError:
                pass
    answer = tuple(sorted(groups - {os.getpgid(0)}))
    _LISTENERS[port] = (frozenset(found), tuple(holders), answer)
    return list(answer)


def local_server_pgids(url: str) -> list[int]:
    """The process groups serving ``url`` when it is on this machine's loopback, else none."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return []
    host = (parts.hostname or "").lower()
    if host not in ("localhost", "::1") and not host.startswith("127."):
        return []
    try:
        return listener_pgids(port)
    except OSError:
        return []
