"""The simulator stamps a request's arrival when its bytes were read, not when its handler ran."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time

import pytest
from aiohttp import web

from benchdoc.sim.arrivals import SO_TIMESTAMPNS, StampingRunner, arrived, stamping_site


def test_a_request_queued_behind_another_keeps_the_stamp_of_its_read() -> None:
    """Two requests in one write on one connection: the second's handler runs only once the
    first (which holds the loop 300 ms) is done, but it arrived with the first's bytes."""

    async def block(request: web.Request) -> web.Response:
        time.sleep(0.3)  # the event loop is held, as by a burst of handlers before this one
        return web.Response(text="done")

    async def stamp(request: web.Request) -> web.Response:
        return web.json_response({"arrived": arrived(request), "started": time.perf_counter()})

    async def main() -> tuple[float, dict[str, float]]:
        app = web.Application()
        app.router.add_get("/block", block)
        app.router.add_get("/stamp", stamp)
        runner = StampingRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            head = "GET {} HTTP/1.1\r\nHost: x\r\n\r\n"
            sent = time.perf_counter()
            writer.write((head.format("/block") + head.format("/stamp")).encode())
            await writer.drain()
            data = b""
            while data.count(b"HTTP/1.1 200") < 2 or not data.rstrip().endswith(b"}"):
                chunk = await asyncio.wait_for(reader.read(65536), 10)
                assert chunk, data
                data += chunk
            writer.close()
            return sent, json.loads(data[data.rindex(b"{"):])
        finally:
            await runner.cleanup()

    sent, stamps = asyncio.run(main())
    assert sent <= stamps["arrived"] < sent + 0.25
    assert stamps["started"] - stamps["arrived"] >= 0.25


@pytest.mark.skipif(SO_TIMESTAMPNS is None, reason="the kernel keeps no receive stamps here")
def test_a_request_read_late_keeps_the_kernels_stamp_of_its_arrival() -> None:
    """A request sent on its own connection while the server's loop is held 300 ms is read
    only once the hold is over; its arrival is when its bytes reached the socket."""

    async def block(request: web.Request) -> web.Response:
        time.sleep(0.3)  # the event loop is held, as by a burst of requests to take in
        return web.Response(text="done")

    async def stamp(request: web.Request) -> web.Response:
        return web.json_response({"arrived": arrived(request), "started": time.perf_counter()})

    app = web.Application()
    app.router.add_get("/block", block)
    app.router.add_get("/stamp", stamp)
    loop = asyncio.new_event_loop()
    runner = StampingRunner(app, access_log=None)
    loop.run_until_complete(runner.setup())
    site = stamping_site(runner, "127.0.0.1", 0)
    assert isinstance(site, web.SockSite)
    loop.run_until_complete(site.start())
    port = runner.addresses[0][1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        head = "GET {} HTTP/1.1\r\nHost: x\r\n\r\n"
        with socket.create_connection(("127.0.0.1", port)) as held, \
                socket.create_connection(("127.0.0.1", port)) as late:
            time.sleep(0.1)  # both connections taken in before the hold
            held.sendall(head.format("/block").encode())
            time.sleep(0.05)  # the server is inside the hold
            sent = time.perf_counter()
            late.sendall(head.format("/stamp").encode())
            late.settimeout(10)
            data = b""
            while not data.rstrip().endswith(b"}"):
                chunk = late.recv(65536)
                assert chunk, data
                data += chunk
        stamps = json.loads(data[data.rindex(b"{"):])
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
    assert sent - 0.005 <= stamps["arrived"] < sent + 0.05
    assert stamps["started"] - stamps["arrived"] >= 0.15


def test_without_kernel_stamps_the_site_is_aiohttps_own(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchdoc.sim import arrivals

    monkeypatch.setattr(arrivals, "SO_TIMESTAMPNS", None)
    assert arrivals.kernel_stamp_listener("127.0.0.1", 0) is None

    async def main() -> None:
        runner = StampingRunner(web.Application())
        await runner.setup()
        try:
            assert isinstance(stamping_site(runner, "127.0.0.1", 0), web.TCPSite)
        finally:
            await runner.cleanup()

    asyncio.run(main())
