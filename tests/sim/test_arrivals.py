"""The simulator stamps a request's arrival when its bytes were read, not when its handler ran."""

from __future__ import annotations

import asyncio
import json
import time

from aiohttp import web

from benchdoc.sim.arrivals import StampingRunner, arrived


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
