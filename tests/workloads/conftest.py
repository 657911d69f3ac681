"""Simulators for the load generator's tests: in a thread (cheap) or in its own process
(so its CPU does not compete with the client's for one interpreter lock)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from benchdoc.sim import SimConfig, start_in_process, start_in_thread

# Run ``benchdoc sim --port 0 OPTIONS`` in its own process and yield its URL.
sim_process = start_in_process


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
