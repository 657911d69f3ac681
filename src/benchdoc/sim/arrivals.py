"""When a request arrived at the simulator: the last read of its connection before its handler ran.

aiohttp runs a request's handler only once its connection's task gets a turn of the
event loop; when many requests arrive together (every stream of a benchmark sending at
the same instant), the last handler starts after all the others have run up to their
first wait. A stamp taken in the handler would leave that queue out of the server's own
TTFT, and a client's TTFT set beside it would seem to carry it. So each connection's
protocol is wrapped: every read is stamped as the transport hands it over, before aiohttp
parses it, and the handler takes the stamp of the last read before it ran (the one that
brought its request's head; a body that follows later is waited for inside the TTFT).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web


class ArrivalStamps(asyncio.Protocol):
    """aiohttp's handler of one connection behind a stamp of each read (``at``)."""

    __slots__ = ("handler", "at")

    def __init__(self, handler: asyncio.Protocol) -> None:
        self.handler = handler
        self.at: float | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.handler.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        self.at = time.perf_counter()
        self.handler.data_received(data)

    def eof_received(self) -> bool | None:
        return self.handler.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self.handler.connection_lost(exc)

    def pause_writing(self) -> None:
        self.handler.pause_writing()

    def resume_writing(self) -> None:
        self.handler.resume_writing()


class StampingRunner(web.AppRunner):
    """An AppRunner whose sites open connections through :class:`ArrivalStamps`."""

    __slots__ = ()

    @property
    def server(self) -> Any:  # what the sites call to make each connection's protocol
        inner = super().server
        if inner is None:
            return None
        make: Callable[[], asyncio.Protocol] = inner
        return lambda: ArrivalStamps(make())


def arrived(request: web.Request) -> float:
    """When ``request`` arrived: the stamp of its connection's last read (now, when the
    connection was not opened through :class:`StampingRunner`)."""
    transport = request.transport
    protocol = transport.get_protocol() if transport is not None else None
    if isinstance(protocol, ArrivalStamps) and protocol.at is not None:
        return protocol.at
    return time.perf_counter()
