"""Processes under test: started in their own process group with their output in a log
file, health-checked, and torn down as a whole group whatever happens.

A server is often a tree (an API process, scheduler and worker processes, a compiler),
so everything is signalled by process group: SIGTERM first, SIGKILL after the grace
period. :class:`ManagedProcess` is a context manager whose exit stops the group on
success, failure, timeout, exception and Ctrl-C alike; a second Ctrl-C during the grace
period skips straight to SIGKILL. Being in its own session, the server does not receive
the terminal's Ctrl-C itself: its teardown is ours to do, in order.

No group outlives benchdoc, even when benchdoc is killed with SIGKILL and runs no code
at all: each one has a guard (``guard.py``), a tiny process holding a pipe from benchdoc
that stops the group when the pipe closes without a release; and on Linux the leader
gets SIGTERM when benchdoc dies (``PR_SET_PDEATHSIG``). Servers are also recorded in the
project's ``.benchdoc/servers/`` (``survivors.py``), so the next run stops any the guard
could not.
"""

from __future__ import annotations

import base64
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING

from benchdoc.childenv import child_environment
from benchdoc.config.tables import LOOPBACK
from benchdoc.redact import redact_argv

if TYPE_CHECKING:
    from benchdoc.runner.survivors import ServerRecords

POLL_INTERVAL_S = 0.05
READY_POLL_INTERVAL_S = 0.1
READY_REQUEST_TIMEOUT_S = 2.0
# A readiness URL answering 404 this long is taken as wrong, before the readiness timeout.
NOT_FOUND_GRACE_S = 30.0
# After SIGKILL the kernel needs a moment to take the processes down.
KILL_WAIT_S = 5.0
GUARD_SCRIPT = Path(__file__).with_name("guard.py")
_PR_SET_PDEATHSIG = 1


def pick_free_port(host: str = LOOPBACK) -> int:
    """A TCP port free on ``host`` right now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def live_group_members(pgid: int) -> list[int]:
    """The processes of group ``pgid`` that are still running (zombies are dead: they only
    wait to be reaped by a parent, and hold no port, memory or GPU).

    Reads /proc where it exists; elsewhere asks the kernel, which counts zombies too.
    """
    proc = Path("/proc")
    if not (proc / "self" / "stat").exists():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return []
        except PermissionError:
            return [pgid]
        return [pgid]
    members: list[int] = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) >= 3 and int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(entry.name))
    return members


@dataclass(frozen=True)
class StopResult:
    """How a process group ended: the leader's exit status and whether SIGKILL was needed."""

    returncode: int | None
    killed: bool
    exited_before_stop: bool


def _parent_death_signal() -> Callable[[], None] | None:
    """A pre-exec hook asking Linux to send SIGTERM to the child when its parent dies.

    The kernel ties the signal to the thread that forks, so it is only used from the
    main thread; None elsewhere and off Linux (the guard still covers those cases).
    """
    if not sys.platform.startswith("linux") or threading.current_thread() is not threading.main_thread():
        return None
    import ctypes  # only here: the one call that needs it

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def hook() -> None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM))
        if os.getppid() != parent:  # the parent died before the request took effect
            os.kill(os.getpid(), signal.SIGTERM)

    return hook


class ManagedProcess:
    """One command in its own session and process group, output to log files.

    ``stdout_path`` receives stdout (and stderr too unless ``stderr_path`` is given).
    Use as a context manager, or call :meth:`stop` in a ``finally``. With ``guarded``
    (the default) the group cannot outlive this process; with ``records`` it is also
    recorded there under ``label`` while it runs.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        stdout_path: Path,
        stderr_path: Path | None = None,
        grace_s: float = 10.0,
        guarded: bool = True,
        records: ServerRecords | None = None,
        label: str = "",
    ) -> None:
        self.argv = list(argv)
        self.cwd = cwd
        self.env = child_environment(env)  # never the ledger's URL nor a credential of benchdoc's
        self.stdout_path = stdout_path
        self.stderr_path = stderr_path
        self.grace_s = grace_s
        self.guarded = guarded
        self.records = records
        self.label = label
        self._guard: subprocess.Popen[bytes] | None = None
        self._popen: subprocess.Popen[bytes] | None = None
        self._files: list[IO[bytes]] = []
        self._stop_result: StopResult | None = None
        self.started_monotonic: float | None = None

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> ManagedProcess:
        """Start the command; OSError (no such program, not executable) propagates."""
        self.stdout_path.parent.mkdir(parents=True, exist_ok=True)
        out = self.stdout_path.open("ab")
        self._files.append(out)
        err: IO[bytes] | int = subprocess.STDOUT
        if self.stderr_path is not None:
            err = self.stderr_path.open("ab")
            self._files.append(err)
        try:
            # The guard first: from the moment the group exists, someone watches over it.
            self._guard = self._start_guard() if self.guarded else None
            self._popen = subprocess.Popen(
                self.argv,
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,  # its own session and process group: we signal the group
                close_fds=True,
                preexec_fn=_parent_death_signal() if self.guarded else None,
            )
        except BaseException:
            self._release_guard()
            self._close_files()
            raise
        self.started_monotonic = time.monotonic()
        self._arm_guard()
        if self.records is not None:
            self.records.add(self.pgid, self.label, redact_argv(self.argv), self.grace_s)
        return self

    def _start_guard(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-I", str(GUARD_SCRIPT)],
            stdin=subprocess.PIPE,  # its other end stays with us alone (not inheritable)
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # out of reach of the terminal's Ctrl-C and hang-up
            close_fds=True,
        )

    def _arm_guard(self) -> None:
        """Tell the guard which group to stop should this process die."""
        guard = self._guard
        if guard is None or guard.stdin is None:
            return
        try:
            guard.stdin.write(f"{self.pgid} {self.grace_s:g}\n".encode())
            guard.stdin.flush()
        except OSError:  # the guard is gone: the parent-death signal and the record remain
            self._guard = None

    def _release_guard(self) -> None:
        """The group is stopped (or never started): the guard leaves without acting."""
        guard, self._guard = self._guard, None
        if guard is None:
            return
        try:
            if guard.stdin is not None:
                guard.stdin.write(b"release\n")
                guard.stdin.close()
        except OSError:
            pass
        try:
            guard.wait(timeout=KILL_WAIT_S)
        except subprocess.TimeoutExpired:
            guard.kill()
            guard.wait()

    def __enter__(self) -> ManagedProcess:
        return self.start() if self._popen is None else self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def pid(self) -> int:
        if self._popen is None:
            raise RuntimeError("the process has not been started")
        return self._popen.pid

    @property
    def guard_pid(self) -> int | None:
        """The pid of the process that stops the group if this one dies, while there is one."""
        return None if self._guard is None else self._guard.pid

    @property
    def pgid(self) -> int:
        return self.pid  # start_new_session makes the child the leader of a new group

    @property
    def returncode(self) -> int | None:
        """The leader's exit status once it has exited (reaping it), else None."""
        return None if self._popen is None else self._popen.poll()

    def running(self) -> bool:
        return self._popen is not None and self._popen.poll() is None

    def wait(self, timeout_s: float, should_stop: Callable[[], bool] | None = None) -> int | None:
        """Wait for the leader to exit, at most ``timeout_s``; its exit status or None."""
        deadline = time.monotonic() + timeout_s
        while True:
            code = self.returncode
            if code is not None:
                return code
            if time.monotonic() >= deadline or (should_stop is not None and should_stop()):
                return None
            time.sleep(min(POLL_INTERVAL_S, max(0.0, deadline - time.monotonic())))

    def stop(self, grace_s: float | None = None) -> StopResult:
        """SIGTERM to the whole group, SIGKILL after ``grace_s``; returns how it ended.

        Safe to call more than once. A Ctrl-C while waiting out the grace period kills the
        group at once and is then re-raised.
        """
        if self._stop_result is not None:
            return self._stop_result
        if self._popen is None:
            self._stop_result = StopResult(None, False, False)
            return self._stop_result
        grace = self.grace_s if grace_s is None else grace_s
        exited_before = self._popen.poll() is not None
        killed = False
        try:
            if self._group_alive():
                self._signal_group(signal.SIGTERM)
                if not self._wait_group(grace):
                    killed = True
                    self._signal_group(signal.SIGKILL)
                    self._wait_group(KILL_WAIT_S)
        except KeyboardInterrupt:
            self._signal_group(signal.SIGKILL)
            self._wait_group(KILL_WAIT_S)
            self._finish(exited_before, killed=True)
            raise
        return self._finish(exited_before, killed)

    # -- internals ---------------------------------------------------------------------

    def _finish(self, exited_before: bool, killed: bool) -> StopResult:
        assert self._popen is not None
        try:
            code = self._popen.wait(timeout=KILL_WAIT_S)
        except subprocess.TimeoutExpired:  # unkillable (uninterruptible sleep): report, don't hang
            code = None
        self._release_guard()
        if self.records is not None and not self._group_alive():
            self.records.remove(self.pgid)
        self._close_files()
        self._stop_result = StopResult(code, killed, exited_before)
        return self._stop_result

    def _group_alive(self) -> bool:
        assert self._popen is not None
        self._popen.poll()  # reap the leader if it exited, so it does not count as alive
        return bool(live_group_members(self.pgid))

    def _signal_group(self, signum: int) -> None:
        try:
            os.killpg(self.pgid, signum)
        except (ProcessLookupError, PermissionError):
            pass

    def _wait_group(self, timeout_s: float) -> bool:
        """Wait until no process of the group runs; True when that happened in time."""
        deadline = time.monotonic() + timeout_s
        while self._group_alive():
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL_INTERVAL_S)
        return True

    def _close_files(self) -> None:
        for handle in self._files:
            try:
                handle.close()
            except OSError:
                pass
        self._files.clear()


@dataclass(frozen=True)
class Readiness:
    """The outcome of waiting for a server: ready, exited (with its status), or timed out."""

    ready: bool
    waited_s: float
    returncode: int | None = None  # set when the process exited before becoming ready
    last_answer: str | None = None  # what the readiness URL said last ("HTTP 503", "connection refused")
    # A process benchdoc did not start that answered on the readiness port ("pid 12: ...").
    foreign: str | None = None

    @property
    def exited(self) -> bool:
        return self.returncode is not None


def _request_with_credentials(url: str) -> urllib.request.Request:
    """A GET of ``url``; a user and password in it (``http://u:pw@host/health``) go in an
    Authorization header, as a browser would send them, not in the host name."""
    from urllib.parse import unquote, urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return urllib.request.Request(url, method="GET")

    host = parts.netloc.rpartition("@")[2]
    plain = urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}".encode()
    return urllib.request.Request(plain, method="GET",
                                  headers={"Authorization": "Basic " + base64.b64encode(pair).decode("ascii")})


def probe(url: str, timeout_s: float = READY_REQUEST_TIMEOUT_S) -> tuple[bool, str]:
    """GET ``url``: (True, "HTTP 200") when it answers 200, else (False, what happened).

    Proxies from the environment are ignored: the server under test is local.
    """
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        request = _request_with_credentials(url)
        with opener.open(request, timeout=timeout_s) as response:
            status = int(response.status)
            return status == 200, f"HTTP {status}"
    except urllib.error.HTTPError as err:
        return False, f"HTTP {err.code}"
    except urllib.error.URLError as err:
        reason = err.reason
        text = getattr(reason, "strerror", None) or str(reason)
        return False, str(text).lower()
    except (OSError, ValueError) as err:
        return False, str(err) or type(err).__name__


def wait_until_ready(
    process: ManagedProcess,
    url: str,
    timeout_s: float,
    *,
    on_poll: Callable[[float], None] | None = None,
    not_found_grace_s: float = NOT_FOUND_GRACE_S,
) -> Readiness:
    """Poll ``url`` until it answers 200 from ``process``, the process exits, or
    ``timeout_s`` passes; or until it has answered HTTP 404 for ``not_found_grace_s``
    straight (a server that answers but has no such page will not grow one: a wrong URL).

    An answer counts only when the socket listening on the URL's port belongs to the
    process's group (``runner.ports``): another run's server on the same port is not ours.
    ``on_poll(seconds_waited)`` is called between polls (for progress display).
    """
    from benchdoc.runner.ports import foreign_listener, local_port

    started = time.monotonic()
    deadline = started + timeout_s
    port = local_port(url)
    last: str | None = None
    foreign: str | None = None
    not_found_since: float | None = None
    while True:
        code = process.returncode
        if code is not None:
            return Readiness(False, time.monotonic() - started, code, last, foreign)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return Readiness(False, time.monotonic() - started, last_answer=last, foreign=foreign)
        ok, last = probe(url, min(READY_REQUEST_TIMEOUT_S, max(0.05, remaining)))
        other = foreign_listener(port, process.pgid) if ok and port is not None else None
        if other is not None:
            ok, foreign = False, other.describe()
            last = f"{last} from {foreign}, not the server benchdoc started"
        not_found_since = (not_found_since or time.monotonic()) if last == "HTTP 404" else None
        if not_found_since is not None and time.monotonic() - not_found_since >= not_found_grace_s:
            return Readiness(False, time.monotonic() - started, last_answer=last)
        if ok:
            # A server that answered and died at once is not ready.
            code = process.returncode
            if code is not None:
                return Readiness(False, time.monotonic() - started, code, last, foreign)
            return Readiness(True, time.monotonic() - started, last_answer=last)
        if on_poll is not None:
            on_poll(time.monotonic() - started)
        time.sleep(min(READY_POLL_INTERVAL_S, max(0.0, deadline - time.monotonic())))
