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



class CannedServer:
    """A real HTTP server on 127.0.0.1 whose routes answer with handlers given by a
    test: for behaviour the simulator has no switch for (malformed streams, odd bodies).
    ``requests`` keeps the headers of every request received."""

    def __init__(self, routes: dict[str, Callable[..., object]]) -> None:
        import asyncio
        import threading

        from aiohttp import web

        self.requests: list[dict[str, str]] = []
        self._ready = threading.Event()
        self._loop = asyncio.new_event_loop()
        app = web.Application()

        def wrap(handler: Callable[..., object]) -> Callable[..., object]:
            async def route(request: web.Request) -> object:
                self.requests.append(dict(request.headers))
                return await handler(request)  # type: ignore[misc]

            return route

        for path, handler in routes.items():
            method, _, route_path = path.partition(" ")
            app.router.add_route(method, route_path, wrap(handler))
        self._runner = web.AppRunner(app, shutdown_timeout=0.1)

        async def start() -> None:
            await self._runner.setup()
            site = web.TCPSite(self._runner, "127.0.0.1", 0)
            await site.start()
            self.port = self._runner.addresses[0][1]

        def run() -> None:
            asyncio.set_event_loop(self._loop)
            self._loop.run_until_complete(start())
            self._ready.set()
            self._loop.run_forever()
            self._loop.run_until_complete(self._runner.cleanup())
            self._loop.close()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        self._ready.wait(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


@pytest.fixture
def canned_server() -> Iterator[Callable[..., CannedServer]]:
    servers: list[CannedServer] = []

    def start(routes: dict[str, Callable[..., object]]) -> CannedServer:
        server = CannedServer(routes)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
