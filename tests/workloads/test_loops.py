"""Ctrl-C during a workload stops it on either event loop, wherever the signal lands: also
inside a protocol callback, where uvloop takes an exception for a transport error."""

from __future__ import annotations

import asyncio
import importlib.util
import signal
import socket
from typing import Any

import pytest

from benchdoc.workloads.loops import run_on

LOOPS = ["asyncio", pytest.param("uvloop", marks=pytest.mark.skipif(
    importlib.util.find_spec("uvloop") is None, reason="uvloop is not installed"))]


class _CtrlCWhileReading(asyncio.BufferedProtocol):
    """Reads into a buffer like the load generator's reader; Ctrl-C arrives inside its
    first get_buffer, as it can at any moment of a real run."""

    def __init__(self) -> None:
        self.buffer = bytearray(1024)
        self.received = 0
        self.signalled = False
        self.lost: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def get_buffer(self, sizehint: int) -> memoryview:
        if not self.signalled:
            self.signalled = True
            signal.raise_signal(signal.SIGINT)
        return memoryview(self.buffer)

    def buffer_updated(self, nbytes: int) -> None:
        self.received += nbytes

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            self.lost.set_result(None)


async def _read_while_ctrl_c(seconds: float) -> str:
    """Serve a few chunks on loopback and read them; return how the reading ended."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for _ in range(20):
            writer.write(b"x" * 64)
            await writer.drain()
            await asyncio.sleep(seconds / 20)
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    loop = asyncio.get_running_loop()
    try:
        sock = socket.create_connection(("127.0.0.1", port))
        sock.setblocking(False)
        _, protocol = await loop.create_connection(_CtrlCWhileReading, sock=sock)
        await asyncio.wait_for(protocol.lost, timeout=10 * seconds)
        return f"read to the end ({protocol.received} bytes)"
    finally:
        server.close()


@pytest.mark.parametrize("event_loop", LOOPS)
def test_ctrl_c_inside_a_protocol_callback_stops_the_workload(event_loop: str) -> None:
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    outcome: Any = None
    with pytest.raises(KeyboardInterrupt):
        outcome = run_on(event_loop, _read_while_ctrl_c(1.0))
    assert outcome is None  # not measured on to the end
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Python's own handler is back


@pytest.mark.parametrize("event_loop", LOOPS)
def test_a_workload_left_alone_returns_its_result(event_loop: str) -> None:
    async def work() -> int:
        await asyncio.sleep(0.01)
        return 7

    assert run_on(event_loop, work()) == 7
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
