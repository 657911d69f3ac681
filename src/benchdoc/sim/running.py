"""Running a simulator: in a background thread (for tests and demos), in a child process,
or in the foreground."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import cast

from benchdoc.childenv import child_environment
from benchdoc.sim.config import SimConfig
from benchdoc.sim.faults import READY_MARK, start_failure_log, startup_lines


class SimStartFailure(Exception):
    """The simulator was told to fail at start (`fail_start`); `log` is what it printed."""

    def __init__(self, log: str) -> None:
        super().__init__(log.strip().splitlines()[-1])
        self.log = log


class RunningSim:
    """A simulator serving from a background thread; stop it with `stop()` or a `with` block."""

    def __init__(self, config: SimConfig, host: str, port: int, loop: asyncio.AbstractEventLoop,
                 thread: threading.Thread, stop_event: asyncio.Event) -> None:
        self.config = config
        self.host = host
        self.port = port
        self._loop = loop
        self._thread = thread
        self._stop_event = stop_event

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def stop(self) -> None:
        if self._thread.is_alive():
            try:
                self._loop.call_soon_threadsafe(self._stop_event.set)
            except RuntimeError:  # the loop already ended (the server crashed on purpose)
                pass
            self._thread.join(timeout=10)

    def __enter__(self) -> RunningSim:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()


def start_in_thread(config: SimConfig, host: str = "127.0.0.1", port: int = 0) -> RunningSim:
    """Start a simulator on its own event loop in a daemon thread; return once it listens.

    Raises `SimStartFailure` when `config.fail_start` is set, and `OSError` when the
    address cannot be bound.
    """
    if config.fail_start is not None:
        raise SimStartFailure(start_failure_log(config))
    started = threading.Event()
    outcome: dict[str, object] = {}

    def run() -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        stop_event = asyncio.Event()
        outcome["loop"] = loop
        outcome["stop"] = stop_event

        def listening(bound: int) -> None:
            outcome["port"] = bound
            started.set()

        try:
            loop.run_until_complete(_serve_until(config, host, port, stop_event, listening, None))
        except BaseException as err:  # reported to the starting thread below
            outcome["error"] = err
        finally:
            started.set()
            loop.close()

    thread = threading.Thread(target=run, name=f"benchdoc-sim-{config.model}", daemon=True)
    thread.start()
    started.wait()
    if "port" not in outcome:
        thread.join()
        error = outcome.get("error")
        raise error if isinstance(error, BaseException) else RuntimeError("the simulator did not start")
    return RunningSim(config, host, int(cast(int, outcome["port"])), outcome["loop"], thread, outcome["stop"])  # type: ignore[arg-type]


def serve(
    config: SimConfig,
    host: str,
    port: int,
    log: Callable[[str], None],
    on_fatal: Callable[[str], None],
) -> None:
    """Serve in the foreground until SIGINT or SIGTERM; log lines go to `log`.

    Raises `SimStartFailure` when `config.fail_start` is set, before listening.
    """
    if config.fail_start is not None:
        raise SimStartFailure(start_failure_log(config))

    def listening(bound: int) -> None:
        for line in startup_lines(config, f"http://{host}:{bound}"):
            log(line)

    async def main() -> None:
        stop_event = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(signum, stop_event.set)
            except (NotImplementedError, RuntimeError):  # not the main thread, or no signals here
                pass
        await _serve_until(config, host, port, stop_event, listening, on_fatal)
        log("benchdoc simulator: shut down")

    asyncio.run(main())


async def _serve_until(
    config: SimConfig,
    host: str,
    port: int,
    stop_event: asyncio.Event,
    listening: Callable[[int], None],
    on_fatal: Callable[[str], None] | None,
) -> None:
    from benchdoc.sim.server import SimServer  # aiohttp is imported only to serve

    server = SimServer(config, on_fatal=on_fatal)
    bound = await server.start(host, port)
    try:
        listening(bound)
        await stop_event.wait()
    finally:
        await server.close()


@contextmanager
def start_in_process(*options: str, startup_timeout_s: float = 20.0) -> Iterator[str]:
    """Run ``benchdoc sim --port 0 OPTIONS`` as a child process; yield its URL once it listens.

    Its own process, so its CPU does not compete with the caller's for one interpreter
    lock. It is terminated (then killed) on exit.
    """
    argv = [sys.executable, "-m", "benchdoc", "sim", "--host", "127.0.0.1", "--port", "0", *options]
    proc = subprocess.Popen(argv, env=child_environment(os.environ), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
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
            if READY_MARK in line:
                url = line.split(READY_MARK, 1)[1].strip()
                break
        if url is None:
            raise SimStartFailure("the simulator did not start:\n" + "".join(seen))
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
