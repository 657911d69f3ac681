"""Running a simulator: in a background thread (for tests and demos) or in the foreground."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable
from types import TracebackType

from benchdoc.sim.config import SimConfig
from benchdoc.sim.faults import start_failure_log, startup_lines


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
    return RunningSim(config, host, int(outcome["port"]), outcome["loop"], thread, outcome["stop"])  # type: ignore[arg-type]


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
