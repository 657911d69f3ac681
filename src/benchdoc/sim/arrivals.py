"""When a request arrived at the simulator: when its bytes reached the server's socket.

aiohttp runs a request's handler only once its connection's task gets a turn of the
event loop, and a connection is read only once the loop has finished the turn it is in;
when many requests arrive together (every stream of a benchmark sending at the same
instant), the last of them waits for every handler before it. A stamp taken in the
handler, or even when the transport hands the bytes over, leaves that intake out of the
server's own TTFT, and a client's TTFT set beside it seems to carry it.

So, where the kernel keeps receive stamps (Linux's ``SO_TIMESTAMPNS``), the simulator
listens through :class:`KernelStampListener`: each connection it accepts reads with
``recvmsg`` and keeps the kernel's stamp of the last packet read, the moment the bytes
were queued on the socket (on loopback, within the client's send). Elsewhere, or when a
read carries no stamp, the stamp is taken when the transport hands the read over, before
aiohttp parses it. Either way a request's handler takes the stamp of the last read before
it ran (the one that brought its request's head; a body that follows later is waited for
inside the TTFT). The kernel's stamps are on the system's real-time clock; they are moved
onto ``time.perf_counter`` (the monotonic clock) by the two clocks' difference at the
read, and never put later than the read itself.
"""

from __future__ import annotations

import asyncio
import socket
import struct
import sys
import time
import weakref
from collections.abc import Callable
from typing import Any

from aiohttp import web

# Linux's SO_TIMESTAMPNS (not exported by Python's socket module): a struct timespec of the
# packet's arrival (CLOCK_REALTIME) with every recvmsg.
SO_TIMESTAMPNS: int | None = getattr(socket, "SO_TIMESTAMPNS", 35 if sys.platform.startswith("linux") else None)
_TIMESPEC = struct.Struct("@qq")
_ANCILLARY_BYTES = socket.CMSG_SPACE(_TIMESPEC.size) if hasattr(socket, "CMSG_SPACE") else 0
# A kernel stamp this far before its read is not believed (the real-time clock was stepped).
_STAMP_SANITY_S = 60.0


def _realtime_to_perf(realtime_s: float) -> float:
    """A CLOCK_REALTIME instant on ``time.perf_counter``'s clock, by the clocks' present difference."""
    before = time.perf_counter()
    now_real = time.time()
    after = time.perf_counter()
    return realtime_s - now_real + (before + after) / 2.0


class KernelStampedSocket(socket.socket):
    """An accepted connection that reads with ``recvmsg`` and keeps the kernel's receive
    stamp of what it read last (``received_at``, on ``time.perf_counter``'s clock)."""

    __slots__ = ("received_at",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.received_at: float | None = None

    def recv(self, bufsize: int, flags: int = 0) -> bytes:
        data, ancillary, _, _ = self.recvmsg(bufsize, _ANCILLARY_BYTES, flags)
        self._stamp(ancillary)
        return data

    def recv_into(self, buffer: Any, nbytes: int = 0, flags: int = 0) -> int:
        view = memoryview(buffer)
        size, ancillary, _, _ = self.recvmsg_into([view[:nbytes] if nbytes else view], _ANCILLARY_BYTES, flags)
        self._stamp(ancillary)
        return size

    def _stamp(self, ancillary: list[tuple[int, int, bytes]]) -> None:
        self.received_at = None
        for level, kind, data in ancillary:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= _TIMESPEC.size:
                seconds, nanoseconds = _TIMESPEC.unpack_from(data)
                self.received_at = _realtime_to_perf(seconds + nanoseconds / 1e9)


# Accepted connections by file descriptor, for their protocols to find their stamps.
_ACCEPTED: weakref.WeakValueDictionary[int, KernelStampedSocket] = weakref.WeakValueDictionary()


class KernelStampListener(socket.socket):
    """A listening socket whose accepted connections are :class:`KernelStampedSocket`\\ s
    with the kernel's receive stamps turned on."""

    __slots__ = ()

    def accept(self) -> tuple[socket.socket, Any]:
        fd, address = self._accept()  # type: ignore[attr-defined]  # socket.socket's own primitive
        connection = KernelStampedSocket(self.family, self.type, self.proto, fileno=fd)
        assert SO_TIMESTAMPNS is not None
        connection.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        _ACCEPTED[connection.fileno()] = connection
        return connection, address


def kernel_stamp_listener(host: str, port: int, backlog: int = 128) -> socket.socket | None:
    """A listening socket on ``host:port`` whose connections carry the kernel's receive
    stamps, or None where they cannot (no SO_TIMESTAMPNS, or ``host`` names more than one
    address: then the caller listens as before, on every address)."""
    if SO_TIMESTAMPNS is None or not _ANCILLARY_BYTES:
        return None
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    if len({info[4] for info in infos}) != 1:
        return None
    family, kind, proto, _, address = infos[0]
    listener = KernelStampListener(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)  # refused here: refused on its connections too
        listener.bind(address)
        listener.listen(backlog)
        listener.setblocking(False)
    except OSError:
        listener.close()
        raise
    return listener


class ArrivalStamps(asyncio.Protocol):
    """aiohttp's handler of one connection behind a stamp of each read (``at``)."""

    __slots__ = ("handler", "at", "socket")

    def __init__(self, handler: asyncio.Protocol) -> None:
        self.handler = handler
        self.at: float | None = None
        self.socket: KernelStampedSocket | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        raw = transport.get_extra_info("socket")
        if raw is not None:
            self.socket = _ACCEPTED.get(raw.fileno())
        self.handler.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        kernel = self.socket.received_at if self.socket is not None else None
        self.at = kernel if kernel is not None and now - _STAMP_SANITY_S < kernel <= now else now
        self.handler.data_received(data)

    def eof_received(self) -> bool | None:
        return self.handler.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self.socket = None
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


def stamping_site(runner: StampingRunner, host: str, port: int) -> web.BaseSite:
    """The site the simulator listens through: on a :func:`kernel_stamp_listener` where
    the kernel keeps receive stamps, else aiohttp's own TCP site."""
    listener = kernel_stamp_listener(host, port)
    if listener is None:
        return web.TCPSite(runner, host, port)
    return web.SockSite(runner, listener)


def arrived(request: web.Request) -> float:
    """When ``request`` arrived: the stamp of its connection's last read (now, when the
    connection was not opened through :class:`StampingRunner`)."""
    transport = request.transport
    protocol = transport.get_protocol() if transport is not None else None
    if isinstance(protocol, ArrivalStamps) and protocol.at is not None:
        return protocol.at
    return time.perf_counter()
