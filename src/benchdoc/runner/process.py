"""Processes under test: started in their own process group with their output in a log
file, health-checked, and torn down as a whole group whatever happens.

A server is often a tree (an API process, scheduler and worker processes, a compiler),
so everything is signalled by process group: SIGTERM first, SIGKILL after the grace
period. :class:`ManagedProcess` is a context manager whose exit stops the group on
success, failure, timeout, exception and Ctrl-C alike; a second Ctrl-C during the grace
period skips straight to SIGKILL. Being in its own session, the server does not receive
the terminal's Ctrl-C itself: its teardown is ours to do, in order.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO

from benchdoc.runner.spec import LOOPBACK

POLL_INTERVAL_S = 0.05
READY_POLL_INTERVAL_S = 0.1
READY_REQUEST_TIMEOUT_S = 2.0
# After SIGKILL the kernel needs a moment to take the processes down.
KILL_WAIT_S = 5.0


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


class ManagedProcess:
    """One command in its own session and process group, output to log files.

    ``stdout_path`` receives stdout (and stderr too unless ``stderr_path`` is given).
    Use as a context manager, or call :meth:`stop` in a ``finally``.
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
    ) -> None:
        self.argv = list(argv)
        self.cwd = cwd
        self.env = dict(env)
        self.stdout_path = stdout_path
        self.stderr_path = stderr_path
        self.grace_s = grace_s
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
            self._popen = subprocess.Popen(
                self.argv,
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,  # its own session and process group: we signal the group
                close_fds=True,
            )
        except BaseException:
            self._close_files()
            raise
        self.started_monotonic = time.monotonic()
        return self

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

    @property
    def exited(self) -> bool:
        return self.returncode is not None


def probe(url: str, timeout_s: float = READY_REQUEST_TIMEOUT_S) -> tuple[bool, str]:
    """GET ``url``: (True, "HTTP 200") when it answers 200, else (False, what happened).

    Proxies from the environment are ignored: the server under test is local.
    """
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(urllib.request.Request(url, method="GET"), timeout=timeout_s) as response:
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
) -> Readiness:
    """Poll ``url`` until it answers 200, the process exits, or ``timeout_s`` passes.

    ``on_poll(seconds_waited)`` is called between polls (for progress display).
    """
    started = time.monotonic()
    deadline = started + timeout_s
    last: str | None = None
    while True:
        code = process.returncode
        if code is not None:
            return Readiness(False, time.monotonic() - started, returncode=code, last_answer=last)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return Readiness(False, time.monotonic() - started, last_answer=last)
        ok, last = probe(url, min(READY_REQUEST_TIMEOUT_S, max(0.05, remaining)))
        if ok:
            # A server that answered and died at once is not ready.
            code = process.returncode
            if code is not None:
                return Readiness(False, time.monotonic() - started, returncode=code, last_answer=last)
            return Readiness(True, time.monotonic() - started, last_answer=last)
        if on_poll is not None:
            on_poll(time.monotonic() - started)
        time.sleep(min(READY_POLL_INTERVAL_S, max(0.0, deadline - time.monotonic())))
